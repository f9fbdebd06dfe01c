/*
 * plot_sampling.c -- how well the run was sampled (`<stem>-sampling.svg`; SHIM paper
 * Fig. 4 and 5).
 *
 * Panel A answers "how often, and how regularly, did shim look?": the distributions of
 * the sample period (start marker to start marker) and of the gap between consecutive
 * kept samples, on log-log axes as in Fig. 5. A wide spread is good news -- periods that
 * vary by themselves do not lock onto a loop in the program -- and the gap shows what
 * DTE's discards cost in resolution. The profile's `max_period` is drawn too: periods
 * longer than it were interrupted and attributed to no tag.
 *
 * Panel B answers "can the rates be trusted?": the CPC of every rated period before DTE
 * (Fig. 4), with the band DTE keeps, 1 ± tolerance, shaded. Mass outside the band is what
 * the observer's own timing disturbed; the legend gives the kept fraction.
 *
 * Both use the profile's geometric histograms, whose buckets are equally wide on a log
 * axis, so the heights compare fairly across the axis. Counts are on a log axis too,
 * with its floor below one so a bucket holding a single sample still shows.
 */
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"
#include "shimview/analysis/stats.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PANEL_HEIGHT  250.0
#define PANEL_HEADING 26.0 /* above a plot area: the panel's heading */
#define COLOR_PERIOD  "#009e73"
#define COLOR_GAP     "#d55e00"
#define COLOR_CPC     "#0072b2"
#define COLOR_BAND    "#009e73"
#define COUNT_FLOOR   0.5

/* The x range of one or two log histograms (plus extra values when finite), padded by
 * 4% of its log width on each side (at least a factor of 1.02), so the data fills the
 * axis and ticks at 1-2-5 label it. */
static int log_range(const struct profile_loghist *const *hs, size_t nh, const double *extra,
                     size_t nextra, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < nh; i++) {
        if (hs[i]->nbuckets == 0) continue;
        a = fmin(a, hs[i]->buckets[0].lo);
        b = fmax(b, hs[i]->buckets[hs[i]->nbuckets - 1].hi);
    }
    for (size_t i = 0; i < nextra; i++) {
        if (!(extra[i] > 0) || !isfinite(extra[i])) continue;
        a = fmin(a, extra[i]);
        b = fmax(b, extra[i]);
    }
    if (!(a > 0) || !isfinite(b) || !(b > a)) return -1;
    double la = log10(a), lb = log10(b), pad = fmax(0.04 * (lb - la), 0.01);
    *lo = fmax(pow(10, la - pad), 1e-300); /* stay within what a double holds */
    *hi = fmin(pow(10, lb + pad), 1e300);
    return *hi > *lo ? 0 : -1;
}

/* A log histogram's buckets as drawn: the profile's, or merged `factor` to one. */
struct bins {
    struct profile_log_bucket *b;
    size_t n;
};

static uint64_t max_count(const struct bins *bs)
{
    uint64_t m = 0;
    for (size_t i = 0; i < bs->n; i++)
        if (bs->b[i].count > m) m = bs->b[i].count;
    return m;
}

/* Merge each run of `factor` buckets of a 32-per-doubling histogram into one (the edges
 * are 2^e * (1 + k/32), so bucket k joins group k / factor of its doubling). 0, or -1 if
 * memory ran out. */
static int merge_bins(const struct profile_loghist *h, int factor, struct bins *out)
{
    out->n = 0;
    out->b = malloc((h->nbuckets ? h->nbuckets : 1) * sizeof *out->b);
    if (!out->b) return -1;
    for (size_t i = 0; i < h->nbuckets; i++) {
        struct profile_log_bucket k = h->buckets[i];
        if (factor > 1 && k.lo > 0) {
            int e;
            frexp(k.lo, &e);
            double base = ldexp(1, e - 1);
            long g = lround((k.lo / base - 1) * 32) / factor;
            k.lo = base * (1 + (double)(g * factor) / 32);
            k.hi = base * (1 + (double)((g + 1) * factor) / 32);
        }
        struct profile_log_bucket *last = out->n ? &out->b[out->n - 1] : NULL;
        if (last && last->lo == k.lo && last->hi == k.hi)
            last->count += k.count;
        else
            out->b[out->n++] = k;
    }
    return 0;
}

/* How many period buckets to merge so that a bucket near the 10th percentile is at least
 * two TSC steps wide: on machines whose TSC advances in steps of tens of cycles, finer
 * buckets alternate between full and empty, and the curve turns into a comb. */
static int period_merge_factor(const struct profile *p)
{
    const struct profile_loghist *h = &p->period;
    double step = (double)p->machine.tsc_step;
    if (!h->has_summary || !(h->p10 > 0) || step <= 1) return 1;
    int e, f = 1;
    frexp(h->p10, &e);
    while (f < 32 && ldexp(1, e - 1) / (32.0 / f) < 2 * step)
        f *= 2;
    return f;
}

/* A step outline of a log histogram, dropping to the floor across empty buckets, with a
 * light fill beneath when filled is set. */
static void draw_steps(struct svg *s, const struct bins *bs, const struct plot_scale *xs,
                       const struct plot_scale *ys, const char *color, int filled)
{
    if (bs->n == 0) return;
    double base = plot_map(ys, COUNT_FLOOR);
    svg_path_begin(s);
    for (size_t i = 0; i < bs->n; i++) {
        const struct profile_log_bucket *k = &bs->b[i];
        double x0 = plot_map(xs, k->lo), x1 = plot_map(xs, k->hi);
        double y = plot_map(ys, (double)k->count);
        int joined = i > 0 && fabs(bs->b[i - 1].hi - k->lo) <= 1e-9 * k->lo;
        if (!joined) {
            if (i > 0) svg_path_line(s, plot_map(xs, bs->b[i - 1].hi), base);
            svg_path_move(s, x0, base);
        }
        svg_path_line(s, x0, y);
        svg_path_line(s, x1, y);
    }
    svg_path_line(s, plot_map(xs, bs->b[bs->n - 1].hi), base);
    svg_path_end(s, color, 1.4, filled ? color : NULL, 0.2, NULL);
}

static void count_axis(struct svg *s, struct plot_scale *ys, uint64_t max, double y, double h,
                       const char *label)
{
    double top = pow(10, ceil(log10(fmax((double)max, 1) * 1.5)));
    *ys = (struct plot_scale){COUNT_FLOOR, top, y + h, y, 1};
    struct plot_ticks t;
    plot_ticks_log(&t, 1, top, h, 1);
    plot_axis_y(s, ys, &t, PLOT_LEFT, PLOT_AREA_WIDTH, NULL);
    plot_label_y(s, y, y + h, label);
}

static void panel_heading(struct svg *s, double y, const char *text)
{
    const struct svg_text_style st = {.size = PLOT_LABEL_SIZE, .bold = 1, .klass = "heading"};
    svg_text(s, PLOT_LEFT - 64, y - 10, &st, text);
}

static void no_data(struct svg *s, double y, double h, const char *text)
{
    const struct svg_text_style st = {.anchor = SVG_MIDDLE, .fill = PLOT_TEXT_GREY};
    svg_text(s, PLOT_LEFT + PLOT_AREA_WIDTH / 2, y + h / 2, &st, text);
}

/* A quantile of h, to the precision its bucket has (exactly when every value in its
 * bucket was the same: a CPC of 1, a period the TSC's step made discrete). */
static const char *fmt_summary(const struct profile_loghist *h, double v, int exact, char *buf,
                               size_t len)
{
    return profile_loghist_quantile_text(h, v, exact, 1, buf, len);
}

/* Legend lines for one log histogram (cpc: unitless, more digits); returns the next
 * baseline. */
static double hist_legend(struct svg *s, double y, const char *color, int filled, const char *name,
                          const struct profile_loghist *h, int cpc)
{
    char n[32], m[32], p10[32], p90[32];
    svg_rect(s, PLOT_LEGEND_X, y - 10, 14, 12, filled ? color : NULL, 0.35, color);
    plot_legend_text(s, PLOT_LEGEND_X + 22, y, color, 1, "%s", name);
    y += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X + 22, y, NULL, 0, "n = %s", fmt_count(h->count, n, sizeof n));
    y += PLOT_LEGEND_LINE;
    if (h->has_summary && h->count > 0) {
        svg_line(s, PLOT_LEGEND_X, y - 4, PLOT_LEGEND_X + 16, y - 4, color, 1.5, "5 3");
        plot_legend_text(s, PLOT_LEGEND_X + 22, y, NULL, 0, "median %s%s",
                         fmt_summary(h, h->median, h->median_exact, m, sizeof m),
                         cpc ? "" : " cycles");
        y += PLOT_LEGEND_LINE;
        plot_legend_text(s, PLOT_LEGEND_X + 22, y, PLOT_TEXT_GREY, 0, "p10 %s, p90 %s",
                         fmt_summary(h, h->p10, h->p10_exact, p10, sizeof p10),
                         fmt_summary(h, h->p90, h->p90_exact, p90, sizeof p90));
        y += PLOT_LEGEND_LINE;
    }
    if (h->underflow || h->overflow) {
        plot_legend_text(s, PLOT_LEGEND_X + 22, y, PLOT_TEXT_GREY, 0,
                         "not drawn: %s below, %s above", fmt_count(h->underflow, n, sizeof n),
                         fmt_count(h->overflow, m, sizeof m));
        y += PLOT_LEGEND_LINE;
    }
    return y + 6;
}

static void median_line(struct svg *s, const struct profile_loghist *h, const struct plot_scale *xs,
                        double y, double height, const char *color)
{
    if (!h->has_summary || h->count == 0 || !(h->median > 0)) return;
    double x = plot_map(xs, h->median);
    if (x < PLOT_LEFT || x > PLOT_LEFT + PLOT_AREA_WIDTH) return;
    svg_line(s, x, y, x, y + height, color, 1.5, "5 3");
}

static void periods_legend(struct svg *s, const struct profile *p, int factor, int show_max,
                           double y)
{
    char a[32];
    double ly = y + 12;
    ly = hist_legend(s, ly, COLOR_PERIOD, 1, "sample period", &p->period, 0);
    ly = hist_legend(s, ly, COLOR_GAP, 0, "gap between kept samples", &p->gap, 0);
    if (show_max)
        svg_line(s, PLOT_LEGEND_X, ly - 4, PLOT_LEGEND_X + 16, ly - 4, "#777777", 1.2, "2 3");
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, PLOT_TEXT_GREY, 0, "max_period %s cycles",
                     fmt_count(p->samples.max_period, a, sizeof a));
    ly += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, PLOT_TEXT_GREY, 0,
                     "interrupted: %s, not attributed",
                     fmt_count(p->samples.interrupted, a, sizeof a));
    ly += PLOT_LEGEND_LINE + 6;
    plot_legend_text(s, PLOT_LEGEND_X, ly, PLOT_TEXT_GREY, 0, "buckets: 1/%d of a doubling%s",
                     32 / factor, factor > 1 ? " (merged" : "");
    if (factor > 1)
        plot_legend_text(s, PLOT_LEGEND_X, ly + PLOT_LEGEND_LINE, PLOT_TEXT_GREY, 0,
                         "%d to 1: the TSC steps by %" PRIu64 " cycles)", factor,
                         p->machine.tsc_step);
}

static int panel_periods(struct svg *s, const struct plot_ctx *c, double y)
{
    const struct profile *p = c->p;
    const struct profile_loghist *hs[2] = {&p->period, &p->gap};
    double mp = (double)p->samples.max_period, lo, hi;
    char a[32], label[160];
    panel_heading(s, y, "A. Sample period and gap between kept samples");
    svg_group_begin(s, "panel", "panel-period", "sample period and gap");
    if (log_range(hs, 2, NULL, 0, &lo, &hi) != 0) {
        plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, PANEL_HEIGHT);
        no_data(s, y, PANEL_HEIGHT, "no sample periods recorded");
        svg_group_end(s);
        return 0;
    }
    int factor = period_merge_factor(p);
    struct bins period, gap = {0};
    if (merge_bins(&p->period, factor, &period) || merge_bins(&p->gap, factor, &gap)) {
        free(period.b);
        free(gap.b);
        return -1;
    }
    struct plot_scale xs = {lo, hi, PLOT_LEFT, PLOT_LEFT + PLOT_AREA_WIDTH, 1}, ys;
    struct plot_ticks xt;
    plot_ticks_log(&xt, lo, hi, PLOT_AREA_WIDTH, 0);
    uint64_t max = max_count(&period);
    if (max_count(&gap) > max) max = max_count(&gap);
    count_axis(s, &ys, max, y, PANEL_HEIGHT, "periods per bucket (log)");
    snprintf(label, sizeof label, "TSC cycles (log scale; 1,000 cycles = %s ns)",
             plot_fmt_value(1e12 / p->machine.tsc_hz, a, sizeof a));
    plot_axis_x(s, &xs, &xt, y, PANEL_HEIGHT, 1, label);
    draw_steps(s, &period, &xs, &ys, COLOR_PERIOD, 1); /* the gap is an outline over it */
    draw_steps(s, &gap, &xs, &ys, COLOR_GAP, 0);
    median_line(s, &p->period, &xs, y, PANEL_HEIGHT, COLOR_PERIOD);
    median_line(s, &p->gap, &xs, y, PANEL_HEIGHT, COLOR_GAP);
    int show_max = mp >= lo && mp <= hi;
    if (show_max) {
        double x = plot_map(&xs, mp);
        svg_line(s, x, y, x, y + PANEL_HEIGHT, "#777777", 1.2, "2 3");
    }
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, PANEL_HEIGHT);
    periods_legend(s, p, factor, show_max, y);
    svg_group_end(s);
    free(period.b);
    free(gap.b);
    return 0;
}

static void dte_band(struct svg *s, const struct plot_ctx *c, const struct plot_scale *xs, double y)
{
    const struct profile_config *cf = &c->p->config;
    double b0 = fmax(1 - cf->dte_tolerance, xs->d0), b1 = fmin(1 + cf->dte_tolerance, xs->d1);
    if (!(b1 > b0)) return;
    double x0 = plot_map(xs, b0), x1 = plot_map(xs, b1);
    if (x1 - x0 < 2) { /* keep a very tight band visible */
        double mid = (x0 + x1) / 2;
        x0 = mid - 1;
        x1 = mid + 1;
    }
    svg_rect(s, x0, y, x1 - x0, PANEL_HEIGHT, cf->dte_off ? NULL : COLOR_BAND, 0.22,
             cf->dte_off ? "#999999" : NULL);
    svg_line(s, x0, y, x0, y + PANEL_HEIGHT, COLOR_BAND, 1, NULL);
    svg_line(s, x1, y, x1, y + PANEL_HEIGHT, COLOR_BAND, 1, NULL);
}

static void cpc_legend(struct svg *s, const struct plot_ctx *c, double y)
{
    const struct profile *p = c->p;
    const struct profile_samples *sm = &p->samples;
    char a[32], b[32];
    double ly = hist_legend(s, y + 12, COLOR_CPC, 1, "CPC of rated periods", &p->cpc, 1);
    svg_rect(s, PLOT_LEGEND_X, ly - 10, 14, 12, COLOR_BAND, 0.3, COLOR_BAND);
    if (p->config.dte_off)
        plot_legend_text(s, PLOT_LEGEND_X + 22, ly, NULL, 1, "DTE off: all kept");
    else
        plot_legend_text(s, PLOT_LEGEND_X + 22, ly, COLOR_BAND, 1, "DTE keeps 1 \xc2\xb1 %g",
                         p->config.dte_tolerance);
    ly += PLOT_LEGEND_LINE;
    /* on lines of their own: "kept 2,315,687 of 2,316,953 (99.95%)" does not fit the
     * legend's column, and was cut before the share it exists to give */
    double kept = stats_fraction(sm->kept, sm->rated);
    char pct[16];
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, NULL, 0, "kept %s (%s)",
                     fmt_count(sm->kept, a, sizeof a),
                     stats_format_share(isnan(kept) ? 0.0 : kept, pct, sizeof pct));
    ly += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, NULL, 0, "of %s rated",
                     fmt_count(sm->rated, b, sizeof b));
    ly += PLOT_LEGEND_LINE;
    plot_legend_text(s, PLOT_LEGEND_X + 22, ly, NULL, 0, "discarded %s",
                     fmt_count(sm->discarded, a, sizeof a));
    ly += PLOT_LEGEND_LINE;
    if (!p->config.dte_off && p->config.dte_resolution > 0) {
        plot_legend_text(s, PLOT_LEGEND_X + 22, ly, PLOT_TEXT_GREY, 0,
                         "also kept: skew \xe2\x89\xa4 %s cycles",
                         fmt_count(p->config.dte_resolution, a, sizeof a));
        ly += PLOT_LEGEND_LINE;
    }
    plot_legend_text(s, PLOT_LEGEND_X, ly + 6, PLOT_TEXT_GREY, 0, "CPC = cycles between end");
    plot_legend_text(s, PLOT_LEGEND_X, ly + 6 + PLOT_LEGEND_LINE, PLOT_TEXT_GREY, 0,
                     "markers / between start markers");
}

static int panel_cpc(struct svg *s, const struct plot_ctx *c, double y)
{
    const struct profile *p = c->p;
    const struct profile_loghist *hs[1] = {&p->cpc};
    double band[2] = {1 - p->config.dte_tolerance, 1 + p->config.dte_tolerance}, lo, hi;
    panel_heading(s, y, "B. Cycles per cycle (CPC) before DTE, and the band DTE keeps");
    svg_group_begin(s, "panel", "panel-cpc", "CPC and DTE");
    if (p->cpc.nbuckets == 0 || log_range(hs, 1, band, 2, &lo, &hi) != 0) {
        plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, PANEL_HEIGHT);
        no_data(s, y, PANEL_HEIGHT, "no rated periods: CPC needs two samples of one thread");
        svg_group_end(s);
        return 0;
    }
    struct bins cpc;
    if (merge_bins(&p->cpc, 1, &cpc)) return -1;
    struct plot_scale xs = {lo, hi, PLOT_LEFT, PLOT_LEFT + PLOT_AREA_WIDTH, 1}, ys;
    struct plot_ticks xt;
    plot_ticks_log(&xt, lo, hi, PLOT_AREA_WIDTH, 0);
    count_axis(s, &ys, max_count(&cpc), y, PANEL_HEIGHT, "rated periods per bucket (log)");
    plot_axis_x(s, &xs, &xt, y, PANEL_HEIGHT, 1, "CPC (log scale; 1 = undisturbed)");
    dte_band(s, c, &xs, y);
    draw_steps(s, &cpc, &xs, &ys, COLOR_CPC, 1);
    median_line(s, &p->cpc, &xs, y, PANEL_HEIGHT, COLOR_CPC);
    plot_frame(s, PLOT_LEFT, y, PLOT_AREA_WIDTH, PANEL_HEIGHT);
    cpc_legend(s, c, y);
    svg_group_end(s);
    free(cpc.b);
    return 0;
}

int plot_sampling_write(FILE *f, const struct plot_ctx *c)
{
    const struct profile *p = c->p;
    char title[] = "Sampling quality", sub[512], a[32], b[32];
    snprintf(sub, sizeof sub,
             "%s \xc2\xb7 %s \xc2\xb7 %s sample periods in %.3g s \xc2\xb7 %s samples/s \xc2\xb7 "
             "TSC %.3g GHz",
             c->source, p->program.name, fmt_count(p->samples.total, a, sizeof a),
             (double)p->run.duration_ns / 1e9,
             fmt_count((uint64_t)fmin(fmax(p->cost.samples_per_second, 0), 1e18), b, sizeof b),
             p->machine.tsc_hz / 1e9);
    double ya = PLOT_TOP + PANEL_HEADING;
    double yb = ya + PANEL_HEIGHT + PLOT_X_AXIS_SPACE + PANEL_HEADING + 8;
    struct svg s;
    svg_begin(&s, f, c->kind, PLOT_WIDTH, yb + PANEL_HEIGHT + PLOT_X_AXIS_SPACE + 12, title);
    plot_title(&s, title, sub);
    int rc = panel_periods(&s, c, ya);
    if (rc == 0) rc = panel_cpc(&s, c, yb);
    svg_end(&s);
    return rc;
}
