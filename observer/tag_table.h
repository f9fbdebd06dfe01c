/*
 * tag_table.h -- the observer's aggregation table: one entry per tag tuple.
 *
 * A tuple is (thread word, the value of each tag slot read). The table is sized when
 * the observer is created and never grows: open addressing over a power-of-two index
 * twice the entry capacity, linear probing, no deletion. Once `max_entries` tuples are
 * in, further tuples go to the `other` entry, and every sample that lands there is
 * counted, so nothing is dropped silently.
 *
 * Each entry carries its samples, covered TSC cycles, DTE-kept samples, and per rate
 * sum, sum of squares, min, max and a linear histogram. All of it lives in arrays
 * allocated and touched (so no page faults later) at creation: the observer's loop
 * never allocates. The table is observer-private; the coordinator reads it only after
 * the observer has stopped.
 *
 * Lookups go through a one-entry cache: a program usually stays in a tuple for many
 * samples, so the common case is a compare of a few words.
 */
#ifndef SHIM_OBSERVER_TAG_TABLE_H
#define SHIM_OBSERVER_TAG_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "histogram.h"

/*
 * Two views of one rate over a tag's kept periods. Per period, a = delta(num) * scale
 * and b = delta(den), and the period's rate is r = a / b:
 *  - the distribution of r: n, sum, sumsq, min, max (and the histogram);
 *  - the rate over all those periods together, sum_a / sum_b, with the sums of squares
 *    and products that give its confidence interval. This is the figure a counting tool
 *    would report, and the unbiased one: the mean of r is pulled down whenever periods
 *    that see more events also last longer (e.g. because the observer's read of a
 *    just-written signal line takes longer).
 */
struct rate_stats {
    uint64_t periods; /* kept periods in the sums of a and b */
    uint64_t n;       /* of those, periods whose own rate a/b is finite */
    double sum, sumsq, min, max;
    double sum_a, sum_b, sum_aa, sum_bb, sum_ab;
};

struct tag_entry {
    uint64_t samples;         /* periods attributed to this tuple */
    uint64_t cycles;          /* TSC cycles those periods covered */
    uint64_t kept;            /* of those, periods DTE kept */
    struct rate_stats *stats; /* n_rates */
    uint64_t *hist;           /* n_rates * HIST_WORDS(spec) */
    double *by;               /* one rate by another: by_slots x (n, sum_a, sum_b), or NULL */
};

struct tag_table {
    unsigned key_words; /* 1 (thread) + tag slots read */
    unsigned n_rates;
    uint32_t max_entries, n_entries;
    uint32_t index_mask;     /* index size - 1 */
    uint32_t *index;         /* entry number + 1, 0 = empty */
    uint64_t *keys;          /* max_entries * key_words */
    struct tag_entry *entry; /* max_entries + 1: the last is `other` */
    struct hist_spec hist;
    const uint64_t *last_key; /* the one-entry cache */
    struct tag_entry *last;
    size_t bytes; /* memory held */
    unsigned by_slots;
};

/* Returns 0 or -1 (out of memory, or a size that would overflow). */
int tag_table_init(struct tag_table *t, unsigned key_words, unsigned n_rates, uint32_t max_entries,
                   const struct hist_spec *hist);
void tag_table_free(struct tag_table *t);

/* Give every entry `slots` buckets of one rate by another (observer.h, probe_by):
 * 0, or -1 out of memory. */
int tag_table_add_by(struct tag_table *t, unsigned slots);

/* What tag_table_init would allocate for these sizes (SIZE_MAX if it overflows). */
size_t tag_table_bytes(unsigned key_words, unsigned n_rates, uint32_t max_entries,
                       const struct hist_spec *hist);

/* Adds every entry of src (same key words, rates and histograms) to dst's entry of the
 * same tuple; src's `other`, and its tuples that find dst full, go to dst's `other`.
 * Used to combine the tables of several observers after they stopped. */
void tag_table_merge(struct tag_table *dst, const struct tag_table *src);

/* The entry of this tuple, inserted if new, `other` if the table is full. */
struct tag_entry *tag_table_insert(struct tag_table *t, const uint64_t *key);

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

static inline struct tag_entry *tag_table_other(struct tag_table *t)
{
    return &t->entry[t->max_entries];
}

static inline int tag_table_is_other(const struct tag_table *t, const struct tag_entry *e)
{
    return e == &t->entry[t->max_entries];
}

/* The key of entry i (i < n_entries). */
static inline const uint64_t *tag_table_key(const struct tag_table *t, uint32_t i)
{
    return &t->keys[(size_t)i * t->key_words];
}

/* Every kept period goes into the sums of a and b (leaving out the periods whose own
 * rate is not finite, b = 0, would bias sum_a / sum_b); only finite rates go into the
 * per-period statistics. */
static inline void rate_stats_add(struct rate_stats *s, double a, double b, double v)
{
    s->periods++;
    s->sum_a += a;
    s->sum_b += b;
    s->sum_aa += a * a;
    s->sum_bb += b * b;
    s->sum_ab += a * b;
    if (!(v - v == 0)) return; /* NaN or infinite: the histogram counts it */
    s->n++;
    s->sum += v;
    s->sumsq += v * v;
    if (v < s->min) s->min = v;
    if (v > s->max) s->max = v;
}

#endif
