/*
 * merge.c -- `shimview merge`: several runs of one configuration as one table of means
 * with intervals across runs (what DCPI's dcpistats does for its profile databases).
 *
 * One run's intervals speak of sampling noise within that run; runs differ by more than
 * that (placement, frequency, what else the machine did), and only repeating the run
 * shows by how much. So each tag's share and each rate's estimate are taken once per run
 * and the table gives their mean over the runs, with a 95% interval from the spread
 * between runs: t(n-1) * s / sqrt(n), Student's t because n is the number of runs, a
 * handful. Tags are matched by name with the thread word ignored (match.h).
 *
 * A run without a tag had no sample of it, so its share there is 0 and counts in the
 * share's mean; a rate has no value in a run without kept periods of the tag, so a rate's
 * mean is over the runs where it has one. The `runs` columns say how many runs each mean
 * rests on.
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/match.h"
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
    "Merge several runs of one configuration: for each tag, the mean over the runs\n"
    "of its share of samples and of each rate (sum_a / sum_b over the kept\n"
    "periods), each with a 95% confidence interval across runs (Student's t with\n"
    "n - 1 degrees of freedom), and the number of runs that have the tag. A run\n"
    "without the tag counts as a share of 0; a rate's mean is over the runs where\n"
    "the tag has it. Tags are matched by name, the thread word ignored. Rows are\n"
    "sorted by mean share (or --sort). An interval needs at least two runs; with\n"
    "one, only the means are printed. Rates that not every run has are left out,\n"
    "and named on stderr.\n"
    "\n"
    "  -n, --top N     show the N rows of largest mean share (default 20; CSV: all)\n"
    "  -a, --all       show every row\n"
    "  -s, --sort KEY  the rows' order (keys: share, runs, name): the mean share (the\n"
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
    struct stats_running share;
    struct stats_running *rate; /* match.nrates */
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
    if (x->share.mean != y->share.mean) return x->share.mean < y->share.mean ? 1 : -1;
    return strcmp(x->m->name, y->m->name);
}

/* The rows, sorted; their rate statistics in *block. NULL if memory ran out. */
static struct merged_row *make_rows(const struct match *m, long key, struct stats_running **block)
{
    struct merged_row *rows = calloc(m->nrows ? m->nrows : 1, sizeof *rows);
    struct stats_running *rates = calloc(m->nrows * m->nrates + 1, sizeof *rates);
    *block = rates;
    if (!rows || !rates) {
        free(rows);
        free(rates);
        *block = NULL;
        return NULL;
    }
    for (size_t i = 0; i < m->nrows; i++) {
        struct merged_row *r = &rows[i];
        r->m = &m->rows[i];
        r->rate = rates + i * m->nrates;
        for (size_t j = 0; j < m->nprofiles; j++) {
            const struct profile_tag *t = r->m->entry[j];
            double share = t ? match_share(m, j, t) : 0;
            r->runs += t != NULL;
            if (!isnan(share)) stats_running_add(&r->share, share);
            for (size_t k = 0; t && k < m->nrates; k++) {
                const struct profile_rate_stats *s = &t->rates[match_rate(m, k, j)];
                if (s->n > 0 && s->has_stats && isfinite(s->rate))
                    stats_running_add(&r->rate[k], s->rate);
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

/* A mean and its interval in columns c, c + 1, times scale, the mean followed by suffix:
 * to `fixed` decimals, or when that is negative to the precision the interval supports
 * (4 decimals without one). */
static void text_estimate(struct table *t, size_t c, const struct stats_running *r, double scale,
                          int fixed, const char *suffix)
{
    double ci = stats_running_ci95(r);
    int dec = fixed >= 0 ? fixed : stats_ci_decimals(ci * scale);
    if (r->n == 0) {
        table_set(t, c, "-");
        return;
    }
    table_set(t, c, "%.*f%s", dec < 0 ? 4 : dec, r->mean * scale, suffix);
    if (isnan(ci))
        table_set(t, c + 1, "± -");
    else if (dec < 0)
        table_set(t, c + 1, "± 0");
    else
        table_set(t, c + 1, "± %.*f", dec, ci * scale);
}

static void csv_estimate(struct table *t, size_t c, const struct stats_running *r)
{
    double sd = stats_running_sd(r), ci = stats_running_ci95(r);
    if (r->n > 0) table_set(t, c, "%.10g", r->mean);
    if (!isnan(sd)) table_set(t, c + 1, "%.6g", sd);
    if (!isnan(ci)) table_set(t, c + 2, "%.6g", ci);
}

static void add_row(struct table *t, const struct match *m, const struct merged_row *r, int csv)
{
    table_add_row(t);
    table_set(t, 0, "%s", r->m->name);
    table_set(t, 1, "%zu", r->runs);
    if (csv) {
        csv_estimate(t, 2, &r->share);
        for (size_t k = 0; k < m->nrates; k++) {
            csv_estimate(t, 5 + CSV_RATE_COLS * k, &r->rate[k]);
            table_set(t, 5 + CSV_RATE_COLS * k + 3, "%" PRIu64, r->rate[k].n);
        }
        return;
    }
    text_estimate(t, 2, &r->share, 100, 2, "%"); /* as `report` prints shares */
    for (size_t k = 0; k < m->nrates; k++)
        text_estimate(t, 4 + TEXT_RATE_COLS * k, &r->rate[k], 1, -1, "");
}

static void print_notes(const struct match *m, size_t hidden)
{
    match_note_hidden(hidden);
    printf("\nMeans over %zu runs; runs: how many have the tag. share: of each run's attributed\n"
           "samples, 0 in a run without the tag; rate: sum_a / sum_b over the kept periods,\n"
           "over the runs where the tag has kept periods.\n",
           m->nprofiles);
    for (size_t k = 0; k < m->nrates; k++) {
        const struct profile_rate *r = &m->folded[0].rates[match_rate(m, k, 0)];
        printf("  %s: counter %s, %s\n", r->name, r->counter, r->unit);
    }
    printf("± 95%% CI across runs: t(n-1) * sd / sqrt(n), n the runs behind the mean.\n");
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
    struct stats_running *block = NULL;
    struct merged_row *rows = m ? make_rows(m, o->t.sort, &block) : NULL;
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
        rc = merge_profiles(p, &o);
        for (size_t j = 0; j < o.nfiles; j++)
            profile_free(p[j]);
    }
    free(p);
    return rc;
}
