/*
 * compare.c -- `shimview compare`: two profiles tag by tag, with intervals on the
 * differences (the SHIM paper's DVFS and prefetching case studies: one program run under
 * two configurations, and the question of what changed where).
 *
 * Tags are matched by name with the thread word ignored (match.h), since the tids of two
 * runs differ. For each tag the table gives the share of samples in A and in B and the
 * difference B - A in percentage points; for each rate both profiles have, the ratio
 * estimate sum_a / sum_b in A and in B and their difference. Each side's 95% interval is
 * intervals.h's: batch means over the run's time batches where the tuple has them
 * (consecutive samples are correlated, and only the spread between spans of the run
 * says by how much), else an independent-sample interval widened by the profile's design
 * effect (`~`), or left as it is in a profile without batches (`!`, a lower bound). The
 * runs are independent, so the difference's interval is formed from the two sides'
 * (MOVER, which also takes Wilson's asymmetric intervals of small shares); a difference
 * whose interval excludes 0 is marked '*'. A tag one profile lacks had no sample there:
 * its share there is 0, with the interval 0 samples have, so a tag that appears or
 * vanishes is compared like any other; its rates there are unknown, and not compared.
 *
 * One run's intervals say nothing of how runs differ, and runs of one program with the
 * same settings do differ (bench/README.md: the program's own measurement of a phase's
 * share moved by half a point between runs). With --runs N, each side is several runs,
 * the first N profiles A's and the rest B's, pooled as `merge` pools them (a share is the
 * runs' samples over their attributed samples, a rate their sum_a over their sum_b), with
 * the interval across runs (stats_pooled_ci95: the runs as the independent units,
 * Student's t): what to compare when a mark must hold up (docs/statistics.md).
 *
 * With -o DIR the first rows are also drawn, A over B, by the plot figures (plot_hist.c,
 * plot_cdf.c), which take a second profile for this; with --flame FILE the calling
 * contexts are, as `shimview flame --diff` draws them (flame.c).
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/match.h"
#include "shimview/render/plot.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"
#include "shimview/analysis/intervals.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_TOP    20
#define FIGURE_TOP     4 /* tags drawn in the histogram figure, at most */
#define SHARE_COLS     5 /* share A, share B, diff, ± CI, mark */
#define RATE_COLS      5 /* rate A, rate B, diff, ± CI, mark */
#define CSV_EXTRA_COLS 3 /* CSV after the mark: diff_lo95, diff_hi95, basis */
#define CSV_FIXED_COLS 4 /* name, in, samples_a, samples_b */
#define SIGNIFICANT    "*"

const char compare_usage[] =
    "usage: shimview compare [--rate NAME] [--sort KEY] [--top N | --all] [--csv | --json]\n"
    "                        [-o DIR] [--flame FILE] A B\n"
    "       shimview compare --runs N [--rate NAME] [--sort KEY] [--top N | --all]\n"
    "                        [--csv | --json] A1..AN B1..\n"
    "\n"
    "Compare two profiles tag by tag: for each tag, its share of samples in A and\n"
    "in B and the difference B - A in percentage points with a 95% confidence\n"
    "interval; for each rate both profiles have, the rate (sum_a / sum_b over the\n"
    "kept periods) in A and in B and the difference with its 95% interval. '*'\n"
    "marks a difference whose interval excludes 0. Intervals come from each run's\n"
    "time batches (batch means); '~' marks one widened from independent samples by\n"
    "the run's design effect, '!' one that assumes independent samples (a profile\n"
    "without batches). Tags are matched by name, the thread word ignored (tids\n"
    "differ between runs; a tag seen in several threads is added up). Rows are\n"
    "sorted by A's share (or --sort); a tag found in one profile only counts as 0\n"
    "samples in the other ('-'). Rates that only one profile has are left out, and\n"
    "named on stderr.\n"
    "\n"
    "      --runs N      each side is several runs: the first N profiles are A's,\n"
    "                    the rest B's (at least 2 each); each side's shares and\n"
    "                    rates are pooled over its runs, with intervals across runs\n"
    "                    (as `merge` gives them); not with -o or --flame\n"
    "  -r, --rate NAME   compare only this rate (default: every rate both have)\n"
    "  -n, --top N       show the first N rows (default 20; CSV: every row)\n"
    "  -a, --all         show every row\n"
    "  -s, --sort KEY    the rows' order (keys: a, b, change, name): A's share (the\n"
    "                    default) or B's, largest first; the size of the change in\n"
    "                    share |B - A|, largest first; or names A to Z\n"
    "      --csv         print only the table, as CSV with a header row (columns:\n"
    "                    " SHIM_DOC_DIR "/shimview/compare.md)\n"
    "      --json        print only the table, as JSON: an array of objects, one per\n"
    "                    row, with the CSV's columns\n"
    "  -o, --output DIR  also draw A over B into DIR (made when it does not exist):\n"
    "                    STEMA-vs-STEMB-hist.svg (the rate's histogram for each of the\n"
    "                    first 4 tags, or N with --top) and STEMA-vs-STEMB-cdf.svg (the\n"
    "                    rate's distribution in A and in B); the rate is --rate, else\n"
    "                    ipc, else the first one both have; not with --csv or --json\n"
    "      --flame FILE  also draw the calling contexts' differential flame graph\n"
    "                    into FILE (as shimview flame --diff A B does; '-': standard\n"
    "                    output); both profiles need a calling context; not with\n"
    "                    --csv, --json or --runs\n"
    "  -h, --help        print this help\n";

struct compare_options {
    struct match_table_options t;
    const char *rate;
    const char *dir;
    const char *flame;
    char **file;  /* A's runs, then B's */
    size_t nfile; /* 2 without --runs */
    size_t runs;  /* A's runs: profiles [0, runs) are A, [runs, nfile) B */
};

/* The profiles of side j (0: A, 1: B) of a match: [*from, *to). */
static void side_range(const struct compare_options *o, size_t j, size_t *from, size_t *to)
{
    *from = j ? o->runs : 0;
    *to = j ? o->nfile : o->runs;
}

/* One row: a matched tag with what both sides say of its share. */
struct cmp_row {
    const struct match_row *m;
    uint64_t k[2];            /* samples (of every run of the side) */
    int present[2];           /* the side has the tag (in some run) */
    struct interval share[2]; /* a side without the tag: 0 samples */
};

/* ---- rows ---- */

/* --sort's keys: A's share (the default), B's, the change B - A by its size, the name */
static const char *const compare_keys[] = {"a", "b", "change", "name"};
enum { SORT_A, SORT_B, SORT_CHANGE, SORT_NAME };

static long sort_key; /* qsort has no context argument in C11 */

/* The size of the change of a row's share (a side without the tag holds 0 samples). */
static double change(const struct cmp_row *r)
{
    double d = fabs(r->share[1].value - r->share[0].value);
    return isnan(d) ? -1 : d;
}

static int row_order(const void *a, const void *b)
{
    const struct cmp_row *x = a, *y = b;
    if (x->m->is_other != y->m->is_other) return x->m->is_other - y->m->is_other;
    if (sort_key == SORT_NAME) return strcmp(x->m->name, y->m->name);
    if (sort_key == SORT_CHANGE && change(x) != change(y)) return change(x) < change(y) ? 1 : -1;
    for (int i = 0; i < 2; i++) { /* A's share first (B's for 'b'); a missing side below 0 */
        int j = sort_key == SORT_B ? 1 - i : i;
        double sx = x->present[j] ? x->share[j].value : -1;
        double sy = y->present[j] ? y->share[j].value : -1;
        if (sx != sy) return sx < sy ? 1 : -1;
    }
    return strcmp(x->m->name, y->m->name);
}

/* Side j's share of row r over its runs (--runs): pooled, its interval across runs. */
static struct interval runs_share(const struct match *m, struct cmp_row *r, size_t from, size_t to,
                                  double *ab)
{
    struct stats_pooled p = {.ab = ab};
    for (size_t j = from; j < to; j++) {
        const struct profile_tag *t = r->m->entry[j];
        if (match_attributed(m, j))
            stats_pooled_add(&p, t ? (double)t->samples : 0, (double)match_attributed(m, j));
    }
    return interval_runs(&p, 1);
}

static struct cmp_row *make_rows(const struct match *m, const struct compare_options *o)
{
    struct cmp_row *rows = calloc(m->nrows ? m->nrows : 1, sizeof *rows);
    double *ab = calloc(2 * o->nfile, sizeof *ab);
    if (!rows || !ab) {
        free(rows);
        free(ab);
        return NULL;
    }
    for (size_t i = 0; i < m->nrows; i++) {
        struct cmp_row *r = &rows[i];
        r->m = &m->rows[i];
        for (size_t j = 0; j < 2; j++) {
            size_t from, to;
            side_range(o, j, &from, &to);
            for (size_t q = from; q < to; q++) {
                const struct profile_tag *t = r->m->entry[q];
                r->k[j] += t ? t->samples : 0;
                r->present[j] |= t != NULL;
            }
            const struct profile_tag *t = r->m->entry[from];
            if (o->nfile > 2)
                r->share[j] = runs_share(m, r, from, to, ab);
            else
                r->share[j] = t ? interval_share(&m->folded[from], t)
                                : interval_share_count(&m->folded[from], 0);
        }
    }
    free(ab);
    sort_key = o->t.sort;
    qsort(rows, m->nrows, sizeof *rows, row_order);
    return rows;
}

/* ---- cells ---- */

/* Two estimates, their difference B - A with its interval, and what to print. */
struct diff {
    struct interval a, b, d;
    int show_a, show_b; /* the side has the tag (else "-") */
    int have_d;         /* the difference is defined */
};

/* A side's value as text, times scale: a share in % (stats_format_share), a rate to the
 * precision of its own interval. */
static void side_text(char *buf, size_t len, const struct interval *iv, int share)
{
    char c[64];
    if (share)
        stats_format_share(iv->value, buf, len);
    else
        stats_format_estimate(iv->value, interval_half(iv), buf, c, len);
}

/* Five cells from column c: A, B, the difference, its interval and the mark; in CSV then
 * the interval's bounds and its basis. CSV has every digit; text rounds the difference
 * to the precision its interval supports, in units of `scale` (100: percentage points),
 * and writes an asymmetric interval as "+up/-down". */
static void diff_cells(struct table *t, size_t c, const struct diff *d, int csv, double scale,
                       int share)
{
    double half = interval_half(&d->d);
    if (csv) {
        if (d->show_a) table_set(t, c, "%.10g", d->a.value);
        if (d->show_b) table_set(t, c + 1, "%.10g", d->b.value);
        if (d->have_d) table_set(t, c + 2, "%.10g", d->d.value);
        if (d->have_d && !isnan(half)) {
            table_set(t, c + 3, "%.6g", half);
            table_set(t, c + 5, "%.6g", d->d.lo);
            table_set(t, c + 6, "%.6g", d->d.hi);
            table_set(t, c + 7, "%s", interval_basis_name(d->d.basis));
        }
    } else {
        char a[64], b[64], v[64], h[64];
        table_set(t, c, "-");
        table_set(t, c + 1, "-");
        table_set(t, c + 2, "-");
        if (d->show_a) side_text(a, sizeof a, &d->a, share), table_set(t, c, "%s", a);
        if (d->show_b) side_text(b, sizeof b, &d->b, share), table_set(t, c + 1, "%s", b);
        if (d->have_d) {
            double up = (d->d.hi - d->d.value) * scale, down = (d->d.value - d->d.lo) * scale;
            stats_format_estimate(d->d.value * scale, half * scale, v, h, sizeof v);
            int sign = d->d.value >= 0 && v[0] != '-' && !stats_printed_zero(v);
            table_set(t, c + 2, "%s%s", sign ? "+" : "", v);
            if (!isnan(half) && fabs(up - down) > 0.1 * fmax(up, down)) {
                char u[64], w[64];
                stats_format_halves(d->d.value * scale, up, down, u, w, sizeof u);
                table_set(t, c + 3, "+%s/-%s%s", u, w, interval_mark(d->d.basis));
            } else {
                table_set(t, c + 3, "%s%s", h, interval_mark(d->d.basis));
            }
        }
    }
    if (d->have_d && interval_excludes_zero(&d->d)) table_set(t, c + 4, SIGNIFICANT);
}

/* Shares print in %, their difference in percentage points. A side without the tag
 * counts as 0 samples there (make_rows gave it that interval). */
static void share_cells(struct table *t, size_t c, const struct cmp_row *r, int csv)
{
    struct diff d = {.a = r->share[0],
                     .b = r->share[1],
                     .show_a = r->present[0],
                     .show_b = r->present[1],
                     .have_d = 1};
    d.d = interval_diff(&d.a, &d.b);
    diff_cells(t, c, &d, csv, 100, 1);
}

/* Side j's rate k of row r over its runs (--runs): pooled over the runs where the tag
 * has kept periods, its interval across them. */
static struct interval runs_rate(const struct match *m, const struct cmp_row *r, size_t k,
                                 size_t from, size_t to)
{
    double ab[2 * (to - from) + 1];
    struct stats_pooled p = {.ab = ab};
    for (size_t j = from; j < to; j++) {
        const struct profile_tag *t = r->m->entry[j];
        const struct profile_rate_stats *s = t ? &t->rates[match_rate(m, k, j)] : NULL;
        if (s && s->n > 0 && s->has_stats && s->sum_b > 0) stats_pooled_add(&p, s->sum_a, s->sum_b);
    }
    return interval_runs_rate(&p, m->folded[from].rates[match_rate(m, k, from)].scale);
}

static void rate_cells(struct table *t, size_t c, const struct match *m, const struct cmp_row *r,
                       size_t k, int csv, const struct compare_options *o)
{
    struct diff d = {0};
    d.a = d.b = (struct interval){NAN, NAN, NAN, NAN, INTERVAL_NONE};
    for (size_t j = 0; j < 2; j++) {
        size_t from, to;
        side_range(o, j, &from, &to);
        const struct profile_tag *e = r->m->entry[from];
        struct interval *iv = j ? &d.b : &d.a;
        if (o->nfile > 2)
            *iv = runs_rate(m, r, k, from, to);
        else if (e)
            *iv = interval_rate(&m->folded[from], e, match_rate(m, k, from));
        *(j ? &d.show_b : &d.show_a) = !isnan(iv->value);
    }
    d.have_d = d.show_a && d.show_b;
    d.d = interval_diff(&d.a, &d.b);
    diff_cells(t, c, &d, csv, 1, 0);
}

/* ---- the table ---- */

/* Which common rates the table shows: one (--rate) or all. */
struct rate_pick {
    size_t first, n;
};

static struct table *new_table(const struct match *m, const struct rate_pick *rp, int csv)
{
    size_t fixed = csv ? CSV_FIXED_COLS : 1, group = csv ? SHARE_COLS + CSV_EXTRA_COLS : SHARE_COLS;
    size_t ncols = fixed + group * (1 + rp->n);
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = 1; c < ncols; c++)
        align[c] = TABLE_RIGHT;
    for (size_t k = 0; k <= rp->n; k++) { /* "± CI" and the mark read from the left */
        align[fixed + group * k + 3] = TABLE_LEFT;
        align[fixed + group * k + 4] = TABLE_LEFT;
    }
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    table_add_row(t);
    size_t c = 0;
    table_column_text(t, 0);
    table_column_text(t, 1);
    table_set(t, c++, "name");
    if (csv) {
        static const char *const heads[] = {
            "in",         "samples_a",       "samples_b", "share_a",         "share_b",
            "share_diff", "share_diff_ci95", "share_sig", "share_diff_lo95", "share_diff_hi95",
            "share_basis"};
        for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
            table_set(t, c++, "%s", heads[i]);
    } else {
        static const char *const heads[] = {"share A", "share B", "Δ share", "± 95% CI"};
        for (size_t i = 0; i < 4; i++)
            table_set(t, c++, "%s", heads[i]);
        c++;
    }
    for (size_t k = rp->first; k < rp->first + rp->n; k++) {
        const char *name = match_rate_name(m, k);
        if (csv) {
            static const char *const tails[] = {"a",   "b",         "diff",      "diff_ci95",
                                                "sig", "diff_lo95", "diff_hi95", "basis"};
            for (size_t i = 0; i < RATE_COLS + CSV_EXTRA_COLS; i++)
                table_set(t, c++, "rate_%s_%s", name, tails[i]);
        } else {
            table_set(t, c++, "%s A", name);
            table_set(t, c++, "%s B", name);
            table_set(t, c++, "Δ %s", name);
            table_set(t, c++, "± 95%% CI");
            c++;
        }
    }
    table_end_header(t);
    return t;
}

static void add_row(struct table *t, const struct match *m, const struct cmp_row *r,
                    const struct rate_pick *rp, const struct compare_options *o)
{
    size_t c = 0;
    int csv = o->t.csv;
    table_add_row(t);
    table_set(t, c++, "%s", r->m->name);
    if (csv) {
        int a = r->present[0], b = r->present[1];
        table_set(t, c++, "%s", a && b ? "both" : a ? "a" : "b");
        if (a) table_set(t, c, "%" PRIu64, r->k[0]);
        if (b) table_set(t, c + 1, "%" PRIu64, r->k[1]);
        c += 2;
    }
    size_t group = csv ? SHARE_COLS + CSV_EXTRA_COLS : SHARE_COLS;
    share_cells(t, c, r, csv);
    c += group;
    for (size_t k = rp->first; k < rp->first + rp->n; k++, c += group)
        rate_cells(t, c, m, r, k, csv, o);
}

static void print_notes(const struct match *m, const struct rate_pick *rp, size_t hidden,
                        const struct compare_options *o)
{
    char legend[512];
    match_note_hidden(hidden);
    if (o->nfile > 2) {
        printf(
            "\nΔ = B - A, each side pooled over its runs (A: %zu, B: %zu) as `merge` pools them:\n"
            "shares are the runs' samples over their attributed samples, in percentage\n"
            "points (a run without the tag counts as 0 samples); rates sum_a / sum_b over the\n"
            "kept periods of the runs that have some.\n",
            o->runs, o->nfile - o->runs);
        for (size_t k = rp->first; k < rp->first + rp->n; k++) {
            const struct profile_rate *r = &m->folded[0].rates[match_rate(m, k, 0)];
            printf("  %s: counter %s, %s\n", r->name, r->counter, r->unit);
        }
        printf(
            "± the 95%% interval of the difference, from each side's interval across its runs\n"
            "(the runs as independent units, Student's t with runs - 1 degrees of freedom).\n"
            "%s: the interval excludes 0. Tags are matched by name; the thread word is ignored.\n",
            SIGNIFICANT);
        return;
    }
    printf("\nΔ = B - A. Shares: of each profile's attributed samples; Δ in percentage points;\n"
           "a tag one profile lacks (-) counts as 0 samples there.\n");
    char slow[320];
    if (rp->n)
        printf("Rates: sum_a / sum_b over the kept periods%s.\n",
               profile_slow_rates_note(&m->folded[0], slow, sizeof slow));
    for (size_t k = rp->first; k < rp->first + rp->n; k++) {
        const struct profile_rate *r = &m->folded[0].rates[match_rate(m, k, 0)];
        printf("  %s: counter %s, %s\n", r->name, r->counter, r->unit);
    }
    printf("± the 95%% interval of the difference, from each run's own intervals (a run's\n"
           "samples are correlated; the two runs are independent):\n");
    for (size_t j = 0; j < 2; j++)
        printf("  %s: %s\n", j ? "B" : "A", intervals_legend(&m->folded[j], legend, sizeof legend));
    printf("%s: the interval excludes 0. Tags are matched by name; the thread word is ignored.\n",
           SIGNIFICANT);
    printf("One run a side: %s says these two runs differ by more than their sampling explains.\n"
           "Runs of one program differ by more than that (its layout, the machine's other work,\n"
           "the observer's reads of lines it writes, whose cost varies with the CPUs' placement):\n"
           "whether two builds or settings differ, compare several runs a side (--runs N).\n",
           SIGNIFICANT);
}

static int print_table(const struct match *m, const struct cmp_row *rows,
                       const struct rate_pick *rp, const struct compare_options *o)
{
    int csv = o->t.csv;
    size_t shown = match_rows_shown(m, &o->t, DEFAULT_TOP);
    struct table *t = new_table(m, rp, csv);
    char(*names)[24] = calloc(o->nfile, sizeof *names);
    const char **labels = calloc(o->nfile, sizeof *labels);
    if (!t || !names || !labels) {
        table_free(t);
        free(names);
        free(labels);
        return -1;
    }
    for (size_t j = 0; j < o->nfile; j++) { /* A, B; or A1.., B1.. */
        if (o->nfile == 2)
            snprintf(names[j], sizeof names[j], "%s", j ? "B" : "A");
        else
            snprintf(names[j], sizeof names[j], "%s%zu", j < o->runs ? "A" : "B",
                     j < o->runs ? j + 1 : j - o->runs + 1);
        labels[j] = names[j];
    }
    if (!csv) match_print_sources(m, labels);
    for (size_t i = 0; i < shown; i++)
        add_row(t, m, &rows[i], rp, o);
    if (match_has_other(m)) add_row(t, m, &rows[m->nrows - 1], rp, o);
    int rc = match_table_print(t, stdout, &o->t);
    table_free(t);
    if (!csv) print_notes(m, rp, match_tag_rows(m) - shown, o);
    free(names);
    free(labels);
    return rc;
}

/* ---- the figures ---- */

/* An entry with no samples, standing for a tag one profile does not have, with empty
 * histograms in the profile's layout; 0 or -1. */
static int empty_entry(const struct profile *p, struct profile_tag *e)
{
    memset(e, 0, sizeof *e);
    e->rates = calloc(p->nrates ? p->nrates : 1, sizeof *e->rates);
    if (!e->rates) return -1;
    for (size_t r = 0; r < p->nrates; r++)
        e->rates[r].hist = (struct profile_linhist){
            .buckets = p->config.hist_buckets, .lo = p->config.hist_lo, .hi = p->config.hist_hi};
    return 0;
}

/* The common rate the figures draw: --rate, else ipc, else the first. */
static size_t figure_rate(const struct match *m, const struct rate_pick *rp, int asked)
{
    if (asked) return rp->first;
    for (size_t k = 0; k < m->nrates; k++)
        if (strcasecmp(match_rate_name(m, k), "ipc") == 0) return k;
    return 0;
}

static int write_compare_figure(const struct compare_options *o, const char *suffix,
                                int (*draw)(FILE *, const struct plot_ctx *),
                                const struct plot_ctx *c)
{
    char a[256], b[256], name[600];
    plot_file_stem(o->file[0], a, sizeof a);
    plot_file_stem(o->file[1], b, sizeof b);
    snprintf(name, sizeof name, "%s-vs-%s-%s.svg", a, b, suffix);
    return plot_write_output(o->dir, 1, name, draw, c);
}

static int draw_figures(const struct match *m, const struct cmp_row *rows,
                        const struct rate_pick *rp, const struct compare_options *o)
{
    if (m->nrates == 0) {
        fprintf(stderr, "shimview compare: %s and %s have no rate in common: no figures\n",
                m->folded[0].file, m->folded[1].file);
        return 0;
    }
    size_t k = figure_rate(m, rp, o->rate != NULL), shown = match_rows_shown(m, &o->t, DEFAULT_TOP);
    size_t ntop = shown < FIGURE_TOP ? shown : FIGURE_TOP;
    struct profile_tag empty[2] = {{0}};
    struct named_tag *top = calloc(ntop + 1, sizeof *top);
    const struct profile_tag **top2 = calloc(ntop + 1, sizeof *top2);
    int rc = top && top2 && !empty_entry(&m->folded[0], &empty[0]) &&
                     !empty_entry(&m->folded[1], &empty[1])
                 ? 0
                 : EXIT_FILE_ERROR;
    for (size_t i = 0; rc == 0 && i < ntop; i++) {
        const struct match_row *row = rows[i].m;
        top[i].tag = row->entry[0] ? row->entry[0] : &empty[0];
        top2[i] = row->entry[1] ? row->entry[1] : &empty[1];
        top[i].name = strdup(row->name);
        if (!top[i].name) rc = EXIT_FILE_ERROR;
    }
    if (rc) fprintf(stderr, "shimview: out of memory\n");
    struct plot_ctx c = {.p = &m->folded[0],
                         .source = plot_source_name(o->file[0]),
                         .rate = match_rate(m, k, 0),
                         .top = top,
                         .ntop = ntop,
                         .kind = SVG_DOCUMENT,
                         .p2 = &m->folded[1],
                         .source2 = plot_source_name(o->file[1]),
                         .rate2 = match_rate(m, k, 1),
                         .top2 = top2};
    if (rc == 0) rc = write_compare_figure(o, "hist", plot_hist_write, &c);
    if (rc == 0) rc = write_compare_figure(o, "cdf", plot_cdf_write, &c);
    named_tags_free(top, ntop);
    free(top2);
    free(empty[0].rates);
    free(empty[1].rates);
    return rc;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, struct compare_options *o)
{
    static const struct option options[] = {
        {"rate", required_argument, NULL, 'r'},
        {"output", required_argument, NULL, 'o'},
        {"flame", required_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {"runs", required_argument, NULL, 'R'},
        MATCH_TABLE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int opt, rc;
    char *end;
    opterr = 0;
    o->t.sort_keys = compare_keys;
    o->t.nsort_keys = 4;
    while ((opt = getopt_long(argc, argv, ":r:n:as:o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'R':
            errno = 0;
            o->runs = (size_t)strtoul(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-' || o->runs < 2 ||
                o->runs > 100000)
                return usage_error("compare",
                                   "--runs %s: expected a whole number of runs, at "
                                   "least 2 (A's first N profiles)",
                                   optarg);
            break;
        case 'r':
            if (!optarg[0]) return usage_error("compare", "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 'o':
            if (!optarg[0] || strcmp(optarg, "-") == 0)
                return usage_error("compare", "-o needs a directory: the figures are two files");
            o->dir = optarg;
            break;
        case 'F':
            if (!optarg[0]) return usage_error("compare", "--flame needs a file name");
            o->flame = optarg;
            break;
        case 'h':
            fputs(compare_usage, stdout);
            return -1;
        default:
            rc = match_table_option("compare", opt, &o->t);
            if (rc == 0) return option_error("compare", opt, argv);
            if (rc != 1) return rc;
        }
    }
    if ((rc = match_table_options_check("compare", &o->t))) return rc;
    if (o->t.csv && o->flame)
        return usage_error("compare",
                           "%s and --flame exclude each other: the table is all that standard "
                           "output holds; draw the graph in a second call",
                           o->t.json ? "--json" : "--csv");
    if (o->t.csv && o->dir) /* the paths of the figures would end up among the records */
        return usage_error("compare",
                           "%s and -o exclude each other: the table is all that standard output "
                           "holds; draw the figures in a second call",
                           o->t.json ? "--json" : "--csv");
    o->file = argv + optind;
    o->nfile = (size_t)(argc - optind);
    if (!o->runs && o->nfile != 2)
        return usage_error("compare",
                           "expects two profiles A and B, got %zu (several runs of "
                           "each: --runs N)",
                           o->nfile);
    if (o->runs && o->nfile < o->runs + 2)
        return usage_error("compare",
                           "--runs %zu: expects %zu profiles of A, then at least 2 "
                           "of B, got %zu profiles",
                           o->runs, o->runs, o->nfile);
    if (o->runs && o->dir)
        return usage_error("compare", "--runs and -o exclude each other: the figures draw one "
                                      "run against one");
    if (o->runs && o->flame)
        return usage_error("compare", "--runs and --flame exclude each other: the flame graph "
                                      "draws one run against one (shimview flame --diff A B)");
    if (!o->runs) o->runs = 1;
    size_t stdin_uses = 0;
    for (size_t i = 0; i < o->nfile; i++)
        stdin_uses += strcmp(o->file[i], "-") == 0;
    if (stdin_uses > 1)
        return usage_error("compare", "standard input can be only one of the profiles");
    return 0;
}

/* The rates the table shows; 0, or EXIT_USAGE_ERROR after a message. */
static int pick_rates(const struct match *m, const struct compare_options *o, struct rate_pick *rp)
{
    *rp = (struct rate_pick){0, m->nrates};
    if (!o->rate) return 0;
    long k = match_find_rate(m, o->rate);
    if (k >= 0) {
        *rp = (struct rate_pick){(size_t)k, 1};
        return 0;
    }
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    for (size_t i = 0; f && i < m->nrates; i++)
        fprintf(f, "%s%s", i ? ", " : "", match_rate_name(m, i));
    if (f) fclose(f);
    usage_error("compare", "no rate '%s' in both %s and %s (rates both have: %s)", o->rate,
                m->folded[0].file, m->folded[1].file, list && list[0] ? list : "none");
    free(list);
    return EXIT_USAGE_ERROR;
}

static int compare_profiles(struct profile *const *p, const struct compare_options *o)
{
    struct match *m = match_profiles(p, o->nfile);
    struct cmp_row *rows = m ? make_rows(m, o) : NULL;
    struct rate_pick rp;
    int rc = 0;
    if (!rows) {
        fprintf(stderr, "shimview: out of memory\n");
        rc = EXIT_FILE_ERROR;
    }
    if (rc == 0) rc = pick_rates(m, o, &rp);
    if (rc == 0 && !o->rate) match_note_left_out(m, "compare");
    if (rc == 0 && print_table(m, rows, &rp, o) != 0) {
        fprintf(stderr, "shimview: out of memory while printing\n");
        rc = EXIT_FILE_ERROR;
    }
    if (rc == 0 && o->dir) {
        fflush(stdout);
        rc = draw_figures(m, rows, &rp, o);
    }
    free(rows);
    match_free(m);
    return rc;
}

int compare_main(int argc, char **argv)
{
    struct compare_options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct profile **p = calloc(o.nfile, sizeof *p);
    if (!p) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    if ((rc = match_load(o.file, o.nfile, p)) == 0) {
        rc = o.flame ? flame_diff_ready(p[0], p[1]) : 0; /* before the table, not after it */
        if (rc == 0 && o.runs > 1) {                     /* each side's runs are its replicates */
            rc = match_distinct_runs("compare", o.file, p, 0, o.runs);
            if (rc == 0) rc = match_distinct_runs("compare", o.file, p, o.runs, o.nfile);
        }
        if (rc == 0) rc = compare_profiles(p, &o);
        if (rc == 0 && o.flame) {
            fflush(stdout);
            rc = flame_diff_write(o.flame, p[0], p[1], o.file[0], o.file[1], 0);
        }
        for (size_t j = 0; j < o.nfile; j++)
            profile_free(p[j]);
    }
    free(p);
    return rc;
}
