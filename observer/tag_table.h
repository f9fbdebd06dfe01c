/*
 * tag_table.h -- the attribution store: one compact entry per tag tuple, grown while the
 * observer runs without the observer ever allocating.
 *
 * A tuple is (thread word, the value of each tag slot read). A real program has 10^4 to
 * 10^6 of them (calling contexts times functions times threads), and start-up alone
 * (library loading, parsing) reaches a thousand; a table sized once and filled first
 * come, first served gave the work that followed start-up to `other`. So:
 *
 *  - Entries are compact and live in chunks of TAG_CHUNK entries: per tuple its samples,
 *    TSC cycles, kept and straddling periods, and per rate the sums that give the rate
 *    over all its kept periods (sum_a / sum_b) and its interval, with the key inline
 *    (tag_table_entry_bytes says how many bytes; 32 + 48 per rate + 8 per key word).
 *  - The distribution of each rate (the per-period statistics and the linear
 *    histogram, several KiB per rate) is a *detail* record, given only to tuples that
 *    earn it: a fixed pool of `max_detail` records, allocated at creation; a tuple is
 *    given one once it holds enough of the samples so far (tag_table_wants_detail), and
 *    the second half of the pool is kept for tuples holding a larger share, so that the
 *    tuples of start-up cannot take every histogram from the hot ones. A detail record
 *    describes the periods after it was given (`since` says how many samples came
 *    before); the rate itself always comes from the compact sums, over every period.
 *  - A detail record also keeps the tuple's samples, and each rate's sums of a and b, per
 *    *time batch*: TAG_BATCHES consecutive spans of the run, each 2^(TAG_BATCH_SHIFT +
 *    level) TSC cycles long, counted from the table's batch_origin; the table keeps the
 *    samples of every tuple per batch too (the shares' denominators). Consecutive samples
 *    are nearly the same (a program stays in a tuple for many of them), so an interval
 *    that treats them as independent is far too narrow; the spread between batches, each
 *    long against that correlation, gives one that holds (shimview's batch means,
 *    docs/statistics.md). When the run outgrows the batches, pairs of neighbours are
 *    added together and the level goes up: each record folds its own arrays when a
 *    sample first lands beyond them, so the memory stays bounded (TAG_BATCHES x (8 + 16
 *    per rate) bytes per record) and no sample waits for every record to fold.
 *  - The index is open addressing with linear probing over 32-bit entry numbers, kept
 *    at most 7/8 full.
 *
 * Growth is prepared by another thread (the keeper, tag_table_prepare) ahead of need: it
 * allocates and touches the next chunks and builds a twice larger index from the keys
 * published so far (a key never changes once its entry is published). The observer
 * adopts a prepared index at a batch boundary (tag_table_adopt), inserting itself the
 * few tuples that came after the keeper's snapshot, and leaves the old one for the keeper
 * to free: observer/handover.h's hand-over, the one snapshots swap whole tables by. The observer
 * never allocates, locks or makes a system call for this. A tuple that finds no room goes to the
 * `other` entry and is counted by its reason: the store reached `max_entries` (SHIM_MAX_TAGS), or
 * the keeper had not prepared room in time.
 *
 * Lookups go through a one-entry cache: a program usually stays in a tuple for many
 * samples, so the common case is a compare of a few words.
 */
#ifndef SHIM_OBSERVER_TAG_TABLE_H
#define SHIM_OBSERVER_TAG_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "observer/handover.h"
#include "observer/histogram.h"

/* Entries per chunk, and the most chunks a table can have (2^24 entries). */
#define TAG_CHUNK_BITS 14
#define TAG_CHUNK      (1u << TAG_CHUNK_BITS)
#define TAG_MAX_CHUNKS 1024u

/* Time batches: how many, and the shortest (2^TAG_BATCH_SHIFT TSC cycles, tens of
 * microseconds), which level L doubles L times. */
#define TAG_BATCHES     64u
#define TAG_BATCH_SHIFT 16u

/*
 * The rate over a tuple's kept periods. Per period, a = delta(num) * scale and
 * b = delta(den): sum_a / sum_b is the rate a counting tool would report (the mean of
 * a / b is pulled down whenever periods that see more events also last longer), and the
 * sums of squares and products give its interval.
 */
struct rate_sums {
    uint64_t periods; /* kept periods in the sums */
    double sum_a, sum_b, sum_aa, sum_bb, sum_ab;
};

/* The distribution of the per-period rates a / b that are finite (in a detail record). */
struct rate_dist {
    uint64_t n;
    double sum, sumsq, min, max;
};

struct tag_entry {
    uint64_t samples;        /* periods attributed to this tuple */
    uint64_t cycles;         /* TSC cycles those periods covered */
    uint64_t kept;           /* of those, periods DTE kept and rated */
    uint32_t straddled;      /* periods not rated: the tuple changed within them */
    uint32_t detail;         /* 1 + the detail record's number; 0: none */
    struct rate_sums sums[]; /* n_rates, then the key (key_words) */
};

/* Counts per time batch: batch j of level L holds what happened from origin + j * 2^(
 * TAG_BATCH_SHIFT + L) TSC cycles on, for 2^(TAG_BATCH_SHIFT + L) cycles. */
struct tag_batches {
    uint32_t level;
    uint32_t broken;   /* 1: the arrays miss some of the tuple's samples after `given`
                        * (a merge with a side that kept none): not to be used */
    uint64_t given;    /* TSC cycles after the origin when the record was given: the
                        * batch holding it is partial, those before it empty */
    uint64_t *samples; /* TAG_BATCHES */
    double *sums;      /* per rate r: its a at [2r * TAG_BATCHES + j], b at
                        * [(2r + 1) * TAG_BATCHES + j] */
};

/* A detail record: the distributions, the histograms, one rate by another, the time
 * batches. */
struct tag_detail {
    uint64_t since;         /* the entry's samples when it was given this record */
    struct rate_dist *dist; /* n_rates */
    uint64_t *hist;         /* n_rates * HIST_WORDS(spec) */
    double *by;             /* by_slots x (n, sum_a, sum_b), or NULL */
    struct tag_batches batches;
};

/* Why a sample went to `other` instead of its own tuple. */
enum { TAG_OTHER_FULL, TAG_OTHER_BEHIND, TAG_OTHER_REASONS };

struct tag_table {
    unsigned key_words; /* 1 (thread) + tag slots read */
    unsigned n_rates;
    size_t entry_bytes;   /* tag_table_entry_bytes */
    uint32_t max_entries; /* the store's limit */
    uint32_t n_entries;   /* published with release: the keeper reads it */
    uint32_t index_mask;  /* index size - 1 */
    uint32_t *index;      /* entry number + 1, 0 = empty */
    uint32_t index_used;  /* entries in the index */
    unsigned char *chunk[TAG_MAX_CHUNKS];
    struct tag_entry *other;
    struct hist_spec hist;
    /* detail records: a pool of max_detail, record 0 is `other`'s */
    uint32_t max_detail, n_detail;
    struct tag_detail *detail;
    unsigned by_slots;
    uint64_t other_why[TAG_OTHER_REASONS]; /* samples of `other`, by reason (kept by the
                                              caller that counts a sample) */
    unsigned char why;                     /* the reason of the last insert into `other` */
    const uint64_t *last_key;              /* the one-entry cache */
    struct tag_entry *last;
    size_t bytes; /* memory held, kept by whoever allocates */
    /* Time batches: where time 0 is (a TSC value; 0 until the observer sets it), the
     * time of the last sample counted (after the origin), and the samples of every
     * tuple per batch, at batch_level. */
    uint64_t batch_origin, batch_clock;
    uint32_t batch_level;
    uint64_t batch_samples[TAG_BATCHES];
    /* Written by the keeper, read by the observer: chunks ready, and a larger index
     * offered through index_swap (observer/handover.h), which holds the entries below
     * next_n; the observer hands the old one back through it. */
    _Alignas(64) uint32_t chunks_ready;
    struct handover index_swap;
    uint32_t next_mask, next_n;
    size_t retired_bytes;
    char pad[24];
};

/* Bytes of one entry with this shape. */
size_t tag_table_entry_bytes(unsigned key_words, unsigned n_rates);

/* A table with room for its first chunk of entries and `max_detail` detail records
 * (at least 1, `other`'s). Returns 0 or -1 (out of memory, or bad sizes). */
int tag_table_init(struct tag_table *t, unsigned key_words, unsigned n_rates, uint32_t max_entries,
                   uint32_t max_detail, const struct hist_spec *hist);
void tag_table_free(struct tag_table *t);

/* Give every detail record `slots` buckets of one rate by another (observer.h,
 * probe_by): 0, or -1 out of memory. */
int tag_table_add_by(struct tag_table *t, unsigned slots);

/* What tag_table_init allocates at once for these sizes (SIZE_MAX if it overflows). */
size_t tag_table_initial_bytes(unsigned key_words, unsigned n_rates, uint32_t max_detail,
                               const struct hist_spec *hist);

/* The keeper: prepares chunks and a larger index ahead of need. Runs on a thread of its
 * own while the observer runs; frees what the observer retired. Returns 1 if it did
 * something, 0 if nothing was needed, -1 out of memory (the table then stops growing,
 * and what does not fit is counted as `other`, "behind"). */
int tag_table_prepare(struct tag_table *t);

/* The observer, at a batch boundary: adopts the prepared index if there is one. */
void tag_table_adopt_index(struct tag_table *t);
static inline void tag_table_adopt(struct tag_table *t)
{
    if (handover_pending(&t->index_swap)) tag_table_adopt_index(t);
}

/* Adds every entry of src (same shape, same batch origin) to dst's entry of the same
 * tuple, growing dst as needed (both stopped: the caller may allocate); src's `other`,
 * and tuples that find dst at its limit, go to dst's `other`. Used to combine the tables
 * of several observers after they stopped. Returns the samples of src's tuples that went
 * to dst's `other` (src's own `other` aside): the caller counts them as `other` too. */
uint64_t tag_table_merge(struct tag_table *dst, const struct tag_table *src);

/* The entry of this tuple, inserted if new, `other` if there is no room. */
struct tag_entry *tag_table_insert(struct tag_table *t, const uint64_t *key);

static inline struct tag_entry *tag_table_entry(const struct tag_table *t, uint32_t i)
{
    return (struct tag_entry *)(t->chunk[i >> TAG_CHUNK_BITS] +
                                (size_t)(i & (TAG_CHUNK - 1)) * t->entry_bytes);
}

/* The key of an entry (not `other`'s). */
static inline uint64_t *tag_entry_key(const struct tag_table *t, const struct tag_entry *e)
{
    return (uint64_t *)(uintptr_t)(e->sums + t->n_rates);
}

/* The key of entry i (i < n_entries). */
static inline const uint64_t *tag_table_key(const struct tag_table *t, uint32_t i)
{
    return tag_entry_key(t, tag_table_entry(t, i));
}

/* Entries 0 to n_entries - 1, then `other` at n_entries: for walking every entry. */
static inline struct tag_entry *tag_table_at(const struct tag_table *t, uint32_t i)
{
    return i < t->n_entries ? tag_table_entry(t, i) : t->other;
}

static inline struct tag_entry *tag_table_lookup(struct tag_table *t, const uint64_t *key)
{
    if (t->last) {
        unsigned i = 0;
        while (i < t->key_words && t->last_key[i] == key[i])
            i++;
        if (i == t->key_words) return t->last;
    }
    return tag_table_insert(t, key);
}

static inline struct tag_entry *tag_table_other(const struct tag_table *t)
{
    return t->other;
}

static inline int tag_table_is_other(const struct tag_table *t, const struct tag_entry *e)
{
    return e == t->other;
}

/* The detail record of an entry, or NULL. */
static inline struct tag_detail *tag_entry_detail(const struct tag_table *t,
                                                  const struct tag_entry *e)
{
    return e->detail ? &t->detail[e->detail - 1] : NULL;
}

/* Whether an entry without a detail record should be given one now: it holds at least
 * 64 samples and 1/1024 of `total` (the samples attributed so far) while the pool is
 * less than half used, 1/64 of them after that. */
static inline int tag_table_wants_detail(const struct tag_table *t, const struct tag_entry *e,
                                         uint64_t total)
{
    if (e->detail || e->samples < 64 || t->n_detail >= t->max_detail) return 0;
    return e->samples * (2 * t->n_detail < t->max_detail ? 1024 : 64) >= total;
}

/* Gives the entry a detail record from the pool (the caller checked there is one). */
void tag_table_give_detail(struct tag_table *t, struct tag_entry *e);

/* Every kept period goes into the sums of a and b (leaving out the periods whose own
 * rate is not finite, b = 0, would bias sum_a / sum_b). */
static inline void rate_sums_add(struct rate_sums *s, double a, double b)
{
    s->periods++;
    s->sum_a += a;
    s->sum_b += b;
    s->sum_aa += a * a;
    s->sum_bb += b * b;
    s->sum_ab += a * b;
}

/* Only finite rates go into the per-period statistics (the histogram counts the rest). */
static inline void rate_dist_add(struct rate_dist *s, double v)
{
    if (!(v - v == 0)) return; /* NaN or infinite */
    s->n++;
    s->sum += v;
    s->sumsq += v * v;
    if (v < s->min) s->min = v;
    if (v > s->max) s->max = v;
}

/* Adds pairs of neighbouring batches together: counts (and nsums arrays of TAG_BATCHES
 * sums each, when sums is not NULL) of level L become those of level L + 1. */
void tag_batches_fold(uint64_t *counts, double *sums, unsigned nsums);

/* The batch of time t (TSC cycles after the origin) at *level, folding the arrays until
 * it fits. Outside the observer's common path: a fold happens about log2(run / 2^22
 * cycles) times per record over a run. */
static inline unsigned tag_batch_of(uint64_t t, uint32_t *level, uint64_t *counts, double *sums,
                                    unsigned nsums)
{
    uint64_t j = t >> (TAG_BATCH_SHIFT + *level);
    while (j >= TAG_BATCHES) {
        tag_batches_fold(counts, sums, nsums);
        ++*level;
        j >>= 1;
    }
    return (unsigned)j;
}

/* Time `tsc` as the batches count it: cycles after the table's origin (0 before it). */
static inline uint64_t tag_table_clock(const struct tag_table *t, uint64_t tsc)
{
    return tsc > t->batch_origin ? tsc - t->batch_origin : 0;
}

/* One sample of entry e at time t (tag_table_clock): into the table's batches, and the
 * entry's when its record has them. */
static inline void tag_table_count_batch(struct tag_table *t, struct tag_entry *e, uint64_t clock)
{
    t->batch_clock = clock;
    t->batch_samples[tag_batch_of(clock, &t->batch_level, t->batch_samples, NULL, 0)]++;
    struct tag_detail *d = tag_entry_detail(t, e);
    if (d) {
        struct tag_batches *b = &d->batches;
        b->samples[tag_batch_of(clock, &b->level, b->samples, b->sums, 2 * t->n_rates)]++;
    }
}

/* One kept period's a and b of rate r into the batches of a detail record. */
static inline void tag_detail_batch_rate(struct tag_detail *d, unsigned n_rates, unsigned r,
                                         uint64_t clock, double a, double b)
{
    struct tag_batches *bt = &d->batches;
    unsigned j = tag_batch_of(clock, &bt->level, bt->samples, bt->sums, 2 * n_rates);
    bt->sums[2 * r * TAG_BATCHES + j] += a;
    bt->sums[(2 * r + 1) * TAG_BATCHES + j] += b;
}

/* Brings a record's batches to `level` (at least its own): for writing and merging. */
void tag_detail_batches_to(struct tag_detail *d, unsigned n_rates, uint32_t level);

#endif
