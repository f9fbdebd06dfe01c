/*
 * between.c -- the profile of the interval between two profiles of one run.
 *
 * A run with SHIM_SNAPSHOT writes the profile of the run so far every few seconds; each
 * counts every sample up to its cut, and a later one counts those and the ones since
 * (docs/profile-format.md, `snapshot`). So the interval between two is a subtraction,
 * entry by entry: `export --since` writes it for fleet profilers, which want each
 * upload to hold the samples of its own time span, and `top` shows it.
 *
 * Entries are matched by a key: the thread word and every tag value, except a calling
 * context, which is keyed by its path from the root (each node's function address and
 * call site): with the observer's stack walks the writer numbers contexts anew in each
 * profile, so the same context can hold another value in the next one; addresses are
 * the same throughout one run. Both sides' keys are sorted and walked together. Two
 * entries of one profile with one key (contexts whose paths read the same) are taken
 * together: the first holds their sum, the others nothing. An entry of `before` that
 * `after` lacks, or any count that would go down, means the two are not one run's in
 * that order, which is said.
 */
#include "shimview/analysis/between.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct keyed {
    char *key;
    struct profile_tag *t;
};

/* The path of node i of thread c, root outwards: "fn@site/..." of its functions. */
static void write_context(FILE *f, const struct profile_cct_thread *c, size_t i)
{
    size_t depth = 0;
    for (size_t n = i; n > 1 && depth <= c->nnodes; n = c->nodes[n].parent)
        depth++;
    if (i == 1) {
        fputs("overflow", f);
        return;
    }
    size_t *path = malloc((depth ? depth : 1) * sizeof *path), k = depth;
    if (!path) return; /* the caller finds the stream in error */
    for (size_t n = i; n > 1 && k > 0; n = c->nodes[n].parent)
        path[--k] = n;
    fputs("root", f);
    for (k = 0; k < depth; k++) {
        const struct profile_cct_node *node = &c->nodes[path[k]];
        fprintf(f, "/%" PRIx64 "@%" PRIx64, node->function ? node->function->address : 0,
                node->has_site ? node->site : 0);
    }
    free(path);
}

/* An entry's key, allocated; NULL if memory ran out. */
static char *entry_key(const struct profile *p, const struct profile_tag *t)
{
    if (t->is_other) return strdup("other");
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    if (!f) return NULL;
    fprintf(f, "%" PRIx64, t->thread);
    for (size_t i = 0; i < t->nvalues; i++) {
        fputc('|', f);
        if (p->has_cct && i == p->cct.cct_tag && t->context_thread) {
            fprintf(f, "t%" PRIu64 ":", t->context_thread->tid);
            write_context(f, t->context_thread, t->context_node);
        } else {
            fprintf(f, "%" PRIx64, t->values[i]);
        }
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(s);
        return NULL;
    }
    return s;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct keyed *)a)->key, ((const struct keyed *)b)->key);
}

/* Every entry of p with its key, sorted by key; NULL if memory ran out. */
static struct keyed *keyed_entries(struct profile *p, size_t *n)
{
    struct keyed *k = calloc(p->ntags + 1, sizeof *k);
    if (!k) return NULL;
    for (size_t i = 0; i <= p->ntags; i++) {
        k[i].t = i < p->ntags ? &p->tags[i] : &p->other;
        if (!(k[i].key = entry_key(p, k[i].t))) {
            for (size_t j = 0; j < i; j++)
                free(k[j].key);
            free(k);
            return NULL;
        }
    }
    *n = p->ntags + 1;
    qsort(k, *n, sizeof *k, by_key);
    return k;
}

static void keyed_free(struct keyed *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++)
        free(k[i].key);
    free(k);
}

/* d += s (sign 1) or d -= s (sign -1), for every count and sum of an entry; -1 when a
 * count would go below 0. */
static int entry_add(const struct profile *p, struct profile_tag *d, const struct profile_tag *s,
                     int sign)
{
    uint64_t *dc[] = {&d->samples, &d->cycles, &d->kept, &d->straddled};
    const uint64_t sc[] = {s->samples, s->cycles, s->kept, s->straddled};
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        if (sign < 0 && *dc[i] < sc[i]) return -1;
        *dc[i] = sign < 0 ? *dc[i] - sc[i] : *dc[i] + sc[i];
    }
    for (size_t r = 0; r < p->nrates; r++) {
        struct profile_rate_stats *a = &d->rates[r];
        const struct profile_rate_stats *b = &s->rates[r];
        if (sign < 0 && a->periods < b->periods) return -1;
        a->periods = sign < 0 ? a->periods - b->periods : a->periods + b->periods;
        a->sum_a += sign * b->sum_a;
        a->sum_b += sign * b->sum_b;
        a->sum_aa += sign * b->sum_aa;
        a->sum_bb += sign * b->sum_bb;
        a->sum_ab += sign * b->sum_ab;
    }
    for (size_t k = 0; d->by && s->by && k < p->by.buckets + 2; k++) {
        if (sign < 0 && d->by[k].count < s->by[k].count) return -1;
        d->by[k].count =
            sign < 0 ? d->by[k].count - s->by[k].count : d->by[k].count + s->by[k].count;
        d->by[k].sum_a += sign * s->by[k].sum_a;
        d->by[k].sum_b += sign * s->by[k].sum_b;
    }
    return 0;
}

/* Nothing counted: the later entries of a key whose first holds them all. */
static void entry_clear(const struct profile *p, struct profile_tag *t)
{
    t->samples = t->cycles = t->kept = t->straddled = 0;
    for (size_t r = 0; r < p->nrates; r++) {
        struct profile_rate_stats *a = &t->rates[r];
        a->periods = 0;
        a->sum_a = a->sum_b = a->sum_aa = a->sum_bb = a->sum_ab = 0;
    }
    for (size_t k = 0; t->by && k < p->by.buckets + 2; k++)
        t->by[k] = (struct profile_by_slot){0, 0, 0};
}

/* The shares and rates formed again from the counts; the distributions dropped. */
static void entry_settle(const struct profile *p, struct profile_tag *t, uint64_t attributed)
{
    t->share = attributed ? (double)t->samples / (double)attributed : 0;
    t->has_detail = 0;
    t->detail_since = 0;
    for (size_t r = 0; r < p->nrates; r++) {
        struct profile_rate_stats *a = &t->rates[r];
        a->has_dist = 0;
        a->has_stats = a->periods > 0;
        a->n = a->periods;
        a->rate = a->sum_b > 0 ? a->sum_a / a->sum_b : NAN;
    }
}

int interval_same_run(const struct profile *after, const struct profile *before, char *why,
                      size_t whylen)
{
    if (after->program.pid != before->program.pid ||
        after->run.start_unix_ns != before->run.start_unix_ns) {
        snprintf(why, whylen,
                 "%s and %s are not profiles of one run (pid %" PRIu64 " and %" PRIu64
                 ", started at %" PRIu64 " and %" PRIu64 " ns)",
                 before->file, after->file, before->program.pid, after->program.pid,
                 before->run.start_unix_ns, after->run.start_unix_ns);
        return -1;
    }
    if (after->run.duration_ns < before->run.duration_ns ||
        after->samples.total < before->samples.total) {
        snprintf(why, whylen,
                 "%s is an earlier profile of the run than %s (%.3f s and %" PRIu64
                 " samples against %.3f s and %" PRIu64 ")",
                 after->file, before->file, (double)after->run.duration_ns * 1e-9,
                 after->samples.total, (double)before->run.duration_ns * 1e-9,
                 before->samples.total);
        return -1;
    }
    return 0;
}

/* after's totals less before's; -1 when one would go below 0. */
static int samples_subtract(struct profile_samples *a, const struct profile_samples *b)
{
    uint64_t *ac[] = {&a->total,      &a->interrupted,    &a->rated, &a->kept,
                      &a->discarded,  &a->thread_changes, &a->other, &a->straddled,
                      &a->other_full, &a->other_behind};
    const uint64_t bc[] = {b->total,      b->interrupted,    b->rated, b->kept,
                           b->discarded,  b->thread_changes, b->other, b->straddled,
                           b->other_full, b->other_behind};
    for (size_t i = 0; i < sizeof bc / sizeof bc[0]; i++) {
        if (*ac[i] < bc[i]) return -1;
        *ac[i] -= bc[i];
    }
    return 0;
}

int interval_subtract(struct profile *after, const struct profile *before, char *why, size_t whylen)
{
    if (interval_same_run(after, before, why, whylen) != 0) return -1;
    if (after->nrates != before->nrates || after->signals.ntags != before->signals.ntags ||
        after->has_by != before->has_by) {
        snprintf(why, whylen, "%s and %s do not read the same tags and rates", before->file,
                 after->file);
        return -1;
    }
    size_t na = 0, nb = 0;
    /* before's entries are only read, through the keyed array's pointers */
    struct keyed *ka = keyed_entries(after, &na),
                 *kb = ka ? keyed_entries((struct profile *)before, &nb) : NULL;
    int rc = -1;
    if (!ka || !kb) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    size_t i = 0, j = 0;
    while (i < na) {
        size_t first = i; /* one key: entries first .. i - 1 of after */
        for (i++; i < na && !strcmp(ka[i].key, ka[first].key); i++) {
            entry_add(after, ka[first].t, ka[i].t, 1);
            entry_clear(after, ka[i].t);
        }
        if (j < nb && strcmp(kb[j].key, ka[first].key) < 0) {
            snprintf(why, whylen,
                     "%s is not a later profile of %s's run: an entry of the one (%s) is "
                     "not in the other",
                     after->file, before->file, kb[j].key);
            goto done;
        }
        for (; j < nb && !strcmp(kb[j].key, ka[first].key); j++)
            if (entry_add(after, ka[first].t, kb[j].t, -1) != 0) {
                snprintf(why, whylen,
                         "%s is not a later profile of %s's run: entry %s counts less in it",
                         after->file, before->file, ka[first].key);
                goto done;
            }
    }
    if (j < nb) {
        snprintf(why, whylen,
                 "%s is not a later profile of %s's run: an entry of the one (%s) is not in "
                 "the other",
                 after->file, before->file, kb[j].key);
        goto done;
    }
    if (samples_subtract(&after->samples, &before->samples) != 0) {
        snprintf(why, whylen, "%s is not a later profile of %s's run: its samples count less",
                 after->file, before->file);
        goto done;
    }
    uint64_t attributed = after->samples.total - after->samples.interrupted;
    for (size_t k = 0; k < after->ntags; k++)
        entry_settle(after, &after->tags[k], attributed);
    entry_settle(after, &after->other, attributed);
    after->run.start_unix_ns += before->run.duration_ns;
    after->run.duration_ns -= before->run.duration_ns;
    after->run.tsc_cycles = after->run.tsc_cycles > before->run.tsc_cycles
                                ? after->run.tsc_cycles - before->run.tsc_cycles
                                : 0;
    after->run.children_cpu_seconds =
        fmax(0, after->run.children_cpu_seconds - before->run.children_cpu_seconds);
    rc = 0;
done:
    keyed_free(ka, na);
    keyed_free(kb, nb);
    return rc;
}
