/*
 * rows.c -- a row per tag entry, as text or CSV (see rows.h).
 *
 * The columns after the name are the same in every such table: samples, the share of
 * samples (over every attributed period, whoever ran: the entry's `share`), the share of
 * TSC cycles, and per rate the ratio estimate sum_a / sum_b over the kept periods (the
 * unbiased one, to quote) with its 95% interval (intervals.h: batch means where the tuple
 * has time batches, `~` or `!` after the interval where it does not) and n. Text rounds
 * an estimate to the precision its interval supports (significant digits, so a small
 * rate never prints as 0.000000) and prints shares as percentages (`<0.01%` for a small
 * nonzero one); CSV keeps full precision, fractions, and adds the mean of the per-period
 * rates, the centre of the histogram, and the share's interval and each interval's kind.
 *
 * An entry may be a folded one (match.h): then its thread word stands for the row only
 * when every entry folded into it had that word, and its values are its first entry's;
 * the samples of other processes and of the idle CPU are no tags of the program, so
 * their rows have no slot values.
 */
#include "shimview/render/rows.h"
#include "shimview/base/numbers.h"
#include "shimview/model/profile_threads.h"
#include "shimview/analysis/stats.h"
#include "shimview/analysis/intervals.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Columns per rate: text "rate", "± CI", "n"; CSV "mean_", "ci95_", "n_", "rate_",
 * "rate_ci95_". */
#define TEXT_RATE_COLS 3
#define CSV_RATE_COLS  5

const char *rows_fmt_percent(double frac, char *buf, size_t len)
{
    return stats_format_share(frac, buf, len);
}

struct sparkline_look rows_sparkline_look(const struct profile *p, long rate,
                                          enum sparkline_style style)
{
    struct sparkline_look sl = {.style = style, .rate = rate >= 0 ? (size_t)rate : 0};
    sl.on = rate >= 0 && sparkline_range(p, sl.rate, &sl.lo, &sl.hi) == 0;
    return sl;
}

int rows_has_thread(const struct profile_tag *t)
{
    return !t->is_other && !t->several_threads;
}

/* The thread cells from column c: the word, then the name when the look has one. */
static size_t thread_cells(struct table *t, size_t c, const struct profile *p,
                           const struct profile_tag *tag, int name)
{
    if (rows_has_thread(tag)) table_set(t, c, "%" PRIu64, tag->thread);
    c++;
    if (!name) return c;
    const struct profile_thread *th =
        rows_has_thread(tag) ? profile_thread_find(p, tag->thread) : NULL;
    if (th) table_set(t, c, "%s", th->name);
    return c + 1;
}

/* ---- text ---- */

struct table *rows_text_table(const struct profile *p, const struct rows_look *l)
{
    size_t lead = (size_t)(l->thread + l->thread_name);
    size_t ncols = lead + 4 + TEXT_RATE_COLS * p->nrates + (l->spark.on ? 1 : 0);
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = 0; c < ncols; c++)
        align[c] = TABLE_RIGHT;
    if (l->thread_name) align[lead - 1] = TABLE_LEFT;
    align[lead] = TABLE_LEFT;
    for (size_t k = 0; k < p->nrates; k++)
        align[lead + 4 + TEXT_RATE_COLS * k + 1] = TABLE_LEFT; /* the ± column */
    if (l->spark.on) align[ncols - 1] = TABLE_LEFT;
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    table_column_class(t, lead, "name");
    if (l->spark.on) table_column_class(t, ncols - 1, "spark");
    table_add_row(t);
    size_t c = 0;
    if (l->thread) table_set(t, c++, "thread");
    if (l->thread_name) table_set(t, c++, "thread name");
    table_set(t, c++, "name");
    table_set(t, c++, "samples");
    table_set(t, c++, "share");
    table_set(t, c++, "time share");
    for (size_t r = 0; r < p->nrates; r++) {
        table_set(t, c++, "%s rate", p->rates[r].name);
        table_set(t, c++, "± 95%% CI");
        table_set(t, c++, "n");
    }
    if (l->spark.on) table_set(t, c++, "%s histogram", p->rates[l->spark.rate].name);
    table_end_header(t);
    return t;
}

/* Two cells, "value" and "± ci" with the interval's mark, from column c; a dash when
 * nothing was kept. */
static size_t estimate_cells(struct table *t, size_t c, uint64_t n, const struct interval *iv)
{
    char v[64], h[64];
    if (n == 0 || isnan(iv->value)) {
        table_set(t, c, "-");
        return c + 2;
    }
    interval_format(iv, iv->value, v, h, sizeof v);
    table_set(t, c, "%s", v);
    table_set(t, c + 1, "%s%s", h, interval_mark(iv->basis));
    return c + 2;
}

void rows_text_row(struct table *t, const struct profile *p, const struct named_tag *row,
                   const struct rows_look *l, uint64_t total_cycles, int cut)
{
    const struct profile_tag *tag = row->tag;
    char a[64];
    size_t c = 0;
    table_add_row(t);
    if (l->thread) c = thread_cells(t, c, p, tag, l->thread_name);
    table_set_cut(t, c++, row->name, cut ? ROWS_NAME_WIDTH : 0);
    table_set(t, c++, "%s", fmt_count(tag->samples, a, sizeof a));
    table_set(t, c++, "%s", rows_fmt_percent(tag->share, a, sizeof a));
    table_set(t, c++, "%s",
              rows_fmt_percent(stats_fraction(tag->cycles, total_cycles), a, sizeof a));
    for (size_t r = 0; r < p->nrates; r++) {
        const struct profile_rate_stats *s = &tag->rates[r];
        struct interval iv = interval_rate(p, tag, r);
        c = estimate_cells(t, c, s->n, &iv);
        table_set(t, c++, "%s", fmt_count(s->n, a, sizeof a));
    }
    if (l->spark.on) {
        char spark[4 * SPARKLINE_CELLS + 1];
        table_set(t, c, "%s",
                  sparkline_format(&tag->rates[l->spark.rate].hist, l->spark.lo, l->spark.hi,
                                   l->spark.style, spark, sizeof spark));
    }
}

/* ---- CSV ---- */

struct table *rows_csv_table(const struct profile *p, const struct rows_look *l)
{
    static const char *const rate_heads[CSV_RATE_COLS] = {"mean_", "ci95_", "n_", "rate_",
                                                          "rate_ci95_"};
    size_t lead = 1 + (size_t)l->thread_name + (l->slots ? 2 : 0);
    size_t ncols = lead + 5 + CSV_RATE_COLS * p->nrates + 3 + p->nrates;
    enum table_align *align = calloc(ncols, sizeof *align); /* unused by CSV */
    if (!align) return NULL;
    struct table *t = table_new(ncols, align);
    free(align);
    if (!t) return NULL;
    size_t c = 0;
    table_add_row(t);
    table_set(t, c++, "thread");
    if (l->thread_name) table_column_text(t, c);
    if (l->thread_name) table_set(t, c++, "thread_name");
    if (l->slots) {
        table_set(t, c++, "slot");
        table_set(t, c++, "value");
    }
    table_column_text(t, c);
    table_set(t, c++, "name");
    table_set(t, c++, "samples");
    table_set(t, c++, "share");
    table_set(t, c++, "time_share");
    table_set(t, c++, "kept");
    for (size_t r = 0; r < p->nrates; r++)
        for (size_t k = 0; k < CSV_RATE_COLS; k++)
            table_set(t, c++, "%s%s", rate_heads[k], p->rates[r].name);
    table_set(t, c++, "share_lo95");
    table_set(t, c++, "share_hi95");
    table_set(t, c++, "share_basis");
    for (size_t r = 0; r < p->nrates; r++)
        table_set(t, c++, "rate_basis_%s", p->rates[r].name);
    return t;
}

/* The slot numbers and values of a tag of the program, joined with ';'; empty for
 * `other` and for the rows of other threads, which hold no tags of the program's. */
static void slots_values(struct table *t, size_t c, const struct profile *p,
                         const struct profile_tag *tag)
{
    if (tag->is_other || tag_thread_group(p, tag) != THREAD_PROGRAM) return;
    char *slots = NULL, *values = NULL;
    size_t ls = 0, lv = 0;
    FILE *fs = open_memstream(&slots, &ls), *fv = open_memstream(&values, &lv);
    for (size_t i = 0; fs && fv && i < tag->nvalues; i++) {
        fprintf(fs, "%s%" PRIu64, i ? ";" : "", p->signals.tags[i].slot);
        fprintf(fv, "%s%" PRIu64, i ? ";" : "", tag->values[i]);
    }
    if (fs) fclose(fs);
    if (fv) fclose(fv);
    table_set(t, c, "%s", slots ? slots : "");
    table_set(t, c + 1, "%s", values ? values : "");
    free(slots);
    free(values);
}

void rows_csv_row(struct table *t, const struct profile *p, const struct named_tag *row,
                  const struct rows_look *l, uint64_t total_cycles)
{
    const struct profile_tag *tag = row->tag;
    table_add_row(t);
    size_t c = thread_cells(t, 0, p, tag, l->thread_name);
    if (l->slots) {
        slots_values(t, c, p, tag);
        c += 2;
    }
    table_set(t, c++, "%s", row->name);
    table_set(t, c++, "%" PRIu64, tag->samples);
    table_set(t, c++, "%.10g", tag->share);
    double ts = stats_fraction(tag->cycles, total_cycles);
    if (!isnan(ts)) table_set(t, c, "%.10g", ts);
    c++;
    table_set(t, c++, "%" PRIu64, tag->kept);
    for (size_t r = 0; r < p->nrates; r++) {
        const struct profile_rate_stats *s = &tag->rates[r];
        struct interval iv = interval_rate(p, tag, r);
        double ci = stats_ci95(s->n, s->sum, s->sumsq), ratio_ci = interval_half(&iv);
        if (s->n > 0) table_set(t, c, "%.10g", s->mean);
        if (!isnan(ci)) table_set(t, c + 1, "%.6g", ci);
        table_set(t, c + 2, "%" PRIu64, s->n);
        if (s->n > 0) table_set(t, c + 3, "%.10g", s->rate);
        if (!isnan(ratio_ci)) table_set(t, c + 4, "%.6g", ratio_ci);
        c += CSV_RATE_COLS;
    }
    struct interval sh = interval_share(p, tag);
    if (!isnan(sh.lo)) {
        table_set(t, c, "%.6g", sh.lo);
        table_set(t, c + 1, "%.6g", sh.hi);
        table_set(t, c + 2, "%s", interval_basis_name(sh.basis));
    }
    c += 3;
    for (size_t r = 0; r < p->nrates; r++, c++)
        table_set(t, c, "%s", interval_basis_name(interval_rate(p, tag, r).basis));
}
