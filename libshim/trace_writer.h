/*
 * trace_writer.h -- SHIM_TRACE: the ring the observer fills and the thread that writes
 * it to the trace file (docs/trace-format.md).
 */
#ifndef SHIM_LIBSHIM_TRACE_WRITER_H
#define SHIM_LIBSHIM_TRACE_WRITER_H

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "formats/trace.h"
#include "observer/observer.h"

struct trace_writer {
    struct trace_ring ring;
    int fd;
    char path[PATH_MAX];
    char tmp_path[PATH_MAX + 32]; /* written here, renamed to path at the stop ("" once not) */
    uint64_t max_bytes, bytes;    /* the file's limit, and what is written (header too) */
    uint64_t records;             /* written */
    uint64_t dropped_full;        /* the observer found the ring full (at stop) */
    uint64_t dropped_limit;       /* not written: the size was reached, or a write failed */
    int error;                    /* the errno of a failed write, or 0 */
    uint64_t *block;              /* records copied out of the ring, then written */
    pthread_t thread;
    int running, stop;
};

/* Create a new file beside `path` (nothing found at `path` is opened), write the header,
 * start the thread on `cpus`. 0, or -1 with the reason in why (nothing left open or
 * created). */
int trace_writer_start(struct trace_writer *w, const char *path, uint64_t max_bytes,
                       const struct probe_plan *plan, double tsc_hz, uint64_t first_tsc, long pid,
                       const cpu_set_t *cpus, char *why, size_t whylen);

/* After the observer has stopped: write what is left, join the thread, close the file
 * and rename it to its path (a failure is w->error; its records then count as not
 * recorded). */
void trace_writer_stop(struct trace_writer *w);

/* Stop if running, and release everything. */
void trace_writer_free(struct trace_writer *w);

/* In a child of fork(): close the child's copy of the file, which stays the parent's to
 * write, rename or remove; the writer thread did not come along. */
void trace_writer_after_fork_child(struct trace_writer *w);

#endif
