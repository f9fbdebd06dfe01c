/*
 * plot_axis.c -- scales, ticks, axes, titles, legend lines and number formats for the
 * figures of `shimview plot`.
 *
 * Ticks are chosen the way a person would label a chart: linear axes step by 1, 2, 2.5 or
 * 5 times a power of ten; log axes label powers of ten and, when the range is short
 * enough that there is room, 2 and 5 (or every integer mantissa) as well. Whether there
 * is room is decided from the estimated label widths (svg_text_width), so labels never
 * touch. A log axis spanning less than a factor of ten or so gets linear ticks, since
 * "0.4 0.5 0.6 ... 1.6" says more than a single labelled "1".
 */
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"
#include "shimview/analysis/stats.h"
#include "shimview/analysis/intervals.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TICK_LENGTH 4.0
#define LABEL_GAP   8.0 /* px between neighbouring x tick labels */

double plot_map(const struct plot_scale *s, double v)
{
    double a = s->d0, b = s->d1;
    if (s->log) {
        v = log10(v);
        a = log10(a);
        b = log10(b);
    }
    if (b == a) return (s->r0 + s->r1) / 2;
    return s->r0 + (v - a) / (b - a) * (s->r1 - s->r0);
}

double plot_nice_ceil(double x)
{
    static const double steps[] = {1, 2, 2.5, 5, 10};
    if (!(x > 0) || !isfinite(x)) return 1;
    double p = pow(10, floor(log10(x)));
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * p >= x * (1 - 1e-9)) return steps[i] * p;
    return 10 * p;
}

static int decimals_for(double step)
{
    int d = 0;
    while (d < 9) {
        double scaled = step * pow(10, d);
        if (fabs(scaled - round(scaled)) < 1e-6 * fmax(1, scaled)) break;
        d++;
    }
    return d;
}

void plot_ticks_linear(struct plot_ticks *t, double lo, double hi, int target)
{
    t->n = 0;
    if (!(hi > lo) || target < 1) {
        t->decimals = 0;
        return;
    }
    double step = plot_nice_ceil((hi - lo) / target);
    t->decimals = decimals_for(step);
    double first = ceil(lo / step - 1e-9);
    for (double k = first; t->n < PLOT_MAX_TICKS; k++) {
        double v = k * step;
        if (v > hi + step * 1e-9) break;
        if (fabs(v) < step * 1e-9) v = 0;
        t->labelled[t->n] = 1;
        t->v[t->n++] = v;
    }
}

/* Ticks at m * 10^k for the mantissas in ms within [lo, hi]; labelled when the mantissa
 * is in the labelled set (every `every`-th decade for m = 1). */
static void log_candidates(struct plot_ticks *t, double lo, double hi, const int *ms, size_t nm,
                           int every)
{
    t->n = 0;
    t->decimals = -1;
    for (int e = (int)floor(log10(lo)) - 1; e <= (int)ceil(log10(hi)) + 1; e++) {
        for (size_t i = 0; i < nm && t->n < PLOT_MAX_TICKS; i++) {
            double v = ms[i] * pow(10, e);
            if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9)) continue;
            t->labelled[t->n] = ms[i] != 1 || (e % every == 0);
            t->v[t->n++] = v;
        }
    }
}

/* Do the labelled ticks of t fit on an axis of `pixels` along the scale? */
static int labels_fit(const struct plot_ticks *t, const struct plot_scale *sc, int vertical)
{
    double prev_pos = 0, prev_half = 0;
    int have_prev = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!t->labelled[i]) continue;
        char buf[32];
        plot_fmt_tick(buf, sizeof buf, t->v[i], t);
        double pos = plot_map(sc, t->v[i]);
        double half = vertical ? PLOT_TICK_SIZE / 2 + 2
                               : svg_text_width(buf, PLOT_TICK_SIZE, 0) / 2 + LABEL_GAP / 2;
        if (have_prev && fabs(pos - prev_pos) < half + prev_half) return 0;
        prev_pos = pos;
        prev_half = half;
        have_prev = 1;
    }
    return 1;
}

static size_t count_labelled(const struct plot_ticks *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        k += t->labelled[i] != 0;
    return k;
}

void plot_ticks_linear_fit(struct plot_ticks *t, double lo, double hi, double pixels)
{
    struct plot_scale sc = {lo, hi, 0, pixels, 0};
    for (int target = (int)(pixels / 65); target >= 1; target--) {
        plot_ticks_linear(t, lo, hi, target);
        if (labels_fit(t, &sc, 0)) return;
    }
    /* labels too long for even two ticks (values with many digits): label every k-th */
    for (size_t every = 2; every < PLOT_MAX_TICKS; every++) {
        for (size_t i = 0; i < t->n; i++)
            t->labelled[i] = i % every == 0;
        if (labels_fit(t, &sc, 0)) return;
    }
}

/* Linear ticks for a short log axis: as many as fit, from about one per 80 px down. */
static void short_log_ticks(struct plot_ticks *t, double lo, double hi, double pixels, int vertical)
{
    struct plot_scale sc = {lo, hi, 0, pixels, 1};
    for (int target = (int)(pixels / (vertical ? 40 : 80)); target >= 2; target--) {
        plot_ticks_linear(t, lo, hi, target);
        if (labels_fit(t, &sc, vertical)) return;
    }
    plot_ticks_linear(t, lo, hi, 1);
}

void plot_ticks_log(struct plot_ticks *t, double lo, double hi, double pixels, int vertical)
{
    static const int all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, p125[] = {1, 2, 5};
    struct plot_scale sc = {lo, hi, 0, pixels, 1};
    if (!(lo > 0) || !(hi > lo) || !isfinite(hi)) { /* nothing a log axis can show */
        t->n = 0;
        t->decimals = -1;
        return;
    }
    log_candidates(t, lo, hi, all, 9, 1);
    if (hi / lo < 10 || count_labelled(t) < 3) {
        short_log_ticks(t, lo, hi, pixels, vertical);
        return;
    }
    if (labels_fit(t, &sc, vertical)) return;
    log_candidates(t, lo, hi, p125, 3, 1);
    if (labels_fit(t, &sc, vertical) && count_labelled(t) >= 2) {
        /* the other mantissas as minor ticks */
        struct plot_ticks minor;
        log_candidates(&minor, lo, hi, all, 9, 1);
        for (size_t i = 0; i < minor.n && t->n < PLOT_MAX_TICKS; i++) {
            double m = minor.v[i] / pow(10, floor(log10(minor.v[i]) + 1e-9));
            if (fabs(m - 2) > 1e-6 && fabs(m - 5) > 1e-6 && fabs(m - 1) > 1e-6) {
                t->labelled[t->n] = 0;
                t->v[t->n++] = minor.v[i];
            }
        }
        return;
    }
    for (int every = 1; every < 64; every++) {
        log_candidates(t, lo, hi, all, 9, every);
        for (size_t i = 0; i < t->n; i++) /* only powers of ten labelled */
            if (fabs(t->v[i] / pow(10, floor(log10(t->v[i]) + 1e-9)) - 1) > 1e-6)
                t->labelled[i] = 0;
        if (labels_fit(t, &sc, vertical)) return;
    }
}

void plot_fmt_tick(char *buf, size_t len, double v, const struct plot_ticks *t)
{
    static const char *const si[] = {"", "k", "M", "G", "T", "P", "E"};
    if (t->decimals >= 0) {
        if (t->decimals == 0 && fabs(v) >= 10000) {
            char tmp[32];
            snprintf(buf, len, "%s%s", v < 0 ? "-" : "",
                     fmt_count((uint64_t)llround(fabs(v)), tmp, sizeof tmp));
        } else {
            snprintf(buf, len, "%.*f", t->decimals, v);
        }
        return;
    }
    size_t k = 0;
    while (fabs(v) >= 1000 * (1 - 1e-9) && k + 1 < sizeof si / sizeof si[0]) {
        v /= 1000;
        k++;
    }
    snprintf(buf, len, "%.3g%s", v, si[k]);
}

/* ---- axes ---- */

void plot_frame(struct svg *s, double x, double y, double w, double h)
{
    svg_rect(s, x, y, w, h, NULL, 1, "#999999");
}

void plot_axis_x(struct svg *s, const struct plot_scale *sc, const struct plot_ticks *t, double y,
                 double h, int labels, const char *label)
{
    const struct svg_text_style tick = {
        .size = PLOT_TICK_SIZE, .anchor = SVG_MIDDLE, .fill = PLOT_AXIS, .klass = "tick"};
    const struct svg_text_style lab = {
        .size = PLOT_LABEL_SIZE, .anchor = SVG_MIDDLE, .fill = PLOT_AXIS, .klass = "axis-label"};
    double x0 = fmin(sc->r0, sc->r1), x1 = fmax(sc->r0, sc->r1);
    for (size_t i = 0; i < t->n; i++) {
        double x = plot_map(sc, t->v[i]);
        if (x < x0 - 0.5 || x > x1 + 0.5) continue;
        svg_line(s, x, y, x, y + h, t->labelled[i] ? PLOT_GRID : "#f2f2f2", 1, NULL);
        svg_line(s, x, y + h, x, y + h + (t->labelled[i] ? TICK_LENGTH : TICK_LENGTH / 2),
                 PLOT_AXIS, 1, NULL);
        if (labels && t->labelled[i]) {
            char buf[32];
            plot_fmt_tick(buf, sizeof buf, t->v[i], t);
            svg_text(s, x, y + h + TICK_LENGTH + 13, &tick, buf);
        }
    }
    if (label) {
        char buf[512];
        svg_fit_text(label, PLOT_LABEL_SIZE, 0, PLOT_WIDTH - 40, buf, sizeof buf);
        double mid = (x0 + x1) / 2, half = svg_text_width(buf, PLOT_LABEL_SIZE, 0) / 2;
        if (mid - half < 20) mid = 20 + half; /* a long label stays inside the figure */
        if (mid + half > PLOT_WIDTH - 20) mid = PLOT_WIDTH - 20 - half;
        svg_text(s, mid, y + h + TICK_LENGTH + 36, &lab, buf);
    }
}

void plot_axis_y(struct svg *s, const struct plot_scale *sc, const struct plot_ticks *t, double x,
                 double w, const char *suffix)
{
    const struct svg_text_style tick = {
        .size = PLOT_TICK_SIZE, .anchor = SVG_END, .fill = PLOT_AXIS, .klass = "tick"};
    double y0 = fmin(sc->r0, sc->r1), y1 = fmax(sc->r0, sc->r1);
    for (size_t i = 0; i < t->n; i++) {
        double y = plot_map(sc, t->v[i]);
        if (y < y0 - 0.5 || y > y1 + 0.5) continue;
        if (t->labelled[i]) svg_line(s, x, y, x + w, y, PLOT_GRID, 1, NULL);
        svg_line(s, x - (t->labelled[i] ? TICK_LENGTH : TICK_LENGTH / 2), y, x, y, PLOT_AXIS, 1,
                 NULL);
        if (t->labelled[i]) {
            char buf[32];
            plot_fmt_tick(buf, sizeof buf, t->v[i], t);
            svg_textf(s, x - TICK_LENGTH - 3, y + PLOT_TICK_SIZE * 0.35, &tick, "%s%s", buf,
                      suffix ? suffix : "");
        }
    }
}

void plot_label_y(struct svg *s, double y0, double y1, const char *label)
{
    const struct svg_text_style lab = {.size = PLOT_LABEL_SIZE,
                                       .anchor = SVG_MIDDLE,
                                       .fill = PLOT_AXIS,
                                       .klass = "axis-label",
                                       .vertical = 1};
    char buf[512];
    double room = fmax(y1 - y0, 40);
    svg_fit_text(label, PLOT_LABEL_SIZE, 0, room, buf, sizeof buf);
    svg_text(s, 22, (y0 + y1) / 2, &lab, buf);
}

void plot_title(struct svg *s, const char *title, const char *subtitle)
{
    const struct svg_text_style t = {.size = PLOT_TITLE_SIZE, .bold = 1, .klass = "title"};
    const struct svg_text_style sub = {
        .size = PLOT_SUBTITLE_SIZE, .fill = PLOT_TEXT_GREY, .klass = "subtitle"};
    char buf[512];
    svg_text(s, 20, 30, &t, svg_fit_text(title, t.size, 1, PLOT_WIDTH - 40, buf, sizeof buf));
    svg_text(s, 20, 50, &sub,
             svg_fit_text(subtitle, sub.size, 0, PLOT_WIDTH - 40, buf, sizeof buf));
}

void plot_legend_text(struct svg *s, double x, double y, const char *fill, int bold,
                      const char *fmt, ...)
{
    const struct svg_text_style st = {
        .size = PLOT_LEGEND_SIZE, .bold = bold, .fill = fill, .klass = "legend"};
    char text[512], fitted[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    double room = PLOT_LEGEND_X + PLOT_LEGEND_WIDTH - x;
    svg_text(s, x, y, &st, svg_fit_text(text, st.size, bold, room, fitted, sizeof fitted));
}

const char *plot_color(size_t i)
{
    static const char *const palette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                          "#e69f00", "#56b4e9", "#882255", "#666666"};
    return palette[i % (sizeof palette / sizeof palette[0])];
}

/* ---- numbers ---- */

const char *plot_fmt_interval(const struct interval *iv, double value, char *buf, size_t len)
{
    double half = interval_half(iv);
    if (!isfinite(half) || half <= 0) return plot_fmt_pm(value, half, buf, len);
    char v[28], c[28]; /* the two fit the callers' 64 bytes with a mark */
    interval_format(iv, value, v, c, sizeof v);
    snprintf(buf, len, "%s %s", v, c);
    return buf;
}

const char *plot_fmt_pm(double value, double spread, char *buf, size_t len)
{
    char v[64], c[64];
    stats_format_estimate(value, spread, v, c, sizeof v);
    if (!isfinite(spread) || spread <= 0)
        snprintf(buf, len, "%s", v);
    else
        snprintf(buf, len, "%s %s", v, c);
    return buf;
}

const char *plot_fmt_value(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%g", v);
    } else if (v == 0) {
        snprintf(buf, len, "0");
    } else if (fabs(v) >= 1000 && fabs(v) < 1e18) {
        char tmp[32];
        snprintf(buf, len, "%s%s", v < 0 ? "-" : "",
                 fmt_count((uint64_t)llround(fabs(v)), tmp, sizeof tmp));
    } else if (fabs(v) >= 1e-4) {
        int decimals = 2 - (int)floor(log10(fabs(v)));
        if (decimals < 0) decimals = 0;
        snprintf(buf, len, "%.*f", decimals, v);
    } else {
        snprintf(buf, len, "%.2e", v);
    }
    return buf;
}

const char *plot_fmt_share(double percent, char *buf, size_t len)
{
    if (percent == 0)
        snprintf(buf, len, "0%%");
    else if (percent < 0.1)
        snprintf(buf, len, "<0.1%%");
    else
        snprintf(buf, len, "%.1f%%", percent);
    return buf;
}
