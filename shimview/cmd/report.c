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
 * A program's threads are one program: a row holds the tuple's samples in every thread
 * of it, added up exactly (match.c folds the entries: their sums add, and the rate and
 * the mean are formed again from the sums), and the samples the observer took while
 * another process, or nothing, ran on the CPU it watched are a row each at the bottom,
 * "(other processes)" and "(idle)" (profile_threads.h), so they are neither lost nor
 * mistaken for the program's. --per-thread shows the entries as the profile holds them,
 * a row per thread and tuple. Shares stay shares of every attributed sample, whoever ran.
 *
 * The same rows feed two tables (rows.c): aligned text for people (top N rows, names
 * truncated) and CSV for programs (every row unless --top is given, slots and values in
 * separate columns, fractions rather than percentages, full precision). Building a table
 * first and printing it once keeps column widths right without a second pass over the
 * data. On a terminal each row also gets a sparkline of its rate histogram (sparkline.c).
 *
 * The text report's parts are also written as HTML (commands.h), for `shimview html`:
 * the same facts and the same table, so a page and a terminal never disagree. The
 * "label  text" lines become rows of a two-column table there, and the tables are
 * printed by table_print_html().
 */
#include "shimview/render/by.h"
#include "shimview/cmd/commands.h"
#include "shimview/base/markup.h"
#include "shimview/analysis/match.h"
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"
#include "shimview/model/profile.h"
#include "shimview/model/profile_threads.h"
#include "shimview/analysis/rates.h"
#include "shimview/analysis/loss.h"
#include "shimview/render/rows.h"
#include "shimview/render/sparkline.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"
#include "shimview/analysis/intervals.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TOP 20

const char report_usage[] =
    "usage: shimview report [--csv[=TABLE] | --json[=TABLE]] [--sort KEY]\n"
    "                       [--top N | --all] [--per-thread] [--[no-]sparklines] (FILE | -)\n"
    "\n"
    "Print a profile: the run and the machine, one row per tag tuple sorted by samples,\n"
    "the program's threads added together (share of all samples, share of TSC cycles,\n"
    "and for each rate its value over the kept periods with a 95% confidence interval\n"
    "and the number of kept periods), a row for the samples of other processes and one\n"
    "for the idle CPU, the 'other' row, DTE statistics, the sample period and shim's\n"
    "own cost; when the run set SHIM_BY, a table of one rate per bucket of another for\n"
    "the top tags (4, or --top N). The CSV also has the mean of the per-period rates.\n"
    "'-' reads the profile from standard input; a file larger than 1 GiB is refused.\n"
    "\n"
    "  -n, --top N         show the N rows of the program's tags with most samples\n"
    "                      (default 20)\n"
    "  -a, --all           show every row\n"
    "  -s, --sort KEY      the order of the program's tags (keys: samples, time, name):\n"
    "                      samples (the default) or TSC time, largest first, or names\n"
    "                      A to Z\n"
    "      --per-thread    one row per thread and tag tuple, with the thread's id and\n"
    "                      name, instead of the program's threads added together\n"
    "      --csv[=TABLE]   print only one table, as CSV with a header row: 'tags' (the\n"
    "                      default: every row unless --top is given), 'period' (the\n"
    "                      sample period summary) or 'by' (one rate per bucket of\n"
    "                      another, when the run set SHIM_BY); columns in\n"
    "                      " SHIM_DOC_DIR "/shimview/report.md\n"
    "      --json[=TABLE]  the same table as JSON: an array of objects, one per row,\n"
    "                      with the CSV's columns\n"
    "      --sparklines    add a column with each tag's rate histogram drawn in block\n"
    "                      characters (ASCII when the locale is not UTF-8); the default\n"
    "                      when standard output is a terminal\n"
    "      --no-sparklines leave that column out, even on a terminal\n"
    "  -h, --help          print this help\n";

enum csv_table { CSV_NONE, CSV_TAGS, CSV_PERIOD, CSV_BY };

/* --sort's keys for the tag table: samples (the default), time (TSC cycles), name */
static const char *const report_keys[] = {"samples", "time", "name"};
enum { SORT_SAMPLES, SORT_TIME, SORT_NAME };

struct report_options {
    enum csv_table csv;
    int json; /* the csv table, as JSON */
    long sort;
    int top_given;
    int all;
    long top;
    int sparklines; /* -1: when standard output is a terminal */
    int per_thread; /* the per-tag table keeps threads apart */
    const char *file;
};

/* Where the report's parts go. In HTML, consecutive fact lines form one table: a line
 * with a label opens a row, a line without one continues the row's text. */
struct report_out {
    FILE *f;
    enum report_format fmt;
    int in_facts, in_row; /* HTML: a facts table, a row of it, is open */
    int per_thread;       /* the per-tag table has a row per thread and tuple */
    long sort;            /* --sort: the index of its key in report_keys */
};

/* ---- formatting helpers ---- */

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

/* How many of the named rows are ranked: the program's tags (every row but `other` when
 * threads are kept apart), which --top cuts and --sort orders. */
static size_t rows_ranked(const struct profile *p, const struct named_tag *rows, size_t n,
                          int per_thread)
{
    size_t ranked = n > 0 && rows[n - 1].tag->is_other ? n - 1 : n, prefix = ranked;
    if (!per_thread)
        for (prefix = 0; prefix < ranked; prefix++)
            if (tag_thread_group(p, rows[prefix].tag) != THREAD_PROGRAM) break;
    return prefix;
}

static long sort_key; /* qsort has no context argument in C11 */

static int by_sort_key(const void *a, const void *b)
{
    const struct named_tag *x = a, *y = b;
    int c = sort_key == SORT_NAME ? strcmp(x->name, y->name) : 0;
    if (c) return c;
    if (sort_key == SORT_TIME && x->tag->cycles != y->tag->cycles)
        return x->tag->cycles > y->tag->cycles ? -1 : 1;
    if (x->tag->samples != y->tag->samples) return x->tag->samples > y->tag->samples ? -1 : 1;
    return x->tag < y->tag ? -1 : x->tag > y->tag; /* file order among equals */
}

/* Order the ranked rows by --sort's key (named_tags() gives them by samples). */
static void rows_sort(const struct profile *p, struct named_tag *rows, size_t n, int per_thread,
                      long key)
{
    if (key == SORT_SAMPLES) return;
    sort_key = key;
    qsort(rows, rows_ranked(p, rows, n, per_thread), sizeof *rows, by_sort_key);
}

/* Which of the named rows (the program's tags, then the rows of other processes and
 * idle, then `other`) a table prints: rows [0, *first) and [*rest, n). The program's
 * tags are cut to the top N (every one when top is negative). In the merged view the rows
 * of other threads, one per group, are printed whatever N is, as `other` is; kept apart
 * per thread they are rows like the others, cut with them. Returns the rows left out. */
static size_t rows_cut(const struct profile *p, const struct named_tag *rows, size_t n, long top,
                       int per_thread, size_t *first, size_t *rest)
{
    size_t prefix = rows_ranked(p, rows, n, per_thread);
    *first = top >= 0 && (size_t)top < prefix ? (size_t)top : prefix;
    *rest = prefix;
    return prefix - *first;
}

/* The rows --top, --all and --csv ask for: every row for --all, and for CSV unless
 * --top was given; otherwise the top N (-1: every row). */
static long rows_wanted(const struct report_options *o)
{
    if (o->all) return -1;
    if (o->top_given) return o->top;
    return o->csv ? -1 : DEFAULT_TOP;
}

/* ---- the text report ---- */

/* Why BPF was not used, in a few words: the profile keeps libshim's whole sentence
 * (which step failed, with which error, and the fix), which made the header line 250
 * characters long; the report names the error and leaves the rest to shim-info, which
 * says it on the machine where it can be fixed. "BPF is not available: attaching to
 * the sched/sched_switch tracepoint failed with ENOENT (no such tracepoint: ...)" reads
 * "BPF is not available (ENOENT); shim-info says why"; a reason without that form
 * (SHIM_THREAD_ID=pinned, built without BPF support) is kept up to its first
 * parenthesis or semicolon. */
static void identity_reason(const char *why, char *buf, size_t len)
{
    static const char unavailable[] = "BPF is not available: ";
    const char *with = strstr(why, " failed with ");
    if (strncmp(why, unavailable, sizeof unavailable - 1) == 0) {
        if (with) {
            with += strlen(" failed with ");
            snprintf(buf, len, "BPF is not available (%.*s); shim-info says why",
                     (int)strcspn(with, " ;("), with);
        } else {
            snprintf(buf, len, "BPF is not available; shim-info says why");
        }
        return;
    }
    size_t cut = strcspn(why, ";(");
    while (cut > 0 && why[cut - 1] == ' ')
        cut--;
    snprintf(buf, len, "%.*s", (int)cut, why);
}

/* Where the thread word came from: "(thread ids from BPF)", "(thread ids: pinned: WHY)"
 * with WHY in a few words. */
static const char *identity_text(const struct profile_placement *pl, char *buf, size_t len)
{
    const char *src = pl->identity_source, *why = pl->identity_why;
    char reason[128] = "";
    if (why) identity_reason(why, reason, sizeof reason);
    if (!src)
        snprintf(buf, len, "(the profile does not say where thread ids came from)");
    else if (strcmp(src, "bpf") == 0)
        snprintf(buf, len, "(thread ids from BPF)");
    else
        snprintf(buf, len, "(thread ids: %s%s%s)", src, *reason ? ": " : "", reason);
    return buf;
}

/* The observed threads, the observers, and what shares are shares of. */
static void print_threads(struct report_out *o, const struct profile *p)
{
    const struct profile_placement *pl = &p->placement;
    char a[32], b[32], c[512];
    if (pl->has_threads) {
        uint64_t observed = pl->threads_attached + 1; /* the first, then each that joined */
        if (observed > pl->nthreads)
            fact(o, "threads", "%s observed, the first %s listed %s",
                 fmt_count(observed, a, sizeof a), fmt_count(pl->nthreads, b, sizeof b),
                 identity_text(pl, c, sizeof c));
        else
            fact(o, "threads", "%s observed %s", fmt_count(pl->nthreads, a, sizeof a),
                 identity_text(pl, c, sizeof c));
    }
    if (pl->nobservers == 1)
        fact(o, "observers", "1 (CPU %" PRIu64 " watching CPU %" PRIu64 ")",
             pl->observers[0].observer_cpu, pl->observers[0].observed_cpu);
    else if (pl->nobservers > 1)
        fact(o, "observers", "%zu, their tables added together:", pl->nobservers);
    for (size_t i = 0; pl->nobservers > 1 && i < pl->nobservers; i++) {
        const struct profile_observer *w = &pl->observers[i];
        fact(o, "", "CPU %" PRIu64 " watching CPU %" PRIu64 ": %s, sharing %s, %s samples",
             w->observer_cpu, w->observed_cpu, w->relation, w->shared,
             fmt_count(w->samples, a, sizeof a));
    }
    fact(o, "shares", "of all %s attributed samples%s; time share: of their TSC cycles",
         fmt_count(p->samples.total - p->samples.interrupted, a, sizeof a),
         pl->has_threads ? " (every thread's: other processes and idle too)" : "");
}

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
    print_threads(o, p);
    char loss[512];
    if (loss_describe(p, loss, sizeof loss)) fact(o, "warning", "%s", loss);
}

static void print_rate_legend(struct report_out *o, const struct profile *p,
                              const struct sparkline_look *sl)
{
    for (size_t r = 0; r < p->nrates; r++)
        fact(o, r == 0 ? "rates" : "", "%s: counter %s, %s", p->rates[r].name, p->rates[r].counter,
             p->rates[r].unit);
    char slow[320];
    profile_slow_rates_note(p, slow, sizeof slow);
    if (p->nrates)
        fact(o, "",
             "rate: over the tag's kept periods together (counts / cycles)%s; n: kept periods%s; "
             "the CSV also has the mean of per-period rates",
             slow, slow[0] ? ", spans for the slow rates" : "");
    char legend[512];
    fact(o, "", "%s", intervals_legend(p, legend, sizeof legend));
    if (sl->on)
        fact(o, "",
             "%s histogram: %s in %d cells over [%g, %g) %s; height: share of the "
             "row's fullest cell (%s), blank: none",
             p->rates[sl->rate].name,
             p->rates[sl->rate].slow ? "spans between reads of its slow counter" : "kept periods",
             SPARKLINE_CELLS, sl->lo, sl->hi, p->rates[sl->rate].unit, sparkline_ramp(sl->style));
}

static void print_dte(struct report_out *o, const struct profile *p)
{
    const struct profile_samples *s = &p->samples;
    char a[32], b[32], c[32], d[32], e[32];
    fact(o, "samples", "%s periods, %s distinct tags, %s to other (no room for their tuple)",
         fmt_count(s->total, a, sizeof a), fmt_count(s->distinct_tags, b, sizeof b),
         fmt_count(s->other, c, sizeof c));
    fact(o, "",
         "%s straddled a change of tag tuple: counted in the shares, not in the rates (their "
         "counts mix two tuples)",
         fmt_count(s->straddled, a, sizeof a));
    fact(o, "",
         "%s interrupted, not attributed (the observer was aggregating, or a period "
         "exceeded %s cycles)",
         fmt_count(s->interrupted, a, sizeof a), fmt_count(s->max_period, b, sizeof b));
    fact(o, "DTE", "rated %s, kept %s (%s), discarded %s, thread changes %s",
         fmt_count(s->rated, a, sizeof a), fmt_count(s->kept, b, sizeof b),
         rows_fmt_percent(stats_fraction(s->kept, s->rated), c, sizeof c),
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

/* The quantiles print to the precision their bucket has (or exactly, where every value
 * in it was the same); the min and max are whole cycles, exact (in ns to a cycle's
 * precision), the mean to 0.1. */
static void period_row(struct table *t, const char *unit, const struct profile_loghist *h,
                       double scale, int csv)
{
    const double v[] = {h->median, h->p10, h->p90, h->mean, h->min, h->max};
    const int exact[] = {h->median_exact, h->p10_exact, h->p90_exact};
    char buf[64];
    table_add_row(t);
    table_set(t, 0, csv ? "%s" : "  %s", unit);
    for (size_t i = 0; i < 6; i++) {
        if (csv)
            table_set(t, i + 1, "%.10g", v[i] * scale);
        else if (i != 3)
            table_set(t, i + 1, "%s",
                      profile_loghist_quantile_text(h, v[i], i < 3 ? exact[i] : 1, scale, buf,
                                                    sizeof buf));
        else
            table_set(t, i + 1, "%.1f", v[i] * scale);
    }
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
    size_t nrows = 0, first, rest;
    struct named_tag *rows = named_tags(p, 1, &nrows);
    if (!rows) return -1;
    rows_sort(p, rows, nrows, o->per_thread, o->sort);
    size_t hidden = rows_cut(p, rows, nrows, top, o->per_thread, &first, &rest);
    uint64_t total_cycles = profile_total_cycles(p);
    struct rows_look look = {.thread = o->per_thread,
                             .thread_name = o->per_thread && p->placement.has_threads,
                             .spark = *sl};
    struct table *t = rows_text_table(p, &look);
    int rc = -1;
    if (t) {
        int cut = o->fmt == REPORT_TEXT; /* a page wraps a long name instead */
        for (size_t i = 0; i < nrows; i++)
            if (i < first || i >= rest) rows_text_row(t, p, &rows[i], &look, total_cycles, cut);
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
    struct table *t = by_table(p, top, 0, o->fmt == REPORT_TEXT ? ROWS_NAME_WIDTH / 2 : 0, &hidden);
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

/* Whether any sample saw a signal: a tag value other than 0, or a calling context. */
static int any_signal(const struct profile *p)
{
    if (p->has_cct) return 1;
    for (size_t i = 0; i < p->ntags; i++)
        for (size_t v = 0; v < p->tags[i].nvalues; v++)
            if (p->tags[i].values[v]) return 1;
    return 0;
}

/* A profile with nothing to show says why, and what to do: where the programs it started
 * used enough CPU unobserved (profile_children_matter, as the exit line asks), that. */
static void print_advice(struct report_out *o, const struct profile *p)
{
    if (p->samples.total == 0)
        fact(o, "note",
             "no samples: the run lasted %.1f ms, and ended before the observer's first sample "
             "(starting takes shim a few milliseconds) or within its first period",
             (double)p->run.duration_ns / 1e6);
    else if (!any_signal(p) && !p->run.children_observed &&
             profile_children_matter(p->run.children_cpu_seconds,
                                     (double)p->run.duration_ns * 1e-9))
        fact(o, "note",
             "the program wrote no signal, so every sample is \"%s\"; the programs it started "
             "used %.2f s of CPU, not observed: shimrun --children (SHIM_AUTOSTART_CHILDREN=1) "
             "observes them too, each writing its own profile (%%p, the pid, in -o's name keeps "
             "them apart)",
             TAG_VALUE_UNSET, p->run.children_cpu_seconds);
    else if (!any_signal(p))
        fact(o, "note",
             "the program wrote no signal, so every sample is \"%s\": build it with "
             "-finstrument-functions or clang's -fpass-plugin=$(pkg-config --variable=passplugin "
             "shim) for its functions, loops and calling contexts, or mark its phases with "
             "SHIM_SIGNAL (docs/guide.md)",
             TAG_VALUE_UNSET);
    else
        return;
    facts_end(o);
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

/* The text report of p, whose threads `view` holds folded together (match_fold): the
 * per-tag table of the view, or of p itself with --per-thread; the by table of the view. */
static int print_text(const struct profile *p, const struct profile *view,
                      const struct report_options *opt)
{
    struct report_out o = {
        .f = stdout, .fmt = REPORT_TEXT, .per_thread = opt->per_thread, .sort = opt->sort};
    const struct profile *rows = opt->per_thread ? p : view;
    int on = opt->sparklines < 0 ? isatty(STDOUT_FILENO) : opt->sparklines;
    struct sparkline_look sl = rows_sparkline_look(
        p, on ? (long)rates_default(p) : -1, on ? sparkline_style_from_locale() : SPARKLINE_ASCII);
    print_header(&o, p);
    fputc('\n', o.f);
    int rc = print_tags(&o, rows, rows_wanted(opt), &sl);
    print_advice(&o, p);
    if (p->has_by) {
        fputc('\n', o.f);
        int rc1 = print_by(&o, view, by_rows_wanted(opt));
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

void report_write_threads(FILE *f, enum report_format fmt, const struct profile *p)
{
    struct report_out o = {.f = f, .fmt = fmt};
    print_threads(&o, p);
    facts_end(&o);
}

int report_write_tags(FILE *f, enum report_format fmt, const struct profile *p, long top,
                      long sparkline_rate)
{
    struct report_out o = {.f = f, .fmt = fmt};
    struct sparkline_look sl = rows_sparkline_look(p, sparkline_rate, SPARKLINE_UTF8);
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

/* One CSV table of p (view: as for print_text). */
static int print_csv(const struct profile *p, const struct profile *view,
                     const struct report_options *o)
{
    if (o->csv == CSV_PERIOD || o->csv == CSV_BY) {
        size_t hidden;
        struct table *t = o->csv == CSV_PERIOD ? period_table(p, 1, 1)
                                               : by_table(view, rows_wanted(o), 1, 0, &hidden);
        int rc = !t ? -1 : o->json ? table_print_json(t, stdout) : table_print_csv(t, stdout);
        table_free(t);
        return rc;
    }
    const struct profile *q = o->per_thread ? p : view;
    size_t nrows = 0, first, rest;
    struct named_tag *rows = named_tags(q, 1, &nrows);
    if (!rows) return -1;
    rows_sort(q, rows, nrows, o->per_thread, o->sort);
    rows_cut(q, rows, nrows, rows_wanted(o), o->per_thread, &first, &rest);
    uint64_t total_cycles = profile_total_cycles(q);
    struct rows_look look = {.thread_name = o->per_thread && p->placement.has_threads, .slots = 1};
    struct table *t = rows_csv_table(q, &look);
    int rc = -1;
    if (t) {
        for (size_t i = 0; i < nrows; i++)
            if (i < first || i >= rest) rows_csv_row(t, q, &rows[i], &look, total_cycles);
        rc = o->json ? table_print_json(t, stdout) : table_print_csv(t, stdout);
        table_free(t);
    }
    named_tags_free(rows, nrows);
    return rc;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, struct report_options *o)
{
    static const struct option options[] = {
        {"csv", optional_argument, NULL, 'c'},     {"json", optional_argument, NULL, 'j'},
        {"top", required_argument, NULL, 'n'},     {"sort", required_argument, NULL, 's'},
        {"all", no_argument, NULL, 'a'},           {"sparklines", no_argument, NULL, 'k'},
        {"no-sparklines", no_argument, NULL, 'S'}, {"per-thread", no_argument, NULL, 'T'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":n:as:h", options, NULL)) != -1) {
        switch (opt) {
        case 'c':
        case 'j': {
            static const char *const tables[] = {"tags", "period", "by"};
            const char *opt_name = opt == 'j' ? "--json" : "--csv";
            if (o->csv != CSV_NONE && o->json != (opt == 'j'))
                return usage_error("report", "--csv and --json exclude each other");
            long k = optarg ? usage_pick("report", opt_name, optarg, tables, 3) : 0;
            if (k < 0) return EXIT_USAGE_ERROR;
            o->csv = (enum csv_table)(CSV_TAGS + k);
            o->json = opt == 'j';
            break;
        }
        case 'k':
        case 'S':
            o->sparklines = opt == 'k';
            break;
        case 'a':
            o->all = 1;
            break;
        case 'T':
            o->per_thread = 1;
            break;
        case 's':
            if ((o->sort = usage_pick("report", "--sort", optarg, report_keys, 3)) < 0)
                return EXIT_USAGE_ERROR;
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
    struct profile view;
    char **names;
    if (match_fold(p, &view, &names)) return -1;
    int rc = o->csv != CSV_NONE ? print_csv(p, &view, o) : print_text(p, &view, o);
    match_fold_free(&view, names);
    return rc;
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
    struct profile *p = profile_open(o.file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    if (o.csv == CSV_BY && !p->has_by) {
        rc = usage_error("report", "%s=by: %s has no by table (the run did not set SHIM_BY)",
                         o.json ? "--json" : "--csv", p->file);
        profile_free(p);
        return rc;
    }
    rc = print_report(p, &o);
    if (rc) fprintf(stderr, "shimview: %s: out of memory while printing\n", p->file);
    profile_free(p);
    return rc ? EXIT_FILE_ERROR : 0;
}
