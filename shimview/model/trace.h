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

#include "formats/trace.h"
#include "shimview/model/profile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * (usage.h); *p is NULL then. */
int trace_command_open(const char *file, const char *override, struct profile **p,
                       struct trace_info *ti, struct trace *t);

#endif /* SHIMVIEW_TRACE_H */
