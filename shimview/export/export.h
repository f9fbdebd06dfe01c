/*
 * export.h -- what the formats of `shimview export` share, sectioned by the file that
 * defines each part.
 *
 * Two formats read the trace (perfetto, csv) and stream it; two read only the profile's
 * tag entries (pprof, folded) and show each tag tuple as a stack: its calling context's
 * path when the profile has one, else its slots' values as frames, outermost the lowest
 * slot, so flame-graph tools draw slot 0 at the root.
 */
#ifndef SHIMVIEW_EXPORT_H
#define SHIMVIEW_EXPORT_H

#include "shimview/model/profile.h"
#include "shimview/model/trace.h"

#include <stddef.h>
#include <stdio.h>

/* ---- export.c ---- */

struct export_options {
    const char *format, *output, *trace, *file;
    const char *since; /* pprof, folded: the interval since this earlier profile of the run */
    int value_time;    /* folded: TSC cycles instead of samples */
    long max_events;   /* perfetto: counter events per rate at most (0: no limit) */
};

struct export_ctx {
    const struct export_options *o;
    const struct profile *p;
    struct trace_info ti; /* perfetto, csv */
    struct trace *t;      /* perfetto, csv; NULL for the others */
    /* pprof, folded: per signals.tags entry, whether its value is a frame: every slot
     * without a calling context; with one, the slots other than the two reserved ones
     * whose value is not the same in every entry. NULL for the trace formats. */
    unsigned char *slot_frame;
};

/* One frame of a stack: its name, and with a calling context the function it is. */
struct export_frame {
    const char *name;
    const struct profile_function *function; /* NULL: a tag value, or no function */
    char buf[256];                           /* where name is formatted when it must be */
};

/* A tag entry's stack, outermost frame first; reused from entry to entry. */
struct export_stack {
    size_t n, cap;
    struct export_frame *frames;
    size_t *nodes; /* room for a context's path */
};

/* Entry t's stack in s. With a calling context: the functions of the context's path from
 * the root's child down (one frame, CALLTREE_ROOT_NAME, outside every instrumented
 * function), then the values of the slots slot_frame marks; without one, a frame per
 * slot's value, lowest slot outermost. `other` is the frame "other", a tuple of no slot
 * "(untagged)". 0, or -1 if memory ran out. */
int export_stack(const struct export_ctx *x, const struct profile_tag *t, struct export_stack *s);
void export_stack_free(struct export_stack *s);

/* Which slots' values are frames (export_ctx.slot_frame); NULL if memory ran out. */
unsigned char *export_slot_frames(const struct profile *p);

/* The writers: 0, or EXIT_FILE_ERROR after a message. Write errors show in ferror(f). */
int export_folded(FILE *f, const struct export_ctx *x);
int export_csv(FILE *f, const struct export_ctx *x);

/* ---- export_perfetto.c ---- */

int export_perfetto(FILE *f, const struct export_ctx *x);

/* ---- export_pprof.c ---- */

int export_pprof(FILE *f, const struct export_ctx *x);

#endif /* SHIMVIEW_EXPORT_H */
