/*
 * observer.h -- the sampling engine: one observer thread's state and its loop.
 *
 * The coordinator builds a probe plan and parameters, calls observer_init() (which
 * allocates everything the loop will ever touch), starts a pinned thread that calls
 * observer_run(), and later sets the stop flag with observer_request_stop() and joins.
 * After that, every field may be read: the results are the totals, the three log
 * histograms and the tag table.
 */
#ifndef SHIM_OBSERVER_OBSERVER_H
#define SHIM_OBSERVER_OBSERVER_H

#include <stdint.h>

#include "observer/chain_store.h"
#include "observer/handover.h"
#include "formats/trace.h"
#include "observer/loghist.h"
#include "observer/probe_plan.h"
#include "observer/tag_table.h"
#include "signals/stackwalk.h"
#include "observer/trace_ring.h"

/* Words of a trace record for this plan: seq, start, cycles, flags, thread, tags, rates;
 * the record's flags are formats/trace.h's (docs/trace-format.md). */
static inline unsigned trace_record_words(const struct probe_plan *p)
{
    return TRACE_FIXED_WORDS + p->n_tags + p->n_rates;
}

struct observer_params {
    uint64_t period;         /* target TSC cycles between start markers; 0: no waiting */
    double jitter;           /* wait uniform in period * [1 - jitter, 1 + jitter] */
    double dte_tolerance;    /* |CPC - 1| allowed */
    uint64_t dte_resolution; /* skews up to this many cycles always pass (the TSC step) */
    int dte_off;             /* keep every rated period */
    uint32_t max_tags;       /* the store's limit in tuples */
    uint32_t max_detail;     /* tuples that may have rate histograms (tag_table.h) */
    /* A period longer than this means the observer itself was interrupted (preempted,
     * or its CPU took an interrupt): the tags read at its start say nothing about most of
     * it, so it is counted but attributed to nothing. */
    uint64_t max_period;
    struct hist_spec hist;
    uint64_t seed;        /* for the period jitter */
    uint64_t slow_period; /* TSC cycles between reads of the slow counters */
    /* Where the tag tables' time batches start (a TSC value, the same for every observer
     * of a run so their batches line up); 0: the observer's first sample. */
    uint64_t batch_origin;
    /* Every `breath_every` TSC cycles (0: never) the observer steps off its CPU for
     * `breath_ns` nanoseconds, between two samples: see observer_run. */
    uint64_t breath_every;
    uint64_t breath_ns;
};

struct observer_totals {
    uint64_t total;       /* periods observed */
    uint64_t interrupted; /* periods longer than max_period: not attributed */
    uint64_t straddled;   /* attributed periods in which the tuple changed: not rated */
    uint64_t rated;       /* attributed periods with one tuple at both ends */
    uint64_t kept, discarded;
    uint64_t thread_changes;
    uint64_t other; /* periods that went to the `other` entry */
    /* Slow counters: spans between two of their reads, and of those the spans whose every
     * sample read the same tags, which alone carry the slow counters' rates. */
    uint64_t slow_spans, slow_attributed;
};

/* What became of the periods attributed while paths were read (each is one of them). */
struct path_totals {
    uint64_t resolved;    /* went to the path that was executing */
    uint64_t overwritten; /* the ring had wrapped before the path could be read back */
    uint64_t pending;     /* the path had not completed when the observer stopped */
    uint64_t dropped;     /* the waiting room was full: a period older than
                             OBSERVER_PENDING periods whose path had still not completed */
    uint64_t none;        /* the thread had no path ring (not attached, another process) */
    uint64_t pathless;    /* the function executing appends no paths (plan.pathed) */
};

/* Periods that may wait for their path to complete. */
#define OBSERVER_PENDING 1024
/* Ring entries of other functions' paths passed over per period, at most, while the
 * waiting periods look for their own (path_settle): each is a read of a line the program
 * wrote, a cache miss; a caller's period behind a callee completing a path every few
 * cycles would otherwise read hundreds a period, and the observer's periods would grow
 * until they counted as interrupted. A look that falls behind ends as `overwritten`. */
#define OBSERVER_PATH_SCAN 32

/* How often and for how long the observer steps off its CPU (observer_run). */
#define OBSERVER_BREATHS_PER_SECOND   20
#define OBSERVER_BREATH_NS            50000
#define OBSERVER_BREATH_EVERY_UNKNOWN 100000000 /* TSC cycles, when its rate is not known */

/* Sampling as fast as it can, the observer aggregates every OBSERVER_AGGREGATE TSC
 * cycles, or after OBSERVER_BATCH samples if that comes first. */
#define OBSERVER_BATCH     256
#define OBSERVER_AGGREGATE 8192

struct observer {
    struct probe_plan plan;
    uint64_t hw_last[PROBE_MAX_COUNTERS]; /* each counter's last count (probe_hw.last) */
    struct observer_params params;
    struct tag_table tags;
    struct loghist period; /* Cs_n - Cs_n-1, every period */
    struct loghist gap;    /* between consecutive kept samples */
    struct loghist cpc;    /* every rated period, before DTE */
    struct observer_totals totals;
    uint64_t first_tsc, last_tsc;
    double cpu_seconds; /* observer thread CPU time spent in observer_run */
    uint64_t breaths;   /* times it stepped off its CPU */
    unsigned path_scan; /* ring entries this period may still pass over (path_settle) */
    /* The last look for a function's path: the ring's entries [from, to) are others'. */
    struct path_scan_memo {
        uint64_t fn, from, to;
        const void *ring;
    } scan_memo;
    uint64_t breath_every; /* params.breath_every; never: UINT64_MAX */
    /* Tag i begins a pair the program writes together (slots 2k and 2k + 1 at tags i and
     * i + 1): take_sample reads the two with one 16-byte load. Decided once, here. */
    unsigned char tag_pair[SHIM_TAG_SLOTS];
    /* 1 + the index among the tags of the loop word (slot 10); 0: not a tag. With
     * plan.method_from_loop its function is the sample's (read by itself when it is not
     * a tag); with a stack walk, the word read with the frame replaces it, so that the
     * sample's loop is its function's. */
    unsigned loop_tag;
    /* The method tag and the next (slot 9, the hooks' context) are read as a pair. */
    int method_pair;
    uint64_t *batch;                          /* OBSERVER_BATCH samples of `stride` words */
    unsigned stride;                          /* words per sample */
    unsigned key_offset;                      /* where the tag-table key starts in a sample */
    unsigned time_offset[PROBE_MAX_COUNTERS]; /* each reading's timestamp in a sample */
    unsigned n_fast;                          /* hardware readings read in every sample */
    unsigned char rate_slow[PROBE_MAX_RATES]; /* the rate uses a slow counter */
    uint64_t slow_last;                       /* start marker of the last slow read */
    uint64_t *span;                           /* the sample that began the current span */
    int span_open, span_clean;
    int key_steady; /* the last period's two samples read the same tuple */
    /* Paths (plan.paths): a period waits in `pending` (prev and cur samples, one
     * word of flags) until the path it sampled has completed, then goes into `paths`,
     * keyed (thread, function, path number). */
    struct tag_table paths;
    uint64_t *pending;
    unsigned pending_first, pending_n, path_offset; /* ring head, then the ring itself */
    unsigned block_offset;                          /* in a sample: the block its words came from */
    struct path_totals path_totals;
    /* Calling contexts from stack walks (plan.walk_tag): every chain found. */
    struct chain_store chains;
    struct chain_walk_frames walk; /* the walk under way */
    /* The block of the thread last looked up (NULL: it has none). */
    uint64_t block_tid;
    unsigned block_index;
    const struct shim_block *block;
    /* Per block: the thread id of its owner once the owner has published a frame (a
     * thread that writes the frame signal; walk_context), else 0. */
    uint64_t frames_tid[SIGNAL_BLOCK_POOL];
    /* Tracing (NULL: off): every period goes into this ring, set by the coordinator
     * before the observer runs; trace_rate holds the period's rates meanwhile. */
    struct trace_ring *trace;
    double trace_rate[PROBE_MAX_RATES];
    /* Cuts (observer_cut.h): a record offered here is taken at the next batch boundary;
     * the totals at the last cut, for whether an entry of the new tables earned a detail
     * record (tag_table_wants_detail counts the samples since the cut). */
    struct handover cut;
    uint64_t cut_total, cut_resolved;
    /* Written once by the coordinator, read by the loop: its own cache line. */
    _Alignas(64) uint64_t stop;
    char pad[56];
};

/* The default max_period: 4 times the longest wait the throttle can choose, and never
 * below 20000 cycles (several microseconds: an interrupt, not a slow iteration). */
uint64_t observer_default_max_period(uint64_t period, double jitter);

/* Allocates and touches all tables; returns 0 or -1 (out of memory / bad sizes). */
int observer_init(struct observer *o, const struct probe_plan *plan,
                  const struct observer_params *params);
void observer_free(struct observer *o);

/* Adds everything observer src found (its totals, histograms, tags and paths) to dst;
 * both were made from plans of the same shape and have stopped. The run's span becomes
 * the union of the two. */
void observer_merge(struct observer *dst, const struct observer *src);

/* The loop: runs on the calling thread until observer_request_stop(). */
void observer_run(struct observer *o);
void observer_request_stop(struct observer *o);

#endif
