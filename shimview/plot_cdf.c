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
 */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CDF_HEIGHT_MIN 360.0

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

/* Circles on the whole-profile curve at its 10th, 50th and 90th percentiles. */
static void quantile_marks(struct svg *s, const struct merged *m, const struct plot_scale *xs,
                           const struct plot_scale *ys)
{
    static const double qs[] = {0.1, 0.5, 0.9};
    for (size_t i = 0; i < 3; i++) {
        double v = merged_quantile(m, qs[i]);
        if (!isfinite(v) || v < xs->d0 || v > xs->d1) continue;
        svg_circle(s, plot_map(xs, v), plot_map(ys, 100 * qs[i]), 4, "#ffffff", "#222222");
    }
}

static int merge_tag(struct merged *m, const struct profile_tag *t, size_t rate)
{
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    if (merge_add(m, &cap, &t->rates[rate].hist)) return -1;
    merge_finish(m);
    return 0;
}

static int merge_all(struct merged *m, const struct plot_ctx *c)
{
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < c->p->ntags; i++)
        if (merge_add(m, &cap, &c->p->tags[i].rates[c->rate].hist)) return -1;
    if (merge_add(m, &cap, &c->p->other.rates[c->rate].hist)) return -1;
    merge_finish(m);
    return 0;
}

static void draw_figure(struct svg *s, const struct plot_ctx *c, const struct merged *all,
                        const struct merged *per_tag, double lo, double hi, double y, double h)
{
    char label[256], xlabel[320];
    plot_rate_label(c, label, sizeof label);
    struct plot_scale xs = {lo, hi, PLOT_LEFT + PLOT_INSET,
                            PLOT_LEFT + PLOT_AREA_WIDTH - PLOT_INSET, 0};
    struct plot_scale ys = {0, 100, y + h, y, 0};
    struct plot_ticks xt, yt;
    plot_ticks_linear_fit(&xt, lo, hi, PLOT_AREA_WIDTH - 2 * PLOT_INSET);
    plot_ticks_linear(&yt, 0, 100, 5);
    snprintf(xlabel, sizeof xlabel, "%s (linear within buckets of %g)", label, all->width);
    svg_group_begin(s, "panel", "panel-1", "cumulative distribution");
    plot_axis_y(s, &ys, &yt, PLOT_LEFT, PLOT_AREA_WIDTH, "%");
    plot_axis_x(s, &xs, &xt, y, h, 1, xlabel);
    plot_label_y(s, y, y + h, "cumulative % of kept samples");
    for (size_t i = c->ntop; i-- > 0;)
        draw_curve(s, &per_tag[i], &xs, &ys, plot_color(i), 1.6);
    draw_curve(s, all, &xs, &ys, "#111111", 2.6);
    quantile_marks(s, all, &xs, &ys);
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, h);

    double ly = y + 12;
    ly = curve_legend(s, ly, "#111111", 2.6, "all tags", all);
    svg_circle(s, PLOT_LEGEND_X + 8, ly - 4, 4, "#ffffff", "#222222");
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, PLOT_TEXT_GREY, 0, "p10, median, p90 of all");
    ly += PLOT_LEGEND_LINE + 8;
    for (size_t i = 0; i < c->ntop; i++)
        ly = curve_legend(s, ly, plot_color(i), 1.6, c->top[i].name, &per_tag[i]);
    if (all->under || all->over) {
        char under[32], over[32];
        double t = (double)all->total;
        plot_legend_text(s, PLOT_LEGEND_X, ly, PLOT_TEXT_GREY, 0, "not on the axis (outside the");
        ly += PLOT_LEGEND_LINE;
        plot_legend_text(
            s, PLOT_LEGEND_X, ly, PLOT_TEXT_GREY, 0, "span): %s below %g, %s \xe2\x89\xa5 %g",
            plot_fmt_share(100.0 * (double)all->under / t, under, sizeof under), all->span_lo,
            plot_fmt_share(100.0 * (double)all->over / t, over, sizeof over), all->span_hi);
    }
    svg_group_end(s);
}

/* The plot's height: at least CDF_HEIGHT_MIN, more when the legend needs it. */
static double cdf_height(const struct plot_ctx *c)
{
    double legend = 4 * PLOT_LEGEND_LINE + 20 + (double)c->ntop * (3 * PLOT_LEGEND_LINE + 6) +
                    3 * PLOT_LEGEND_LINE;
    return fmax(CDF_HEIGHT_MIN, legend);
}

int plot_cdf_write(FILE *f, const struct plot_ctx *c)
{
    const struct profile *p = c->p;
    struct merged all;
    struct merged *per_tag = calloc(c->ntop ? c->ntop : 1, sizeof *per_tag);
    int rc = per_tag ? merge_all(&all, c) : -1;
    for (size_t i = 0; rc == 0 && i < c->ntop; i++)
        rc = merge_tag(&per_tag[i], c->top[i].tag, c->rate);
    if (rc == 0) {
        double lo = 0, hi = 1;
        if (plot_rate_range(c, 1, &lo, &hi) != 0 && p->ntags > 0) {
            lo = p->tags[0].rates[c->rate].hist.lo;
            hi = p->tags[0].rates[c->rate].hist.hi;
        }
        double h = cdf_height(c), y = PLOT_TOP + 10;
        char label[256], title[320], sub[512], a[32];
        plot_rate_label(c, label, sizeof label);
        snprintf(title, sizeof title, "Cumulative distribution of %s", label);
        snprintf(sub, sizeof sub,
                 "%s \xc2\xb7 %s \xc2\xb7 %s kept samples of %zu tags%s, merged from the "
                 "per-tag histograms",
                 c->source, p->program.name, fmt_count(all.total, a, sizeof a), p->ntags,
                 p->other.samples ? " and other" : "");
        struct svg s;
        svg_begin(&s, f, PLOT_WIDTH, y + h + PLOT_X_AXIS_SPACE + 12, title);
        plot_title(&s, title, sub);
        draw_figure(&s, c, &all, per_tag, lo, hi, y, h);
        svg_end(&s);
    }
    if (per_tag) {
        free(all.seg);
        for (size_t i = 0; i < c->ntop; i++)
            free(per_tag[i].seg);
    }
    free(per_tag);
    return rc;
}
