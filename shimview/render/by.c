/*
 * by.c -- one rate bucketed by another: slots, values, and `report`'s table of them.
 *
 * The text table turns the entries' arrays on their side: a row per slot of X, a pair of
 * columns (Y, periods) per tag, so one reads down a column how Y moves with X in one tag
 * and across a row how the tags compare at one X. A profile's span for X is set before the
 * run and the data often fill a few of its buckets, so rows empty in every column shown are
 * left out (and counted); the slot labels keep the edges plain. The CSV is long instead, a
 * record per tag and slot with every slot, the shape a script wants, and carries the sums
 * so a reader can pool slots or tags itself.
 */
#include "shimview/render/by.h"
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"
#include "shimview/analysis/tags.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

size_t by_nslots(const struct profile_by *b)
{
    return (size_t)b->buckets + 2;
}

void by_slot_edges(const struct profile_by *b, size_t k, double *lo, double *hi)
{
    double w = (b->hi - b->lo) / (double)b->buckets;
    /* The span's own edges exactly, so labels read "[0.009, 0.01)" and not a rounding. */
    *lo = k == 0 ? -INFINITY : k == 1 ? b->lo : b->lo + (double)(k - 1) * w;
    *hi = k >= b->buckets + 1 ? INFINITY : k == b->buckets ? b->hi : b->lo + (double)k * w;
}

double by_slot_rate(const struct profile_by_slot *s)
{
    if (s->count == 0 || !(s->sum_b > 0)) return NAN;
    double y = s->sum_a / s->sum_b;
    return isfinite(y) ? y : NAN; /* a huge sum over a tiny one: no value to show */
}

const char *by_slot_label(const struct profile_by *b, size_t k, char *buf, size_t len)
{
    double lo, hi;
    by_slot_edges(b, k, &lo, &hi);
    if (k == 0)
        snprintf(buf, len, "< %g", hi);
    else if (k + 1 == by_nslots(b))
        snprintf(buf, len, "\xe2\x89\xa5 %g", lo);
    else
        snprintf(buf, len, "[%g, %g)", lo, hi);
    return buf;
}

const char *by_describe(const struct profile *p, char *buf, size_t len)
{
    char y[256], x[256];
    plot_rate_label_of(p, p->by.rate, y, sizeof y);
    plot_rate_label_of(p, p->by.by, x, sizeof x);
    snprintf(buf, len, "%s in each bucket of %s: %" PRIu64 " bucket%s over [%g, %g)", y, x,
             p->by.buckets, p->by.buckets == 1 ? "" : "s", p->by.lo, p->by.hi);
    return buf;
}

/* ---- the text table: a row per slot, Y and periods per tag ---- */

static struct table *text_table(const struct profile *p, const struct named_tag *tags, size_t n,
                                size_t cut, size_t *hidden)
{
    size_t ncols = 1 + 2 * n, nslots = by_nslots(&p->by);
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = 1; c < ncols; c++)
        align[c] = TABLE_RIGHT;
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    char a[64];
    table_add_row(t);
    table_set(t, 0, "%s", p->rates[p->by.by].name);
    for (size_t i = 0; i < n; i++) {
        table_set_cut(t, 1 + 2 * i, tags[i].name, cut);
        table_set(t, 2 + 2 * i, "n");
    }
    table_end_header(t);
    *hidden = 0;
    for (size_t k = 0; k < nslots; k++) {
        int any = 0;
        for (size_t i = 0; i < n; i++)
            any |= tags[i].tag->by[k].count > 0;
        if (!any) {
            (*hidden)++;
            continue;
        }
        table_add_row(t);
        table_set(t, 0, "%s", by_slot_label(&p->by, k, a, sizeof a));
        for (size_t i = 0; i < n; i++) {
            const struct profile_by_slot *s = &tags[i].tag->by[k];
            double y = by_slot_rate(s);
            if (isnan(y))
                table_set(t, 1 + 2 * i, "-");
            else
                table_set(t, 1 + 2 * i, "%s", plot_fmt_value(y, a, sizeof a));
            table_set(t, 2 + 2 * i, "%s", fmt_count(s->count, a, sizeof a));
        }
    }
    return t;
}

/* ---- CSV: a record per tag and slot ---- */

static void csv_records(struct table *t, const struct profile *p, const struct named_tag *tag)
{
    for (size_t k = 0; k < by_nslots(&p->by); k++) {
        const struct profile_by_slot *s = &tag->tag->by[k];
        double lo, hi, y = by_slot_rate(s);
        by_slot_edges(&p->by, k, &lo, &hi);
        table_add_row(t);
        table_set(t, 0, "%s", tag->name);
        table_set(t, 1, "%zu", k);
        if (isfinite(lo)) table_set(t, 2, "%.10g", lo);
        if (isfinite(hi)) table_set(t, 3, "%.10g", hi);
        table_set(t, 4, "%" PRIu64, s->count);
        if (!isnan(y)) table_set(t, 5, "%.10g", y);
        table_set(t, 6, "%.17g", s->sum_a);
        table_set(t, 7, "%.17g", s->sum_b);
    }
}

static struct table *csv_table(const struct profile *p, const struct named_tag *tags, size_t n,
                               size_t nall)
{
    static const enum table_align align[8]; /* CSV is not padded */
    struct table *t = table_new(8, align);
    if (!t) return NULL;
    const char *x = p->rates[p->by.by].name;
    table_add_row(t);
    table_set(t, 0, "name");
    table_set(t, 1, "slot");
    table_set(t, 2, "%s_lo", x);
    table_set(t, 3, "%s_hi", x);
    table_set(t, 4, "periods");
    table_set(t, 5, "rate_%s", p->rates[p->by.rate].name);
    table_set(t, 6, "sum_a");
    table_set(t, 7, "sum_b");
    for (size_t i = 0; i < n; i++)
        csv_records(t, p, &tags[i]);
    if (nall > p->ntags) csv_records(t, p, &tags[nall - 1]); /* `other` */
    return t;
}

struct table *by_table(const struct profile *p, long top, int csv, size_t cut, size_t *hidden)
{
    size_t nall, n;
    struct named_tag *tags = named_tags(p, csv, &nall);
    if (!tags) return NULL;
    n = top >= 0 && (size_t)top < p->ntags ? (size_t)top : p->ntags;
    *hidden = 0;
    struct table *t = csv ? csv_table(p, tags, n, nall) : text_table(p, tags, n, cut, hidden);
    named_tags_free(tags, nall);
    return t;
}
