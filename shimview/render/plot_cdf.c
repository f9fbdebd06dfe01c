/*
 * plot_cdf.c -- the cumulative distribution of a rate (`<stem>-cdf.svg`; SHIM paper
 * Fig. 1b).
 *
 * The thick black curve is every kept sample of every tag (and `other`): the tags' linear
 * histograms merged bucket by bucket. Over it, thin coloured curves show the top tags
 * alone, in the colours of the histogram figure, so one can see which tag makes which
 * step of the whole. Within a bucket the curve is a straight line (samples are taken as
 * spread evenly across it), so percentiles read from it are good to a bucket's width.
 *
 * Samples outside the histograms' span have no value to place on the x axis, but they
 * still count in the denominator: the curve starts at the share below the span and ends
 * at 100% minus the share above it, and the legend says so. NaN rates are left out of
 * the denominator, as the histogram figure leaves them out of its bars.
 *
 * Given a second profile (`shimview compare`), the figure holds the two whole-profile
 * curves instead, each in its profile's colour and named after its file: a shift of the
 * whole distribution (a lower clock, a prefetcher turned off) shows as one curve to the
 * side of the other. Per-tag curves of two profiles would be too many lines to read; the
 * histogram figure compares tags.
 */
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CDF_HEIGHT_MIN 360.0
#define CDF_WHOLE      2.6 /* px: the line of a whole profile's curve */
#define CDF_TAG        1.6 /* px: of a tag's */

/* One bucket of one histogram: [lo, hi) holding count samples. */
struct segment {
    double lo, hi;
    uint64_t count;
};

/* Every kept sample of some histograms, merged: sorted segments plus what is outside. */
struct merged {
    struct segment *seg;
    size_t n;
    uint64_t under, over, total; /* total: in span + under + over */
    double span_lo, span_hi;     /* the histograms' span (the widest) */
    double width;                /* the narrowest bucket */
};

static int by_edges(const void *a, const void *b)
{
    const struct segment *x = a, *y = b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

static int merge_add(struct merged *m, size_t *cap, const struct profile_linhist *h)
{
    if (m->n + h->ncounts > *cap) {
        size_t want = (m->n + h->ncounts) * 2;
        struct segment *grown = realloc(m->seg, want * sizeof *grown);
        if (!grown) return -1;
        m->seg = grown;
        *cap = want;
    }
    double w = (h->hi - h->lo) / (double)h->buckets;
    int first = m->width == 0;
    m->span_lo = first ? h->lo : fmin(m->span_lo, h->lo);
    m->span_hi = first ? h->hi : fmax(m->span_hi, h->hi);
    m->width = first ? w : fmin(m->width, w);
    for (size_t i = 0; i < h->ncounts; i++) {
        struct segment *s = &m->seg[m->n++];
        s->lo = plot_lin_edge(h, (double)h->counts[i].index);
        s->hi = plot_lin_edge(h, (double)h->counts[i].index + 1);
        s->count = h->counts[i].count;
        m->total += s->count;
    }
    m->under += h->underflow;
    m->over += h->overflow;
    m->total += h->underflow + h->overflow;
    return 0;
}

/* Sort, then fold segments with the same edges (the same bucket of the same layout). */
static void merge_finish(struct merged *m)
{
    if (m->n == 0) return;
    qsort(m->seg, m->n, sizeof *m->seg, by_edges);
    size_t o = 0;
    for (size_t i = 1; i < m->n; i++) {
        if (m->seg[i].lo == m->seg[o].lo && m->seg[i].hi == m->seg[o].hi)
            m->seg[o].count += m->seg[i].count;
        else
            m->seg[++o] = m->seg[i];
    }
    m->n = o + 1;
}

/* The value below which a fraction q of the samples lie; -INFINITY or INFINITY when that
 * rank falls below or above the span. */
static double merged_quantile(const struct merged *m, double q)
{
    double rank = q * (double)m->total, cum = (double)m->under;
    if (rank < cum) return -INFINITY;
    for (size_t i = 0; i < m->n; i++) {
        double next = cum + (double)m->seg[i].count;
        if (rank <= next && m->seg[i].count > 0)
            return m->seg[i].lo +
                   (rank - cum) / (double)m->seg[i].count * (m->seg[i].hi - m->seg[i].lo);
        cum = next;
    }
    return INFINITY;
}

static void draw_curve(struct svg *s, const struct merged *m, const struct plot_scale *xs,
                       const struct plot_scale *ys, const char *color, double width)
{
    if (m->total == 0) return;
    double cum = (double)m->under, t = (double)m->total;
    double x = xs->d0;
    svg_path_begin(s);
    svg_path_move(s, plot_map(xs, x), plot_map(ys, 100 * cum / t));
    for (size_t i = 0; i < m->n; i++) {
        double lo = fmax(m->seg[i].lo, x), hi = fmax(m->seg[i].hi, lo);
        svg_path_line(s, plot_map(xs, fmin(lo, xs->d1)), plot_map(ys, 100 * cum / t));
        cum += (double)m->seg[i].count;
        svg_path_line(s, plot_map(xs, fmin(hi, xs->d1)), plot_map(ys, 100 * cum / t));
        x = hi;
    }
    svg_path_line(s, plot_map(xs, xs->d1), plot_map(ys, 100 * cum / t));
    svg_path_end(s, color, width, NULL, 1, NULL);
}

/* A percentile to the decimal place of the bucket width (the curve is no finer). */
static const char *fmt_quantile(double v, const struct merged *m, char *buf, size_t len)
{
    int decimals = m->width > 0 ? (int)ceil(-log10(m->width) - 1e-9) : 3;
    if (decimals < 0) decimals = 0;
    if (decimals > 9) decimals = 9;
    if (v == -INFINITY)
        snprintf(buf, len, "< %g", m->span_lo);
    else if (v == INFINITY)
        snprintf(buf, len, "\xe2\x89\xa5 %g", m->span_hi);
    else if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, v);
    return buf;
}

/* The legend lines of one curve: a line glyph, a name, and its percentiles. */
static double curve_legend(struct svg *s, double y, const char *color, double width,
                           const char *name, const struct merged *m)
{
    char n[32], q1[32], q2[32], q3[32];
    svg_line(s, PLOT_LEGEND_X, y - 4, PLOT_LEGEND_X + 16, y - 4, color, width, NULL);
    plot_legend_text(s, PLOT_LEGEND_X + 22, y, color, 1, "%s", name);
    y += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X + 22, y, NULL, 0, "n = %s, median %s",
                     fmt_count(m->total, n, sizeof n),
                     fmt_quantile(merged_quantile(m, 0.5), m, q2, sizeof q2));
    y += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X + 22, y, PLOT_TEXT_GREY, 0, "p10 %s, p90 %s",
                     fmt_quantile(merged_quantile(m, 0.1), m, q1, sizeof q1),
                     fmt_quantile(merged_quantile(m, 0.9), m, q3, sizeof q3));
    return y + PLOT_LEGEND_LINE + 6;
}

/* Circles on a whole-profile curve at its 10th, 50th and 90th percentiles. */
static void quantile_marks(struct svg *s, const struct merged *m, const struct plot_scale *xs,
                           const struct plot_scale *ys, const char *stroke)
{
    static const double qs[] = {0.1, 0.5, 0.9};
    for (size_t i = 0; i < 3; i++) {
        double v = merged_quantile(m, qs[i]);
        if (!isfinite(v) || v < xs->d0 || v > xs->d1) continue;
        svg_circle(s, plot_map(xs, v), plot_map(ys, 100 * qs[i]), 4, "#ffffff", stroke);
    }
}

static int merge_tag(struct merged *m, const struct profile_rate_stats *rs)
{
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    if (merge_add(m, &cap, &rs->hist)) return -1;
    merge_finish(m);
    return 0;
}

static int merge_all(struct merged *m, const struct profile *p, size_t rate)
{
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < p->ntags; i++)
        if (merge_add(m, &cap, &p->tags[i].rates[rate].hist)) return -1;
    if (merge_add(m, &cap, &p->other.rates[rate].hist)) return -1;
    merge_finish(m);
    return 0;
}

/* One curve of the figure. The whole-profile curves are `whole`: drawn thick, with their
 * percentiles marked and what lies outside the span noted. */
struct curve {
    const struct merged *m;
    const char *color, *name;
    const char *who; /* "A ", "B ": which profile a note speaks of; "" for one profile */
    int whole;
};

/* The note on what a whole curve cannot place on the axis; the next baseline. */
static double span_note(struct svg *s, const struct curve *cv, double ly)
{
    const struct merged *m = cv->m;
    char under[32], over[32];
    double t = (double)m->total;
    if (!m->under && !m->over) return ly;
    plot_legend_text(s, PLOT_LEGEND_X, ly, PLOT_TEXT_GREY, 0, "%snot on the axis (outside the",
                     cv->who);
    ly += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X, ly, PLOT_TEXT_GREY, 0,
                     "span): %s below %g, %s \xe2\x89\xa5 %g",
                     plot_fmt_share(100.0 * (double)m->under / t, under, sizeof under), m->span_lo,
                     plot_fmt_share(100.0 * (double)m->over / t, over, sizeof over), m->span_hi);
    return ly + PLOT_LEGEND_LINE;
}

/* The curves (the first drawn on top) and their legend. */
static void draw_figure(struct svg *s, const struct plot_ctx *c, const struct curve *cv, size_t n,
                        double lo, double hi, double y, double h)
{
    char label[256], xlabel[320];
    plot_rate_label(c, label, sizeof label);
    struct plot_scale xs = {lo, hi, PLOT_LEFT + PLOT_INSET,
                            PLOT_LEFT + PLOT_AREA_WIDTH - PLOT_INSET, 0};
    struct plot_scale ys = {0, 100, y + h, y, 0};
    struct plot_ticks xt, yt;
    plot_ticks_linear_fit(&xt, lo, hi, PLOT_AREA_WIDTH - 2 * PLOT_INSET);
    plot_ticks_linear(&yt, 0, 100, 5);
    snprintf(xlabel, sizeof xlabel, "%s (linear within buckets of %g)", label, cv[0].m->width);
    svg_group_begin(s, "panel", "cdf-panel", "cumulative distribution");
    plot_axis_y(s, &ys, &yt, PLOT_LEFT, PLOT_AREA_WIDTH, "%");
    plot_axis_x(s, &xs, &xt, y, h, 1, xlabel);
    plot_label_y(s, y, y + h, "cumulative % of kept samples");
    for (size_t i = n; i-- > 0;)
        draw_curve(s, cv[i].m, &xs, &ys, cv[i].color, cv[i].whole ? CDF_WHOLE : CDF_TAG);
    size_t nwhole = 0;
    for (size_t i = 0; i < n; i++)
        nwhole += (size_t)cv[i].whole;
    for (size_t i = n; i-- > 0;) /* one profile: dark marks; two: each in its colour */
        if (cv[i].whole) quantile_marks(s, cv[i].m, &xs, &ys, nwhole > 1 ? cv[i].color : "#222222");
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, h);

    double ly = y + 12;
    for (size_t i = 0; i < n; i++) {
        ly = curve_legend(s, ly, cv[i].color, cv[i].whole ? CDF_WHOLE : CDF_TAG, cv[i].name,
                          cv[i].m);
        if (cv[i].whole && (i + 1 == n || !cv[i + 1].whole)) { /* after the last whole one */
            svg_circle(s, PLOT_LEGEND_X + 8, ly - 4, 4, "#ffffff", "#222222");
            plot_legend_text(s, PLOT_LEGEND_X + 22, ly, PLOT_TEXT_GREY, 0,
                             nwhole > 1 ? "p10, median, p90 of each" : "p10, median, p90 of all");
            ly += PLOT_LEGEND_LINE + 8;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (cv[i].whole) ly = span_note(s, &cv[i], ly);
    svg_group_end(s);
}

/* The plot's height: at least CDF_HEIGHT_MIN, more when the legend needs it (each curve's
 * three lines, the percentile marks' line, and two lines of notes per whole curve). */
static double cdf_height(size_t ncurves, size_t nwhole)
{
    double legend = 7 * PLOT_LEGEND_LINE + 20 + (double)(ncurves - 1) * (3 * PLOT_LEGEND_LINE + 6) +
                    (double)(nwhole - 1) * 2 * PLOT_LEGEND_LINE;
    return fmax(CDF_HEIGHT_MIN, legend);
}

/* The title and subtitle: of one profile, or of two. */
static void cdf_titles(const struct plot_ctx *c, const struct merged *all, const char *label,
                       char *title, size_t tlen, char *sub, size_t slen)
{
    char a[32], b[32];
    const struct profile *p = c->p;
    if (!c->p2) {
        snprintf(title, tlen, "Cumulative distribution of %s", label);
        snprintf(sub, slen,
                 "%s \xc2\xb7 %s \xc2\xb7 %s kept samples of %zu tags%s, merged from the "
                 "per-tag histograms",
                 c->source, p->program.name, fmt_count(all[0].total, a, sizeof a), p->ntags,
                 p->other.samples ? " and other" : "");
        return;
    }
    snprintf(title, tlen, "Cumulative distribution of %s: A and B", label);
    snprintf(sub, slen,
             "%s \xc2\xb7 kept samples of every tag: A %s, B %s, merged from the per-tag "
             "histograms",
             p->program.name, fmt_count(all[0].total, a, sizeof a),
             fmt_count(all[1].total, b, sizeof b));
}

int plot_cdf_write(FILE *f, const struct plot_ctx *c)
{
    const struct profile *p = c->p;
    size_t nsides = c->p2 ? 2 : 1, ntags = nsides > 1 ? 0 : c->ntop;
    struct merged all[2] = {{0}};
    struct merged *per_tag = calloc(ntags ? ntags : 1, sizeof *per_tag);
    struct curve *cv = calloc(nsides + ntags, sizeof *cv);
    char names[2][320];
    int rc = per_tag && cv ? 0 : -1;
    for (size_t j = 0; rc == 0 && j < nsides; j++) {
        rc = merge_all(&all[j], j ? c->p2 : p, j ? c->rate2 : c->rate);
        if (nsides > 1)
            snprintf(names[j], sizeof names[j], "%s  %s", j ? "B" : "A",
                     j ? c->source2 : c->source);
        else
            snprintf(names[j], sizeof names[j], "all tags");
        if (cv)
            cv[j] = (struct curve){&all[j], nsides > 1 ? plot_profile_color(j) : "#111111",
                                   names[j], nsides > 1 ? (j ? "B " : "A ") : "", 1};
    }
    for (size_t i = 0; rc == 0 && i < ntags; i++) {
        rc = merge_tag(&per_tag[i], plot_top_rate(c, i, 0));
        cv[nsides + i] = (struct curve){&per_tag[i], plot_color(i), c->top[i].name, "", 0};
    }
    if (rc == 0) {
        double lo = 0, hi = 1;
        if (plot_rate_range(c, 1, &lo, &hi) != 0 && p->ntags > 0) {
            lo = p->tags[0].rates[c->rate].hist.lo;
            hi = p->tags[0].rates[c->rate].hist.hi;
        }
        double h = cdf_height(nsides + ntags, nsides), y = PLOT_TOP + 10;
        char label[256], title[320], sub[512];
        plot_rate_label(c, label, sizeof label);
        cdf_titles(c, all, label, title, sizeof title, sub, sizeof sub);
        struct svg s;
        svg_begin(&s, f, c->kind, PLOT_WIDTH, y + h + PLOT_X_AXIS_SPACE + 12, title);
        plot_title(&s, title, sub);
        draw_figure(&s, c, cv, nsides + ntags, lo, hi, y, h);
        svg_end(&s);
    }
    for (size_t j = 0; j < nsides; j++)
        free(all[j].seg);
    for (size_t i = 0; per_tag && i < ntags; i++)
        free(per_tag[i].seg);
    free(per_tag);
    free(cv);
    return rc;
}
