/*
 * compare.c -- `shimview compare`: two profiles tag by tag, with intervals on the
 * differences (the SHIM paper's DVFS and prefetching case studies: one program run under
 * two configurations, and the question of what changed where).
 *
 * Tags are matched by name with the thread word ignored (match.h), since the tids of two
 * runs differ. For each tag the table gives the share of samples in A and in B and the
 * difference B - A in percentage points, with the 95% interval of a difference of two
 * proportions under the normal approximation: each share is k/n of its profile's
 * attributed samples, and the two runs are independent, so the variances add. For each
 * rate both profiles have, it gives the ratio estimate sum_a / sum_b in A and in B and
 * their difference, whose interval adds the two delta-method variances the same way.
 * A difference whose interval excludes 0 is marked '*'. Samples within a run are
 * correlated, so the intervals are lower bounds on the uncertainty, as in `report`; a
 * mark says "larger than sampling noise alone explains", not "certainly real".
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
#define CSV_FIXED_COLS 4 /* name, in, samples_a, samples_b */
#define SIGNIFICANT    "*"

const char compare_usage[] =
    "usage: shimview compare [--rate NAME] [--top N | --all] [--csv] [-o DIR]\n"
    "                        [--flame FILE] A B\n"
    "\n"
    "Compare two profiles tag by tag: for each tag, its share of samples in A and\n"
    "in B and the difference B - A in percentage points with a 95% confidence\n"
    "interval; for each rate both profiles have, the rate (sum_a / sum_b over the\n"
    "kept periods) in A and in B and the difference with its 95% interval. '*'\n"
    "marks a difference whose interval excludes 0. Tags are matched by name, the\n"
    "thread word ignored (tids differ between runs; a tag seen in several threads\n"
    "is added up). Rows are sorted by A's share; a tag found in one profile only\n"
    "has the other side empty. Rates that only one profile has are left out, and\n"
    "named on stderr.\n"
    "\n"
    "  -r, --rate NAME   compare only this rate (default: every rate both have)\n"
    "  -n, --top N       show the first N rows (default 20; CSV: every row)\n"
    "  -a, --all         show every row\n"
    "      --csv         print only the table, as CSV with a header row (columns:\n"
    "                    " SHIM_DOC_DIR "/shimview/compare.md)\n"
    "  -o, --output DIR  also draw A over B into DIR: STEMA-vs-STEMB-hist.svg (the\n"
    "                    rate's histogram for each of the first 4 tags, or N with\n"
    "                    --top) and STEMA-vs-STEMB-cdf.svg (the rate's distribution\n"
    "                    in A and in B); the rate is --rate, else ipc, else the\n"
    "                    first one both have; not with --csv\n"
    "      --flame FILE  also draw the calling contexts' differential flame graph\n"
    "                    into FILE (as shimview flame --diff A B does; '-': standard\n"
    "                    output); both profiles need a calling context; not with --csv\n"
    "  -h, --help        print this help\n";

struct compare_options {
    struct match_table_options t;
    const char *rate;
    const char *dir;
    const char *flame;
    char *file[2];
};

/* One row: a matched tag with what both sides say of its share. */
struct cmp_row {
    const struct match_row *m;
    uint64_t k[2];   /* samples */
    double share[2]; /* NAN where the side has no entry */
    double ci[2];    /* 95% half-width of each share */
};

/* ---- rows ---- */

static int row_order(const void *a, const void *b)
{
    const struct cmp_row *x = a, *y = b;
    if (x->m->is_other != y->m->is_other) return x->m->is_other - y->m->is_other;
    for (int j = 0; j < 2; j++) { /* A's share first; a missing side sorts below 0 */
        double sx = isnan(x->share[j]) ? -1 : x->share[j];
        double sy = isnan(y->share[j]) ? -1 : y->share[j];
        if (sx != sy) return sx < sy ? 1 : -1;
    }
    return strcmp(x->m->name, y->m->name);
}

static struct cmp_row *make_rows(const struct match *m)
{
    struct cmp_row *rows = calloc(m->nrows ? m->nrows : 1, sizeof *rows);
    if (!rows) return NULL;
    for (size_t i = 0; i < m->nrows; i++) {
        rows[i].m = &m->rows[i];
        for (size_t j = 0; j < 2; j++) {
            const struct profile_tag *t = m->rows[i].entry[j];
            rows[i].k[j] = t ? t->samples : 0;
            rows[i].share[j] = t ? match_share(m, j, t) : NAN;
            rows[i].ci[j] = t ? stats_share_ci95(t->samples, match_attributed(m, j)) : NAN;
        }
    }
    qsort(rows, m->nrows, sizeof *rows, row_order);
    return rows;
}

/* The ratio estimate of rate r of t and its 95% half-width; 0 when there is none. */
static int rate_of(const struct profile_tag *t, size_t r, double *rate, double *ci)
{
    if (!t) return 0;
    const struct profile_rate_stats *s = &t->rates[r];
    if (s->n == 0 || !s->has_stats || !isfinite(s->rate)) return 0;
    *rate = s->rate;
    *ci = stats_ratio_ci95(s->n, s->sum_a, s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab);
    return 1;
}

/* ---- cells ---- */

/* Two estimates and their difference B - A with its 95% half-width. */
struct diff {
    double a, b, d, ci;
    double ci_a, ci_b; /* of each side */
    int have_a, have_b;
};

/* Five cells from column c: A, B, the difference, "± ci" and the mark. CSV has every
 * digit; text has the difference to the precision its interval supports (`fallback`
 * decimals when it has none), and the sides to side_dec decimals (-1: the same, or
 * where one side is missing, the precision of the other's own interval). Text values are
 * multiplied by scale and followed by suffix. */
static void diff_cells(struct table *t, size_t c, const struct diff *d, int csv, double scale,
                       int side_dec, int fallback, const char *suffix)
{
    int both = d->have_a && d->have_b;
    if (csv) {
        if (d->have_a) table_set(t, c, "%.10g", d->a);
        if (d->have_b) table_set(t, c + 1, "%.10g", d->b);
        if (both) table_set(t, c + 2, "%.10g", d->d);
        if (both && !isnan(d->ci)) table_set(t, c + 3, "%.6g", d->ci);
    } else {
        int dec = stats_ci_decimals(d->ci * scale);
        int ddec = dec < 0 ? fallback : dec, sdec = side_dec < 0 ? ddec : side_dec;
        if (!both && side_dec < 0) {
            dec = stats_ci_decimals((d->have_a ? d->ci_a : d->ci_b) * scale);
            sdec = dec < 0 ? fallback : dec;
        }
        table_set(t, c, "-");
        table_set(t, c + 1, "-");
        table_set(t, c + 2, "-");
        if (d->have_a) table_set(t, c, "%.*f%s", sdec, d->a * scale, suffix);
        if (d->have_b) table_set(t, c + 1, "%.*f%s", sdec, d->b * scale, suffix);
        if (both) table_set(t, c + 2, "%+.*f", ddec, d->d * scale);
        if (both && dec >= 0) table_set(t, c + 3, "± %.*f", dec, d->ci * scale);
        if (both && dec < 0) table_set(t, c + 3, isnan(d->ci) ? "± -" : "± 0");
    }
    if (both && stats_excludes_zero(d->d, d->ci)) table_set(t, c + 4, SIGNIFICANT);
}

/* Shares print in % with two decimals, as in `report`; their difference in percentage
 * points. */
static void share_cells(struct table *t, size_t c, const struct cmp_row *r, int csv)
{
    struct diff d = {.a = r->share[0],
                     .b = r->share[1],
                     .have_a = !isnan(r->share[0]),
                     .have_b = !isnan(r->share[1])};
    d.d = d.b - d.a;
    d.ci = stats_diff_ci95(r->ci[0], r->ci[1]);
    diff_cells(t, c, &d, csv, 100, 2, 2, "%");
}

static void rate_cells(struct table *t, size_t c, const struct cmp_row *r, size_t ra, size_t rb,
                       int csv)
{
    struct diff d = {0};
    double ca = NAN, cb = NAN;
    d.have_a = rate_of(r->m->entry[0], ra, &d.a, &ca);
    d.have_b = rate_of(r->m->entry[1], rb, &d.b, &cb);
    d.d = d.b - d.a;
    d.ci = stats_diff_ci95(ca, cb);
    d.ci_a = ca;
    d.ci_b = cb;
    diff_cells(t, c, &d, csv, 1, -1, 4, "");
}

/* ---- the table ---- */

/* Which common rates the table shows: one (--rate) or all. */
struct rate_pick {
    size_t first, n;
};

static struct table *new_table(const struct match *m, const struct rate_pick *rp, int csv)
{
    size_t fixed = csv ? CSV_FIXED_COLS : 1;
    size_t ncols = fixed + SHARE_COLS + RATE_COLS * rp->n;
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = 1; c < ncols; c++)
        align[c] = TABLE_RIGHT;
    for (size_t k = 0; k <= rp->n; k++) { /* "± CI" and the mark read from the left */
        align[fixed + 5 * k + 3] = TABLE_LEFT;
        align[fixed + 5 * k + 4] = TABLE_LEFT;
    }
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    table_add_row(t);
    size_t c = 0;
    table_set(t, c++, "name");
    if (csv) {
        static const char *const heads[] = {
            "in",      "samples_a",  "samples_b",       "share_a",
            "share_b", "share_diff", "share_diff_ci95", "share_sig"};
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
            static const char *const tails[] = {"a", "b", "diff", "diff_ci95", "sig"};
            for (size_t i = 0; i < RATE_COLS; i++)
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
                    const struct rate_pick *rp, int csv)
{
    size_t c = 0;
    table_add_row(t);
    table_set(t, c++, "%s", r->m->name);
    if (csv) {
        int a = r->m->entry[0] != NULL, b = r->m->entry[1] != NULL;
        table_set(t, c++, "%s", a && b ? "both" : a ? "a" : "b");
        if (a) table_set(t, c, "%" PRIu64, r->k[0]);
        if (b) table_set(t, c + 1, "%" PRIu64, r->k[1]);
        c += 2;
    }
    share_cells(t, c, r, csv);
    c += SHARE_COLS;
    for (size_t k = rp->first; k < rp->first + rp->n; k++, c += RATE_COLS)
        rate_cells(t, c, r, match_rate(m, k, 0), match_rate(m, k, 1), csv);
}

static void print_notes(const struct match *m, const struct rate_pick *rp, size_t hidden)
{
    match_note_hidden(hidden);
    printf("\nΔ = B - A. Shares: of each profile's attributed samples; Δ in percentage points,\n"
           "± the 95%% interval of a difference of two proportions (normal approximation).\n");
    if (rp->n)
        printf("Rates: sum_a / sum_b over the kept periods; ± the 95%% interval of the\n"
               "difference from the two delta-method intervals.\n");
    for (size_t k = rp->first; k < rp->first + rp->n; k++) {
        const struct profile_rate *r = &m->folded[0].rates[match_rate(m, k, 0)];
        printf("  %s: counter %s, %s\n", r->name, r->counter, r->unit);
    }
    printf("%s: the interval excludes 0. Samples are correlated, so read the intervals as\n"
           "lower bounds. Tags are matched by name; the thread word is ignored.\n",
           SIGNIFICANT);
}

static int print_table(const struct match *m, const struct cmp_row *rows,
                       const struct rate_pick *rp, const struct compare_options *o)
{
    static const char *const labels[2] = {"A", "B"};
    int csv = o->t.csv;
    size_t shown = match_rows_shown(m, &o->t, DEFAULT_TOP);
    struct table *t = new_table(m, rp, csv);
    if (!t) return -1;
    if (!csv) match_print_sources(m, labels);
    for (size_t i = 0; i < shown; i++)
        add_row(t, m, &rows[i], rp, csv);
    if (match_has_other(m)) add_row(t, m, &rows[m->nrows - 1], rp, csv);
    int rc = csv ? table_print_csv(t, stdout) : table_print_text(t, stdout);
    table_free(t);
    if (!csv) print_notes(m, rp, match_tag_rows(m) - shown);
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
    char a[256], b[256], *path = NULL;
    plot_file_stem(o->file[0], a, sizeof a);
    plot_file_stem(o->file[1], b, sizeof b);
    if (asprintf(&path, "%s/%s-vs-%s-%s.svg", o->dir, a, b, suffix) < 0) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    int rc = plot_write_file(path, draw, c);
    free(path);
    return rc;
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
        MATCH_TABLE_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    int opt, rc;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":r:n:ao:h", options, NULL)) != -1) {
        switch (opt) {
        case 'r':
            if (!optarg[0]) return usage_error("compare", "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 'o':
            if (!optarg[0]) return usage_error("compare", "-o needs a directory");
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
        return usage_error("compare", "--csv and --flame exclude each other: the CSV is all "
                                      "that standard output holds; draw the graph in a second "
                                      "call");
    if (o->t.csv && o->dir) /* the paths of the figures would end up among the records */
        return usage_error("compare", "--csv and -o exclude each other: the CSV is all that "
                                      "standard output holds; draw the figures in a second call");
    if (argc - optind != 2)
        return usage_error("compare", "expects two profiles A and B, got %d", argc - optind);
    o->file[0] = argv[optind];
    o->file[1] = argv[optind + 1];
    if (strcmp(o->file[0], "-") == 0 && strcmp(o->file[1], "-") == 0)
        return usage_error("compare", "standard input can be only one of the two profiles");
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
    struct match *m = match_profiles(p, 2);
    struct cmp_row *rows = m ? make_rows(m) : NULL;
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
    struct profile *p[2];
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if ((rc = match_load(o.file, 2, p))) return rc;
    rc = o.flame ? flame_diff_ready(p[0], p[1]) : 0; /* before the table, not after it */
    if (rc == 0) rc = compare_profiles(p, &o);
    if (rc == 0 && o.flame) {
        fflush(stdout);
        rc = flame_diff_write(o.flame, p[0], p[1], o.file[0], o.file[1], 0);
    }
    profile_free(p[0]);
    profile_free(p[1]);
    return rc;
}
