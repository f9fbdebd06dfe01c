/*
 * merge.c -- `shimview merge`: several runs of one configuration as one table of pooled
 * estimates with intervals across runs (what DCPI's dcpistats does for its profile
 * databases).
 *
 * One run's intervals speak of the noise within that run; runs differ by more than that
 * (placement, frequency, what else the machine did), and only repeating the run shows by
 * how much. So each tag's share and each rate are pooled over the runs and given a 95%
 * interval from the spread between runs: the runs are the independent units, and each
 * estimate is a ratio of sums over them, so its standard error is the ratio estimator's
 * (stats_ratio_se) with the runs as the pairs, and the interval uses Student's t with
 * (runs - 1) degrees of freedom. Pooling weights each run by what it measured: a share
 * is the runs' samples of the tag over their attributed samples (a run that took twice
 * the samples counts twice), a rate the runs' counts over their cycles (sum_a / sum_b
 * over every kept period of every run, so a run with 2 kept periods of the tag weighs
 * almost nothing against one with a million). Tags are matched by name with the thread
 * word ignored (match.h).
 *
 * A run without a tag had no sample of it: it counts with 0 samples in the share. A rate
 * has nothing to say in a run without kept periods of the tag, so it is pooled over the
 * runs where it has some, and its interval has those runs' degrees of freedom. The
 * `runs` columns say how many runs each estimate rests on.
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/match.h"
#include "shimview/analysis/intervals.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP    20
#define CSV_RATE_COLS  4 /* mean, sd, ci95, runs */
#define TEXT_RATE_COLS 2 /* mean, ± CI */

const char merge_usage[] =
    "usage: shimview merge [--csv | --json] [--sort KEY] [--top N | --all] FILE...\n"
    "\n"
    "Merge several runs of one configuration: for each tag, its share of samples\n"
    "pooled over the runs (its samples over their attributed samples: each run\n"
    "weighted by its samples) and each rate pooled the same way (sum_a / sum_b over\n"
    "the kept periods of every run: each run weighted by its cycles), each with a\n"
    "95% confidence interval across runs (the runs as independent units, Student's\n"
    "t with runs - 1 degrees of freedom), and the number of runs that have the tag.\n"
    "A run without the tag counts with 0 samples; a rate is pooled over the runs\n"
    "where the tag has kept periods. Tags are matched by name, the thread word\n"
    "ignored. Rows are sorted by share (or --sort). An interval needs at least two\n"
    "runs; with one, only the estimates are printed. Rates that not every run has\n"
    "are left out, and named on stderr.\n"
    "\n"
    "  -n, --top N     show the N rows of largest mean share (default 20; CSV: all)\n"
    "  -a, --all       show every row\n"
    "  -s, --sort KEY  the rows' order (keys: share, runs, name): the share (the\n"
    "                  default) or the runs that have the tag, largest first, or names\n"
    "                  A to Z\n"
    "      --csv       print only the table, as CSV with a header row (columns:\n"
    "                  " SHIM_DOC_DIR "/shimview/merge.md)\n"
    "      --json      print only the table, as JSON: an array of objects, one per row,\n"
    "                  with the CSV's columns\n"
    "  -h, --help      print this help\n";

struct merge_options {
    struct match_table_options t;
    char **files;
    size_t nfiles;
};

/* One tag over the runs: its share, and each common rate. */
struct merged_row {
    const struct match_row *m;
    size_t runs; /* runs that have the tag */
    struct stats_pooled share;
    struct stats_pooled *rate; /* match.nrates */
};

/* ---- rows ---- */

/* --sort's keys: the mean share (the default), the runs that have the tag, the name */
static const char *const merge_keys[] = {"share", "runs", "name"};
enum { SORT_SHARE, SORT_RUNS, SORT_NAME };

static long sort_key; /* qsort has no context argument in C11 */

static int row_order(const void *a, const void *b)
{
    const struct merged_row *x = a, *y = b;
    if (x->m->is_other != y->m->is_other) return x->m->is_other - y->m->is_other;
    if (sort_key == SORT_NAME) return strcmp(x->m->name, y->m->name);
    if (sort_key == SORT_RUNS && x->runs != y->runs) return x->runs < y->runs ? 1 : -1;
    double sx = stats_pooled_value(&x->share), sy = stats_pooled_value(&y->share);
    if (sx != sy) return sx < sy ? 1 : -1;
    return strcmp(x->m->name, y->m->name);
}

/* The rows, sorted; their rate statistics in *block, the runs' values in *pairs. NULL
 * if memory ran out. */
static struct merged_row *make_rows(const struct match *m, long key, struct stats_pooled **block,
                                    double **pairs)
{
    size_t per = 2 * m->nprofiles; /* doubles per estimate */
    struct merged_row *rows = calloc(m->nrows ? m->nrows : 1, sizeof *rows);
    struct stats_pooled *rates = calloc(m->nrows * m->nrates + 1, sizeof *rates);
    double *ab = calloc(m->nrows * (1 + m->nrates) * per + 1, sizeof *ab);
    *block = rates;
    *pairs = ab;
    if (!rows || !rates || !ab) {
        free(rows);
        free(rates);
        free(ab);
        *block = NULL;
        *pairs = NULL;
        return NULL;
    }
    for (size_t i = 0; i < m->nrows; i++) {
        struct merged_row *r = &rows[i];
        r->m = &m->rows[i];
        r->rate = rates + i * m->nrates;
        r->share.ab = ab + i * (1 + m->nrates) * per;
        for (size_t k = 0; k < m->nrates; k++)
            r->rate[k].ab = r->share.ab + (1 + k) * per;
        for (size_t j = 0; j < m->nprofiles; j++) {
            const struct profile_tag *t = r->m->entry[j];
            uint64_t attributed = match_attributed(m, j);
            r->runs += t != NULL;
            if (attributed)
                stats_pooled_add(&r->share, t ? (double)t->samples : 0, (double)attributed);
            for (size_t k = 0; t && k < m->nrates; k++) {
                const struct profile_rate_stats *s = &t->rates[match_rate(m, k, j)];
                if (s->n > 0 && s->has_stats && s->sum_b > 0)
                    stats_pooled_add(&r->rate[k], s->sum_a, s->sum_b);
            }
        }
    }
    sort_key = key;
    qsort(rows, m->nrows, sizeof *rows, row_order);
    return rows;
}

/* ---- the table ---- */

static struct table *new_table(const struct match *m, int csv)
{
    size_t ncols = csv ? 5 + CSV_RATE_COLS * m->nrates : 4 + TEXT_RATE_COLS * m->nrates;
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = 1; c < ncols; c++) /* numbers right, "± CI" columns left */
        align[c] = c >= 3 && (c - 3) % 2 == 0 ? TABLE_LEFT : TABLE_RIGHT;
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    table_add_row(t);
    table_column_text(t, 0);
    if (csv) {
        static const char *const heads[] = {"name", "runs", "share_mean", "share_sd", "share_ci95"};
        for (size_t c = 0; c < 5; c++)
            table_set(t, c, "%s", heads[c]);
    } else {
        static const char *const heads[] = {"name", "runs", "share", "± 95% CI"};
        for (size_t c = 0; c < 4; c++)
            table_set(t, c, "%s", heads[c]);
    }
    for (size_t k = 0; k < m->nrates; k++) {
        const char *name = match_rate_name(m, k);
        if (csv) {
            static const char *const tails[CSV_RATE_COLS] = {"mean", "sd", "ci95", "runs"};
            for (size_t i = 0; i < CSV_RATE_COLS; i++)
                table_set(t, 5 + CSV_RATE_COLS * k + i, "rate_%s_%s", name, tails[i]);
        } else {
            table_set(t, 4 + TEXT_RATE_COLS * k, "%s rate", name);
            table_set(t, 5 + TEXT_RATE_COLS * k, "± 95%% CI");
        }
    }
    table_end_header(t);
    return t;
}

/* A pooled share and its interval in columns c, c + 1: a percentage (stats_format_share)
 * with its interval in points, "down to 0" where it would go below. */
static void text_share(struct table *t, size_t c, const struct stats_pooled *p)
{
    double v = stats_pooled_value(p), ci = stats_pooled_ci95(p);
    char a[64], b[64];
    if (isnan(v)) {
        table_set(t, c, "-");
        return;
    }
    stats_format_estimate(100 * v, 100 * ci, a, b, sizeof a);
    table_set(t, c, "%s", stats_format_share(v, a, sizeof a));
    if (v - ci < 0) /* a share is not below 0: "+up, down to 0" */
        table_set(t, c + 1, "+%s, down to 0", b + strlen(STATS_PLUS_MINUS));
    else
        table_set(t, c + 1, "%s", b);
}

/* Rate k pooled over the runs, with its interval (interval_runs_rate). */
static struct interval pooled_rate(const struct match *m, size_t k, const struct stats_pooled *p)
{
    return interval_runs_rate(p, m->folded[0].rates[match_rate(m, k, 0)].scale);
}

/* A pooled rate and its interval in columns c, c + 1, to the precision the interval
 * supports ("up to" where no run saw an event). */
static void text_rate(struct table *t, size_t c, const struct interval *iv)
{
    char a[64], b[64];
    if (isnan(iv->value)) {
        table_set(t, c, "-");
        return;
    }
    interval_format(iv, iv->value, a, b, sizeof a);
    table_set(t, c, "%s", a);
    table_set(t, c + 1, "%s", b);
}

/* mean, sd and ci95 in columns c, c + 1, c + 2; ci the interval's half-width. */
static void csv_estimate(struct table *t, size_t c, const struct stats_pooled *p, double ci)
{
    double v = stats_pooled_value(p), sd = stats_running_sd(&p->each);
    if (!isnan(v)) table_set(t, c, "%.10g", v);
    if (!isnan(sd)) table_set(t, c + 1, "%.6g", sd);
    if (!isnan(ci)) table_set(t, c + 2, "%.6g", ci);
}

static void add_row(struct table *t, const struct match *m, const struct merged_row *r, int csv)
{
    table_add_row(t);
    table_set(t, 0, "%s", r->m->name);
    table_set(t, 1, "%zu", r->runs);
    if (csv) {
        csv_estimate(t, 2, &r->share, stats_pooled_ci95(&r->share));
        for (size_t k = 0; k < m->nrates; k++) {
            struct interval iv = pooled_rate(m, k, &r->rate[k]);
            csv_estimate(t, 5 + CSV_RATE_COLS * k, &r->rate[k], interval_half(&iv));
            table_set(t, 5 + CSV_RATE_COLS * k + 3, "%" PRIu64, r->rate[k].n);
        }
        return;
    }
    text_share(t, 2, &r->share);
    for (size_t k = 0; k < m->nrates; k++) {
        struct interval iv = pooled_rate(m, k, &r->rate[k]);
        text_rate(t, 4 + TEXT_RATE_COLS * k, &iv);
    }
}

static void print_notes(const struct match *m, size_t hidden)
{
    match_note_hidden(hidden);
    char slow[320];
    printf("\nPooled over %zu run%s; runs: how many have the tag. share: the runs' samples of the\n"
           "tag over their attributed samples (0 in a run without it; each run weighted by its\n"
           "samples); rate: sum_a / sum_b over the kept periods of the runs where the tag has\n"
           "some (each run weighted by its cycles)%s.\n",
           m->nprofiles, m->nprofiles == 1 ? "" : "s",
           profile_slow_rates_note(&m->folded[0], slow, sizeof slow));
    for (size_t k = 0; k < m->nrates; k++) {
        const struct profile_rate *r = &m->folded[0].rates[match_rate(m, k, 0)];
        printf("  %s: counter %s, %s\n", r->name, r->counter, r->unit);
    }
    printf("± 95%% CI across runs: the runs as independent units (ratio estimator), Student's t\n"
           "with n - 1 degrees of freedom, n the runs behind the estimate; share ± in points.\n");
}

static int print_table(const struct match *m, const struct merged_row *rows,
                       const struct merge_options *o)
{
    int csv = o->t.csv;
    size_t shown = match_rows_shown(m, &o->t, DEFAULT_TOP);
    struct table *t = new_table(m, csv);
    if (!t) return -1;
    if (!csv) match_print_sources(m, NULL);
    for (size_t i = 0; i < shown; i++)
        add_row(t, m, &rows[i], csv);
    if (match_has_other(m)) add_row(t, m, &rows[m->nrows - 1], csv);
    int rc = match_table_print(t, stdout, &o->t);
    table_free(t);
    if (!csv) print_notes(m, match_tag_rows(m) - shown);
    return rc;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, struct merge_options *o)
{
    static const struct option options[] = {
        {"help", no_argument, NULL, 'h'},
        MATCH_TABLE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int opt, rc;
    opterr = 0;
    o->t.sort_keys = merge_keys;
    o->t.nsort_keys = 3;
    while ((opt = getopt_long(argc, argv, ":n:as:h", options, NULL)) != -1) {
        if (opt == 'h') {
            fputs(merge_usage, stdout);
            return -1;
        }
        rc = match_table_option("merge", opt, &o->t);
        if (rc == 0) return option_error("merge", opt, argv);
        if (rc != 1) return rc;
    }
    if ((rc = match_table_options_check("merge", &o->t))) return rc;
    if (optind >= argc) return usage_error("merge", "missing the profiles FILE...");
    o->files = argv + optind;
    o->nfiles = (size_t)(argc - optind);
    size_t stdin_uses = 0;
    for (size_t i = 0; i < o->nfiles; i++)
        stdin_uses += strcmp(o->files[i], "-") == 0;
    if (stdin_uses > 1) return usage_error("merge", "standard input can be only one of the runs");
    return 0;
}

static int merge_profiles(struct profile *const *p, const struct merge_options *o)
{
    struct match *m = match_profiles(p, o->nfiles);
    struct stats_pooled *block = NULL;
    double *pairs = NULL;
    struct merged_row *rows = m ? make_rows(m, o->t.sort, &block, &pairs) : NULL;
    int rc = 0;
    if (!rows) {
        fprintf(stderr, "shimview: out of memory\n");
        rc = EXIT_FILE_ERROR;
    }
    if (rc == 0) {
        match_note_left_out(m, "merge");
        if (o->nfiles == 1)
            fprintf(stderr, "shimview merge: one run: a confidence interval needs at least two "
                            "runs; printing the means only\n");
        if (print_table(m, rows, o) != 0) {
            fprintf(stderr, "shimview: out of memory while printing\n");
            rc = EXIT_FILE_ERROR;
        }
    }
    free(rows);
    free(block);
    free(pairs);
    match_free(m);
    return rc;
}

int merge_main(int argc, char **argv)
{
    struct merge_options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct profile **p = calloc(o.nfiles, sizeof *p);
    if (!p) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    rc = match_load(o.files, o.nfiles, p);
    if (rc == 0) {
        rc = match_distinct_runs("merge", o.files, p, 0, o.nfiles);
        if (rc == 0) rc = merge_profiles(p, &o);
        for (size_t j = 0; j < o.nfiles; j++)
            profile_free(p[j]);
    }
    free(p);
    return rc;
}
