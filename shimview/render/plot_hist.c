/*
 * plot_hist.c -- the rate histogram per tag (`<stem>-hist.svg`; SHIM paper Fig. 1c, 14a).
 *
 * Small multiples, one panel per top tag, stacked so they share one x axis: the eye
 * compares where each tag's distribution sits by looking straight down. Each bar is one
 * bucket of the profile's linear histogram, its height the bucket's share of the tag's
 * kept samples; y scales are per panel, since one tag's spike would flatten the others.
 *
 * Two things make raw shim histograms hard to read, and the figure deals with both in
 * the open. The histogram's span (say [0, 8) in 500 buckets) is set before the run, so
 * the data may fill a tenth of it: the x axis is trimmed to the buckets that hold data
 * (plot_rate_range). And a rate counted in whole events over short periods is often 0 in
 * most periods, so one bucket can hold 70% of the samples and the rest of the shape is a
 * row of one-pixel bars: when one bar is over four times the next and the others still
 * hold 5% or more of the samples, that bar is clipped, drawn broken, and labelled with
 * its share. Samples outside the histogram's span are not drawn; each panel counts them.
 *
 * Given a second profile (`shimview compare`), each panel holds the tag's histogram in
 * both on one y scale: A's bars filled, B's as an outline over them, so neither hides
 * the other and where they part is plain; a key above the panels names the two files.
 */
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"
#include "shimview/analysis/stats.h"
#include "shimview/analysis/intervals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PANEL_HEIGHT      150.0
#define PANEL_HEIGHT_ONE  240.0 /* a single panel gets the room its y label needs */
#define PANEL_GAP         22.0
#define CLIP_RATIO        4.0  /* a bar this many times the next is a spike */
#define CLIP_REST         0.05 /* ... clipped when the other bars hold this share or more */
#define MIN_BUCKETS_SHOWN 20.0
#define MIN_BAR_WIDTH     1.5   /* px: an isolated bucket narrower than this is widened */
#define PANEL_HEIGHT_TWO  170.0 /* two profiles: room for both legends */
#define KEY_SPACE         22.0  /* two profiles: the key's line above the panels */
#define KEY_COLUMN        270.0 /* two profiles: the key's width per profile */

/* ---- shared with plot_cdf.c ---- */

const char *plot_rate_label_of(const struct profile *p, size_t rate, char *buf, size_t len)
{
    const struct profile_rate *r = &p->rates[rate];
    if (r->unit[0])
        snprintf(buf, len, "%s %s", r->name, r->unit);
    else
        snprintf(buf, len, "%s", r->name);
    return buf;
}

const char *plot_rate_label(const struct plot_ctx *c, char *buf, size_t len)
{
    return plot_rate_label_of(c->p, c->rate, buf, len);
}

double plot_lin_edge(const struct profile_linhist *h, double i)
{
    return h->lo + i * ((h->hi - h->lo) / (double)h->buckets);
}

static void widen(const struct profile_linhist *h, int *any, double *a, double *b, double *span_lo,
                  double *span_hi, double *width)
{
    if (h->ncounts == 0) return;
    double first = plot_lin_edge(h, (double)h->counts[0].index);
    double last = plot_lin_edge(h, (double)h->counts[h->ncounts - 1].index + 1);
    double w = (h->hi - h->lo) / (double)h->buckets;
    if (!*any || first < *a) *a = first;
    if (!*any || last > *b) *b = last;
    if (!*any || h->lo < *span_lo) *span_lo = h->lo;
    if (!*any || h->hi > *span_hi) *span_hi = h->hi;
    if (!*any || w < *width) *width = w;
    *any = 1;
}

/* The histograms the range covers, of profile j: the top tags', or every tag's and
 * `other`'s. */
static void widen_profile(const struct plot_ctx *c, size_t j, int all, int *any, double *a,
                          double *b, double *span_lo, double *span_hi, double *width)
{
    const struct profile *p = j ? c->p2 : c->p;
    size_t rate = j ? c->rate2 : c->rate, n = all ? p->ntags : c->ntop;
    for (size_t i = 0; i < n; i++) {
        const struct profile_linhist *h =
            all ? &p->tags[i].rates[rate].hist : &plot_top_rate(c, i, j)->hist;
        widen(h, any, a, b, span_lo, span_hi, width);
    }
    if (all) widen(&p->other.rates[rate].hist, any, a, b, span_lo, span_hi, width);
}

int plot_rate_range(const struct plot_ctx *c, int all, double *lo, double *hi)
{
    double a = 0, b = 0, span_lo = 0, span_hi = 0, width = 0;
    int any = 0;
    for (size_t j = 0; j < (c->p2 ? 2u : 1u); j++)
        widen_profile(c, j, all, &any, &a, &b, &span_lo, &span_hi, &width);
    if (!any) return -1;
    if (b - a < MIN_BUCKETS_SHOWN * width) { /* a lone bar is not a distribution */
        double mid = (a + b) / 2;
        a = fmax(span_lo, mid - MIN_BUCKETS_SHOWN * width / 2);
        b = fmin(span_hi, a + MIN_BUCKETS_SHOWN * width);
    }
    double step = plot_nice_ceil((b - a) / 6);
    *lo = fmax(span_lo, floor(a / step + 1e-9) * step);
    *hi = fmin(span_hi, ceil(b / step - 1e-9) * step);
    if (!(*hi > *lo)) {
        *lo = a;
        *hi = b;
    }
    return 0;
}

const struct profile_rate_stats *plot_top_rate(const struct plot_ctx *c, size_t i, size_t j)
{
    return j ? &c->top2[i]->rates[c->rate2] : &c->top[i].tag->rates[c->rate];
}

const char *plot_profile_color(size_t j)
{
    return plot_color(j);
}

/* A swatch for profile j: A's bars are filled, B's drawn in outline over them. */
static void profile_swatch(struct svg *s, size_t j, double x, double baseline)
{
    if (j == 0)
        svg_rect(s, x, baseline - 10, 14, 12, plot_profile_color(0), 0.55, NULL);
    else
        svg_rect(s, x + 0.75, baseline - 9.25, 12.5, 10.5, NULL, 1, plot_profile_color(1));
}

/* A triangle pointing down with its tip at (x, y). */
static void marker_down(struct svg *s, double x, double y, const char *fill)
{
    svg_path_begin(s);
    svg_path_move(s, x - 5, y - 7);
    svg_path_line(s, x + 5, y - 7);
    svg_path_line(s, x, y);
    svg_path_line(s, x - 5, y - 7);
    svg_path_end(s, NULL, 0, fill, 1, NULL);
}

void plot_profiles_key(struct svg *s, const struct plot_ctx *c, double y)
{
    const struct svg_text_style st = {.size = PLOT_LEGEND_SIZE, .klass = "legend"};
    const char *files[2] = {c->source, c->source2};
    char text[512], fitted[512];
    for (size_t j = 0; j < 2; j++) {
        double x = PLOT_LEFT + (double)j * KEY_COLUMN;
        profile_swatch(s, j, x, y);
        snprintf(text, sizeof text, "%s  %s", j ? "B" : "A", files[j]);
        svg_text(s, x + 20, y, &st,
                 svg_fit_text(text, st.size, 0, KEY_COLUMN - 32, fitted, sizeof fitted));
    }
    double x = PLOT_LEGEND_X;
    svg_line(s, x, y - 4, x + 16, y - 4, PLOT_AXIS, 1.5, "4 3");
    plot_legend_text(s, x + 20, y, NULL, 0, "mean");
    marker_down(s, x + 78, y, PLOT_AXIS);
    plot_legend_text(s, x + 88, y, NULL, 0, "rate, in each colour");
}

/* ---- one panel ---- */

/* One histogram in a panel: the tag's rate in one profile. */
struct bars {
    const struct profile_tag *tag;
    const struct profile_rate_stats *rs;
    const struct profile *p; /* whose tag, and which of its rates rs is */
    size_t rate;
    const char *color;
    const char *label;   /* "A" or "B" when two profiles are drawn, else NULL */
    int outline;         /* drawn as an outline over the other profile's bars */
    uint64_t total;      /* kept samples in the histogram, out-of-span ones included */
    uint64_t top1, top2; /* the largest and second-largest bucket counts */
    size_t top1_at;      /* index into counts of the largest */
    int spike;           /* the largest bar dwarfs the others, which still matter */
    int clipped;         /* the largest bar is drawn broken */
};

struct panel {
    const struct named_tag *pt;
    struct bars side[2];
    size_t nsides; /* 2 when a second profile is drawn over the first */
    double ytop;   /* the y axis's top, in % */
};

/* Count b's samples and find its tallest bars; returns the height in % its bars need
 * (up to its second bar, with room for a label, when the first is a spike). */
static double bars_measure(struct bars *b)
{
    const struct profile_linhist *h = &b->rs->hist;
    uint64_t in_span = 0;
    b->top1 = b->top2 = 0;
    for (size_t i = 0; i < h->ncounts; i++) {
        uint64_t k = h->counts[i].count;
        in_span += k;
        if (k > b->top1) {
            b->top2 = b->top1;
            b->top1 = k;
            b->top1_at = i;
        } else if (k > b->top2) {
            b->top2 = k;
        }
    }
    b->total = in_span + h->underflow + h->overflow;
    double rest = b->total ? (double)(in_span - b->top1) / (double)b->total : 0;
    b->spike = b->top2 > 0 && (double)b->top1 > CLIP_RATIO * (double)b->top2 && rest >= CLIP_REST;
    if (!b->total) return 1;
    double ymax = 100.0 * (double)(b->spike ? b->top2 : b->top1) / (double)b->total;
    return b->spike ? ymax * 1.2 : ymax;
}

/* One y axis for the panel's histograms; a spike is clipped only where it rises above it
 * (the other profile's bars may have made room for it). */
static void panel_measure(struct panel *pn)
{
    double ymax = 0;
    for (size_t j = 0; j < pn->nsides; j++)
        ymax = fmax(ymax, bars_measure(&pn->side[j]));
    double step = plot_nice_ceil(ymax / 4);
    pn->ytop = fmax(step, ceil(ymax / step - 1e-9) * step);
    for (size_t j = 0; j < pn->nsides; j++) {
        struct bars *b = &pn->side[j];
        b->clipped = b->spike && 100.0 * (double)b->top1 / (double)b->total > pn->ytop;
    }
}

/* The clipped bar's label: its share, beside it at the top, on a white ground. */
static void clip_label(struct svg *s, const struct bars *b, const struct plot_scale *xs, double y)
{
    const struct profile_linhist *hist = &b->rs->hist;
    double i = (double)hist->counts[b->top1_at].index;
    double x0 = plot_map(xs, plot_lin_edge(hist, i)), x1 = plot_map(xs, plot_lin_edge(hist, i + 1));
    char text[64];
    snprintf(text, sizeof text, "%s%s%.1f%%", b->label ? b->label : "", b->label ? " " : "",
             100.0 * (double)b->top1 / (double)b->total);
    double tw = svg_text_width(text, PLOT_TICK_SIZE, 1);
    int right = fmax(x1, x0 + MIN_BAR_WIDTH) + 6 + tw <= PLOT_LEFT + PLOT_AREA_WIDTH - 2;
    double tx = right ? fmax(x1, x0 + MIN_BAR_WIDTH) + 5 : x0 - 5;
    const struct svg_text_style st = {.size = PLOT_TICK_SIZE,
                                      .bold = 1,
                                      .fill = b->color,
                                      .anchor = right ? SVG_START : SVG_END,
                                      .klass = "clip"};
    svg_rect(s, right ? tx - 1 : tx - tw - 1, y + 3, tw + 2, PLOT_TICK_SIZE + 2, "#ffffff", 0.9,
             NULL);
    svg_text(s, tx, y + 2 + PLOT_TICK_SIZE, &st, text);
}

/* The bars as one outline per run of adjacent non-empty buckets, filled with fill_opacity
 * or (b->outline) stroked: bars a pixel wide drawn as separate rectangles would blur into
 * stripes. */
static void panel_bars(struct svg *s, const struct bars *b, double ytop,
                       const struct plot_scale *xs, double y, double h, double fill_opacity)
{
    const struct profile_linhist *hist = &b->rs->hist;
    double base = y + h;
    svg_path_begin(s);
    for (size_t i = 0; i < hist->ncounts; i++) {
        double k = (double)hist->counts[i].index;
        int first = i == 0 || hist->counts[i - 1].index + 1 != hist->counts[i].index;
        int last = i + 1 == hist->ncounts || hist->counts[i + 1].index != hist->counts[i].index + 1;
        double x0 = plot_map(xs, plot_lin_edge(hist, k)),
               x1 = plot_map(xs, plot_lin_edge(hist, k + 1));
        double share = 100.0 * (double)hist->counts[i].count / (double)b->total;
        double bh = fmin(h, share / ytop * h);
        if (bh < 0.8) bh = 0.8; /* one sample in 100,000 is still a sample */
        if (first) svg_path_move(s, x0, base);
        if (first && last && x1 - x0 < MIN_BAR_WIDTH) x1 = x0 + MIN_BAR_WIDTH;
        svg_path_line(s, x0, base - bh);
        svg_path_line(s, x1, base - bh);
        if (last) svg_path_line(s, x1, base);
    }
    if (b->outline)
        svg_path_end(s, b->color, 1.3, NULL, 0, NULL);
    else
        svg_path_end(s, NULL, 0, b->color, fill_opacity, NULL);
    if (b->clipped) { /* two white strokes across the top of the clipped bar */
        double k = (double)hist->counts[b->top1_at].index;
        double x0 = plot_map(xs, plot_lin_edge(hist, k)),
               x1 = plot_map(xs, plot_lin_edge(hist, k + 1));
        x1 = fmax(x1, x0 + MIN_BAR_WIDTH);
        svg_line(s, x0 - 3, y + 12, x1 + 3, y + 8, "#ffffff", 2, NULL);
        svg_line(s, x0 - 3, y + 17, x1 + 3, y + 13, "#ffffff", 2, NULL);
    }
}

/* The heading line: a swatch (none for two profiles, whose colours name the profiles),
 * the tag's name (cut to leave room), its share at the right (one profile). */
static void legend_heading(struct svg *s, const struct panel *pn, double ly)
{
    const struct svg_text_style right = {
        .size = PLOT_LEGEND_SIZE, .anchor = SVG_END, .fill = PLOT_TEXT_GREY, .klass = "legend"};
    const struct bars *b = &pn->side[0];
    int two = pn->nsides > 1;
    const struct svg_text_style name = {
        .size = PLOT_LEGEND_SIZE, .bold = 1, .fill = two ? PLOT_AXIS : b->color, .klass = "legend"};
    char pct[32], share[64], fitted[512];
    double x = PLOT_LEGEND_X, x_end = PLOT_LEGEND_X + PLOT_LEGEND_WIDTH;
    snprintf(share, sizeof share, "%s of samples",
             plot_fmt_share(100 * b->tag->share, pct, sizeof pct));
    double room = x_end - (x + 22) - (two ? 0 : svg_text_width(share, right.size, 0) + 10);
    if (!two) svg_rect(s, x, ly - 10, 14, 12, b->color, 0.85, NULL);
    svg_text(
        s, two ? x : x + 22, ly, &name,
        svg_fit_text(pn->pt->name, name.size, 1, two ? room + 22 : room, fitted, sizeof fitted));
    if (!two) svg_text(s, x_end, ly, &right, share);
}

/* Lines for what b does not draw: samples outside the span, NaN rates, a clipped bar;
 * from ly, returning the next line's baseline. */
static double not_drawn_lines(struct svg *s, const struct bars *b, double tx, double ly)
{
    const struct profile_linhist *h = &b->rs->hist;
    const char *who = b->label ? b->label : "", *sep = b->label ? " " : "";
    char a[64];
    const struct {
        uint64_t k;
        const char *what;
        double edge;
    } out[] = {{h->underflow, "<", h->lo}, {h->overflow, "\xe2\x89\xa5", h->hi}, {h->nan, "", 0}};
    for (size_t i = 0; i < 3; i++) {
        if (out[i].k == 0) continue;
        char share[32];
        plot_fmt_share(100.0 * (double)out[i].k / (double)(b->total + h->nan), share, sizeof share);
        if (i < 2)
            plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "%s%snot drawn: %s %s %g (%s)", who, sep,
                             fmt_count(out[i].k, a, sizeof a), out[i].what, out[i].edge, share);
        else
            plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "%s%snot drawn: %s NaN (%s)", who, sep,
                             fmt_count(out[i].k, a, sizeof a), share);
        ly += PLOT_LEGEND_LINE;
    }
    if (b->clipped) {
        const struct profile_lin_count *k = &h->counts[b->top1_at];
        plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "%s%sbar at %g clipped (%.1f%%)", who, sep,
                         plot_lin_edge(h, (double)k->index),
                         100.0 * (double)k->count / (double)b->total);
        ly += PLOT_LEGEND_LINE;
    }
    return ly;
}

/* "R ± CI" of b's rate, with the interval's mark (intervals.h), in buf. */
static const char *fmt_rate_ci(const struct bars *b, char *buf, size_t len)
{
    struct interval iv = interval_rate(b->p, b->tag, b->rate);
    char m[64];
    plot_fmt_interval(&iv, b->rs->rate, m, sizeof m);
    snprintf(buf, len, "%s%s", m, interval_mark(iv.basis));
    return buf;
}

static void panel_legend(struct svg *s, const struct panel *pn, double y)
{
    const struct bars *b = &pn->side[0];
    const struct profile_rate_stats *rs = b->rs;
    double x = PLOT_LEGEND_X, tx = x + 22, ly = y + 12;
    char a[64], c[64];
    legend_heading(s, pn, ly);
    ly += PLOT_LEGEND_LINE + 2;
    plot_legend_text(s, tx, ly, NULL, 0, "n = %s %s", fmt_count(rs->n, a, sizeof a),
                     b->p->rates[b->rate].slow ? "spans (a slow rate)" : "kept samples");
    ly += PLOT_LEGEND_LINE;
    if (rs->n == 0 || !rs->has_stats) {
        plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "no kept samples with a rate");
        return;
    }
    svg_line(s, x, ly - 4, x + 16, ly - 4, "#222222", 1.5, "4 3");
    plot_legend_text(s, tx, ly, NULL, 0, "mean \xc2\xb1 sd %s",
                     plot_fmt_pm(rs->mean, stats_sd(rs->n, rs->sum, rs->sumsq), a, sizeof a));
    ly += PLOT_LEGEND_LINE;
    marker_down(s, x + 8, ly, "#222222");
    plot_legend_text(s, tx, ly, NULL, 0, "rate %s (95%% CI)", fmt_rate_ci(b, c, sizeof c));
    ly += PLOT_LEGEND_LINE;
    not_drawn_lines(s, b, tx, ly);
}

/* The legend of a panel of two profiles: per profile a swatch, its share of samples, and
 * the rate with n; then what is not drawn. */
static void panel_legend_two(struct svg *s, const struct panel *pn, double y)
{
    double x = PLOT_LEGEND_X, tx = x + 22, ly = y + 12;
    char a[64], c[64], pct[32];
    legend_heading(s, pn, ly);
    ly += PLOT_LEGEND_LINE + 2;
    for (size_t j = 0; j < pn->nsides; j++) {
        const struct bars *b = &pn->side[j];
        profile_swatch(s, j, x, ly);
        if (b->tag->samples == 0) {
            plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "%s: not in this profile", b->label);
            ly += PLOT_LEGEND_LINE + 2;
            continue;
        }
        plot_legend_text(s, tx, ly, NULL, 0, "%s: %s of samples, n = %s", b->label,
                         plot_fmt_share(100 * b->tag->share, pct, sizeof pct),
                         fmt_count(b->rs->n, a, sizeof a));
        ly += PLOT_LEGEND_LINE;
        if (b->rs->n == 0 || !b->rs->has_stats)
            plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "no kept samples with a rate");
        else
            plot_legend_text(s, tx, ly, NULL, 0, "rate %s", fmt_rate_ci(b, c, sizeof c));
        ly += PLOT_LEGEND_LINE + 2;
    }
    for (size_t j = 0; j < pn->nsides; j++)
        ly = not_drawn_lines(s, &pn->side[j], x, ly);
}

static void draw_panel(struct svg *s, const struct panel *pn, size_t index,
                       const struct plot_scale *xs, const struct plot_ticks *xt, double y, double h,
                       int bottom, const char *xlabel)
{
    char id[32];
    int two = pn->nsides > 1;
    snprintf(id, sizeof id, "hist-panel-%zu", index + 1);
    svg_group_begin(s, "panel", id, pn->pt->name);
    struct plot_scale ys = {0, pn->ytop, y + h, y, 0};
    struct plot_ticks yt;
    plot_ticks_linear(&yt, 0, pn->ytop, 4);
    plot_axis_y(s, &ys, &yt, PLOT_LEFT, PLOT_AREA_WIDTH, "%");
    plot_axis_x(s, xs, xt, y, h, bottom, bottom ? xlabel : NULL);
    uint64_t total = 0;
    for (size_t j = 0; j < pn->nsides; j++) {
        total += pn->side[j].total;
        if (pn->side[j].total > 0)
            panel_bars(s, &pn->side[j], pn->ytop, xs, y, h, two ? 0.55 : 0.85);
    }
    double xmin = PLOT_LEFT, xmax = PLOT_LEFT + PLOT_AREA_WIDTH;
    for (size_t j = 0; j < pn->nsides; j++) {
        const struct profile_rate_stats *rs = pn->side[j].rs;
        const char *color = two ? pn->side[j].color : "#222222";
        if (!rs->has_stats || rs->n == 0) continue;
        double xm = plot_map(xs, rs->mean), xr = plot_map(xs, rs->rate);
        if (xm >= xmin && xm <= xmax) svg_line(s, xm, y, xm, y + h, color, 1.5, "4 3");
        if (xr >= xmin && xr <= xmax) marker_down(s, xr, y - 1, color);
    }
    for (size_t j = 0; j < pn->nsides; j++)
        if (pn->side[j].clipped)
            clip_label(s, &pn->side[j], xs, y + (double)j * (PLOT_TICK_SIZE + 4));
    if (total == 0) {
        const struct svg_text_style st = {.anchor = SVG_MIDDLE, .fill = PLOT_TEXT_GREY};
        svg_text(s, PLOT_LEFT + PLOT_AREA_WIDTH / 2, y + h / 2, &st,
                 "no kept samples in the histogram");
    }
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, h);
    if (two)
        panel_legend_two(s, pn, y);
    else
        panel_legend(s, pn, y);
    svg_group_end(s);
}

/* ---- the figure ---- */

static int any_out_of_span(const struct panel *pn, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < pn[i].nsides; j++) {
            const struct profile_linhist *h = &pn[i].side[j].rs->hist;
            if (h->underflow || h->overflow || h->nan) return 1;
        }
    return 0;
}

/* The title and subtitle: of one profile, or of two. */
static void hist_titles(const struct plot_ctx *c, const char *label, char *title, size_t tlen,
                        char *sub, size_t slen)
{
    char a[32], b[32];
    const struct profile *p = c->p;
    if (!c->p2) {
        snprintf(title, tlen, "Distribution of %s, per tag", label);
        char tiny[96] = "";
        if (c->tiny) /* PLOT_TINY_SHARE */
            snprintf(tiny, sizeof tiny, ", %zu under 0.1%% left out", c->tiny);
        snprintf(sub, slen,
                 "%s \xc2\xb7 %s \xc2\xb7 top %zu of %zu tags by samples%s \xc2\xb7 "
                 "%s kept samples in all",
                 c->source, p->program.name, c->ntop, p->ntags, tiny,
                 fmt_count(p->samples.kept, a, sizeof a));
        return;
    }
    snprintf(title, tlen, "Distribution of %s, per tag: A and B", label);
    snprintf(sub, slen,
             "%s \xc2\xb7 %zu tags, matched by name, in the order of A's share \xc2\xb7 "
             "kept samples: A %s, B %s",
             p->program.name, c->ntop, fmt_count(p->samples.kept, a, sizeof a),
             fmt_count(c->p2->samples.kept, b, sizeof b));
}

int plot_hist_write(FILE *f, const struct plot_ctx *c)
{
    size_t nsides = c->p2 ? 2 : 1;
    struct panel *pn = calloc(c->ntop ? c->ntop : 1, sizeof *pn);
    if (!pn) return -1;
    for (size_t i = 0; i < c->ntop; i++) {
        pn[i].pt = &c->top[i];
        pn[i].nsides = nsides;
        for (size_t j = 0; j < nsides; j++) {
            struct bars *b = &pn[i].side[j];
            b->tag = j ? c->top2[i] : c->top[i].tag;
            b->rs = plot_top_rate(c, i, j);
            b->p = j ? c->p2 : c->p;
            b->rate = j ? c->rate2 : c->rate;
            b->color = nsides > 1 ? plot_profile_color(j) : plot_color(i);
            b->label = nsides > 1 ? (j ? "B" : "A") : NULL;
            b->outline = j == 1;
        }
        panel_measure(&pn[i]);
    }
    double lo = 0, hi = 1;
    int empty = plot_rate_range(c, 0, &lo, &hi) != 0;
    if (empty && c->ntop > 0) { /* nothing in span: the histogram's own span */
        lo = c->top[0].tag->rates[c->rate].hist.lo;
        hi = c->top[0].tag->rates[c->rate].hist.hi;
    }
    double h = c->ntop == 1 ? PANEL_HEIGHT_ONE : nsides > 1 ? PANEL_HEIGHT_TWO : PANEL_HEIGHT;
    double key = nsides > 1 ? KEY_SPACE : 0;
    size_t npanels = c->ntop ? c->ntop : 1;
    double body = (double)npanels * h + (double)(npanels - 1) * PANEL_GAP;
    double height = PLOT_TOP + 10 + key + body + PLOT_X_AXIS_SPACE + 12;

    char label[256], title[320], sub[512], xlabel[512];
    plot_rate_label(c, label, sizeof label);
    hist_titles(c, label, title, sizeof title, sub, sizeof sub);
    const struct profile_linhist *h0 = c->ntop ? &c->top[0].tag->rates[c->rate].hist : NULL;
    snprintf(xlabel, sizeof xlabel, "%s (bars: buckets of %g%s)", label,
             h0 ? (h0->hi - h0->lo) / (double)h0->buckets : 0,
             any_out_of_span(pn, c->ntop) ? "; samples outside the histogram's span not drawn, "
                                            "counted per panel"
                                          : "");

    struct svg s;
    svg_begin(&s, f, c->kind, PLOT_WIDTH, height, title);
    plot_title(&s, title, sub);
    if (nsides > 1) plot_profiles_key(&s, c, PLOT_TOP + 8);
    struct plot_scale xs = {lo, hi, PLOT_LEFT + PLOT_INSET,
                            PLOT_LEFT + PLOT_AREA_WIDTH - PLOT_INSET, 0};
    struct plot_ticks xt;
    plot_ticks_linear_fit(&xt, lo, hi, PLOT_AREA_WIDTH - 2 * PLOT_INSET);
    double y = PLOT_TOP + 10 + key;
    plot_label_y(&s, y, y + body, "% of the tag's kept samples");
    for (size_t i = 0; i < c->ntop; i++) {
        draw_panel(&s, &pn[i], i, &xs, &xt, y, h, i + 1 == c->ntop, xlabel);
        y += h + PANEL_GAP;
    }
    if (c->ntop == 0) {
        const struct svg_text_style st = {.anchor = SVG_MIDDLE, .fill = PLOT_TEXT_GREY};
        svg_text(&s, PLOT_WIDTH / 2, y + h / 2, &st, "the profile has no tags");
    }
    svg_end(&s);
    free(pn);
    return 0;
}
