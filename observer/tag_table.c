/*
 * tag_table.c -- creation, growth, insertion and release of the attribution store (see
 * tag_table.h for the design).
 *
 * Who touches what: the observer inserts (tag_table_insert) and adopts indexes
 * (tag_table_adopt_index); the keeper prepares chunks and indexes (tag_table_prepare)
 * and frees retired indexes. They share only n_entries (observer → keeper), chunks_ready
 * and next_mask/next_n (keeper → observer), each published with a release store and read
 * with an acquire load, and the indexes themselves, handed over through index_swap
 * (observer/handover.h).
 */
#include "observer/tag_table.h"

#include <math.h>
#include <stdlib.h>

/* A new index is prepared once the current one is this full (3/8), and the observer
 * stops inserting into one that is 7/8 full: between the two, the keeper has the time
 * the program takes to reach half as many new tuples again as it has. */
#define INDEX_PREPARE(size) ((size) / 8 * 3)
#define INDEX_LIMIT(size)   ((size) / 8 * 7)
/* Chunks the keeper keeps ready beyond the one in use. */
#define CHUNKS_AHEAD 2

static uint64_t key_hash(const uint64_t *key, unsigned words)
{
    uint64_t h = 0x243f6a8885a308d3ull;
    for (unsigned i = 0; i < words; i++) {
        h ^= key[i];
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* malloc, then touch every page (memset) so the observer never takes a page fault. */
static void *alloc_touched(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = malloc(n * size > 0 ? n * size : 1);
    if (p) memset(p, 0, n * size);
    return p;
}

size_t tag_table_entry_bytes(unsigned key_words, unsigned n_rates)
{
    return sizeof(struct tag_entry) + n_rates * sizeof(struct rate_sums) +
           key_words * sizeof(uint64_t);
}

/* Words of one record's batch arrays: the samples, then a and b per rate. */
static size_t batch_words(unsigned n_rates)
{
    return (size_t)TAG_BATCHES * (1 + 2 * (size_t)n_rates);
}

static size_t detail_bytes(unsigned n_rates, const struct hist_spec *hist)
{
    return sizeof(struct tag_detail) +
           n_rates * (sizeof(struct rate_dist) + HIST_WORDS(hist) * sizeof(uint64_t)) +
           batch_words(n_rates) * sizeof(uint64_t);
}

size_t tag_table_initial_bytes(unsigned key_words, unsigned n_rates, uint32_t max_detail,
                               const struct hist_spec *hist)
{
    double bytes = (TAG_CHUNK + 1.0) * tag_table_entry_bytes(key_words, n_rates) +
                   2.0 * TAG_CHUNK * sizeof(uint32_t) +
                   (double)(max_detail + 1) * detail_bytes(n_rates, hist);
    return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX;
}

static uint32_t index_size(const struct tag_table *t)
{
    return t->index_mask + 1;
}

static void index_put(uint32_t *index, uint32_t mask, const uint64_t *key, unsigned words,
                      uint32_t e)
{
    uint32_t slot = (uint32_t)key_hash(key, words) & mask;
    while (index[slot])
        slot = (slot + 1) & mask;
    index[slot] = e + 1;
}

int tag_table_init(struct tag_table *t, unsigned key_words, unsigned n_rates, uint32_t max_entries,
                   uint32_t max_detail, const struct hist_spec *hist)
{
    memset(t, 0, sizeof *t);
    if (max_entries == 0 || max_entries > TAG_MAX_CHUNKS * TAG_CHUNK || key_words == 0 ||
        max_detail > (1u << 20))
        return -1;
    t->key_words = key_words;
    t->n_rates = n_rates;
    t->entry_bytes = tag_table_entry_bytes(key_words, n_rates);
    t->max_entries = max_entries;
    t->hist = *hist;
    t->max_detail = max_detail + 1; /* record 0 is `other`'s */
    t->index_mask = 2 * TAG_CHUNK - 1;
    t->index = alloc_touched(index_size(t), sizeof *t->index);
    t->chunk[0] = alloc_touched(TAG_CHUNK, t->entry_bytes);
    t->other = alloc_touched(1, t->entry_bytes);
    t->detail = alloc_touched(t->max_detail, sizeof *t->detail);
    size_t words = HIST_WORDS(hist), nd = t->max_detail;
    struct rate_dist *dist = alloc_touched(nd * n_rates, sizeof *dist);
    uint64_t *h = alloc_touched(nd * n_rates * words, sizeof *h);
    uint64_t *bs = alloc_touched(nd * TAG_BATCHES, sizeof *bs);
    double *bsum = alloc_touched(nd * 2 * n_rates * TAG_BATCHES, sizeof *bsum);
    if (!t->index || !t->chunk[0] || !t->other || !t->detail || !dist || !h || !bs || !bsum) {
        free(dist);
        free(h);
        free(bs);
        free(bsum);
        tag_table_free(t);
        return -1;
    }
    t->chunks_ready = 1;
    t->bytes = index_size(t) * sizeof *t->index + TAG_CHUNK * t->entry_bytes + t->entry_bytes +
               nd * detail_bytes(n_rates, hist);
    for (size_t i = 0; i < nd; i++) {
        t->detail[i].dist = dist + i * n_rates;
        t->detail[i].hist = h + i * n_rates * words;
        t->detail[i].batches.samples = bs + i * TAG_BATCHES;
        t->detail[i].batches.sums = bsum + i * 2 * n_rates * TAG_BATCHES;
        for (unsigned r = 0; r < n_rates; r++) {
            t->detail[i].dist[r].min = INFINITY;
            t->detail[i].dist[r].max = -INFINITY;
        }
    }
    t->other->detail = 1;
    t->n_detail = 1;
    return 0;
}

int tag_table_add_by(struct tag_table *t, unsigned slots)
{
    double *by = alloc_touched((size_t)t->max_detail * slots * 3, sizeof *by);
    if (!by) return -1;
    t->bytes += (size_t)t->max_detail * slots * 3 * sizeof *by;
    t->by_slots = slots;
    for (size_t i = 0; i < t->max_detail; i++)
        t->detail[i].by = by + i * slots * 3;
    return 0;
}

void tag_table_free(struct tag_table *t)
{
    if (t->detail) {
        free(t->detail[0].dist);
        free(t->detail[0].hist);
        free(t->detail[0].by);
        free(t->detail[0].batches.samples);
        free(t->detail[0].batches.sums);
    }
    free(t->detail);
    for (unsigned i = 0; i < TAG_MAX_CHUNKS; i++)
        free(t->chunk[i]);
    free(t->other);
    free(t->index);
    void *offered = t->index_swap.next;
    if (offered != HANDOVER_TAKEN) free(offered);
    free(t->index_swap.back);
    memset(t, 0, sizeof *t);
}

void tag_table_give_detail(struct tag_table *t, struct tag_entry *e)
{
    struct tag_detail *d = &t->detail[t->n_detail++];
    d->since = e->samples;
    d->batches.given = t->batch_clock;
    d->batches.level = t->batch_level;
    e->detail = t->n_detail;
}

void tag_batches_fold(uint64_t *counts, double *sums, unsigned nsums)
{
    for (unsigned j = 0; j < TAG_BATCHES / 2; j++)
        counts[j] = counts[2 * j] + counts[2 * j + 1];
    memset(counts + TAG_BATCHES / 2, 0, TAG_BATCHES / 2 * sizeof *counts);
    for (unsigned k = 0; sums && k < nsums; k++) {
        double *s = sums + (size_t)k * TAG_BATCHES;
        for (unsigned j = 0; j < TAG_BATCHES / 2; j++)
            s[j] = s[2 * j] + s[2 * j + 1];
        memset(s + TAG_BATCHES / 2, 0, TAG_BATCHES / 2 * sizeof *s);
    }
}

void tag_detail_batches_to(struct tag_detail *d, unsigned n_rates, uint32_t level)
{
    struct tag_batches *b = &d->batches;
    for (; b->level < level; b->level++)
        tag_batches_fold(b->samples, b->sums, 2 * n_rates);
}

/* The entry number of key, or UINT32_MAX; *slot: where it is or would go. */
static uint32_t index_find(const struct tag_table *t, const uint64_t *key, uint32_t *slot)
{
    size_t len = t->key_words * sizeof *key;
    uint32_t s = (uint32_t)key_hash(key, t->key_words) & t->index_mask;
    for (;; s = (s + 1) & t->index_mask) {
        uint32_t e = t->index[s];
        if (e == 0) break;
        if (memcmp(tag_table_key(t, e - 1), key, len) == 0) {
            *slot = s;
            return e - 1;
        }
    }
    *slot = s;
    return UINT32_MAX;
}

struct tag_entry *tag_table_insert(struct tag_table *t, const uint64_t *key)
{
    uint32_t slot, found = index_find(t, key, &slot);
    if (found != UINT32_MAX) {
        t->last = tag_table_entry(t, found);
        t->last_key = tag_entry_key(t, t->last);
        return t->last;
    }
    uint32_t e = t->n_entries;
    int why = -1;
    if (e == t->max_entries)
        why = TAG_OTHER_FULL;
    else if ((e >> TAG_CHUNK_BITS) >= __atomic_load_n(&t->chunks_ready, __ATOMIC_ACQUIRE) ||
             t->index_used + 1 > INDEX_LIMIT(index_size(t)))
        why = TAG_OTHER_BEHIND;
    if (why >= 0) {
        t->why = (unsigned char)why;
        t->last = NULL; /* never cache `other`: a new tuple must not hide behind it */
        return t->other;
    }
    struct tag_entry *n = tag_table_entry(t, e);
    memcpy(tag_entry_key(t, n), key, t->key_words * sizeof *key);
    t->index[slot] = e + 1;
    t->index_used++;
    __atomic_store_n(&t->n_entries, e + 1, __ATOMIC_RELEASE); /* the key is published */
    t->last = n;
    t->last_key = tag_entry_key(t, n);
    return n;
}

void tag_table_adopt_index(struct tag_table *t)
{
    uint32_t *next = handover_take(&t->index_swap), mask = t->next_mask;
    if (!next) return;                                  /* the last one is not freed yet */
    for (uint32_t e = t->next_n; e < t->n_entries; e++) /* tuples after the keeper's snapshot */
        index_put(next, mask, tag_table_key(t, e), t->key_words, e);
    uint32_t *old = t->index;
    t->retired_bytes = index_size(t) * sizeof *t->index;
    t->index = next;
    __atomic_store_n(&t->index_mask, mask, __ATOMIC_RELAXED); /* the keeper reads it */
    t->index_used = t->n_entries;
    handover_return(&t->index_swap, old);
}

/* A new index of `size` slots holding entries [0, n): NULL out of memory. */
static uint32_t *index_build(const struct tag_table *t, uint32_t size, uint32_t n)
{
    uint32_t *index = alloc_touched(size, sizeof *index);
    if (!index) return NULL;
    for (uint32_t e = 0; e < n; e++)
        index_put(index, size - 1, tag_table_key(t, e), t->key_words, e);
    return index;
}

int tag_table_prepare(struct tag_table *t)
{
    int did = 0;
    uint32_t *old = handover_reclaim(&t->index_swap);
    if (old) {
        free(old);
        t->bytes -= t->retired_bytes;
        did = 1;
    }
    uint32_t n = __atomic_load_n(&t->n_entries, __ATOMIC_ACQUIRE);
    uint32_t ready = __atomic_load_n(&t->chunks_ready, __ATOMIC_RELAXED);
    uint32_t want = (n >> TAG_CHUNK_BITS) + 1 + CHUNKS_AHEAD,
             limit = (t->max_entries - 1) / TAG_CHUNK + 1;
    if (want > limit) want = limit;
    while (ready < want) {
        unsigned char *c = alloc_touched(TAG_CHUNK, t->entry_bytes);
        if (!c) return -1;
        t->chunk[ready] = c;
        t->bytes += TAG_CHUNK * t->entry_bytes;
        __atomic_store_n(&t->chunks_ready, ++ready, __ATOMIC_RELEASE);
        did = 1;
    }
    /* The index: a new one is needed once it holds INDEX_PREPARE of its size; n says how
     * many it holds closely enough (the index holds every entry but those waiting for an
     * adoption, and none wait while the hand-over is idle). The observer writes
     * index_mask before it hands the old index back, and the hand-over is idle only
     * once that was reclaimed. */
    uint32_t size = __atomic_load_n(&t->index_mask, __ATOMIC_RELAXED) + 1;
    if (handover_idle(&t->index_swap) && n >= INDEX_PREPARE(size) &&
        INDEX_LIMIT(size) < t->max_entries) {
        uint32_t *index = index_build(t, size * 2, n);
        if (!index) return -1;
        t->bytes += (size_t)size * 2 * sizeof *index;
        t->next_mask = size * 2 - 1;
        t->next_n = n;
        handover_offer(&t->index_swap, index); /* idle: accepted */
        did = 1;
    }
    return did;
}

static void sums_merge(struct rate_sums *d, const struct rate_sums *s)
{
    d->periods += s->periods;
    d->sum_a += s->sum_a;
    d->sum_b += s->sum_b;
    d->sum_aa += s->sum_aa;
    d->sum_bb += s->sum_bb;
    d->sum_ab += s->sum_ab;
}

static void dist_merge(struct rate_dist *d, const struct rate_dist *s)
{
    d->n += s->n;
    d->sum += s->sum;
    d->sumsq += s->sumsq;
    d->min = s->min < d->min ? s->min : d->min;
    d->max = s->max > d->max ? s->max : d->max;
}

/* Adds record s's batches to record d's, both brought to the higher level. A sample of
 * either side before its own record was given is in no batch, so the merged record is
 * whole only after the later of the two `given`. */
static void batches_merge(struct tag_detail *d, const struct tag_detail *s, unsigned n_rates)
{
    struct tag_detail sc = *s;
    uint64_t *samples = NULL;
    double *sums = NULL;
    if (s->batches.level < d->batches.level) { /* fold a copy of s's */
        samples = malloc(TAG_BATCHES * sizeof *samples);
        sums = malloc((2 * (size_t)n_rates * TAG_BATCHES + 1) * sizeof *sums);
        if (!samples || !sums) {
            d->batches.broken = 1;
            free(samples);
            free(sums);
            return;
        }
        memcpy(samples, s->batches.samples, TAG_BATCHES * sizeof *samples);
        memcpy(sums, s->batches.sums, 2 * (size_t)n_rates * TAG_BATCHES * sizeof *sums);
        sc.batches.samples = samples;
        sc.batches.sums = sums;
        tag_detail_batches_to(&sc, n_rates, d->batches.level);
    }
    tag_detail_batches_to(d, n_rates, sc.batches.level);
    for (unsigned j = 0; j < TAG_BATCHES; j++)
        d->batches.samples[j] += sc.batches.samples[j];
    for (size_t k = 0; k < 2 * (size_t)n_rates * TAG_BATCHES; k++)
        d->batches.sums[k] += sc.batches.sums[k];
    if (sc.batches.given > d->batches.given) d->batches.given = sc.batches.given;
    d->batches.broken |= sc.batches.broken;
    free(samples);
    free(sums);
}

/* Called before d's samples include s's. The merged record describes what each side's
 * record did: `since` becomes the samples of both that no record describes. Its time
 * batches hold every sample of the tuple after `given` only when each side with samples
 * had a record (broken otherwise). */
static void detail_merge(struct tag_table *dst, struct tag_entry *d, const struct tag_table *src,
                         const struct tag_entry *s)
{
    const struct tag_detail *sd = tag_entry_detail(src, s);
    struct tag_detail *dd = tag_entry_detail(dst, d);
    uint64_t uncovered = (dd ? dd->since : d->samples) + (sd ? sd->since : s->samples);
    if (dd) dd->since = uncovered;
    if (!sd) {
        if (dd && s->samples) dd->batches.broken = 1;
        return;
    }
    if (!dd) {
        if (dst->n_detail >= dst->max_detail) return;
        tag_table_give_detail(dst, d);
        dd = tag_entry_detail(dst, d);
        dd->since = uncovered;
        dd->batches.level = sd->batches.level;
        dd->batches.given = sd->batches.given;
        dd->batches.broken = d->samples > 0;
    }
    batches_merge(dd, sd, dst->n_rates);
    if (dst->batch_origin != src->batch_origin) dd->batches.broken = 1;
    size_t words = HIST_WORDS(&dst->hist);
    for (unsigned r = 0; r < dst->n_rates; r++) {
        dist_merge(&dd->dist[r], &sd->dist[r]);
        for (size_t w = 0; w < words; w++)
            dd->hist[r * words + w] += sd->hist[r * words + w];
    }
    if (dd->by && sd->by)
        for (size_t k = 0; k < (size_t)dst->by_slots * 3; k++)
            dd->by[k] += sd->by[k];
}

static void entry_merge(struct tag_table *dst, struct tag_entry *d, const struct tag_table *src,
                        const struct tag_entry *s)
{
    uint64_t straddled = (uint64_t)d->straddled + s->straddled;
    detail_merge(dst, d, src, s);
    d->samples += s->samples;
    d->cycles += s->cycles;
    d->kept += s->kept;
    d->straddled = straddled > UINT32_MAX ? UINT32_MAX : (uint32_t)straddled;
    for (unsigned r = 0; r < dst->n_rates; r++)
        sums_merge(&d->sums[r], &s->sums[r]);
}

uint64_t tag_table_merge(struct tag_table *dst, const struct tag_table *src)
{
    uint64_t to_other = 0;
    for (uint32_t i = 0; i < src->n_entries; i++) {
        while (tag_table_prepare(dst) > 0) /* stopped: grow here, adopt at once */
            tag_table_adopt(dst);
        const struct tag_entry *s = tag_table_entry(src, i);
        struct tag_entry *d = tag_table_insert(dst, tag_entry_key(src, s));
        if (tag_table_is_other(dst, d)) {
            dst->other_why[dst->why] += s->samples;
            to_other += s->samples;
        }
        entry_merge(dst, d, src, s);
    }
    entry_merge(dst, tag_table_other(dst), src, tag_table_other(src));
    for (int w = 0; w < TAG_OTHER_REASONS; w++)
        dst->other_why[w] += src->other_why[w];
    /* the samples of every tuple per batch, at the higher of the two levels */
    uint64_t counts[TAG_BATCHES];
    memcpy(counts, src->batch_samples, sizeof counts);
    for (uint32_t l = src->batch_level; l < dst->batch_level; l++)
        tag_batches_fold(counts, NULL, 0);
    for (; dst->batch_level < src->batch_level; dst->batch_level++)
        tag_batches_fold(dst->batch_samples, NULL, 0);
    for (unsigned j = 0; j < TAG_BATCHES; j++)
        dst->batch_samples[j] += counts[j];
    if (src->batch_clock > dst->batch_clock) dst->batch_clock = src->batch_clock;
    return to_other;
}
