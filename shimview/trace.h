/*
 * trace.h -- a shim trace (docs/trace-format.md) as shimview reads it: the profile's
 * `trace` member, the file's header, and its records, one at a time.
 *
 * A trace can hold millions of records, so nothing here keeps them: trace_next() hands
 * out one record at a time from a fixed buffer, and every command that reads a trace
 * (timeline, the perfetto and csv exports) folds each record into a bounded summary as
 * it passes. Opening a trace reads its header, checks it against the profile (the slots
 * and rates a record holds, the pid that wrote it), and reads the first and the last
 * record, so that the span is known before the first pass.
 *
 * The profile holds what a record needs to be read: slot names, value names, rates and
 * the TSC frequency, whose calibrated value (`machine.tsc.hz`) is used for every time;
 * the header's is only what the observer measured at start.
 */
#ifndef SHIMVIEW_TRACE_H
#define SHIMVIEW_TRACE_H

#include "profile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_HEADER_BYTES   64
#define TRACE_FORMAT_VERSION 1
#define TRACE_FIXED_WORDS    5 /* seq, start, cycles, flags, thread */

/* Bits of a record's flags. */
#define TRACE_ATTRIBUTED 0x1u /* not interrupted */
#define TRACE_RATED      0x2u /* the same thread at both ends */
#define TRACE_KEPT       0x4u /* kept by DTE */
#define TRACE_OTHER      0x8u /* the tag table was full */

/* The profile's `trace` member. */
struct trace_info {
    const char *path; /* as written: absolute, or relative to where the program ran */
    uint64_t records, dropped_full, dropped_limit, max_bytes, record_words;
};

struct trace_record {
    uint64_t seq, start, cycles, flags, thread;
    uint64_t dropped;     /* periods missing just before this one: a gap in seq */
    const uint64_t *tags; /* n_tags values, in the order of signals.tags */
    const double *rates;  /* n_rates values, in the order of rates; NaN: none */
};

struct trace {
    char *path; /* the file read (resolved) */
    FILE *f;
    uint32_t version, record_words, n_tags, n_rates;
    double header_tsc_hz;
    double tsc_hz; /* the profile's machine.tsc.hz: the one to use */
    uint64_t first_tsc, pid;
    uint64_t nrecords; /* whole records in the file; a trailing partial one is ignored */
    uint64_t t0;       /* start of the first record: time 0 of every figure and export */
    uint64_t t_end;    /* end of the last record (start + cycles) */
    /* reading */
    unsigned char *buf;
    size_t buf_records, buf_count, buf_pos;
    uint64_t read, last_seq;
    uint64_t *words;
    double *rates;
};

/* The profile's `trace` member: 1 with *ti filled, 0 when the profile has none, -1 with a
 * message in err when the member is malformed or disagrees with the profile. */
int trace_info_read(const struct profile *p, struct trace_info *ti, char *err, size_t errlen);

/* Open the trace the profile names (`override`, when not NULL, instead), check its
 * header against the profile and read its first and last record. A relative path from
 * the profile is tried as given, then in the profile's directory. 0, or -1 with a
 * message in err naming the file. */
int trace_open(struct trace *t, const struct profile *p, const struct trace_info *ti,
               const char *override, char *err, size_t errlen);

/* The next record: 1, 0 at the end, -1 with a message (a read error). The record's
 * arrays stay valid until the next call. */
int trace_next(struct trace *t, struct trace_record *r, char *err, size_t errlen);

void trace_close(struct trace *t);

/* TSC cycles as seconds, at the profile's frequency. */
static inline double trace_seconds(const struct trace *t, double cycles)
{
    return cycles / t->tsc_hz;
}

/* What the trace commands share: load the profile `file`, read its trace member, open
 * the trace (`override` instead when not NULL). 0, or an exit status after a message
 * (commands.h); *p is NULL then. */
int trace_command_open(const char *file, const char *override, struct profile **p,
                       struct trace_info *ti, struct trace *t);

/* ---- the names of tag values ---- */

/* What each (slot, value) is called, from the profile's tag entries. */
struct value_name {
    uint64_t value;
    const char *name;
};

struct value_names {
    const struct profile *p;
    size_t *n;                   /* per slot */
    struct value_name **by_slot; /* per slot, sorted by value */
    char **owned;                /* names made here (functions, contexts, loops), to free */
    size_t nowned, cap_owned;
};

/* Open for reading a file a profile names (a trace, a source file). Whatever is at the
 * path, this never waits (a FIFO planted there would hang the command), and what is not
 * a regular file is refused: the stream, or NULL with *err an errno or
 * NAMED_NOT_REGULAR, which named_file_strerror() words. */
#define NAMED_NOT_REGULAR (-1)
FILE *named_file_open(const char *path, int *err);
const char *named_file_strerror(int err);

/* A path a profile names (a trace, a source file), to be read: as given when it exists,
 * is absolute, or is not from_profile (the user typed it), else in the profile's
 * directory when it exists there. Allocated; NULL if memory ran out. */
char *profile_resolve_path(const struct profile *p, const char *given, int from_profile);

/* 0, or -1 if memory ran out. */
int value_names_init(struct value_names *vn, const struct profile *p);
void value_names_free(struct value_names *vn);

/* The name of value in slot: its name from the profile, else as tag_value_label(). */
const char *value_names_get(const struct value_names *vn, size_t slot, uint64_t value, char *buf,
                            size_t len);

/* A frame or slice name: name when there is one, else "slotname=value" (0:
 * TAG_VALUE_UNSET, tags.h), in buf. */
const char *tag_value_label(const char *slot_name, const char *name, uint64_t value, char *buf,
                            size_t len);

#endif /* SHIMVIEW_TRACE_H */
