/*
 * plot_by.c -- one rate against the buckets of another, per tag (`<stem>-by.svg`; SHIM
 * paper Fig. 14b: memory requests per cycle in each IPC bucket).
 *
 * The upper plot has a line per top tag through Y in each bucket of X that holds its kept
 * periods, a marker at each bucket's centre; the line breaks where a bucket is empty rather
 * than draw a value nobody measured. The lower plot shares the x axis and shows how many
 * kept periods stand behind each marker, one bar per tag and bucket on a log scale: a Y
 * averaged over two periods looks as sure as one over a hundred thousand unless the figure
 * says otherwise, and this is how it says so. Markers of buckets with fewer than BY_SPARSE
 * periods are drawn hollow for the same reason.
 *
 * X's span is fixed before the run (SHIM_BY), and the data may fill a few of its buckets:
 * the x axis is trimmed to the buckets that hold periods of the drawn tags, as the
 * histogram figure trims its axis. The two slots outside the span have no place on a
 * linear axis; when a drawn tag has periods there, each gets a zone of its own at its end
 * of the axis, fenced off by a dashed line and labelled "< lo" or "≥ hi".
 */
#include "shimview/render/by.h"
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE_HEIGHT  280.0 /* the plot of Y, at least */
#define COUNT_HEIGHT 110.0 /* the bars of kept periods under it */
#define PANEL_GAP    14.0
#define MARKER       4.5
#define ZONE_MIN     56.0 /* px: a zone for a slot outside the span, at least */
#define BAR_SHARE    0.8  /* of a bucket's width: the bars of every tag together */
#define TICK_Y       17.0 /* below a plot area: the baseline of tick labels (plot_axis.c) */

struct layout {
    const struct plot_ctx *c;
    const struct profile_by *b;
    size_t nslots;
    size_t first, last; /* the buckets (slots 1..buckets) with periods of a drawn tag; 0: none */
    int below, above;   /* a drawn tag has periods in slot 0, in the last slot */
    double zone_below, zone_above; /* px: the zones of those slots, 0 when not drawn */
    char label_below[32], label_above[32];
    struct plot_scale xs; /* X over the plot area between the zones */
    double ytop;          /* Y's axis */
    double ctop;          /* the periods' axis, a power of ten */
};

/* Slot k of top tag i; NULL when the entry has no `by` (a tag the other profile lacks). */
static const struct profile_by_slot *slot_of(const struct layout *l, size_t i, size_t k)
{
    const struct profile_by_slot *by = l->c->top[i].tag->by;
    return by ? &by[k] : NULL;
}

static uint64_t slot_count(const struct layout *l, size_t i, size_t k)
{
    const struct profile_by_slot *s = slot_of(l, i, k);
    return s ? s->count : 0;
}

static double slot_rate(const struct layout *l, size_t i, size_t k)
{
    const struct profile_by_slot *s = slot_of(l, i, k);
    return s ? by_slot_rate(s) : NAN;
}

/* What the drawn tags hold: which slots, the largest Y and the most periods. */
static void measure(struct layout *l)
{
    double ymax = 0;
    uint64_t cmax = 0;
    for (size_t k = 0; k < l->nslots; k++)
        for (size_t i = 0; i < l->c->ntop; i++) {
            uint64_t n = slot_count(l, i, k);
            double y = slot_rate(l, i, k);
            if (n == 0) continue;
            if (n > cmax) cmax = n;
            if (!isnan(y) && y > ymax) ymax = y;
            if (k == 0) l->below = 1;
            if (k + 1 == l->nslots) l->above = 1;
            if (k > 0 && k + 1 < l->nslots) {
                if (!l->first) l->first = k;
                l->last = k;
            }
        }
    double step = plot_nice_ceil(ymax / 5);
    l->ytop = ymax > 0 ? fmax(step, ceil(ymax / step - 1e-9) * step) : 1;
    l->ctop = pow(10, fmax(1, ceil(log10((double)(cmax ? cmax : 1)) - 1e-9)));
}

/* The zones for the slots outside the span, then X's scale between them: the buckets with
 * periods, widened to round ticks within the span. */
static void place(struct layout *l)
{
    const struct profile_by *b = l->b;
    by_slot_label(b, 0, l->label_below, sizeof l->label_below);
    by_slot_label(b, l->nslots - 1, l->label_above, sizeof l->label_above);
    if (l->below)
        l->zone_below = fmax(ZONE_MIN, svg_text_width(l->label_below, PLOT_TICK_SIZE, 0) + 32);
    if (l->above)
        l->zone_above = fmax(ZONE_MIN, svg_text_width(l->label_above, PLOT_TICK_SIZE, 0) + 32);
    double lo = b->lo, hi = b->hi;
    if (l->first) {
        double a, z, unused;
        by_slot_edges(b, l->first, &a, &unused);
        by_slot_edges(b, l->last, &unused, &z);
        double step = plot_nice_ceil((z - a) / 6);
        lo = fmax(b->lo, floor(a / step + 1e-9) * step);
        hi = fmin(b->hi, ceil(z / step - 1e-9) * step);
        if (!(hi > lo)) lo = a, hi = z;
    }
    l->xs = (struct plot_scale){lo, hi, PLOT_LEFT + l->zone_below + PLOT_INSET,
                                PLOT_LEFT + PLOT_AREA_WIDTH - l->zone_above - PLOT_INSET, 0};
}

/* Slot k's pixel range on the x axis, and its centre. */
static void slot_span(const struct layout *l, size_t k, double *x0, double *x1)
{
    if (k == 0) {
        *x0 = PLOT_LEFT;
        *x1 = PLOT_LEFT + l->zone_below;
    } else if (k + 1 == l->nslots) {
        *x0 = PLOT_LEFT + PLOT_AREA_WIDTH - l->zone_above;
        *x1 = PLOT_LEFT + PLOT_AREA_WIDTH;
    } else {
        double lo, hi;
        by_slot_edges(l->b, k, &lo, &hi);
        *x0 = plot_map(&l->xs, lo);
        *x1 = plot_map(&l->xs, hi);
    }
}

static double slot_x(const struct layout *l, size_t k)
{
    double x0, x1;
    slot_span(l, k, &x0, &x1);
    return (x0 + x1) / 2;
}

/* Is slot k drawn: inside the trimmed axis, or in a zone that is drawn? */
static int slot_shown(const struct layout *l, size_t k)
{
    if (k == 0) return l->below;
    if (k + 1 == l->nslots) return l->above;
    return l->first && k >= l->first && k <= l->last;
}

/* ---- the axes ---- */

/* X's tick labels that would come within 8 px of a zone's label are left unlabelled. */
static void clear_zone_ticks(const struct layout *l, struct plot_ticks *t)
{
    double left = -INFINITY, right = INFINITY;
    if (l->below) left = slot_x(l, 0) + svg_text_width(l->label_below, PLOT_TICK_SIZE, 0) / 2 + 8;
    if (l->above)
        right =
            slot_x(l, l->nslots - 1) - svg_text_width(l->label_above, PLOT_TICK_SIZE, 0) / 2 - 8;
    for (size_t i = 0; i < t->n; i++) {
        char buf[32];
        plot_fmt_tick(buf, sizeof buf, t->v[i], t);
        double x = plot_map(&l->xs, t->v[i]), half = svg_text_width(buf, PLOT_TICK_SIZE, 0) / 2;
        if (x - half < left || x + half > right) t->labelled[i] = 0;
    }
}

/* A zone's dashed fence in the plot area [y, y + h]; with labels, its label under it. */
static void draw_zones(struct svg *s, const struct layout *l, double y, double h, int labels)
{
    const struct svg_text_style tick = {
        .size = PLOT_TICK_SIZE, .anchor = SVG_MIDDLE, .fill = PLOT_AXIS, .klass = "tick"};
    const double fence[2] = {PLOT_LEFT + l->zone_below,
                             PLOT_LEFT + PLOT_AREA_WIDTH - l->zone_above};
    const int shown[2] = {l->below, l->above};
    const char *text[2] = {l->label_below, l->label_above};
    for (size_t j = 0; j < 2; j++) {
        if (!shown[j]) continue;
        svg_line(s, fence[j], y, fence[j], y + h, "#999999", 1, "3 3");
        if (labels) svg_text(s, slot_x(l, j ? l->nslots - 1 : 0), y + h + TICK_Y, &tick, text[j]);
    }
}

/* ---- the plots ---- */

static void point(struct svg *s, const struct layout *l, size_t i, size_t k,
                  const struct plot_scale *ys)
{
    const struct profile_by_slot *sl = slot_of(l, i, k);
    const char *color = plot_color(i);
    char where[64], y[32], n[32], title[512];
    snprintf(title, sizeof title, "%s \xc2\xb7 %s %s: %s %s (%s kept period%s)", l->c->top[i].name,
             l->c->p->rates[l->b->by].name, by_slot_label(l->b, k, where, sizeof where),
             l->c->p->rates[l->b->rate].name, plot_fmt_value(by_slot_rate(sl), y, sizeof y),
             fmt_count(sl->count, n, sizeof n), sl->count == 1 ? "" : "s");
    svg_group_begin(s, "point", NULL, title);
    double cx = slot_x(l, k), cy = plot_map(ys, by_slot_rate(sl));
    if (sl->count >= BY_SPARSE)
        svg_circle(s, cx, cy, MARKER, color, "#ffffff");
    else
        svg_circle(s, cx, cy, MARKER, "#ffffff", color);
    svg_group_end(s);
}

/* Tag i's line through adjacent buckets with a value, then its markers on top. */
static void series(struct svg *s, const struct layout *l, size_t i, const struct plot_scale *ys)
{
    char id[32];
    snprintf(id, sizeof id, "by-series-%zu", i + 1);
    svg_group_begin(s, "series", id, l->c->top[i].name);
    int open = 0, any = 0;
    for (size_t k = 1; k + 1 < l->nslots; k++) {
        double y = slot_rate(l, i, k);
        if (isnan(y) || !slot_shown(l, k)) {
            open = 0;
            continue;
        }
        if (!any) svg_path_begin(s);
        any = 1;
        if (open)
            svg_path_line(s, slot_x(l, k), plot_map(ys, y));
        else
            svg_path_move(s, slot_x(l, k), plot_map(ys, y));
        open = 1;
    }
    if (any) svg_path_end(s, plot_color(i), 1.6, NULL, 1, NULL);
    for (size_t k = 0; k < l->nslots; k++)
        if (slot_shown(l, k) && !isnan(slot_rate(l, i, k))) point(s, l, i, k, ys);
    svg_group_end(s);
}

static void rate_plot(struct svg *s, const struct layout *l, double y, double h)
{
    struct plot_scale ys = {0, l->ytop, y + h, y, 0};
    struct plot_ticks xt, yt;
    char label[256];
    plot_ticks_linear(&yt, 0, l->ytop, 5);
    plot_ticks_linear_fit(&xt, l->xs.d0, l->xs.d1, l->xs.r1 - l->xs.r0);
    svg_group_begin(s, "panel", "by-rate",
                    plot_rate_label_of(l->c->p, l->b->rate, label, sizeof label));
    plot_axis_y(s, &ys, &yt, PLOT_LEFT, PLOT_AREA_WIDTH, NULL);
    plot_axis_x(s, &l->xs, &xt, y, h, 0, NULL);
    draw_zones(s, l, y, h, 0);
    plot_label_y(s, y, y + h, label);
    for (size_t i = l->c->ntop; i-- > 0;) /* the first tag on top */
        series(s, l, i, &ys);
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, h);
    svg_group_end(s);
}

/* Bars of kept periods per slot, the tags side by side within it, on a log scale. */
static void count_plot(struct svg *s, const struct layout *l, double y, double h)
{
    struct plot_scale ys = {1, l->ctop, y + h, y, 1};
    struct plot_ticks xt, yt;
    char xlabel[512], label[256];
    plot_ticks_log(&yt, 1, l->ctop, h, 1);
    plot_ticks_linear_fit(&xt, l->xs.d0, l->xs.d1, l->xs.r1 - l->xs.r0);
    clear_zone_ticks(l, &xt);
    snprintf(xlabel, sizeof xlabel, "%s (buckets of %g over [%g, %g))",
             plot_rate_label_of(l->c->p, l->b->by, label, sizeof label),
             (l->b->hi - l->b->lo) / (double)l->b->buckets, l->b->lo, l->b->hi);
    svg_group_begin(s, "panel", "by-periods", "kept periods per bucket");
    plot_axis_y(s, &ys, &yt, PLOT_LEFT, PLOT_AREA_WIDTH, NULL);
    plot_axis_x(s, &l->xs, &xt, y, h, 1, xlabel);
    draw_zones(s, l, y, h, 1);
    plot_label_y(s, y, y + h, "kept periods");
    size_t n = l->c->ntop;
    for (size_t k = 0; k < l->nslots; k++) {
        if (!slot_shown(l, k)) continue;
        double x0, x1;
        slot_span(l, k, &x0, &x1);
        double group = (x1 - x0) * BAR_SHARE, w = fmax(1, group / (double)n);
        double start = (x0 + x1) / 2 - w * (double)n / 2;
        for (size_t i = 0; i < n; i++) {
            uint64_t count = slot_count(l, i, k);
            if (count == 0) continue;
            double top = fmin(plot_map(&ys, (double)count), y + h - 2);
            svg_rect(s, start + w * (double)i, top, w, y + h - top, plot_color(i), 0.8, NULL);
        }
    }
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, h);
    svg_group_end(s);
}

/* ---- the legend ---- */

static void marker_key(struct svg *s, double ly, int hollow, const char *text)
{
    svg_circle(s, PLOT_LEGEND_X + 8, ly - 4, MARKER, hollow ? "#ffffff" : "#444444",
               hollow ? "#444444" : "#ffffff");
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, NULL, 0, "%s", text);
}

/* Per tag its colour, name, share and overall Y; then what the marks mean. */
static void legend(struct svg *s, const struct layout *l, double y)
{
    const struct profile *p = l->c->p;
    double x = PLOT_LEGEND_X, tx = x + 22, ly = y + 12;
    char a[32], b[32], c[32];
    svg_group_begin(s, "legend", "by-legend", NULL);
    for (size_t i = 0; i < l->c->ntop; i++) {
        const struct profile_tag *t = l->c->top[i].tag;
        const struct profile_rate_stats *rs = &t->rates[l->b->rate];
        uint64_t n = 0;
        for (size_t k = 0; k < l->nslots; k++)
            n += slot_count(l, i, k);
        svg_line(s, x, ly - 4, x + 16, ly - 4, plot_color(i), 1.6, NULL);
        svg_circle(s, x + 8, ly - 4, 3.5, plot_color(i), NULL);
        plot_legend_text(s, tx, ly, plot_color(i), 1, "%s", l->c->top[i].name);
        ly += PLOT_LEGEND_LINE;
        if (rs->n > 0 && rs->has_stats)
            plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "%s of samples, %s overall",
                             plot_fmt_share(100 * t->share, a, sizeof a),
                             plot_fmt_value(rs->rate, b, sizeof b));
        else
            plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "%s of samples",
                             plot_fmt_share(100 * t->share, a, sizeof a));
        ly += PLOT_LEGEND_LINE;
        plot_legend_text(s, tx, ly, PLOT_TEXT_GREY, 0, "n = %s kept periods",
                         fmt_count(n, c, sizeof c));
        ly += PLOT_LEGEND_LINE + 8;
    }
    char key[64];
    snprintf(key, sizeof key, "\xe2\x89\xa5 %d kept periods in the bucket", BY_SPARSE);
    marker_key(s, ly, 0, key);
    ly += PLOT_LEGEND_LINE;
    snprintf(key, sizeof key, "< %d: too few to trust", BY_SPARSE);
    marker_key(s, ly, 1, key);
    ly += PLOT_LEGEND_LINE;
    svg_rect(s, x + 2, ly - 10, 12, 10, "#444444", 0.8, NULL);
    plot_legend_text(s, tx, ly, NULL, 0, "bars: kept periods (log scale)");
    if (l->below || l->above) {
        ly += PLOT_LEGEND_LINE;
        plot_legend_text(s, x, ly, PLOT_TEXT_GREY, 0, "at the axis ends, past the dashes:");
        ly += PLOT_LEGEND_LINE;
        plot_legend_text(s, x, ly, PLOT_TEXT_GREY, 0, "%s outside [%g, %g)",
                         p->rates[l->b->by].name, l->b->lo, l->b->hi);
    }
    svg_group_end(s);
}

/* The legend's height, for the plot to grow with it. */
static double legend_height(const struct layout *l)
{
    return 12 + (double)l->c->ntop * (3 * PLOT_LEGEND_LINE + 8) + 5 * PLOT_LEGEND_LINE;
}

/* ---- the figure ---- */

int plot_by_write(FILE *f, const struct plot_ctx *c)
{
    const struct profile *p = c->p;
    struct layout l = {.c = c, .b = &p->by, .nslots = by_nslots(&p->by)};
    char y[256], x[256], title[600], sub[640], a[32];
    measure(&l);
    place(&l);
    snprintf(title, sizeof title, "%s by %s", p->rates[p->by.rate].name, p->rates[p->by.by].name);
    snprintf(sub, sizeof sub,
             "%s \xc2\xb7 %s \xc2\xb7 %s in each bucket of %s \xc2\xb7 top %zu of %zu tags by "
             "samples \xc2\xb7 %s kept samples in all",
             c->source, p->program.name, plot_rate_label_of(p, p->by.rate, y, sizeof y),
             plot_rate_label_of(p, p->by.by, x, sizeof x), c->ntop, p->ntags,
             fmt_count(p->samples.kept, a, sizeof a));
    double h = fmax(RATE_HEIGHT, legend_height(&l) - PANEL_GAP - COUNT_HEIGHT);
    double top = PLOT_TOP + 10, low = top + h + PANEL_GAP;
    struct svg s;
    svg_begin(&s, f, c->kind, PLOT_WIDTH, low + COUNT_HEIGHT + PLOT_X_AXIS_SPACE + 12, title);
    plot_title(&s, title, sub);
    if (c->ntop == 0 || (!l.first && !l.below && !l.above)) {
        const struct svg_text_style st = {.anchor = SVG_MIDDLE, .fill = PLOT_TEXT_GREY};
        svg_text(&s, PLOT_LEFT + PLOT_AREA_WIDTH / 2, top + h / 2, &st,
                 c->ntop ? "no kept periods in any bucket" : "the profile has no tags");
    }
    rate_plot(&s, &l, top, h);
    count_plot(&s, &l, low, COUNT_HEIGHT);
    legend(&s, &l, top);
    svg_end(&s);
    return 0;
}
