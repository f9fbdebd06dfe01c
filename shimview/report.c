/*
 * report.c -- `shimview report`: one profile as a header, a per-tag table and summaries.
 *
 * The table answers "where did the time go, and at what rate": one row per tag tuple,
 * sorted by samples, with its share of samples, its share of TSC cycles, and for each
 * rate the ratio sum_a / sum_b over the kept periods (unbiased, the one to quote) with
 * its 95% confidence interval and the number of kept periods behind it. The CSV adds the
 * mean of the per-period rates (the centre of the histogram).
 * Below it come the evidence that the numbers can be trusted (DTE: how many periods were
 * rated and kept) and what observing cost (sample period, observer CPU share).
 *
 * The same rows feed two tables: aligned text for people (top N rows, names truncated)
 * and CSV for programs (every row unless --top is given, slots and values in separate
 * columns, fractions rather than percentages, full precision). Building a table first
 * and printing it once keeps column widths right without a second pass over the data.
 * On a terminal each row also gets a sparkline of its rate histogram (sparkline.c).
 *
 * The text report's parts are also written as HTML (report.h), for `shimview html`:
 * the same facts and the same table, so a page and a terminal never disagree. The
 * "label  text" lines become rows of a two-column table there, and the tables are
 * printed by table_print_html().
 */
#include "by.h"
#include "commands.h"
#include "markup.h"
#include "plot.h"
#include "profile.h"
#include "report.h"
#include "sparkline.h"
#include "stats.h"
#include "table.h"
#include "tags.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TOP    20
#define NAME_MAX_WIDTH 48

/* Columns per rate: text "rate", "± CI", "n"; CSV after the fixed ones
 * "mean_", "ci95_", "n_", "rate_", "rate_ci95_". */
#define TEXT_RATE_COLS 3
#define CSV_FIXED_COLS 8
#define CSV_RATE_COLS  5

const char report_usage[] =
    "usage: shimview report [--csv[=TABLE]] [--top N | --all] [--[no-]sparklines]\n"
    "                       (FILE | -)\n"
    "\n"
    "Print a profile: the run and the machine, one row per tag tuple sorted by samples\n"
    "(share of samples, share of TSC cycles, and for each rate its value over the kept\n"
    "periods with a 95% confidence interval and the number of kept periods), the\n"
    "'other' row, DTE statistics, the sample period and shim's own cost; when the run\n"
    "set SHIM_BY, a table of one rate per bucket of another for the top tags (4, or\n"
    "--top N). The CSV also has the mean of the per-period rates. '-' reads the\n"
    "profile from standard input; a file larger than 1 GiB is refused.\n"
    "\n"
    "  -n, --top N         show the N rows with most samples (default 20)\n"
    "  -a, --all           show every row\n"
    "      --csv[=TABLE]   print only one table, as CSV with a header row: 'tags' (the\n"
    "                      default: every row unless --top is given), 'period' (the\n"
    "                      sample period summary) or 'by' (one rate per bucket of\n"
    "                      another, when the run set SHIM_BY); columns in\n"
    "                      shimview/README.md\n"
    "      --sparklines    add a column with each tag's rate histogram drawn in block\n"
    "                      characters (ASCII when the locale is not UTF-8); the default\n"
    "                      when standard output is a terminal\n"
    "      --no-sparklines leave that column out, even on a terminal\n"
    "  -h, --help          print this help\n";

enum csv_table { CSV_NONE, CSV_TAGS, CSV_PERIOD, CSV_BY };

struct report_options {
    enum csv_table csv;
    int top_given;
    int all;
    long top;
    int sparklines; /* -1: when standard output is a terminal */
    const char *file;
};

/* Where the report's parts go. In HTML, consecutive fact lines form one table: a line
 * with a label opens a row, a line without one continues the row's text. */
struct report_out {
    FILE *f;
    enum report_format fmt;
    int in_facts, in_row; /* HTML: a facts table, a row of it, is open */
};

/* ---- formatting helpers ---- */

static const char *fmt_percent(double frac, char *buf, size_t len)
{
    if (isnan(frac))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2f%%", 100 * frac);
    return buf;
}

/* The mean to the precision its interval supports: the interval to two significant
 * digits, the mean to the same decimal place. */
static void fmt_mean_ci(double mean, double ci, char *m, char *c, size_t len)
{
    if (!isfinite(ci) || ci <= 0 || !isfinite(mean) || fabs(mean) >= 1e9) {
        snprintf(m, len, "%.4g", mean);
        snprintf(c, len, isfinite(ci) ? "± %.2g" : "± -", ci);
        return;
    }
    int decimals = 1 - (int)floor(log10(ci));
    if (decimals < 0) decimals = 0;
    if (decimals > 6) decimals = 6;
    snprintf(m, len, "%.*f", decimals, mean);
    snprintf(c, len, "± %.*f", decimals, ci);
}

static const char *fmt_duration(double ns, char *buf, size_t len)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.3f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3f µs", ns / 1e3);
    return buf;
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static const char *fmt_bytes(uint64_t v, char *buf, size_t len)
{
    if (v >= 1 << 20)
        snprintf(buf, len, "%.1f MiB", (double)v / (1 << 20));
    else if (v >= 1 << 10)
        snprintf(buf, len, "%.1f KiB", (double)v / (1 << 10));
    else
        snprintf(buf, len, "%" PRIu64 " bytes", v);
    return buf;
}

/* Write one fact: in text a label column, then the text with control characters made
 * visible (profile strings are data, not terminal commands); in HTML a row of the facts
 * table, or a line of the current row when label is empty, the text escaped. */
static void fact(struct report_out *o, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fact(struct report_out *o, const char *label, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) return; /* out of memory: the line is lost, the report goes on */
    if (o->fmt == REPORT_TEXT) {
        fprintf(o->f, "%-12s", label);
        for (int i = 0; i < n; i++)
            fputc(((unsigned char)text[i] < 0x20 || text[i] == 0x7f) ? '?' : text[i], o->f);
        fputc('\n', o->f);
    } else {
        if (!o->in_facts) fputs("<table class=\"facts\">\n", o->f);
        o->in_facts = 1;
        if (o->in_row && !label[0]) {
            fputs("<br>", o->f);
        } else {
            fputs(o->in_row ? "</td></tr>\n<tr><th>" : "<tr><th>", o->f);
            markup_escape(o->f, label);
            fputs("</th><td>", o->f);
            o->in_row = 1;
        }
        markup_escape(o->f, text);
    }
    free(text);
}

/* End the facts written so far: in HTML, close their table. */
static void facts_end(struct report_out *o)
{
    if (o->fmt == REPORT_HTML && o->in_facts)
        fputs(o->in_row ? "</td></tr>\n</table>\n" : "</table>\n", o->f);
    o->in_facts = o->in_row = 0;
}

/* A remark under a table: a line of text, or a paragraph of HTML. */
static void note(struct report_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct report_out *o, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    facts_end(o);
    if (o->fmt == REPORT_TEXT) {
        fprintf(o->f, "%s\n", text);
        return;
    }
    fputs("<p class=\"note\">", o->f);
    markup_escape(o->f, text);
    fputs("</p>\n", o->f);
}

static int print_table(struct report_out *o, const struct table *t)
{
    facts_end(o);
    return o->fmt == REPORT_TEXT ? table_print_text(t, o->f) : table_print_html(t, o->f);
}

/* ---- rows ---- */

/* How many tag rows to print (`other` is always printed when it has samples): every
 * row when top is negative, else the top N. */
static size_t rows_shown(const struct profile *p, long top, size_t *hidden)
{
    size_t limit = p->ntags;
    if (top >= 0 && (size_t)top < limit) limit = (size_t)top;
    *hidden = p->ntags - limit;
    return limit;
}

/* The rows --top, --all and --csv ask for: every row for --all, and for CSV unless
 * --top was given; otherwise the top N (-1: every row). */
static long rows_wanted(const struct report_options *o)
{
    if (o->all) return -1;
    if (o->top_given) return o->top;
    return o->csv ? -1 : DEFAULT_TOP;
}

static int distinct_threads(const struct profile *p)
{
    for (size_t i = 1; i < p->ntags; i++)
        if (p->tags[i].thread != p->tags[0].thread) return 1;
    return 0;
}

/* ---- the text report ---- */

static void print_header(struct report_out *o, const struct profile *p)
{
    const struct profile_machine *m = &p->machine;
    const struct profile_placement *pl = &p->placement;
    char a[64], b[64];
    fact(o, "profile", "%s (format %" PRIu64 ", written by shim %s)", p->file, p->version,
         p->shim_version);
    fact(o, "program", "%s, pid %" PRIu64, p->program.path, p->program.pid);
    fact(o, "duration", "%s (%s TSC cycles)", fmt_duration((double)p->run.duration_ns, a, sizeof a),
         fmt_count(p->run.tsc_cycles, b, sizeof b));
    fact(o, "machine", "%s (%s), %" PRIu64 " package%s, %" PRIu64 " core%s, %" PRIu64 " PU%s, %s",
         m->cpu_model, m->vendor, m->packages, plural(m->packages), m->cores, plural(m->cores),
         m->pus, plural(m->pus), m->smt ? "SMT" : "no SMT");
    fact(o, "host", "%s, kernel %s", m->hostname, m->kernel);
    fact(o, "TSC", "%.0f Hz = %.3f GHz (%s, %s), step %" PRIu64 " cycle%s", m->tsc_hz,
         m->tsc_hz / 1e9, m->tsc_source, m->tsc_invariant ? "invariant" : "not invariant",
         m->tsc_step, plural(m->tsc_step));
    fact(o, "placement",
         "observer CPU %" PRIu64 ", observed CPU %" PRIu64 " (tid %" PRIu64 "): %s, sharing %s",
         pl->observer_cpu, pl->observed_cpu, pl->observed_tid, pl->relation, pl->shared);
}

/* The sparkline column: drawn or not, in which characters, of which rate, over which
 * range (the one every row shares). */
struct sparkline_look {
    int on;
    enum sparkline_style style;
    size_t rate;
    double lo, hi;
};

/* Sparklines of rate index `rate` (negative: none) when there is something to draw: the
 * rate, and samples inside some tag's histogram span. */
static struct sparkline_look sparkline_look(const struct profile *p, long rate,
                                            enum sparkline_style style)
{
    struct sparkline_look sl = {.style = style, .rate = rate >= 0 ? (size_t)rate : 0};
    sl.on = rate >= 0 && sparkline_range(p, sl.rate, &sl.lo, &sl.hi) == 0;
    return sl;
}

static struct table *text_table(const struct profile *p, int threads,
                                const struct sparkline_look *sl)
{
    size_t ncols = 4 + (size_t)threads + TEXT_RATE_COLS * p->nrates + (sl->on ? 1 : 0);
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = 0; c < ncols; c++)
        align[c] = TABLE_RIGHT;
    align[threads] = TABLE_LEFT;
    for (size_t r = 0; r < p->nrates; r++) {
        align[4 + threads + TEXT_RATE_COLS * r + 1] = TABLE_LEFT; /* the ± column */
    }
    if (sl->on) align[ncols - 1] = TABLE_LEFT;
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    table_column_class(t, (size_t)threads, "name");
    if (sl->on) table_column_class(t, ncols - 1, "spark");
    table_add_row(t);
    size_t c = 0;
    if (threads) table_set(t, c++, "thread");
    table_set(t, c++, "name");
    table_set(t, c++, "samples");
    table_set(t, c++, "share");
    table_set(t, c++, "time share");
    for (size_t r = 0; r < p->nrates; r++) {
        table_set(t, c++, "%s rate", p->rates[r].name);
        table_set(t, c++, "± 95%% CI");
        table_set(t, c++, "n");
    }
    if (sl->on) table_set(t, c++, "%s histogram", p->rates[sl->rate].name);
    table_end_header(t);
    return t;
}

/* A name cell, cut to NAME_MAX_WIDTH columns with "..." when longer and cut is set. */
static void set_name_cell(struct table *t, size_t col, const char *name, int cut)
{
    table_set_cut(t, col, name, cut ? NAME_MAX_WIDTH : 0);
}

/* The delta-method interval of a rate entry's ratio estimate. */
static double stats_rate_ci95(const struct profile_rate_stats *s)
{
    return stats_ratio_ci95(s->n, s->sum_a, s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab);
}

/* Two cells, "value" and "± ci", from column c; a dash when nothing was kept. */
static size_t estimate_cells(struct table *t, size_t c, uint64_t n, double value, double ci)
{
    char v[64], h[64];
    if (n == 0) {
        table_set(t, c, "-");
        return c + 2;
    }
    fmt_mean_ci(value, ci, v, h, sizeof v);
    table_set(t, c, "%s", v);
    table_set(t, c + 1, "%s", h);
    return c + 2;
}

static void text_row(struct table *t, const struct profile *p, const struct named_tag *row,
                     int threads, uint64_t total_cycles, const struct sparkline_look *sl, int cut)
{
    const struct profile_tag *tag = row->tag;
    char a[64];
    size_t c = 0;
    table_add_row(t);
    if (threads && !tag->is_other) table_set(t, c, "%" PRIu64, tag->thread);
    c += (size_t)threads;
    set_name_cell(t, c++, row->name, cut);
    table_set(t, c++, "%s", fmt_count(tag->samples, a, sizeof a));
    table_set(t, c++, "%s", fmt_percent(tag->share, a, sizeof a));
    table_set(t, c++, "%s", fmt_percent(stats_fraction(tag->cycles, total_cycles), a, sizeof a));
    for (size_t r = 0; r < p->nrates; r++) {
        const struct profile_rate_stats *s = &tag->rates[r];
        c = estimate_cells(t, c, s->n, s->rate, stats_rate_ci95(s));
        table_set(t, c++, "%s", fmt_count(s->n, a, sizeof a));
    }
    if (sl->on) {
        char spark[4 * SPARKLINE_CELLS + 1];
        table_set(t, c, "%s",
                  sparkline_format(&tag->rates[sl->rate].hist, sl->lo, sl->hi, sl->style, spark,
                                   sizeof spark));
    }
}

static void print_rate_legend(struct report_out *o, const struct profile *p,
                              const struct sparkline_look *sl)
{
    for (size_t r = 0; r < p->nrates; r++)
        fact(o, r == 0 ? "rates" : "", "%s: counter %s, %s", p->rates[r].name, p->rates[r].counter,
             p->rates[r].unit);
    if (p->nrates)
        fact(o, "",
             "rate: over the tag's kept periods together (counts / cycles); n: kept "
             "periods; the CSV also has the mean of per-period rates");
    fact(o, "",
         "± 95%% CI assumes independent samples; consecutive samples are "
         "correlated, so read it as a lower bound on the uncertainty");
    if (sl->on)
        fact(o, "",
             "%s histogram: kept periods in %d cells over [%g, %g) %s; height: share of the "
             "row's fullest cell (%s), blank: none",
             p->rates[sl->rate].name, SPARKLINE_CELLS, sl->lo, sl->hi, p->rates[sl->rate].unit,
             sparkline_ramp(sl->style));
}

static void print_dte(struct report_out *o, const struct profile *p)
{
    const struct profile_samples *s = &p->samples;
    char a[32], b[32], c[32], d[32], e[32];
    fact(o, "samples", "%s periods, %s distinct tags, %s to other (tag table full)",
         fmt_count(s->total, a, sizeof a), fmt_count(s->distinct_tags, b, sizeof b),
         fmt_count(s->other, c, sizeof c));
    fact(o, "",
         "%s interrupted, not attributed (the observer was aggregating, or a period "
         "exceeded %s cycles)",
         fmt_count(s->interrupted, a, sizeof a), fmt_count(s->max_period, b, sizeof b));
    fact(o, "DTE", "rated %s, kept %s (%s), discarded %s, thread changes %s",
         fmt_count(s->rated, a, sizeof a), fmt_count(s->kept, b, sizeof b),
         fmt_percent(stats_fraction(s->kept, s->rated), c, sizeof c),
         fmt_count(s->discarded, d, sizeof d), fmt_count(s->thread_changes, e, sizeof e));
    if (p->config.dte_off)
        fact(o, "", "DTE off: every rated period kept (tolerance %g not applied)",
             p->config.dte_tolerance);
    else
        fact(o, "",
             "tolerance |CPC - 1| <= %g (±%.2f%%), or a skew of at most %" PRIu64
             " cycles (the TSC step)",
             p->config.dte_tolerance, 100 * p->config.dte_tolerance, p->config.dte_resolution);
}

static void period_row(struct table *t, const char *unit, const struct profile_loghist *h,
                       double scale, int csv)
{
    const double v[] = {h->median, h->p10, h->p90, h->mean, h->min, h->max};
    table_add_row(t);
    table_set(t, 0, csv ? "%s" : "  %s", unit);
    for (size_t i = 0; i < 6; i++)
        table_set(t, i + 1, csv ? "%.10g" : "%.1f", v[i] * scale);
}

/* The sample period's summary in TSC cycles and in ns: rounded for people, in full for
 * CSV (whose first column is headed "unit"); ruled: the first row is a header row. NULL
 * if memory ran out. */
static struct table *period_table(const struct profile *p, int csv, int ruled)
{
    static const enum table_align align[7] = {TABLE_LEFT,  TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT,
                                              TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT};
    static const char *const heads[7] = {"", "median", "p10", "p90", "mean", "min", "max"};
    struct table *t = table_new(7, align);
    if (!t) return NULL;
    table_add_row(t);
    for (size_t i = 0; i < 7; i++)
        table_set(t, i, "%s", i == 0 && csv ? "unit" : heads[i]);
    if (ruled) table_end_header(t);
    if (p->period.has_summary) {
        period_row(t, "TSC cycles", &p->period, 1, csv);
        period_row(t, "ns", &p->period, 1e9 / p->machine.tsc_hz, csv);
    }
    return t;
}

static int print_period(struct report_out *o, const struct profile *p)
{
    const struct profile_loghist *h = &p->period;
    char a[32];
    if (!h->has_summary) {
        fact(o, "period", "no sample periods recorded");
        return 0;
    }
    if (h->underflow || h->overflow) {
        char b[32], c[32];
        fact(o, "period", "%s sample periods (%s below, %s above the histogram's span)",
             fmt_count(h->count, a, sizeof a), fmt_count(h->underflow, b, sizeof b),
             fmt_count(h->overflow, c, sizeof c));
    } else {
        fact(o, "period", "%s sample periods", fmt_count(h->count, a, sizeof a));
    }
    struct table *t = period_table(p, 0, o->fmt == REPORT_HTML);
    if (!t) return -1;
    int rc = print_table(o, t);
    table_free(t);
    return rc;
}

static void print_cost(struct report_out *o, const struct profile *p)
{
    char a[32], b[32];
    const struct profile_cost *c = &p->cost;
    uint64_t per_second = (uint64_t)llround(fmin(fmax(c->samples_per_second, 0), 9e18));
    fact(o, "cost", "%s samples/s; observer CPU %.3f s = %.2f%% of wall time; tag table %s",
         fmt_count(per_second, a, sizeof a), c->observer_cpu_seconds, 100 * c->observer_cpu_share,
         fmt_bytes(c->tag_table_bytes, b, sizeof b));
}

/* The tag table, a line on hidden rows, a blank line and the legend. */
static int print_tags(struct report_out *o, const struct profile *p, long top,
                      const struct sparkline_look *sl)
{
    size_t nrows = 0;
    struct named_tag *rows = named_tags(p, 1, &nrows);
    if (!rows) return -1;
    size_t hidden, shown = rows_shown(p, top, &hidden);
    int threads = distinct_threads(p);
    uint64_t total_cycles = profile_total_cycles(p);
    struct table *t = text_table(p, threads, sl);
    int rc = -1;
    if (t) {
        int cut = o->fmt == REPORT_TEXT; /* a page wraps a long name instead */
        for (size_t i = 0; i < shown; i++)
            text_row(t, p, &rows[i], threads, total_cycles, sl, cut);
        if (p->other.samples > 0) text_row(t, p, &rows[nrows - 1], threads, total_cycles, sl, cut);
        rc = print_table(o, t);
        table_free(t);
    }
    named_tags_free(rows, nrows);
    if (hidden)
        note(o, "(%zu more row%s hidden: --all shows every row, --top N the first N)", hidden,
             hidden == 1 ? "" : "s");
    if (o->fmt == REPORT_TEXT) fputc('\n', o->f);
    print_rate_legend(o, p, sl);
    facts_end(o);
    return rc;
}

/* The tags the `by` table shows: every one for --all, N for --top N, else BY_TOP. */
static long by_rows_wanted(const struct report_options *o)
{
    if (o->all) return -1;
    return o->top_given ? o->top : BY_TOP;
}

/* One rate per bucket of another, when the profile has it: a line saying which, the
 * table, and how to read it. */
static int print_by(struct report_out *o, const struct profile *p, long top)
{
    char what[640];
    size_t hidden;
    if (!p->has_by) return 0;
    struct table *t = by_table(p, top, 0, o->fmt == REPORT_TEXT ? NAME_MAX_WIDTH / 2 : 0, &hidden);
    if (!t) return -1;
    fact(o, "by", "%s", by_describe(p, what, sizeof what));
    int rc = p->ntags ? print_table(o, t) : 0;
    table_free(t);
    if (p->ntags == 0) note(o, "(no tags)");
    if (hidden && p->ntags)
        note(o, "(%zu slot%s without kept periods of these tags left out)", hidden,
             hidden == 1 ? "" : "s");
    fact(o, "",
         "cells: %s over the tag's kept periods whose %s fell in the row's slot (sum_a / "
         "sum_b); n: those periods; -: none with a rate",
         p->rates[p->by.rate].name, p->rates[p->by.by].name);
    facts_end(o);
    return rc;
}

/* DTE, the sample period and the cost. */
static int print_sampling(struct report_out *o, const struct profile *p)
{
    print_dte(o, p);
    int rc = print_period(o, p);
    print_cost(o, p);
    facts_end(o);
    return rc;
}

static int print_text(const struct profile *p, const struct report_options *opt)
{
    struct report_out o = {.f = stdout, .fmt = REPORT_TEXT};
    int on = opt->sparklines < 0 ? isatty(STDOUT_FILENO) : opt->sparklines;
    struct sparkline_look sl = sparkline_look(p, on ? (long)plot_default_rate(p) : -1,
                                              on ? sparkline_style_from_locale() : SPARKLINE_ASCII);
    print_header(&o, p);
    fputc('\n', o.f);
    int rc = print_tags(&o, p, rows_wanted(opt), &sl);
    if (p->has_by) {
        fputc('\n', o.f);
        int rc1 = print_by(&o, p, by_rows_wanted(opt));
        fputc('\n', o.f);
        rc = rc ? rc : rc1;
    }
    int rc2 = print_sampling(&o, p);
    return rc ? rc : rc2;
}

/* ---- the parts, for other commands ---- */

void report_write_run(FILE *f, enum report_format fmt, const struct profile *p)
{
    struct report_out o = {.f = f, .fmt = fmt};
    print_header(&o, p);
    facts_end(&o);
}

int report_write_tags(FILE *f, enum report_format fmt, const struct profile *p, long top,
                      long sparkline_rate)
{
    struct report_out o = {.f = f, .fmt = fmt};
    struct sparkline_look sl = sparkline_look(p, sparkline_rate, SPARKLINE_UTF8);
    return print_tags(&o, p, top, &sl);
}

int report_write_by(FILE *f, enum report_format fmt, const struct profile *p, long top)
{
    struct report_out o = {.f = f, .fmt = fmt};
    return print_by(&o, p, top);
}

int report_write_sampling(FILE *f, enum report_format fmt, const struct profile *p)
{
    struct report_out o = {.f = f, .fmt = fmt};
    return print_sampling(&o, p);
}

void report_note(FILE *f, enum report_format fmt, const char *text)
{
    struct report_out o = {.f = f, .fmt = fmt};
    note(&o, "%s", text);
}

/* ---- CSV ---- */

static struct table *csv_table(const struct profile *p)
{
    size_t ncols = CSV_FIXED_COLS + CSV_RATE_COLS * p->nrates;
    enum table_align *align = calloc(ncols, sizeof *align); /* unused by CSV */
    if (!align) return NULL;
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    static const char *const heads[8] = {"thread",  "slot",  "value",      "name",
                                         "samples", "share", "time_share", "kept"};
    table_add_row(t);
    for (size_t c = 0; c < 8; c++)
        table_set(t, c, "%s", heads[c]);
    static const char *const rate_heads[CSV_RATE_COLS] = {"mean_", "ci95_", "n_", "rate_",
                                                          "rate_ci95_"};
    for (size_t r = 0; r < p->nrates; r++)
        for (size_t k = 0; k < CSV_RATE_COLS; k++)
            table_set(t, CSV_FIXED_COLS + CSV_RATE_COLS * r + k, "%s%s", rate_heads[k],
                      p->rates[r].name);
    return t;
}

static void csv_slots_values(struct table *t, const struct profile *p,
                             const struct profile_tag *tag)
{
    char *slots = NULL, *values = NULL;
    size_t ls = 0, lv = 0;
    FILE *fs = open_memstream(&slots, &ls), *fv = open_memstream(&values, &lv);
    for (size_t i = 0; fs && fv && i < tag->nvalues; i++) {
        fprintf(fs, "%s%" PRIu64, i ? ";" : "", p->signals.tags[i].slot);
        fprintf(fv, "%s%" PRIu64, i ? ";" : "", tag->values[i]);
    }
    if (fs) fclose(fs);
    if (fv) fclose(fv);
    table_set(t, 1, "%s", slots ? slots : "");
    table_set(t, 2, "%s", values ? values : "");
    free(slots);
    free(values);
}

static void csv_row(struct table *t, const struct profile *p, const struct named_tag *row,
                    uint64_t total_cycles)
{
    const struct profile_tag *tag = row->tag;
    table_add_row(t);
    if (!tag->is_other) {
        table_set(t, 0, "%" PRIu64, tag->thread);
        csv_slots_values(t, p, tag);
    }
    table_set(t, 3, "%s", row->name);
    table_set(t, 4, "%" PRIu64, tag->samples);
    table_set(t, 5, "%.10g", tag->share);
    double ts = stats_fraction(tag->cycles, total_cycles);
    if (!isnan(ts)) table_set(t, 6, "%.10g", ts);
    table_set(t, 7, "%" PRIu64, tag->kept);
    for (size_t r = 0; r < p->nrates; r++) {
        const struct profile_rate_stats *s = &tag->rates[r];
        size_t c = CSV_FIXED_COLS + CSV_RATE_COLS * r;
        double ci = stats_ci95(s->n, s->sum, s->sumsq), rate_ci = stats_rate_ci95(s);
        if (s->n > 0) table_set(t, c, "%.10g", s->mean);
        if (!isnan(ci)) table_set(t, c + 1, "%.6g", ci);
        table_set(t, c + 2, "%" PRIu64, s->n);
        if (s->n > 0) table_set(t, c + 3, "%.10g", s->rate);
        if (!isnan(rate_ci)) table_set(t, c + 4, "%.6g", rate_ci);
    }
}

static int print_csv(const struct profile *p, const struct report_options *o)
{
    if (o->csv == CSV_PERIOD || o->csv == CSV_BY) {
        size_t hidden;
        struct table *t = o->csv == CSV_PERIOD ? period_table(p, 1, 1)
                                               : by_table(p, rows_wanted(o), 1, 0, &hidden);
        int rc = t ? table_print_csv(t, stdout) : -1;
        table_free(t);
        return rc;
    }
    size_t nrows = 0;
    struct named_tag *rows = named_tags(p, 1, &nrows);
    if (!rows) return -1;
    size_t hidden, shown = rows_shown(p, rows_wanted(o), &hidden);
    uint64_t total_cycles = profile_total_cycles(p);
    struct table *t = csv_table(p);
    int rc = -1;
    if (t) {
        for (size_t i = 0; i < shown; i++)
            csv_row(t, p, &rows[i], total_cycles);
        if (p->other.samples > 0) csv_row(t, p, &rows[nrows - 1], total_cycles);
        rc = table_print_csv(t, stdout);
        table_free(t);
    }
    named_tags_free(rows, nrows);
    return rc;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, struct report_options *o)
{
    static const struct option options[] = {
        {"csv", optional_argument, NULL, 'c'},
        {"top", required_argument, NULL, 'n'},
        {"all", no_argument, NULL, 'a'},
        {"sparklines", no_argument, NULL, 's'},
        {"no-sparklines", no_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":n:ah", options, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (!optarg || strcmp(optarg, "tags") == 0)
                o->csv = CSV_TAGS;
            else if (strcmp(optarg, "period") == 0)
                o->csv = CSV_PERIOD;
            else if (strcmp(optarg, "by") == 0)
                o->csv = CSV_BY;
            else
                return usage_error("report", "--csv=%s: no such table (tables: tags, period, by)",
                                   optarg);
            break;
        case 's':
        case 'S':
            o->sparklines = opt == 's';
            break;
        case 'a':
            o->all = 1;
            break;
        case 'n':
            if (parse_count_option("report", "--top", optarg, &o->top)) return EXIT_USAGE_ERROR;
            o->top_given = 1;
            break;
        case 'h':
            fputs(report_usage, stdout);
            return -1;
        default:
            return option_error("report", opt, argv);
        }
    }
    if (o->all && o->top_given) return usage_error("report", "--all and --top exclude each other");
    if (optind >= argc) return usage_error("report", "missing the profile FILE");
    if (optind + 1 < argc) return usage_error("report", "expects one FILE, got %d", argc - optind);
    o->file = argv[optind];
    return 0;
}

/* The text report or one CSV table on stdout; 0, or -1 when memory ran out. */
static int print_report(const struct profile *p, const struct report_options *o)
{
    return o->csv != CSV_NONE ? print_csv(p, o) : print_text(p, o);
}

int report_print(const struct profile *p, int csv, long top)
{
    struct report_options o = {
        .csv = csv ? CSV_TAGS : CSV_NONE, .top_given = top >= 0, .all = top < 0, .top = top};
    return print_report(p, &o);
}

int report_main(int argc, char **argv)
{
    struct report_options o = {.sparklines = -1};
    char err[512];
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct profile *p = profile_load(o.file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    if (o.csv == CSV_BY && !p->has_by) {
        rc = usage_error("report", "--csv=by: %s has no by table (the run did not set SHIM_BY)",
                         p->file);
        profile_free(p);
        return rc;
    }
    rc = print_report(p, &o);
    if (rc) fprintf(stderr, "shimview: %s: out of memory while printing\n", p->file);
    profile_free(p);
    return rc ? EXIT_FILE_ERROR : 0;
}
