/*
 * observer_cut.c -- the cut record's tables and the observer's side of a cut (see
 * observer_cut.h for the design).
 *
 * observer_cut_take() runs in the observer's loop, at a batch boundary: it may not
 * allocate, lock or make a system call, and it does none of them. It exchanges two
 * table structures (a few kilobytes each: the chunk pointers) and copies the totals and
 * the log histograms' buckets (a few hundred words): a few microseconds, once per
 * snapshot, counted like any aggregation pause (the period that contains it is not
 * attributed).
 */
#include "observer/observer_cut.h"

#include <stdlib.h>
#include <string.h>

int observer_cut_table_like(struct tag_table *fresh, const struct tag_table *t)
{
    if (tag_table_init(fresh, t->key_words, t->n_rates, t->max_entries, t->max_detail - 1,
                       &t->hist) != 0)
        return -1;
    if (t->by_slots && tag_table_add_by(fresh, t->by_slots) != 0) {
        tag_table_free(fresh);
        return -1;
    }
    return 0;
}

static int loghist_like(struct loghist *h, const struct loghist *of)
{
    return loghist_init(h, of->sub_bits, of->exp_min, of->exp_max);
}

int observer_cut_refill(struct observer_cut *c, const struct observer *o)
{
    if (observer_cut_table_like(&c->tags, &o->tags) != 0) return -1;
    if (o->pending && observer_cut_table_like(&c->paths, &o->paths) != 0) {
        tag_table_free(&c->tags);
        return -1;
    }
    return 0;
}

int observer_cut_init(struct observer_cut *c, const struct observer *o)
{
    memset(c, 0, sizeof *c);
    if (loghist_like(&c->period, &o->period) != 0 || loghist_like(&c->gap, &o->gap) != 0 ||
        loghist_like(&c->cpc, &o->cpc) != 0 || observer_cut_refill(c, o) != 0) {
        observer_cut_free(c);
        return -1;
    }
    return 0;
}

void observer_cut_release_tables(struct observer_cut *c)
{
    tag_table_free(&c->tags);
    tag_table_free(&c->paths);
}

void observer_cut_free(struct observer_cut *c)
{
    observer_cut_release_tables(c);
    loghist_free(&c->period);
    loghist_free(&c->gap);
    loghist_free(&c->cpc);
    memset(c, 0, sizeof *c);
}

/* dst as src stands, in dst's own arrays (both of one shape). */
static void loghist_copy(struct loghist *dst, const struct loghist *src)
{
    uint64_t *bucket = dst->bucket;
    double *sole = dst->sole;
    memcpy(bucket, src->bucket, src->nbuckets * sizeof *bucket);
    memcpy(sole, src->sole, src->nbuckets * sizeof *sole);
    *dst = *src;
    dst->bucket = bucket;
    dst->sole = sole;
}

/* a becomes b's empty table and b the table a held; a's time batches go on where they
 * were (the same origin and level, so the cut and the tables after it line up when the
 * snapshot thread adds them together). */
static void table_swap(struct tag_table *a, struct tag_table *b)
{
    struct tag_table t;
    memcpy(&t, a, sizeof t);
    memcpy(a, b, sizeof t);
    memcpy(b, &t, sizeof t);
    a->batch_origin = b->batch_origin;
    a->batch_level = b->batch_level;
    a->batch_clock = b->batch_clock;
}

void observer_cut_take(struct observer *o, uint64_t tsc)
{
    struct observer_cut *c = handover_take(&o->cut);
    if (!c) return; /* withdrawn meanwhile */
    table_swap(&o->tags, &c->tags);
    if (o->pending) table_swap(&o->paths, &c->paths);
    c->totals = o->totals;
    c->totals.discarded = o->totals.rated - o->totals.kept;
    c->path_totals = o->path_totals;
    loghist_copy(&c->period, &o->period);
    loghist_copy(&c->gap, &o->gap);
    loghist_copy(&c->cpc, &o->cpc);
    c->chains = o->chains;
    c->first_tsc = o->first_tsc;
    c->last_tsc = tsc;
    o->cut_total = o->totals.total;
    o->cut_resolved = o->path_totals.resolved;
    handover_return(&o->cut, c);
}
