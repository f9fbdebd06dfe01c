/*
 * calltree.c -- a calling-context profile added up per context and per function (see
 * calltree.h), and the names they are shown by.
 *
 * One pass over the tag entries gives every context its exclusive counts and every
 * function its exclusive ones (by slot 8); inclusive counts then come bottom-up, each
 * node's added to its parent's, which needs no recursion since a parent's row is always
 * smaller than its child's. A function's inclusive counts are its nodes' inclusive counts
 * added up, right because a path holds a function at most once.
 *
 * Children are kept sorted by inclusive samples, largest first, since every view that
 * walks the tree (the terminal tree, the HTML page) shows the heaviest first and folds
 * the light tail. The same callee called from two call sites is two sibling nodes; they
 * are marked as twins so a view can tell them apart by call site.
 */
#include "shimview/analysis/calltree.h"
#include "shimview/base/usage.h"
#include "shimview/analysis/rates.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/intervals.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sums ---- */

static void sums_add(struct calltree_sums *d, const struct calltree_sums *s, size_t nrates)
{
    for (size_t r = 0; r < nrates; r++) {
        d[r].n += s[r].n;
        d[r].sum_a += s[r].sum_a;
        d[r].sum_b += s[r].sum_b;
        d[r].sum_aa += s[r].sum_aa;
        d[r].sum_bb += s[r].sum_bb;
        d[r].sum_ab += s[r].sum_ab;
    }
}

void calltree_count_add(struct calltree_count *d, const struct calltree_count *s, size_t nrates)
{
    d->samples += s->samples;
    d->cycles += s->cycles;
    sums_add(d->rates, s->rates, nrates);
}

/* A rate without kept periods has no sums to add. */
void calltree_count_entry(struct calltree_count *d, const struct profile_tag *t, size_t nrates)
{
    d->samples += t->samples;
    d->cycles += t->cycles;
    for (size_t r = 0; r < nrates; r++) {
        const struct profile_rate_stats *s = &t->rates[r];
        if (!s->has_stats) continue;
        struct calltree_sums one = {s->n, s->sum_a, s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab};
        sums_add(&d->rates[r], &one, 1);
    }
}

double calltree_rate(const struct calltree_sums *s)
{
    return s->n > 0 && s->sum_b > 0 ? s->sum_a / s->sum_b : NAN;
}

struct interval calltree_rate_interval(const struct profile *p, size_t r,
                                       const struct calltree_sums *s)
{
    return interval_rate_sums(p, r, s->n, s->sum_a, s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab);
}

void calltree_rate_cell(struct table *t, size_t col, const struct profile *p, size_t r,
                        const struct calltree_sums *s)
{
    struct interval iv = calltree_rate_interval(p, r, s);
    char v[64], c[64];
    if (isnan(calltree_rate(s))) {
        table_set(t, col, "-");
        return;
    }
    stats_format_estimate(calltree_rate(s), interval_half(&iv), v, c, sizeof v);
    table_set(t, col, "%s", v);
}

double calltree_share(const struct calltree *ct, const struct calltree_count *c)
{
    return stats_fraction(c->samples, ct->attributed);
}

double calltree_time_share(const struct calltree *ct, const struct calltree_count *c)
{
    return stats_fraction(c->cycles, ct->total_cycles);
}

/* ---- building ---- */

/* A node's place among its siblings: sorted by parent, then by what the order asks. */
struct sibling {
    size_t parent, node;
    uint64_t key;
};

static int by_inclusive(const void *a, const void *b)
{
    const struct sibling *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    if (x->key != y->key) return x->key > y->key ? -1 : 1; /* most samples first */
    return x->node < y->node ? -1 : x->node > y->node;
}

static int by_function(const void *a, const void *b)
{
    const struct sibling *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Children lists sorted by inclusive samples, and twins: siblings of one function. */
int calltree_link_children(struct calltree_thread *th, const struct profile *p)
{
    const struct profile_cct_thread *t = th->t;
    size_t n = t->nnodes;
    struct sibling *s = malloc(n * sizeof *s);
    if (!s) return -1;
    for (size_t i = 1; i < n; i++) {
        s[i - 1] = (struct sibling){t->nodes[i].parent, i, th->incl[i].samples};
        th->first[t->nodes[i].parent + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        th->first[i + 1] += th->first[i];
    qsort(s, n - 1, sizeof *s, by_inclusive);
    for (size_t i = 0; i + 1 < n; i++)
        th->kids[i] = s[i].node;
    size_t k = 0;
    for (size_t i = 2; i < n; i++)
        s[k++] = (struct sibling){t->nodes[i].parent, i,
                                  (uint64_t)(t->nodes[i].function - p->functions)};
    qsort(s, k, sizeof *s, by_function);
    for (size_t i = 1; i < k; i++)
        if (s[i].parent == s[i - 1].parent && s[i].key == s[i - 1].key)
            th->twin[s[i].node] = th->twin[s[i - 1].node] = 1;
    free(s);
    return 0;
}

/* The rate sums of count c: the next nrates of the block. */
static void count_init(struct calltree_count *c, struct calltree_sums **next, size_t nrates)
{
    c->rates = *next;
    *next += nrates;
}

static int thread_alloc(struct calltree_thread *th, const struct profile_cct_thread *t)
{
    size_t n = t->nnodes;
    th->t = t;
    th->excl = calloc(n, sizeof *th->excl);
    th->incl = calloc(n, sizeof *th->incl);
    th->first = calloc(n + 1, sizeof *th->first);
    th->kids = calloc(n, sizeof *th->kids);
    th->twin = calloc(n, 1);
    return th->excl && th->incl && th->first && th->kids && th->twin ? 0 : -1;
}

/* Every count gets its rate sums from one block. */
static int counts_alloc(struct calltree *ct)
{
    const struct profile *p = ct->p;
    size_t ncounts = 3 + 2 * p->nfunctions, nrates = p->nrates;
    for (size_t i = 0; i < ct->nthreads; i++)
        ncounts += 2 * p->cct.threads[i].nnodes;
    ct->block = calloc(ncounts * nrates + 1, sizeof *ct->block);
    if (!ct->block) return -1;
    struct calltree_sums *next = ct->block;
    count_init(&ct->outside, &next, nrates);
    count_init(&ct->unlisted, &next, nrates);
    count_init(&ct->no_context, &next, nrates);
    for (size_t f = 0; f < p->nfunctions; f++) {
        ct->functions[f].f = &p->functions[f];
        count_init(&ct->functions[f].excl, &next, nrates);
        count_init(&ct->functions[f].incl, &next, nrates);
    }
    for (size_t i = 0; i < ct->nthreads; i++)
        for (size_t j = 0; j < ct->threads[i].t->nnodes; j++) {
            count_init(&ct->threads[i].excl[j], &next, nrates);
            count_init(&ct->threads[i].incl[j], &next, nrates);
        }
    return 0;
}

/* Whether f is on the path from the root to node of t's tree (never: no tree). */
static int on_path(const struct profile_cct_thread *t, size_t node,
                   const struct profile_function *f)
{
    for (size_t i = node; t && i > 1 && i < t->nnodes; i = t->nodes[i].parent)
        if (t->nodes[i].function == f) return 1;
    return 0;
}

/* Each entry into its function's and its context's exclusive counts. */
static void add_entries(struct calltree *ct)
{
    const struct profile *p = ct->p;
    size_t nrates = p->nrates;
    for (size_t i = 0; i <= p->ntags; i++) {
        const struct profile_tag *t = i < p->ntags ? &p->tags[i] : &p->other;
        if (t->is_other) {
            calltree_count_entry(&ct->no_context, t, nrates);
            continue;
        }
        if (t->function)
            calltree_count_entry(&ct->functions[t->function - p->functions].excl, t, nrates);
        else
            calltree_count_entry(t->values[p->cct.method_tag] ? &ct->unlisted : &ct->outside, t,
                                 nrates);
        if (t->context_thread)
            calltree_count_entry(
                &ct->threads[t->context_thread - p->cct.threads].excl[t->context_node], t, nrates);
        else
            calltree_count_entry(&ct->no_context, t, nrates);
        /* The function executing is inside itself, whatever its context says: a context
         * lost (the overflow node) or none leaves it off every path, and its inclusive
         * samples would be fewer than its exclusive ones. */
        if (t->function && !on_path(t->context_thread, t->context_node, t->function))
            calltree_count_entry(&ct->functions[t->function - p->functions].incl, t, nrates);
    }
}

/* Inclusive counts: each node's added to its parent's, deepest rows first. */
static int add_inclusive(struct calltree *ct, struct calltree_thread *th)
{
    const struct profile *p = ct->p;
    const struct profile_cct_thread *t = th->t;
    for (size_t i = 0; i < t->nnodes; i++)
        calltree_count_add(&th->incl[i], &th->excl[i], p->nrates);
    for (size_t i = t->nnodes; i-- > 1;)
        calltree_count_add(&th->incl[t->nodes[i].parent], &th->incl[i], p->nrates);
    for (size_t i = 2; i < t->nnodes; i++)
        calltree_count_add(&ct->functions[t->nodes[i].function - p->functions].incl, &th->incl[i],
                           p->nrates);
    return calltree_link_children(th, p);
}

struct calltree *calltree_build(const struct profile *p)
{
    struct calltree *ct = calloc(1, sizeof *ct);
    if (!ct) return NULL;
    ct->p = p;
    ct->nthreads = p->cct.nthreads;
    ct->attributed = p->samples.total - p->samples.interrupted;
    ct->total_cycles = profile_total_cycles(p);
    ct->threads = calloc(ct->nthreads + 1, sizeof *ct->threads);
    ct->functions = calloc(p->nfunctions + 1, sizeof *ct->functions);
    if (!ct->threads || !ct->functions) goto fail;
    for (size_t i = 0; i < ct->nthreads; i++)
        if (thread_alloc(&ct->threads[i], &p->cct.threads[i])) goto fail;
    if (counts_alloc(ct)) goto fail;
    add_entries(ct);
    for (size_t i = 0; i < ct->nthreads; i++)
        if (add_inclusive(ct, &ct->threads[i])) goto fail;
    return ct;
fail:
    calltree_free(ct);
    return NULL;
}

void calltree_free(struct calltree *ct)
{
    if (!ct) return;
    for (size_t i = 0; ct->threads && i < ct->nthreads; i++) {
        free(ct->threads[i].excl);
        free(ct->threads[i].incl);
        free(ct->threads[i].first);
        free(ct->threads[i].kids);
        free(ct->threads[i].twin);
    }
    free(ct->threads);
    free(ct->functions);
    free(ct->block);
    free(ct);
}

/* ---- names ---- */

const char *calltree_function_label(const struct profile_function *f, char *buf, size_t len)
{
    if (f->name) return f->name;
    if (f->pass && f->pass->name[0]) return f->pass->name;
    if (!f->module) {
        snprintf(buf, len, "%#" PRIx64, f->address);
        return buf;
    }
    const char *base = strrchr(f->module, '/');
    snprintf(buf, len, "%s+%#" PRIx64, base ? base + 1 : f->module, f->offset);
    return buf;
}

const char *calltree_node_label(const struct profile_cct_thread *t, size_t i, char *buf, size_t len)
{
    if (i == 0) return CALLTREE_ROOT_NAME;
    if (!t->nodes[i].function) return CALLTREE_OVERFLOW_NAME;
    return calltree_function_label(t->nodes[i].function, buf, len);
}

const char *calltree_node_name(const struct profile_cct_thread *t, const unsigned char *twin,
                               size_t i, char *buf, size_t len)
{
    const char *name = calltree_node_label(t, i, buf, len);
    if (!twin || !twin[i] || !t->nodes[i].has_site) return name;
    char label[256]; /* the label may be in buf already */
    snprintf(label, sizeof label, "%s", name);
    snprintf(buf, len, "%s @%#" PRIx64, label, t->nodes[i].site);
    return buf;
}

size_t calltree_depth(const struct profile_cct_thread *t, size_t i)
{
    size_t d = 0;
    for (; i != 0; i = t->nodes[i].parent)
        d++;
    return d;
}

size_t calltree_path_nodes(const struct profile_cct_thread *t, size_t i, size_t *out)
{
    size_t d = calltree_depth(t, i);
    for (size_t k = d; k-- > 0; i = t->nodes[i].parent)
        out[k] = i;
    return d;
}

void calltree_write_path(FILE *f, const struct profile_cct_thread *t, const unsigned char *twin,
                         size_t i, const char *sep)
{
    char buf[320];
    size_t d = calltree_depth(t, i), *nodes = d > 1 ? malloc(d * sizeof *nodes) : NULL;
    if (!nodes) { /* the root, the overflow node, a function called from the root */
        fputs(calltree_node_name(t, twin, i, buf, sizeof buf), f);
        if (d > 1) fputs(" (path lost: out of memory)", f);
        return;
    }
    calltree_path_nodes(t, i, nodes);
    for (size_t k = 0; k < d; k++) {
        if (k > 0) fputs(sep, f);
        fputs(calltree_node_name(t, twin, nodes[k], buf, sizeof buf), f);
    }
    free(nodes);
}

int calltree_load_profile(const char *file, struct profile **p)
{
    char err[512];
    if (!(*p = profile_open(file, err, sizeof err))) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    if ((*p)->has_cct) return 0;
    fprintf(stderr,
            "shimview: %s has no calling context: build the program with "
            "-finstrument-functions and run it under shimrun\n",
            (*p)->file);
    profile_free(*p);
    return EXIT_FILE_ERROR;
}

int calltree_load(const char *file, struct profile **p, struct calltree **ct)
{
    *ct = NULL;
    int rc = calltree_load_profile(file, p);
    if (rc) return rc;
    if ((*ct = calltree_build(*p))) return 0;
    fprintf(stderr, "shimview: %s: out of memory\n", (*p)->file);
    profile_free(*p);
    return EXIT_FILE_ERROR;
}

int calltree_find_rate(const struct profile *p, const char *name, const char *cmd, size_t *out)
{
    return rates_find(p, name, cmd, out);
}
