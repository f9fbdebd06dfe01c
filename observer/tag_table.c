/*
 * tag_table.c -- creation, insertion and release of the tag table (see tag_table.h).
 */
#include "tag_table.h"

#include <math.h>
#include <stdlib.h>

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

/* calloc, then touch every page so the observer never takes a page fault on it. */
static void *alloc_touched(size_t n, size_t size, size_t *bytes)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = malloc(n * size > 0 ? n * size : 1);
    if (p) {
        memset(p, 0, n * size);
        *bytes += n * size;
    }
    return p;
}

size_t tag_table_bytes(unsigned key_words, unsigned n_rates, uint32_t max_entries,
                       const struct hist_spec *hist)
{
    double entries = (double)max_entries + 1, index = 4.0 * max_entries;
    double bytes =
        index * sizeof(uint32_t) + (double)max_entries * key_words * sizeof(uint64_t) +
        entries *
            (sizeof(struct tag_entry) +
             n_rates * (sizeof(struct rate_stats) + (double)HIST_WORDS(hist) * sizeof(uint64_t)));
    return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX;
}

int tag_table_init(struct tag_table *t, unsigned key_words, unsigned n_rates, uint32_t max_entries,
                   const struct hist_spec *hist)
{
    memset(t, 0, sizeof *t);
    if (max_entries == 0 || max_entries > (1u << 24) || key_words == 0) return -1;
    t->key_words = key_words;
    t->n_rates = n_rates;
    t->max_entries = max_entries;
    t->hist = *hist;
    uint32_t index_size = 2;
    while (index_size < 2 * max_entries)
        index_size <<= 1;
    t->index_mask = index_size - 1;

    size_t entries = (size_t)max_entries + 1, words = HIST_WORDS(hist);
    t->index = alloc_touched(index_size, sizeof *t->index, &t->bytes);
    t->keys = alloc_touched((size_t)max_entries * key_words, sizeof *t->keys, &t->bytes);
    t->entry = alloc_touched(entries, sizeof *t->entry, &t->bytes);
    struct rate_stats *stats = alloc_touched(entries * n_rates, sizeof *stats, &t->bytes);
    uint64_t *h = alloc_touched(entries * n_rates * words, sizeof *h, &t->bytes);
    if (!t->index || !t->keys || !t->entry || !stats || !h) {
        free(stats);
        free(h);
        tag_table_free(t);
        return -1;
    }
    for (size_t i = 0; i < entries; i++) {
        t->entry[i].stats = stats + i * n_rates;
        t->entry[i].hist = h + i * n_rates * words;
        for (unsigned r = 0; r < n_rates; r++) {
            t->entry[i].stats[r].min = INFINITY;
            t->entry[i].stats[r].max = -INFINITY;
        }
    }
    return 0;
}

int tag_table_add_by(struct tag_table *t, unsigned slots)
{
    size_t entries = (size_t)t->max_entries + 1;
    double *by = alloc_touched(entries * slots * 3, sizeof *by, &t->bytes);
    if (!by) return -1;
    t->by_slots = slots;
    for (size_t i = 0; i < entries; i++)
        t->entry[i].by = by + i * slots * 3;
    return 0;
}

void tag_table_free(struct tag_table *t)
{
    if (t->entry) {
        free(t->entry[0].stats);
        free(t->entry[0].hist);
        free(t->entry[0].by);
    }
    free(t->entry);
    free(t->keys);
    free(t->index);
    memset(t, 0, sizeof *t);
}

struct tag_entry *tag_table_insert(struct tag_table *t, const uint64_t *key)
{
    size_t len = t->key_words * sizeof *key;
    uint32_t slot = (uint32_t)key_hash(key, t->key_words) & t->index_mask;
    for (;; slot = (slot + 1) & t->index_mask) {
        uint32_t e = t->index[slot];
        if (e == 0) break;
        if (memcmp(tag_table_key(t, e - 1), key, len) == 0) {
            t->last = &t->entry[e - 1];
            t->last_key = tag_table_key(t, e - 1);
            return t->last;
        }
    }
    if (t->n_entries == t->max_entries) {
        t->last = NULL; /* never cache `other`: a new tuple must not hide behind it */
        return tag_table_other(t);
    }
    uint32_t e = t->n_entries++;
    memcpy(&t->keys[(size_t)e * t->key_words], key, len);
    t->index[slot] = e + 1;
    t->last = &t->entry[e];
    t->last_key = tag_table_key(t, e);
    return t->last;
}

static void stats_merge(struct rate_stats *d, const struct rate_stats *s)
{
    d->periods += s->periods;
    d->n += s->n;
    d->sum += s->sum;
    d->sumsq += s->sumsq;
    d->min = s->min < d->min ? s->min : d->min;
    d->max = s->max > d->max ? s->max : d->max;
    d->sum_a += s->sum_a;
    d->sum_b += s->sum_b;
    d->sum_aa += s->sum_aa;
    d->sum_bb += s->sum_bb;
    d->sum_ab += s->sum_ab;
}

static void entry_merge(const struct tag_table *t, struct tag_entry *d, const struct tag_entry *s)
{
    size_t words = HIST_WORDS(&t->hist);
    d->samples += s->samples;
    d->cycles += s->cycles;
    d->kept += s->kept;
    for (unsigned r = 0; r < t->n_rates; r++) {
        stats_merge(&d->stats[r], &s->stats[r]);
        for (size_t w = 0; w < words; w++)
            d->hist[r * words + w] += s->hist[r * words + w];
    }
    if (d->by && s->by)
        for (size_t k = 0; k < (size_t)t->by_slots * 3; k++)
            d->by[k] += s->by[k];
}

void tag_table_merge(struct tag_table *dst, const struct tag_table *src)
{
    for (uint32_t i = 0; i < src->n_entries; i++)
        entry_merge(dst, tag_table_insert(dst, tag_table_key(src, i)), &src->entry[i]);
    entry_merge(dst, tag_table_other(dst), &src->entry[src->max_entries]);
}