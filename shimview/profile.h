/*
 * profile.h -- a shim profile (docs/profile-format.md, version 1) loaded into C structs.
 *
 * profile_load() reads a file and profile_load_buffer() takes bytes already in memory;
 * both parse them with jansson, check every member the format defines (type, range, and
 * the invariants the format states), and fill the structs below. A profile that loads is
 * safe to use without further checks: array lengths agree with the top-level `signals`
 * and `rates`, counts are below 2^63, numbers are finite, and every string is valid UTF-8
 * without NUL bytes. Anything else is refused with one line naming the file and the JSON
 * path of the offending member.
 *
 * Strings point into the parsed JSON document, which the profile keeps (`root`) until
 * profile_free(); commands that want a member this version does not model can read it
 * from there. Members the format marks optional, or that may be absent in a legal
 * profile, have a `has_` flag.
 */
#ifndef SHIMVIEW_PROFILE_H
#define SHIMVIEW_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The newest format version this reader knows. */
#define PROFILE_FORMAT_VERSION 1

/* The largest file profile_load() reads, a whole number of MiB. A larger one is refused
 * from its size, before it is read, so a wrong argument cannot make shimview read a disk
 * image into memory; with the default settings shim writes far less. */
#define PROFILE_MAX_BYTES ((size_t)1 << 30)

/* The name profile_load() gives standard input ("-") in messages and in profile.file. */
#define PROFILE_STDIN_NAME "<stdin>"

/* A log histogram (`period`, `gap`, `cpc`): non-empty geometric buckets [lo, hi). */
struct profile_log_bucket {
    double lo, hi;
    uint64_t count;
};

struct profile_loghist {
    const char *unit; /* "" when absent (cpc is unitless) */
    uint64_t count, underflow, overflow;
    int has_summary; /* min..p90 present (they may be absent when count is 0) */
    double min, max, mean, median, p10, p90;
    size_t nbuckets;
    struct profile_log_bucket *buckets;
};

/* A linear rate histogram: `buckets` equal buckets over [lo, hi), stored sparsely. */
struct profile_lin_count {
    uint64_t index; /* < buckets */
    uint64_t count;
};

struct profile_linhist {
    uint64_t buckets; /* >= 1 */
    double lo, hi;    /* lo < hi */
    uint64_t underflow, overflow, nan;
    size_t ncounts;
    struct profile_lin_count *counts;
};

/* One rate of one tag entry, in the order of profile.rates. For one kept period,
 * a = delta(counter) * scale, b = its TSC cycles and r = a / b. */
struct profile_rate_stats {
    uint64_t n;    /* kept periods with a finite rate */
    int has_stats; /* the members below are present: always when n > 0 (when n is 0 the
                    * format leaves them out, and they read as 0) */
    double rate;   /* sum_a / sum_b: the ratio estimate, the figure to quote */
    double sum_a, sum_b, sum_aa, sum_bb, sum_ab;
    double mean, sum, sumsq, min, max; /* of the per-period rates r */
    struct profile_linhist hist;       /* of r */
};

/* One slot of a tag entry's `by` array: the kept periods whose rate X fell in the slot,
 * and rate Y's sums of a and b over them (so sum_a / sum_b is Y there). */
struct profile_by_slot {
    uint64_t count;
    double sum_a, sum_b; /* >= 0 */
};

/* The top-level `by`: rate Y (`rate`) bucketed by rate X (`by`). Slot 0 holds X below lo,
 * slot 1 + i the i-th of `buckets` equal buckets of [lo, hi), the last slot hi and above. */
struct profile_by {
    size_t rate, by;  /* indices into profile.rates: Y and X */
    uint64_t buckets; /* >= 1; every entry has buckets + 2 slots */
    double lo, hi;    /* lo < hi */
};

/* A module the process had loaded when the profile was written (`modules`). */
struct profile_module {
    const char *path, *build_id; /* build_id "" when the module has none */
    uint64_t base;               /* run-time address = base + offset */
};

/* A function the calling context refers to (`functions`). */
struct profile_function {
    uint64_t id;          /* what cct nodes refer to it by; distinct */
    uint64_t address;     /* its run-time address: slot 8's value while it ran; distinct */
    uint64_t offset;      /* in its module (the value nm prints); the address without one */
    const char *module;   /* a path in `modules`, or NULL: in no module */
    const char *build_id; /* NULL with a NULL module */
    const char *name;     /* its symbol, or NULL when none names it */
};

/* One calling context: row i of a thread's `nodes`. Row 0 is the root (the thread
 * outside every instrumented function), row 1 the overflow node; both have no function.
 * A path from the root names each function at most once (recursion folds). */
struct profile_cct_node {
    size_t parent;                           /* a smaller row; 0 for rows 0 and 1 */
    const struct profile_function *function; /* NULL for rows 0 and 1 */
    int has_site;                            /* the call site is known */
    uint64_t site; /* return address into the caller, as an offset in its module */
};

struct profile_cct_thread {
    uint64_t index; /* the upper 32 bits of slot 9's value; distinct */
    uint64_t tid;   /* its kernel thread id */
    uint64_t overflow;
    size_t nnodes; /* >= 2 */
    struct profile_cct_node *nodes;
};

/* The calling-context trees (`cct`): which tag slots held the function and the context,
 * where those slots are in signals.tags (and so in every entry's values), the trees. */
struct profile_cct {
    uint64_t method_slot, cct_slot;
    size_t method_tag, cct_tag;
    size_t nthreads;
    struct profile_cct_thread *threads;
};

/* A tag entry: one tuple of tag values (or the `other` entry). */
struct profile_tag {
    int is_other;
    uint64_t thread;    /* the thread word (tid); 0 for `other` without one */
    size_t nvalues;     /* == profile.signals.ntags, 0 for `other` */
    uint64_t *values;   /* as written; a negative JSON integer is read modulo 2^64 */
    const char **names; /* per value: the name, or NULL */
    uint64_t samples, cycles, kept;
    double share;                     /* samples / samples.total, as written */
    struct profile_rate_stats *rates; /* profile.nrates entries */
    struct profile_by_slot *by;       /* profile.by.buckets + 2 slots when profile.has_by,
                                       * else NULL */
    /* With `cct` (else NULL): the function whose address slot 8 held (NULL also when it
     * held 0, outside every instrumented function, or an address `functions` does not
     * list), and the context slot 9 held: a node of context_thread's tree. A value of 0
     * (a thread that had entered no instrumented function) is the root of the thread
     * whose tid is the entry's thread word, or no context when no tree has that tid. */
    const struct profile_function *function;
    const struct profile_cct_thread *context_thread;
    size_t context_node;
};

struct profile_program {
    const char *path, *name;
    uint64_t pid;
    size_t argc;
    const char **argv;
};

struct profile_config {
    const char *output;
    uint64_t period, max_tags;
    uint64_t dte_resolution; /* skews up to this many cycles pass DTE (0 if absent) */
    double jitter, dte_tolerance;
    int64_t observer_cpu; /* -1: chosen by shim */
    int dte_off, strict;
    size_t ntag_slots, ncounter_slots;
    uint64_t *tag_slots, *counter_slots;
    uint64_t hist_buckets;
    double hist_lo, hist_hi;
};

struct profile_pu {
    uint64_t os_index, core, package;
};

struct profile_machine {
    const char *cpu_model, *vendor, *hostname, *kernel, *hwloc_version;
    uint64_t packages, cores, pus;
    int smt;
    size_t npu;
    struct profile_pu *pu;
    double tsc_hz;     /* > 0 */
    uint64_t tsc_step; /* smallest non-zero TSC increment seen */
    const char *tsc_source;
    int tsc_invariant;
};

struct profile_placement {
    uint64_t observed_cpu, observer_cpu, observed_tid;
    const char *relation, *shared;
    size_t nallowed;
    uint64_t *allowed_cpus;
};

struct profile_run {
    uint64_t start_unix_ns, duration_ns, tsc_cycles;
};

struct profile_tag_slot {
    uint64_t slot;
    const char *name;
};

struct profile_counter {
    uint64_t slot, width;
    const char *name, *kind;
    const char *event; /* NULL unless present (hardware counters) */
    double scale;
};

struct profile_signals {
    size_t ntags;
    struct profile_tag_slot *tags;
    size_t ncounters;
    struct profile_counter *counters;
};

struct profile_rate {
    const char *name, *counter, *unit;
    double scale;
};

struct profile_samples {
    uint64_t total, interrupted, max_period, rated, kept, discarded, thread_changes, other;
    uint64_t distinct_tags;
};

struct profile_cost {
    double samples_per_second, observer_cpu_seconds, observer_cpu_share;
    uint64_t tag_table_bytes;
};

struct profile {
    const char *file; /* the path or name the profile was loaded as (not owned) */
    json_t *root;     /* the parsed document; strings below point into it */
    uint64_t version;
    const char *shim_version;
    struct profile_program program;
    struct profile_config config;
    struct profile_machine machine;
    struct profile_placement placement;
    struct profile_run run;
    struct profile_signals signals;
    size_t nrates;
    struct profile_rate *rates;
    int has_by; /* the optional `by`; absent: no entry has `by` */
    struct profile_by by;
    struct profile_samples samples;
    struct profile_loghist period, gap, cpc;
    struct profile_cost cost;
    size_t ntags;
    struct profile_tag *tags; /* in file order (the format sorts them by samples) */
    struct profile_tag other;
    size_t nmodules, nfunctions; /* 0 when absent */
    struct profile_module *modules;
    struct profile_function *functions;
    int has_cct; /* the optional `cct`: a calling-context profile */
    struct profile_cct cct;
};

/* Load and validate the profile at path, or standard input when path is "-" (named
 * PROFILE_STDIN_NAME then); more than PROFILE_MAX_BYTES is refused. Returns the profile,
 * or NULL with a one-line message (no trailing newline) such as "run.json: tags[3].samples:
 * expected a non-negative integer, found a string" in err. */
struct profile *profile_load(const char *path, char *err, size_t errlen);

/* The same from len bytes at data (no terminating NUL needed), which the caller may free
 * once this returns. name stands for the file in messages and becomes profile.file; it
 * must outlive the profile. */
struct profile *profile_load_buffer(const char *data, size_t len, const char *name, char *err,
                                    size_t errlen);

void profile_free(struct profile *p);

/* The sum of `cycles` over every tag entry and `other`: the observed span that the
 * entries share among themselves (saturates at UINT64_MAX). */
uint64_t profile_total_cycles(const struct profile *p);

#endif /* SHIMVIEW_PROFILE_H */
