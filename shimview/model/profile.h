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

#include "formats/profile.h"

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The newest format version this reader knows: PROFILE_FORMAT_VERSION (formats/profile.h). */

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
    /* the quantile is a value that was added (`exact`), not a bucket's midpoint */
    int median_exact, p10_exact, p90_exact;
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
    uint64_t n;       /* kept periods with a finite rate; without a distribution, periods */
    uint64_t periods; /* kept periods in the sums */
    int has_dist;     /* the entry had a detail record: mean to max and hist are present */
    int has_stats;    /* the sums below are present: always when periods > 0 (when it is 0
                       * the format leaves them out, and they read as 0) */
    double rate;      /* sum_a / sum_b: the ratio estimate, the figure to quote */
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

/* The compiler pass's side table of one function (`functions[].pass`, docs/compiler-
 * pass.md): its loops, its basic blocks, and the edges of the acyclic graph its
 * Ball-Larus path numbers were computed on, from which a path number gives back its
 * blocks (paths.h). Nodes of that graph are block indices, PASS_NODE_ENTRY and
 * PASS_NODE_EXIT. */
#define PASS_NODE_ENTRY (-1)
#define PASS_NODE_EXIT  (-2)

enum pass_edge_kind {
    PASS_EDGE_ENTRY,  /* ENTRY -> block 0 */
    PASS_EDGE_EDGE,   /* a control-flow edge between two blocks, not a back edge */
    PASS_EDGE_START,  /* ENTRY -> a loop header: a path that begins after a back edge */
    PASS_EDGE_END,    /* a back edge's source -> EXIT: a path that ends going round a loop */
    PASS_EDGE_RETURN, /* a returning block -> EXIT */
};

struct pass_loop {
    uint64_t loop;    /* its number, the L of the loop signal: 1, 2, ... */
    const char *file; /* NULL: unknown */
    uint64_t line;    /* 0: unknown */
    uint64_t parent;  /* the number of the loop around it; 0: none */
    uint64_t depth;   /* 1 for an outermost loop */
    uint64_t header;  /* its header's block index */
};

struct pass_block {
    const char *name; /* the IR block's name, "" when it has none */
    const char *file; /* NULL: unknown (the function's file, if any, is the best guess) */
    size_t nlines;
    uint64_t *lines; /* its distinct source lines, in order of first appearance */
};

struct pass_edge {
    int64_t from, to; /* block indices, PASS_NODE_ENTRY or PASS_NODE_EXIT */
    uint64_t val;     /* what the edge adds to the path number */
    enum pass_edge_kind kind;
};

struct profile_pass {
    const char *name, *file; /* file NULL: unknown */
    uint64_t line;
    uint64_t paths;       /* acyclic paths from ENTRY to EXIT; 0: no path numbering */
    const char *fallback; /* why it has none (too many paths), or NULL */
    size_t nloops, nblocks, nedges;
    struct pass_loop *loops;   /* sorted: loops[i] is loop number i + 1 */
    struct pass_block *blocks; /* block 0 is the entry block */
    struct pass_edge *edges;   /* sorted by from (ENTRY first), then by val */
    size_t *out;  /* node v's outgoing edges are edges[out[v + 1] .. out[v + 2]) for v from
                   * ENTRY to the last block */
    uint64_t *np; /* per node v (v + 2: EXIT, ENTRY, the blocks): the paths from v to EXIT,
                   * saturating at UINT64_MAX; np[1] == paths when paths > 0 */
};

/* A function the calling context refers to (`functions`). */
struct profile_function {
    uint64_t id;          /* what cct nodes refer to it by; distinct */
    uint64_t address;     /* its run-time address: slot 8's value while it ran; distinct */
    uint64_t offset;      /* in its module (the value nm prints); the address without one */
    const char *module;   /* a path in `modules`, or NULL: in no module */
    const char *build_id; /* NULL with a NULL module */
    const char *name;     /* its symbol, or NULL when none names it; demangled on load */
    const char *symbol;   /* when name was demangled: the symbol as written, else NULL */
    /* the compiler pass's table, or NULL */
    struct profile_pass *pass;
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
/* A word the -finstrument-functions hooks stored after an exit (cct.exits), as a trace's
 * records hold it, and the function the profile's entries named for it. */
struct profile_cct_exit {
    uint64_t word, fn;
};

struct profile_cct {
    uint64_t method_slot, cct_slot;
    size_t method_tag, cct_tag;
    size_t nthreads;
    struct profile_cct_thread *threads;
    size_t nexits;
    struct profile_cct_exit *exits; /* sorted by word */
};

/* A tuple's counts per time batch (`detail.batches`): batch j holds what happened in the
 * j-th of profile.batches.count equal spans of the run. The record was given during
 * batch `first`; the batches before it hold nothing of the tuple and batch `first` only
 * part of it, so the batches after it are the ones that describe the tuple. */
struct profile_batches {
    uint64_t first;
    uint64_t *samples; /* count */
    double *a, *b;     /* per rate r, count each: rate r's sums at [r * count + j] */
};

/* A tag entry: one tuple of tag values (or the `other` entry). */
struct profile_tag {
    int is_other;
    uint64_t thread;    /* the thread word (tid); 0 for `other` without one */
    size_t nvalues;     /* == profile.signals.ntags, 0 for `other` */
    uint64_t *values;   /* as written; a negative JSON integer is read modulo 2^64 */
    const char **names; /* per value: the name, or NULL */
    uint64_t samples, cycles, kept;
    uint64_t straddled;    /* periods not rated: the tuple changed within them */
    int has_detail;        /* the distributions (rates[].has_dist) cover the periods after */
    uint64_t detail_since; /* this many samples */
    double share;          /* samples / samples.total, as written */
    struct profile_batches *batches;  /* with a detail record that has them, else NULL */
    struct profile_rate_stats *rates; /* profile.nrates entries */
    struct profile_by_slot *by;       /* profile.by.buckets + 2 slots when profile.has_by,
                                       * else NULL */
    /* With `cct` (else NULL): the function whose address slot 8 held (NULL also when it
     * held 0, outside every instrumented function, or an address `functions` does not
     * list), and the context slot 9 held: a node of context_thread's tree. A value of 0
     * (a thread that had entered no instrumented function) is the root of the thread
     * whose tid is the entry's thread word, or no context when no tree has that tid.
     * Without `cct`, function is set the same way when slot 8 is among signals.tags (the
     * compiler pass's method signal); in a path entry it is the path's function. */
    const struct profile_function *function;
    const struct profile_cct_thread *context_thread;
    size_t context_node;
    /* With a loop slot (profile.has_loop_slot): the function whose address slot 10 held
     * (NULL when it held 0 or an address `functions` does not list) and the loop number
     * (0: outside every loop; never more than the function's pass table has loops). */
    const struct profile_function *loop_function;
    uint64_t loop;
    /* In a folded view (match.h), an entry of more than one thread word: `thread` is then
     * only its first entry's. 0 in a profile as loaded. */
    int several_threads;
    /* In a folded view, an entry that folds one loaded entry: its rates, by and batches
     * are that entry's own, not copies, and go with the profile (match_entry_free leaves
     * them). 0 in a profile as loaded. */
    int borrowed;
};

/* The top-level `paths`: what became of the samples the observer tried to attribute to
 * a Ball-Larus path, and an entry per (thread, function, path) that got any. */
struct profile_paths {
    uint64_t ring, resolved, overwritten, pending;
    uint64_t pathless; /* periods in functions that number no paths (0 in older profiles) */
    size_t nentries;
    struct profile_tag *entries; /* values [function address, path]; function: the
                                  * path's function (NULL when `functions` lacks it) */
    int has_other;               /* `other`: samples of paths the table had no room for */
    struct profile_tag other;
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
    uint64_t hist_tuples;    /* tuples that may have rate histograms; 0 in older profiles */
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

/* A thread of the observed program (`placement.threads`). */
struct profile_thread {
    uint64_t tid; /* never 0: that is the idle task */
    const char *name;
};

/* One observer thread (`placement.observers`): the CPU it watched, its own, how the two
 * are related, and the samples it took (its table was added into the profile's). */
struct profile_observer {
    uint64_t observed_cpu, observer_cpu, samples;
    const char *relation, *shared;
};

struct profile_placement {
    uint64_t observed_cpu, observer_cpu, observed_tid;
    const char *relation, *shared;
    size_t nallowed;
    uint64_t *allowed_cpus;
    /* Which threads were observed (profile_threads.h); has_threads 0 in a profile written
     * before the list existed, whose every entry is the program's. threads_attached counts
     * the threads that joined after the first, which may be more than the list holds. */
    int has_threads;
    size_t nthreads;
    struct profile_thread *threads; /* the first observed thread, then each that joined */
    struct key_ref *thread_index;   /* their tids, sorted, for lookups (profile_cct.h) */
    uint64_t threads_attached;
    const char *identity_source; /* "bpf", "pinned", or NULL when absent */
    const char *identity_why;    /* why BPF was not used, or NULL */
    size_t nobservers;           /* 0 when absent */
    struct profile_observer *observers;
};

struct profile_run {
    uint64_t start_unix_ns, duration_ns, tsc_cycles;
    uint64_t snapshot; /* snapshot.number: which profile of a run writing snapshots (0: none) */
    double children_cpu_seconds; /* of the programs it started, while observed; 0 if absent */
    int children_observed;       /* whether those were observed (shimrun --children) */
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
    int slow; /* formed over spans between reads of the slow counters: its n counts spans */
};

struct profile_samples {
    uint64_t total, interrupted, max_period, rated, kept, discarded, thread_changes, other;
    uint64_t distinct_tags;
    uint64_t straddled;                /* attributed, not rated: the tuple changed within */
    uint64_t other_full, other_behind; /* why samples went to other (has_other_why) */
    int has_other_why;
};

struct profile_cost {
    double samples_per_second, observer_cpu_seconds, observer_cpu_share;
    uint64_t tag_table_bytes;
    uint64_t tag_entry_bytes; /* 0 in profiles from before compact entries */
};

struct profile {
    const char *file; /* the path or name the profile was loaded as (not owned) */
    json_t *root;     /* the parsed document; strings below point into it */
    json_t *strings;  /* strings a table file gave (its value names), or NULL */
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
    /* The time batches (`batches`; has_batches 0 in older profiles): `count` spans of
     * `cycles` TSC cycles from the start, and the attributed samples in each. */
    int has_batches;
    struct {
        uint64_t cycles;
        size_t count;
        uint64_t *samples;
    } batches;
    /* Design effects (intervals.h): how much wider than an independent-sample interval
     * the batch-means interval of a share (and of each rate) is, the median over the
     * tuples with time batches, which widens the intervals of those without; from
     * `deff_tuples` tuples (0: none, every fallback interval is an independent one). */
    size_t deff_tuples;
    double deff_share;
    double *deff_rate; /* nrates, or NULL */
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
    /* The compiler pass's signals: where slot 8 (the function) and slot 10 (the loop) are
     * in signals.tags, when the observer read them; and the optional `paths`. */
    int has_function_slot, has_loop_slot;
    size_t function_tag, loop_tag;
    /* Bit i: tag i is not one of those reserved slots and no entry's value i is other
     * than 0 or has a name: a slot the program never signalled (the phase slot of a
     * program built with the pass alone, say), which names leave out. */
    uint32_t silent_tags;
    int has_paths;
    struct profile_paths paths;
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

/* ", and for the slow rates (NAMES) over their spans between reads of the slow counters"
 * where p has slow rates, else "": what a legend that says "kept periods" must add. */
const char *profile_slow_rates_note(const struct profile *p, char *buf, size_t len);

/* A quantile v of h (its median, p10 or p90) as text, each times scale (a unit change), to
 * the precision it has: a value that was added (exact) to 10 significant digits ("1",
 * "1000"), or, in another unit, to one cycle's precision; else, being a bucket's midpoint,
 * to the decimal place of the bucket's width, no digit finer than what the bucket knows
 * ("1070" from a bucket 32 cycles wide, "10100" from one 256 wide). */
const char *profile_loghist_quantile_text(const struct profile_loghist *h, double v, int exact,
                                          double scale, char *buf, size_t len);

/* The sum of `cycles` over every tag entry and `other`: the observed span that the
 * entries share among themselves (saturates at UINT64_MAX). */
uint64_t profile_total_cycles(const struct profile *p);

#endif /* SHIMVIEW_PROFILE_H */
