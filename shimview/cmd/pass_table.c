/*
 * pass_table.c -- what the tables of `loops` and `paths` share.
 *
 * Both add up entries that name one thing, whatever their thread and the program's own
 * slots: the tag entries of one loop signal, the path entries of one (function, path).
 * The sums are calltree.c's (samples, cycles, each rate's five sums), so a group's rate is
 * sum_a / sum_b over its kept periods with the delta-method interval, as `functions`
 * gives it; and the rows print through the cells and options view.c gives every
 * table, so the columns read alike across the views.
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/intervals.h"
#include "shimview/base/numbers.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- grouping entries ---- */

static int by_key(const void *a, const void *b)
{
    const struct entry_group *x = a, *y = b;
    for (int k = 0; k < 2; k++)
        if (x->key[k] != y->key[k]) return x->key[k] < y->key[k] ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int by_group_samples(const void *a, const void *b)
{
    const struct entry_group *x = a, *y = b;
    if (x->c.samples != y->c.samples) return x->c.samples > y->c.samples ? -1 : 1;
    return by_key(a, b);
}

struct entry_group *entry_groups(const struct profile_tag *entries, size_t n, size_t nrates,
                                 void (*key_of)(const struct profile_tag *, const void *ctx,
                                                uint64_t *key),
                                 const void *ctx, size_t *ngroups, struct calltree_sums **block)
{
    struct entry_group *g = calloc(n + 1, sizeof *g);
    *block = calloc(n * nrates + 1, sizeof **block);
    if (!g || !*block) {
        free(g);
        free(*block);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        g[i].first = &entries[i];
        key_of(&entries[i], ctx, g[i].key);
    }
    qsort(g, n, sizeof *g, by_key);
    size_t k = 0; /* groups so far: g[0 .. k), each at most as far as the entry read */
    for (size_t i = 0; i < n; i++) {
        const struct profile_tag *e = g[i].first;
        if (k == 0 || g[k - 1].key[0] != g[i].key[0] || g[k - 1].key[1] != g[i].key[1]) {
            g[k] = g[i];
            g[k].c = (struct calltree_count){.rates = *block + k * nrates};
            k++;
        }
        calltree_count_entry(&g[k - 1].c, e, nrates);
    }
    qsort(g, k, sizeof *g, by_group_samples);
    *ngroups = k;
    return g;
}

/* What entry_groups_sort sorts by (qsort has no context argument in C11). */
static long sort_by;
static const char *(*sort_label)(const struct entry_group *, long, char *, size_t);

static int by_sort_key(const void *a, const void *b)
{
    const struct entry_group *x = a, *y = b;
    if (sort_by == ENTRY_SORT_TIME && x->c.cycles != y->c.cycles)
        return x->c.cycles > y->c.cycles ? -1 : 1;
    if (sort_by > ENTRY_SORT_TIME) {
        char bx[320], by[320];
        int c =
            strcmp(sort_label(x, sort_by, bx, sizeof bx), sort_label(y, sort_by, by, sizeof by));
        if (c) return c;
    }
    return by_group_samples(a, b);
}

void entry_groups_sort(struct entry_group *g, size_t n, long by,
                       const char *(*label)(const struct entry_group *, long, char *, size_t))
{
    sort_by = by;
    sort_label = label;
    qsort(g, n, sizeof *g, by_sort_key);
}

/* ---- the commands ---- */

size_t pass_function_cells(struct table *t, size_t c, const struct profile_function *fn,
                           uint64_t address, int csv)
{
    char buf[256];
    if (fn)
        table_set(t, c, "%s", calltree_function_label(fn, buf, sizeof buf));
    else
        table_set(t, c, "%#" PRIx64, address);
    if (!csv) return c + 1;
    if (fn && fn->module) table_set(t, c + 1, "%s", fn->module);
    if (fn) table_set(t, c + 2, "%" PRIu64, fn->offset);
    return c + 3;
}

const char *pass_sort_label(const struct profile_function *fn, uint64_t address, uint64_t number,
                            char *buf, size_t len)
{
    char name[256];
    /* the function as its cell names it; \x01 sorts a name before any longer one */
    if (fn)
        snprintf(buf, len, "%s\x01%020" PRIu64, calltree_function_label(fn, name, sizeof name),
                 number);
    else
        snprintf(buf, len, "%#" PRIx64 "\x01%020" PRIu64, address, number);
    return buf;
}

size_t pass_count_cells(struct table *t, size_t c, const struct profile *p,
                        const struct calltree_count *n, int csv)
{
    char a[32];
    if (csv)
        table_set(t, c, "%" PRIu64, n->samples);
    else
        table_set(t, c, "%s", fmt_count(n->samples, a, sizeof a));
    view_set_share(t, c + 1, stats_fraction(n->samples, p->samples.total - p->samples.interrupted),
                   csv);
    view_set_share(t, c + 2, stats_fraction(n->cycles, profile_total_cycles(p)), csv);
    return c + 3;
}

size_t pass_rate_cells(struct table *t, size_t c, const struct profile *p, long rate,
                       const struct calltree_count *n, int csv)
{
    size_t r0, nr = view_rates_shown(p, rate, &r0);
    for (size_t r = r0; r < r0 + nr; r++) {
        if (csv)
            c = view_set_rate_csv(t, c, p, r, &n->rates[r]);
        else
            calltree_rate_cell(t, c++, p, r, &n->rates[r]);
    }
    return c;
}

size_t pass_rate_heads(struct table *t, size_t c, const struct profile *p, long rate, int csv)
{
    size_t r0, nr = view_rates_shown(p, rate, &r0);
    for (size_t r = r0; r < r0 + nr; r++) {
        const char *name = p->rates[r].name;
        if (!csv) {
            table_set(t, c++, "%s", name);
            continue;
        }
        table_set(t, c++, "rate_%s", name);
        table_set(t, c++, "rate_ci95_%s", name);
        table_set(t, c++, "n_%s", name);
    }
    return c;
}

int pass_view_run(int argc, char **argv, const char *cmd, const char *usage, const char *own,
                  enum pass_view_needs needs,
                  int (*print)(const struct profile *p, const struct view_options *o, long rate))
{
    /* --sort: samples, time (entry_groups_sort), then the function's name and number */
    static const char *const keys[] = {"samples", "time", "function"};
    struct view_options o = {.t = {.sort_keys = keys, .nsort_keys = 3}};
    char err[512];
    size_t rate = 0;
    int rc = view_parse_options(argc, argv, cmd, usage, own, &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct profile *p = profile_open(o.file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    int loops = needs == PASS_VIEW_LOOPS;
    const struct profile_function *fell = NULL; /* a function the pass gave no paths, and why */
    for (size_t i = 0; i < p->nfunctions && !fell; i++)
        if (p->functions[i].pass && p->functions[i].pass->fallback) fell = &p->functions[i];
    if (!loops && !p->has_paths && fell) {
        fprintf(stderr,
                "shimview: %s has no paths: the pass numbered none of its functions' paths "
                "(%s: %s, and so on: the build said why); 'shimview functions' and 'shimview "
                "loops' have their samples (" SHIM_DOC_DIR "/compiler-pass.md)\n",
                p->file, fell->pass->name, fell->pass->fallback);
        rc = EXIT_FILE_ERROR;
    } else if (loops ? !p->has_loop_slot : !p->has_paths) {
        fprintf(stderr,
                "shimview: %s has no %s: build the program with the compiler pass's %s signal "
                "(%s; " SHIM_DOC_DIR "/compiler-pass.md)\n",
                p->file, loops ? "loop signal (tag slot 10)" : "paths", loops ? "loop" : "path",
                loops ? "one of its defaults"
                      : "not one of its defaults: SHIM_PASS=method,loop,path,context for the "
                        "compiler");
        rc = EXIT_FILE_ERROR;
    } else if (o.rate) {
        rc = calltree_find_rate(p, o.rate, cmd, &rate);
    }
    if (rc == 0 && (rc = print(p, &o, o.rate ? (long)rate : -1)) < 0) {
        fprintf(stderr, "shimview: %s: out of memory while printing\n", p->file);
        rc = EXIT_FILE_ERROR;
    }
    profile_free(p);
    return rc;
}
