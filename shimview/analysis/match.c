/*
 * match.c -- folding a profile's threads together and lining several profiles up by tag
 * name (see match.h).
 *
 * Folding finds the entries of one name (and thread group) through a hash table of the
 * names (name_ids), puts them side by side in file order, and adds each run of them into
 * one entry; matching finds the folded entries of one name in every profile the same way
 * and makes a row of them. Both are linear: a large profile has 10^6 entries, and a sort
 * by name was most of the time `compare` took on two of them.
 *
 * A folded entry's rate statistics are sums, so adding entries is exact: n, the ratio
 * sums and the sums of per-period rates add, and the ratio sum_a / sum_b and the mean are
 * formed again from them. An entry that stands alone keeps the values its profile wrote.
 * Histograms of one profile share one layout (`config.hist`), and their sparse counts are
 * merged bucket by bucket; a histogram of another layout, which the format allows but
 * shim does not write, has each bucket placed by its midpoint.
 */
#include "shimview/analysis/match.h"
#include "shimview/analysis/intervals.h"
#include "shimview/base/hash.h"
#include "shimview/base/usage.h"
#include "shimview/base/numbers.h"
#include "shimview/model/profile_threads.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"
#include "shimview/model/profile_batches.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- folding one profile ---- */

static int by_index(const void *a, const void *b)
{
    const struct profile_lin_count *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Append the counts of h to d (which has d's layout and room for them), placing each
 * bucket of another layout by its midpoint. */
static void hist_add(struct profile_linhist *d, const struct profile_linhist *h)
{
    int same = h->buckets == d->buckets && h->lo == d->lo && h->hi == d->hi;
    d->underflow += h->underflow;
    d->overflow += h->overflow;
    d->nan += h->nan;
    for (size_t i = 0; i < h->ncounts; i++) {
        struct profile_lin_count c = h->counts[i];
        if (!same) {
            double w = (h->hi - h->lo) / (double)h->buckets;
            double v = h->lo + ((double)c.index + 0.5) * w;
            double k = floor((v - d->lo) / (d->hi - d->lo) * (double)d->buckets);
            if (k < 0 || k >= (double)d->buckets) {
                *(k < 0 ? &d->underflow : &d->overflow) += c.count;
                continue;
            }
            c.index = (uint64_t)k;
        }
        d->counts[d->ncounts++] = c;
    }
}

/* The histogram of rate r of the k entries e, merged into d; 0 or -1. */
static int hist_fold(struct profile_linhist *d, const struct named_tag *e, size_t k, size_t r)
{
    size_t room = 0;
    for (size_t i = 0; i < k; i++)
        room += e[i].tag->rates[r].hist.ncounts;
    *d = e[0].tag->rates[r].hist;
    d->underflow = d->overflow = d->nan = 0;
    d->ncounts = 0;
    d->counts = malloc((room ? room : 1) * sizeof *d->counts);
    if (!d->counts) return -1;
    for (size_t i = 0; i < k; i++)
        hist_add(d, &e[i].tag->rates[r].hist);
    if (k == 1 || d->ncounts == 0) return 0;
    qsort(d->counts, d->ncounts, sizeof *d->counts, by_index);
    size_t o = 0;
    for (size_t i = 1; i < d->ncounts; i++) {
        if (d->counts[i].index == d->counts[o].index)
            d->counts[o].count += d->counts[i].count;
        else
            d->counts[++o] = d->counts[i];
    }
    d->ncounts = o + 1;
    return 0;
}

static void rate_add(struct profile_rate_stats *d, const struct profile_rate_stats *s)
{
    d->n += s->n;
    if (!s->has_stats) return;
    d->min = d->has_stats ? fmin(d->min, s->min) : s->min;
    d->max = d->has_stats ? fmax(d->max, s->max) : s->max;
    d->has_stats = 1;
    d->sum_a += s->sum_a;
    d->sum_b += s->sum_b;
    d->sum_aa += s->sum_aa;
    d->sum_bb += s->sum_bb;
    d->sum_ab += s->sum_ab;
    d->sum += s->sum;
    d->sumsq += s->sumsq;
}

/* Rate r of the k entries e, added up into d; 0 or -1. */
static int rate_fold(struct profile_rate_stats *d, const struct named_tag *e, size_t k, size_t r)
{
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < k; i++)
        rate_add(d, &e[i].tag->rates[r]);
    if (k == 1) {
        d->rate = e[0].tag->rates[r].rate;
        d->mean = e[0].tag->rates[r].mean;
    } else if (d->has_stats) {
        d->rate = d->sum_b > 0 ? d->sum_a / d->sum_b : NAN;
        d->mean = d->n ? d->sum / (double)d->n : NAN;
    }
    return hist_fold(&d->hist, e, k, r);
}

void match_entry_free(struct profile_tag *t, size_t nrates)
{
    if (t->borrowed) return;
    for (size_t r = 0; t->rates && r < nrates; r++)
        free(t->rates[r].hist.counts);
    free(t->rates);
    free(t->by);
    profile_batches_free(t->batches);
}

/* The time batches of the k entries e added up into out->batches: only when every one
 * has them (an entry without would leave its samples out of the batches, so the sum
 * would not describe the folded tuple); `first` is the latest, since before it some
 * entry's are missing. 0, or -1 out of memory. */
static int batches_fold(const struct profile *p, const struct named_tag *e, size_t k,
                        struct profile_tag *out)
{
    out->batches = NULL;
    for (size_t i = 0; i < k; i++)
        if (!e[i].tag->batches) return 0;
    size_t count = p->batches.count, nr = p->nrates;
    struct profile_batches *b = profile_batches_copy(e[0].tag->batches, count, nr);
    if (!b) return -1;
    for (size_t i = 1; i < k; i++) {
        const struct profile_batches *s = e[i].tag->batches;
        if (s->first > b->first) b->first = s->first;
        for (size_t j = 0; j < count; j++)
            b->samples[j] += s->samples[j];
        for (size_t j = 0; j < count * nr; j++) {
            b->a[j] += s->a[j];
            b->b[j] += s->b[j];
        }
    }
    out->batches = b;
    return 0;
}

/* The `by` slots of the k entries e added up into out->by (p has `by`); 0 or -1. */
static int by_fold(const struct profile *p, const struct named_tag *e, size_t k,
                   struct profile_tag *out)
{
    size_t nslots = (size_t)p->by.buckets + 2;
    out->by = calloc(nslots, sizeof *out->by);
    if (!out->by) return -1;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < nslots; j++) {
            out->by[j].count += e[i].tag->by[j].count;
            out->by[j].sum_a += e[i].tag->by[j].sum_a;
            out->by[j].sum_b += e[i].tag->by[j].sum_b;
        }
    return 0;
}

int match_entry_fold(const struct profile *p, const struct named_tag *e, size_t k,
                     struct profile_tag *out)
{
    *out = *e[0].tag;
    if (k == 1) { /* nothing to add up: the entry's own arrays, not copies */
        out->borrowed = 1;
        return 0;
    }
    out->samples = out->cycles = out->kept = 0;
    out->by = NULL;
    if (batches_fold(p, e, k, out)) return -1;
    out->rates = calloc(p->nrates ? p->nrates : 1, sizeof *out->rates);
    if (!out->rates) return -1;
    for (size_t i = 0; i < k; i++) {
        out->samples += e[i].tag->samples;
        out->cycles += e[i].tag->cycles;
        out->kept += e[i].tag->kept;
        out->several_threads |= e[i].tag->several_threads || e[i].tag->thread != out->thread;
    }
    if (p->has_by && by_fold(p, e, k, out)) return -1;
    uint64_t attributed = p->samples.total - p->samples.interrupted;
    if (k > 1) out->share = attributed ? (double)out->samples / (double)attributed : NAN;
    for (size_t r = 0; r < p->nrates; r++)
        if (rate_fold(&out->rates[r], e, k, r)) return -1;
    return 0;
}

struct folded_entry {
    struct profile_tag tag;
    char *name;
    enum thread_group group;
};

/* The program's tags first, then other processes, then idle; by samples within each. */
static int by_samples_then_name(const void *a, const void *b)
{
    const struct folded_entry *x = *(struct folded_entry *const *)a,
                              *y = *(struct folded_entry *const *)b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->tag.samples != y->tag.samples) return x->tag.samples < y->tag.samples ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* An id for each of n names, one per distinct name (and key, when keys is not NULL):
 * ids[i] counts from 0 in the order names first appear; *nids is how many. An open-
 * addressed table of each id's first index. 0, or -1 out of memory. */
static int name_ids(const char *const *names, const int *keys, size_t n, size_t *ids, size_t *nids)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    size_t *first = calloc(cap, sizeof *first); /* the id's first index + 1; 0: empty */
    if (!first) return -1;
    *nids = 0;
    for (size_t i = 0; i < n; i++) {
        size_t h = hash_string(names[i]) ^ (keys ? (size_t)keys[i] * 0x9e3779b97f4a7c15ull : 0);
        for (size_t at = h & (cap - 1);; at = (at + 1) & (cap - 1)) {
            size_t f = first[at];
            if (!f) {
                first[at] = i + 1;
                ids[i] = (*nids)++;
                break;
            }
            if ((!keys || keys[f - 1] == keys[i]) && strcmp(names[f - 1], names[i]) == 0) {
                ids[i] = ids[f - 1];
                break;
            }
        }
    }
    free(first);
    return 0;
}

/* The n named entries nt put side by side by name and thread group, in file order within
 * each (a stable counting sort by name_ids' id). 0, or -1. */
static int group_by_name(struct named_tag *nt, size_t n)
{
    size_t nf = 0;
    const char **names = calloc(n ? n : 1, sizeof *names);
    int *keys = malloc((n ? n : 1) * sizeof *keys);
    size_t *ids = malloc((n ? n : 1) * sizeof *ids), *at = NULL;
    struct named_tag *sorted = malloc((n ? n : 1) * sizeof *sorted);
    int rc = names && keys && ids && sorted ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        names[i] = nt[i].name;
        keys[i] = (int)nt[i].group;
    }
    if (rc == 0) rc = name_ids(names, keys, n, ids, &nf);
    if (rc == 0 && !(at = calloc(nf + 1, sizeof *at))) rc = -1;
    if (rc == 0) {
        for (size_t i = 0; i < n; i++) /* at[id + 1]: entries of id; then where id starts */
            at[ids[i] + 1]++;
        for (size_t id = 0; id < nf; id++)
            at[id + 1] += at[id];
        for (size_t i = 0; i < n; i++)
            sorted[at[ids[i]]++] = nt[i];
        memcpy(nt, sorted, n * sizeof *nt);
    }
    free(names);
    free(keys);
    free(ids);
    free(at);
    free(sorted);
    return rc;
}

int match_fold(const struct profile *p, struct profile *view, char ***names)
{
    size_t n = 0, nf = 0;
    struct named_tag *nt = named_tags_unranked(p, &n);
    struct folded_entry *f = nt ? calloc(n ? n : 1, sizeof *f) : NULL;
    /* The group is part of the key, so a tag of the program that happens to be named
     * like a group row is never folded into it. */
    int rc = f ? group_by_name(nt, n) : -1;
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t k = 1;
        enum thread_group g = nt[i].group;
        while (i + k < n && strcmp(nt[i].name, nt[i + k].name) == 0 && nt[i + k].group == g)
            k++;
        f[nf].name = nt[i].name;
        f[nf].group = g;
        nt[i].name = NULL; /* now the folded entry's */
        rc = match_entry_fold(p, &nt[i], k, &f[nf].tag);
        nf++;
        i += k;
    }
    *view = *p;
    view->tags = calloc(nf ? nf : 1, sizeof *view->tags);
    *names = calloc(nf ? nf : 1, sizeof **names);
    /* sorted by address: an entry is some 200 bytes, and a large profile has 10^6 */
    struct folded_entry **order = malloc((nf ? nf : 1) * sizeof *order);
    if (!view->tags || !*names || !order) rc = -1;
    if (rc == 0) {
        for (size_t i = 0; i < nf; i++)
            order[i] = &f[i];
        qsort(order, nf, sizeof *order, by_samples_then_name);
        for (size_t i = 0; i < nf; i++) {
            view->tags[i] = order[i]->tag;
            (*names)[i] = order[i]->name;
        }
        view->ntags = nf;
    } else {
        for (size_t i = 0; f && i < nf; i++) {
            match_entry_free(&f[i].tag, p->nrates);
            free(f[i].name);
        }
        free(view->tags);
        free(*names);
        view->tags = NULL;
        *names = NULL;
        view->ntags = 0;
    }
    named_tags_free(nt, n);
    free(order);
    free(f);
    return rc;
}

/* ---- rates ---- */

/* The index of the rate named name in p; -1 if none. */
static long rate_named(const struct profile *p, const char *name)
{
    for (size_t r = 0; r < p->nrates; r++)
        if (strcmp(p->rates[r].name, name) == 0) return (long)r;
    return -1;
}

/* How many profiles have a rate named name; *same_unit: all of those in the same unit. */
static size_t rate_presence(const struct match *m, const char *name, int *same_unit)
{
    size_t have = 0;
    const char *unit = NULL;
    *same_unit = 1;
    for (size_t j = 0; j < m->nprofiles; j++) {
        long r = rate_named(&m->folded[j], name);
        if (r < 0) continue;
        have++;
        if (unit && strcmp(unit, m->folded[j].rates[r].unit) != 0) *same_unit = 0;
        unit = m->folded[j].rates[r].unit;
    }
    return have;
}

static int common_rates(struct match *m)
{
    const struct profile *p0 = &m->folded[0];
    m->rate_index = calloc(p0->nrates * m->nprofiles + 1, sizeof *m->rate_index);
    if (!m->rate_index) return -1;
    for (size_t r = 0; r < p0->nrates; r++) {
        int same_unit;
        if (rate_named(p0, p0->rates[r].name) != (long)r) continue; /* a repeated name */
        if (rate_presence(m, p0->rates[r].name, &same_unit) < m->nprofiles || !same_unit) continue;
        for (size_t j = 0; j < m->nprofiles; j++)
            m->rate_index[m->nrates * m->nprofiles + j] =
                (size_t)rate_named(&m->folded[j], p0->rates[r].name);
        m->nrates++;
    }
    return 0;
}

size_t match_rate(const struct match *m, size_t k, size_t j)
{
    return m->rate_index[k * m->nprofiles + j];
}

const char *match_rate_name(const struct match *m, size_t k)
{
    return m->folded[0].rates[match_rate(m, k, 0)].name;
}

long match_find_rate(const struct match *m, const char *name)
{
    for (size_t k = 0; k < m->nrates; k++)
        if (strcmp(match_rate_name(m, k), name) == 0) return (long)k;
    return -1;
}

void match_note_left_out(const struct match *m, const char *cmd)
{
    int any = 0; /* a name was printed: the line has begun */
    for (size_t j = 0; j < m->nprofiles; j++) {
        const struct profile *p = &m->folded[j];
        for (size_t r = 0; r < p->nrates; r++) {
            const char *name = p->rates[r].name;
            int seen = match_find_rate(m, name) >= 0 || rate_named(p, name) != (long)r;
            for (size_t i = 0; !seen && i < j; i++)
                seen = rate_named(&m->folded[i], name) >= 0;
            if (seen) continue;
            int same_unit;
            size_t have = rate_presence(m, name, &same_unit);
            if (any)
                fputs(", ", stderr);
            else
                fprintf(stderr, "shimview %s: rates not in every profile, left out: ", cmd);
            fputs(name, stderr);
            if (have == m->nprofiles)
                fprintf(stderr, " (units differ)");
            else if (have == 1)
                fprintf(stderr, " (only in %s)", p->file);
            else
                fprintf(stderr, " (in %zu of %zu profiles)", have, m->nprofiles);
            any = 1;
        }
    }
    if (any) fputc('\n', stderr);
}

/* ---- matching ---- */

struct keyed {
    const char *name;
    size_t profile;
    const struct profile_tag *tag;
};

static int make_rows(struct match *m)
{
    size_t total = 0, any_other = 0;
    for (size_t j = 0; j < m->nprofiles; j++) {
        total += m->folded[j].ntags;
        any_other |= m->folded[j].other.samples > 0;
    }
    struct keyed *k = calloc(total ? total : 1, sizeof *k);
    size_t nslots = (total + 1) * m->nprofiles;
    const struct profile_tag **entries = calloc(nslots, sizeof *entries);
    m->slots = entries;
    m->rows = calloc(total + 1, sizeof *m->rows);
    if (!k || !entries || !m->rows) {
        free(k);
        return -1;
    }
    size_t n = 0;
    for (size_t j = 0; j < m->nprofiles; j++)
        for (size_t i = 0; i < m->folded[j].ntags; i++)
            k[n++] = (struct keyed){m->names[j][i], j, &m->folded[j].tags[i]};
    /* a row per name, in the order names first appear (the commands sort the rows) */
    const char **names = calloc(n ? n : 1, sizeof *names);
    size_t *ids = malloc((n ? n : 1) * sizeof *ids), nids = 0;
    int rc = names && ids ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        names[i] = k[i].name;
    if (rc == 0) rc = name_ids(names, NULL, n, ids, &nids);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct match_row *row = &m->rows[ids[i]];
        if (ids[i] == m->nrows) { /* its first entry */
            row->name = k[i].name;
            row->entry = entries + m->nrows * m->nprofiles;
            m->nrows++;
        }
        row->entry[k[i].profile] = k[i].tag;
    }
    free(names);
    free(ids);
    if (rc) {
        free(k);
        return -1;
    }
    if (any_other) {
        struct match_row *row = &m->rows[m->nrows];
        *row = (struct match_row){"other", 1, entries + m->nrows * m->nprofiles};
        for (size_t j = 0; j < m->nprofiles; j++)
            row->entry[j] = &m->folded[j].other;
        m->nrows++;
    }
    free(k);
    return 0;
}

/* ---- the match ---- */

/* A slot left out of the names (profile.silent_tags) only where every profile leaves it
 * out: rows are matched by name, and a slot one run signalled and another did not must
 * name the two runs' rows alike. */
static void common_silent_slots(struct profile *const *p, size_t n)
{
    uint64_t slots = UINT64_MAX; /* by slot number: profiles may read different slots */
    for (size_t j = 0; j < n; j++) {
        uint64_t mine = 0;
        for (size_t i = 0; i < p[j]->signals.ntags && i < 32; i++)
            if ((p[j]->silent_tags >> i & 1) && p[j]->signals.tags[i].slot < 64)
                mine |= UINT64_C(1) << p[j]->signals.tags[i].slot;
        slots &= mine;
    }
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < p[j]->signals.ntags && i < 32; i++)
            if (p[j]->signals.tags[i].slot >= 64 || !(slots >> p[j]->signals.tags[i].slot & 1))
                p[j]->silent_tags &= ~(UINT32_C(1) << i);
}

struct match *match_profiles(struct profile *const *p, size_t n)
{
    common_silent_slots(p, n);
    struct match *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->folded = calloc(n ? n : 1, sizeof *m->folded);
    m->names = calloc(n ? n : 1, sizeof *m->names);
    if (!m->folded || !m->names) {
        match_free(m);
        return NULL;
    }
    for (size_t j = 0; j < n; j++) {
        m->nprofiles = j + 1; /* what match_free must release */
        if (match_fold(p[j], &m->folded[j], &m->names[j])) {
            match_free(m);
            return NULL;
        }
    }
    if (n == 0 || common_rates(m) || make_rows(m)) {
        match_free(m);
        return NULL;
    }
    return m;
}

void match_free(struct match *m)
{
    if (!m) return;
    for (size_t j = 0; j < m->nprofiles; j++)
        match_fold_free(&m->folded[j], m->names[j]);
    free(m->slots);
    free(m->rows);
    free(m->rate_index);
    free(m->folded);
    free(m->names);
    free(m);
}

uint64_t match_attributed(const struct match *m, size_t j)
{
    return m->folded[j].samples.total - m->folded[j].samples.interrupted;
}

double match_share(const struct match *m, size_t j, const struct profile_tag *t)
{
    uint64_t attributed = match_attributed(m, j);
    return attributed ? (double)t->samples / (double)attributed : NAN;
}

void match_fold_free(struct profile *view, char **names)
{
    for (size_t i = 0; i < view->ntags; i++) {
        match_entry_free(&view->tags[i], view->nrates);
        free(names ? names[i] : NULL);
    }
    free(view->tags);
    free(names);
    view->tags = NULL;
    view->ntags = 0;
}

/* ---- what the commands share ---- */

int match_load(char *const *files, size_t n, struct profile **out)
{
    char err[512];
    for (size_t j = 0; j < n; j++) {
        out[j] = profile_open(files[j], err, sizeof err);
        if (out[j]) continue;
        fprintf(stderr, "shimview: %s\n", err);
        while (j-- > 0)
            profile_free(out[j]);
        return EXIT_FILE_ERROR;
    }
    return 0;
}

/* Two profiles of one run: snapshots of it (the same process and start, each holding the
 * run so far), or one profile twice (the same length, and the same samples, cycles and
 * rates' sums tag by tag). */
static int same_run(const struct profile *a, const struct profile *b)
{
    if (a->program.pid != b->program.pid || a->run.start_unix_ns != b->run.start_unix_ns) return 0;
    if (a->run.snapshot && b->run.snapshot) return 1;
    if (a->run.tsc_cycles != b->run.tsc_cycles || a->samples.total != b->samples.total ||
        a->ntags != b->ntags || a->nrates != b->nrates)
        return 0;
    for (size_t i = 0; i < a->ntags; i++) {
        const struct profile_tag *s = &a->tags[i], *t = &b->tags[i];
        if (s->samples != t->samples || s->cycles != t->cycles) return 0;
        for (size_t r = 0; r < a->nrates; r++)
            if (s->rates[r].sum_a != t->rates[r].sum_a || s->rates[r].sum_b != t->rates[r].sum_b)
                return 0;
    }
    return 1;
}

int match_distinct_runs(const char *cmd, char *const *files, struct profile *const *p, size_t from,
                        size_t to)
{
    for (size_t i = from; i < to; i++)
        for (size_t j = i + 1; j < to; j++) {
            const struct profile *a = p[i], *b = p[j];
            if (!same_run(a, b)) continue;
            if (a->run.snapshot && b->run.snapshot)
                return usage_error(cmd,
                                   "%s and %s are snapshots %" PRIu64 " and %" PRIu64
                                   " of one run (pid %" PRIu64 "), each holding the run so far: "
                                   "runs pooled as replicates must be different runs",
                                   files[i], files[j], a->run.snapshot, b->run.snapshot,
                                   a->program.pid);
            return usage_error(cmd,
                               "%s and %s are the same run (pid %" PRIu64 ", %" PRIu64
                               " samples): runs pooled as replicates must be different runs",
                               files[i], files[j], a->program.pid, a->samples.total);
        }
    return 0;
}

void match_print_sources(const struct match *m, const char *const *labels)
{
    static const enum table_align align[2] = {TABLE_RIGHT, TABLE_LEFT};
    struct table *t = table_new(2, align);
    if (!t) return;
    for (size_t j = 0; j < m->nprofiles; j++) {
        const struct profile *p = &m->folded[j];
        char a[32], b[32];
        table_add_row(t);
        if (labels)
            table_set(t, 0, "%s", labels[j]);
        else
            table_set(t, 0, "run %zu", j + 1);
        table_set(t, 1, "%s: %s, pid %" PRIu64 ", %s attributed samples, %s kept", p->file,
                  p->program.name, p->program.pid, fmt_count(match_attributed(m, j), a, sizeof a),
                  fmt_count(p->samples.kept, b, sizeof b));
    }
    table_print_text(t, stdout);
    table_free(t);
    putchar('\n');
}

int match_table_option(const char *cmd, int opt, struct match_table_options *o)
{
    switch (opt) {
    case 'n':
        if (parse_count_option(cmd, "--top", optarg, &o->top)) return EXIT_USAGE_ERROR;
        if (o->top == 0) return usage_error(cmd, "--top must be at least 1");
        o->top_given = 1;
        return 1;
    case 'a':
        o->all = 1;
        return 1;
    case 's':
        if (!o->nsort_keys) return 0;
        o->sort = usage_pick(cmd, "--sort", optarg, o->sort_keys, o->nsort_keys);
        return o->sort < 0 ? EXIT_USAGE_ERROR : 1;
    case 'c':
    case 'j':
        if (o->csv && o->json != (opt == 'j'))
            return usage_error(cmd, "--csv and --json exclude each other");
        o->csv = 1;
        o->json = opt == 'j';
        return 1;
    default:
        return 0;
    }
}

int match_table_options_check(const char *cmd, const struct match_table_options *o)
{
    if (o->all && o->top_given) return usage_error(cmd, "--all and --top exclude each other");
    return 0;
}

int match_table_print(const struct table *t, FILE *f, const struct match_table_options *o)
{
    return !o->csv   ? table_print_text(t, f)
           : o->json ? table_print_json(t, f)
                     : table_print_csv(t, f);
}

int match_has_other(const struct match *m)
{
    return m->nrows > 0 && m->rows[m->nrows - 1].is_other;
}

size_t match_tag_rows(const struct match *m)
{
    return m->nrows - (size_t)match_has_other(m);
}

size_t match_rows_shown(const struct match *m, const struct match_table_options *o,
                        size_t default_top)
{
    size_t tags = match_tag_rows(m);
    if (o->all || (o->csv && !o->top_given)) return tags;
    size_t top = o->top_given ? (size_t)o->top : default_top;
    return top < tags ? top : tags;
}

void match_note_hidden(size_t hidden)
{
    if (hidden)
        printf("(%zu more row%s hidden: --all shows every row, --top N the first N)\n", hidden,
               hidden == 1 ? "" : "s");
}
