/*
 * export.h -- what the formats of `shimview export` share (export.c).
 *
 * Two formats read the trace (perfetto, csv) and stream it; two read only the profile's
 * tag entries (pprof, folded) and show each tag tuple as a stack, its slots' values as
 * frames, outermost the lowest slot, so flame-graph tools draw slot 0 at the root.
 */
#ifndef SHIMVIEW_EXPORT_H
#define SHIMVIEW_EXPORT_H

#include "profile.h"
#include "trace.h"

#include <stddef.h>
#include <stdio.h>

struct export_options {
    const char *format, *output, *trace, *file;
    int value_time;  /* folded: TSC cycles instead of samples */
    long max_events; /* perfetto: counter events per rate at most (0: no limit) */
};

struct export_ctx {
    const struct export_options *o;
    const struct profile *p;
    struct trace_info ti; /* perfetto, csv */
    struct trace *t;      /* perfetto, csv; NULL for the others */
};

/* Frames of tag entry t's stack: one per slot, or one ("other", "(untagged)"). */
size_t export_stack_depth(const struct export_ctx *x, const struct profile_tag *t);
/* Frame i (0: outermost) of t's stack, in buf. */
const char *export_frame(const struct export_ctx *x, const struct profile_tag *t, size_t i,
                         char *buf, size_t len);

/* The writers: 0, or EXIT_FILE_ERROR after a message. Write errors show in ferror(f). */
int export_perfetto(FILE *f, const struct export_ctx *x);
int export_pprof(FILE *f, const struct export_ctx *x);

#endif /* SHIMVIEW_EXPORT_H */
