/*
 * timeline.c -- `shimview timeline`: a rate and the tags over time, from the trace a
 * profile names (the SHIM paper's Fig. 19).
 *
 * The figure has one time axis, in ms since the first record, and three things over it:
 * the rate per sample period (panel A); for each tag slot a band coloured by the value
 * that was current; and a row marking the periods that were dropped (gaps in seq).
 *
 * A trace holds millions of periods and the figure a thousand pixel columns, so records
 * are binned while they are read and never kept: per column, the count, min and max of
 * the rate and its sum weighted by each period's TSC cycles, and per slot the TSC cycles
 * each value covered. What is drawn comes from those bins: the mean per column (weighted
 * by cycles, as the profile's sum_a / sum_b weighs its periods) as a line with the min-max band
 * under it, or, when there are fewer rated periods than columns (a short window), one point per
 * column; and in each band the value that covered most of the column. Columns of one colour side by
 * side become one rectangle, so the file stays small whatever the trace's length.
 *
 * The values get colours by their share of the run's time in the profile (its tag
 * entries' cycles), the first seven one colour each, the rest grey as "other values",
 * so the colours are decided before the pass and a value keeps its colour whatever the
 * window. Periods the observer did not attribute (interrupted: the observer was not
 * looking for most of them) leave the bands blank, as they count for no tag in the
 * profile. Time is the profile's calibrated TSC frequency, as in every trace command.
 */
#include "shimview/cmd/commands.h"
#include "shimview/base/numbers.h"
#include "shimview/render/plot.h"
#include "shimview/model/trace.h"
#include "shimview/analysis/value_names.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WIDTH 1200.0
#define MIN_WIDTH     900.0
#define MAX_WIDTH     16384.0
#define RIGHT_MARGIN  24.0
#define PANEL_HEADING 26.0
#define RATE_HEIGHT   240.0
#define BAND_HEIGHT   20.0
#define BAND_GAP      6.0
#define DROP_HEIGHT   12.0
#define TOP_VALUES    7 /* colours of plot_color() before its grey */
#define OTHER_COLOR   "#bbbbbb"
#define RATE_COLOR    "#0072b2"
#define DROP_COLOR    "#222222"

const char timeline_usage[] =
    "usage: shimview timeline [--rate NAME] [--from S] [--to S] [--width PX] [--trace FILE]\n"
    "                         [-o FILE.svg] PROFILE\n"
    "\n"
    "Draw the trace a profile names (SHIM_TRACE) as an SVG timeline, x in ms since the first\n"
    "record: a rate per sample period (the mean per pixel column, with its min-max band),\n"
    "a band per tag slot coloured by the current value (the seven values with the most\n"
    "time in the profile, the rest grey), and the periods dropped (gaps in seq). Prints\n"
    "the path written.\n"
    "\n"
    "  -r, --rate NAME    the rate to draw (default: ipc when present, else the first rate)\n"
    "      --from S       start of the window, in seconds since the first record; a unit\n"
    "                     may follow: 2.5ms, 300us, 120ns, 1s (default: 0)\n"
    "      --to S         end of the window, likewise (default: the end of the trace)\n"
    "  -w, --width PX     width of the figure, 900 to 16384 (default 1200)\n"
    "  -t, --trace FILE   read this trace instead of the one the profile names\n"
    "  -o, --output FILE  the SVG to write (default: STEM-timeline.svg in the current\n"
    "                     directory, run.json giving run-timeline.svg); '-' for stdout\n"
    "  -h, --help         print this help\n";

/* ---- the bins ---- */

struct column {
    uint64_t n;
    double sum, w, min, max; /* sum: rate x cycles; w: cycles */
};

/* The column's mean rate, each period weighted by its cycles. */
static double column_mean(const struct column *col)
{
    return col->w > 0 ? col->sum / col->w : NAN;
}

struct slot_bins {
    size_t ntop;                  /* values with a colour of their own */
    uint64_t values[TOP_VALUES];  /* by the profile's cycles, most first */
    double *time;                 /* ncols * (ntop + 1): cycles, "other values" last */
    double total[TOP_VALUES + 1]; /* over the window */
};

struct timeline {
    struct plot_ctx c; /* first: plot_write_file hands it to the drawing */
    const struct trace *t;
    const struct trace_info *ti;
    struct value_names names;
    double width, area_w;
    size_t ncols, nslots;
    double w0, w1; /* the window, TSC cycles since the first record */
    struct column *rate;
    struct slot_bins *slots;
    unsigned char *dropped; /* per column: a gap in seq falls here */
    double prev_end;        /* end of the previous record */
    uint64_t in_window, rated, drops;
};

struct value_time {
    uint64_t value;
    double cycles;
};

static int by_value(const void *a, const void *b)
{
    const struct value_time *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int by_cycles_desc(const void *a, const void *b)
{
    const struct value_time *x = a, *y = b;
    if (x->cycles != y->cycles) return x->cycles < y->cycles ? 1 : -1;
    return by_value(a, b);
}

/* The slot's values with the most cycles in the profile. 0, or -1 if memory ran out. */
static int top_values(const struct profile *p, size_t slot, struct slot_bins *b)
{
    struct value_time *v = malloc((p->ntags ? p->ntags : 1) * sizeof *v);
    size_t n = 0;
    if (!v) return -1;
    for (size_t i = 0; i < p->ntags; i++)
        v[i] = (struct value_time){p->tags[i].values[slot], (double)p->tags[i].cycles};
    qsort(v, p->ntags, sizeof *v, by_value);
    for (size_t i = 0; i < p->ntags; i++) { /* a value in several entries: add them */
        if (n > 0 && v[n - 1].value == v[i].value)
            v[n - 1].cycles += v[i].cycles;
        else
            v[n++] = v[i];
    }
    qsort(v, n, sizeof *v, by_cycles_desc);
    b->ntop = n < TOP_VALUES ? n : TOP_VALUES;
    for (size_t i = 0; i < b->ntop; i++)
        b->values[i] = v[i].value;
    free(v);
    return 0;
}

static size_t category(const struct slot_bins *b, uint64_t value)
{
    for (size_t i = 0; i < b->ntop; i++)
        if (b->values[i] == value) return i;
    return b->ntop;
}

static size_t column_of(const struct timeline *tl, double x)
{
    double c = floor((x - tl->w0) * (double)tl->ncols / (tl->w1 - tl->w0));
    if (!(c > 0)) return 0;
    return c >= (double)tl->ncols ? tl->ncols - 1 : (size_t)c;
}

static double column_edge(const struct timeline *tl, size_t c)
{
    return tl->w0 + (tl->w1 - tl->w0) * (double)c / (double)tl->ncols;
}

/* A gap in seq: the dropped periods lie between the previous record's end and a. */
static void bin_drop(struct timeline *tl, double a)
{
    double from = fmax(tl->prev_end, tl->w0), to = fmin(a, tl->w1);
    if (to < tl->w0 || from > tl->w1) return;
    if (to < from) to = from;
    tl->drops++;
    for (size_t c = column_of(tl, from); c <= column_of(tl, to); c++)
        tl->dropped[c] = 1;
}

static void bin_record(struct timeline *tl, const struct trace_record *r)
{
    double a = (double)(r->start - tl->t->t0), b = a + (double)r->cycles;
    if (r->dropped > 0) bin_drop(tl, a);
    tl->prev_end = b;
    if (b < tl->w0 || a >= tl->w1 || (b == tl->w0 && b > a)) return;
    tl->in_window++;
    if (tl->c.p->nrates > 0 && isfinite(r->rates[tl->c.rate]) && a >= tl->w0) {
        double v = r->rates[tl->c.rate];
        struct column *col = &tl->rate[column_of(tl, a)];
        if (col->n == 0 || v < col->min) col->min = v;
        if (col->n == 0 || v > col->max) col->max = v;
        col->n++;
        col->sum += v * (double)r->cycles;
        col->w += (double)r->cycles;
        tl->rated++;
    }
    if (!(r->flags & TRACE_ATTRIBUTED)) return;
    double lo = fmax(a, tl->w0), hi = fmin(b, tl->w1);
    for (size_t c = column_of(tl, lo), last = column_of(tl, hi); c <= last; c++) {
        double part = fmin(hi, column_edge(tl, c + 1)) - fmax(lo, column_edge(tl, c));
        if (!(part > 0)) continue;
        for (size_t s = 0; s < tl->nslots; s++) {
            struct slot_bins *sb = &tl->slots[s];
            size_t k = category(sb, r->tags[s]);
            sb->time[c * (sb->ntop + 1) + k] += part;
            sb->total[k] += part;
        }
    }
}

static int bins_alloc(struct timeline *tl)
{
    const struct profile *p = tl->c.p;
    tl->nslots = p->signals.ntags;
    tl->rate = calloc(tl->ncols, sizeof *tl->rate);
    tl->dropped = calloc(tl->ncols, 1);
    tl->slots = calloc(tl->nslots ? tl->nslots : 1, sizeof *tl->slots);
    if (!tl->rate || !tl->dropped || !tl->slots) return -1;
    for (size_t s = 0; s < tl->nslots; s++) {
        if (top_values(p, s, &tl->slots[s])) return -1;
        tl->slots[s].time = calloc(tl->ncols * (tl->slots[s].ntop + 1), sizeof(double));
        if (!tl->slots[s].time) return -1;
    }
    return value_names_init(&tl->names, p);
}

static void bins_free(struct timeline *tl)
{
    for (size_t s = 0; tl->slots && s < tl->nslots; s++)
        free(tl->slots[s].time);
    free(tl->slots);
    free(tl->rate);
    free(tl->dropped);
    if (tl->names.by_slot) value_names_free(&tl->names);
}

/* ---- drawing ---- */

static double x_of(const struct timeline *tl, size_t c)
{
    return PLOT_LEFT + tl->area_w * (double)c / (double)tl->ncols;
}

static const char *category_color(const struct slot_bins *b, size_t k)
{
    return k < b->ntop ? plot_color(k) : OTHER_COLOR;
}

static void heading(struct svg *s, double y, const char *text)
{
    const struct svg_text_style st = {.size = PLOT_LABEL_SIZE, .bold = 1, .klass = "heading"};
    svg_text(s, PLOT_LEFT - 64, y - 10, &st, text);
}

static void note(struct svg *s, const struct timeline *tl, double y, const char *text)
{
    const struct svg_text_style st = {.anchor = SVG_MIDDLE, .fill = PLOT_TEXT_GREY};
    svg_text(s, PLOT_LEFT + tl->area_w / 2, y, &st, text);
}

/* The label of a row, right-aligned in the margin left of the plot area. */
static void row_label(struct svg *s, double y, const char *text)
{
    const struct svg_text_style st = {
        .size = PLOT_TICK_SIZE, .anchor = SVG_END, .fill = PLOT_AXIS, .klass = "row-label"};
    char buf[256];
    svg_text(s, PLOT_LEFT - 6, y, &st,
             svg_fit_text(text, st.size, 0, PLOT_LEFT - 12, buf, sizeof buf));
}

static void x_label(struct svg *s, const struct timeline *tl, double y, const char *text)
{
    const struct svg_text_style st = {
        .size = PLOT_LABEL_SIZE, .anchor = SVG_MIDDLE, .fill = PLOT_AXIS, .klass = "axis-label"};
    svg_text(s, PLOT_LEFT + tl->area_w / 2, y, &st, text);
}

/* The y range of the rate: from 0 (or the least value, if negative) to the greatest,
 * out to whole ticks. -1 when no column has a value. */
static int rate_range(const struct timeline *tl, double *lo, double *hi, struct plot_ticks *t)
{
    int any = 0;
    for (size_t c = 0; c < tl->ncols; c++) {
        const struct column *col = &tl->rate[c];
        if (col->n == 0) continue;
        if (!any || col->min < *lo) *lo = col->min;
        if (!any || col->max > *hi) *hi = col->max;
        any = 1;
    }
    if (!any) return -1;
    if (*lo > 0) *lo = 0;
    if (!(*hi > *lo)) *hi = *lo + 1;
    plot_ticks_linear(t, *lo, *hi, 5);
    double step = t->n >= 2 ? t->v[1] - t->v[0] : *hi - *lo;
    *lo = floor(*lo / step + 1e-9) * step;
    *hi = ceil(*hi / step - 1e-9) * step;
    plot_ticks_linear(t, *lo, *hi, 5);
    return 0;
}

/* The band from min to max and the mean through each run of columns with values. */
static void draw_rate_line(struct svg *s, const struct timeline *tl, const struct plot_scale *ys)
{
    double half = tl->area_w / (double)tl->ncols / 2;
    for (size_t c = 0; c < tl->ncols;) {
        if (tl->rate[c].n == 0) {
            c++;
            continue;
        }
        size_t end = c;
        while (end < tl->ncols && tl->rate[end].n > 0)
            end++;
        svg_path_begin(s);
        for (size_t i = c; i < end; i++)
            (i == c ? svg_path_move : svg_path_line)(s, x_of(tl, i) + half,
                                                     plot_map(ys, tl->rate[i].max));
        for (size_t i = end; i-- > c;)
            svg_path_line(s, x_of(tl, i) + half, plot_map(ys, tl->rate[i].min));
        svg_path_end(s, NULL, 0, RATE_COLOR, 0.25, NULL);
        if (end == c + 1) { /* a lone column: its mean as a point */
            const struct column *col = &tl->rate[c];
            svg_circle(s, x_of(tl, c) + half, plot_map(ys, column_mean(col)), 1.5, RATE_COLOR,
                       NULL);
        } else {
            svg_path_begin(s);
            for (size_t i = c; i < end; i++) {
                const struct column *col = &tl->rate[i];
                (i == c ? svg_path_move : svg_path_line)(s, x_of(tl, i) + half,
                                                         plot_map(ys, column_mean(col)));
            }
            svg_path_end(s, RATE_COLOR, 1.3, NULL, 1, NULL);
        }
        c = end;
    }
}

/* Fewer periods than columns: each column's mean as a point, its min-max as a line, with
 * a tooltip giving the mean and how many periods it rests on. */
static void draw_rate_points(struct svg *s, const struct timeline *tl, const struct plot_scale *ys)
{
    double half = tl->area_w / (double)tl->ncols / 2;
    for (size_t c = 0; c < tl->ncols; c++) {
        const struct column *col = &tl->rate[c];
        char title[96];
        if (col->n == 0) continue;
        double x = x_of(tl, c) + half;
        snprintf(title, sizeof title, "mean %.6g over %" PRIu64 " period%s", column_mean(col),
                 col->n, col->n == 1 ? "" : "s");
        svg_group_begin(s, "point", NULL, title);
        if (col->max > col->min)
            svg_line(s, x, plot_map(ys, col->min), x, plot_map(ys, col->max), RATE_COLOR, 1, NULL);
        svg_circle(s, x, plot_map(ys, column_mean(col)), 2, RATE_COLOR, NULL);
        svg_group_end(s);
    }
}

/* The key of panel A, right-aligned above it: the mean's mark and the band's swatch. */
static void rate_key(struct svg *s, const struct timeline *tl, double y, int points)
{
    const struct svg_text_style st = {.size = PLOT_LEGEND_SIZE, .klass = "legend"};
    static const char band[] = "min\xe2\x80\x93max";
    char us[32], mean[96];
    double col_us = trace_seconds(tl->t, (tl->w1 - tl->w0) / (double)tl->ncols) * 1e6;
    snprintf(mean, sizeof mean, "mean per pixel column (%s \xc2\xb5s)",
             plot_fmt_value(col_us, us, sizeof us));
    double wm = svg_text_width(mean, st.size, 0), wb = svg_text_width(band, st.size, 0);
    double x = PLOT_LEFT + tl->area_w - (22 + wm + 14 + 22 + wb);
    if (points)
        svg_circle(s, x + 8, y - 4, 2.5, RATE_COLOR, NULL);
    else
        svg_line(s, x, y - 4, x + 16, y - 4, RATE_COLOR, 1.5, NULL);
    svg_text(s, x + 22, y, &st, mean);
    x += 22 + wm + 14;
    if (points) /* each column's spread is a vertical line through its point */
        svg_line(s, x + 8, y - 11, x + 8, y + 2, RATE_COLOR, 1, NULL);
    else
        svg_rect(s, x, y - 10, 16, 12, RATE_COLOR, 0.25, NULL);
    svg_text(s, x + 22, y, &st, band);
}

static void panel_rate(struct svg *s, const struct timeline *tl, const struct plot_scale *xs,
                       const struct plot_ticks *xt, double y)
{
    char label[256], head[320];
    struct plot_ticks yt;
    double lo = 0, hi = 0;
    plot_rate_label(&tl->c, label, sizeof label);
    snprintf(head, sizeof head, "A. %s per sample period", tl->c.p->rates[tl->c.rate].name);
    heading(s, y, head);
    svg_group_begin(s, "panel", "panel-rate", label);
    plot_axis_x(s, xs, xt, y, RATE_HEIGHT, 0, NULL);
    plot_label_y(s, y, y + RATE_HEIGHT, label);
    if (rate_range(tl, &lo, &hi, &yt) != 0) {
        note(s, tl, y + RATE_HEIGHT / 2, "no period in this window has this rate");
    } else {
        struct plot_scale ys = {lo, hi, y + RATE_HEIGHT, y, 0};
        int points = tl->rated <= tl->ncols;
        plot_axis_y(s, &ys, &yt, PLOT_LEFT, tl->area_w, NULL);
        (points ? draw_rate_points : draw_rate_line)(s, tl, &ys);
        rate_key(s, tl, y - 10, points);
    }
    plot_frame(s, PLOT_LEFT, y, tl->area_w, RATE_HEIGHT);
    svg_group_end(s);
}

/* The category that covered most of column c, or -1 when nothing was attributed there. */
static long dominant(const struct slot_bins *b, size_t c)
{
    const double *t = b->time + c * (b->ntop + 1);
    long best = -1;
    for (size_t k = 0; k <= b->ntop; k++)
        if (t[k] > 0 && (best < 0 || t[k] > t[best])) best = (long)k;
    return best;
}

static void band(struct svg *s, const struct timeline *tl, size_t slot, double y)
{
    const struct slot_bins *b = &tl->slots[slot];
    const char *name = tl->c.p->signals.tags[slot].name;
    svg_group_begin(s, "band", NULL, name);
    row_label(s, y + BAND_HEIGHT / 2 + 4, name);
    for (size_t c = 0; c < tl->ncols;) {
        long k = dominant(b, c);
        size_t end = c + 1;
        while (end < tl->ncols && dominant(b, end) == k)
            end++;
        if (k >= 0)
            svg_rect(s, x_of(tl, c), y, x_of(tl, end) - x_of(tl, c), BAND_HEIGHT,
                     category_color(b, (size_t)k), 1, NULL);
        c = end;
    }
    svg_rect(s, PLOT_LEFT, y, tl->area_w, BAND_HEIGHT, NULL, 1, "#999999");
    svg_group_end(s);
}

static void drop_row(struct svg *s, const struct timeline *tl, double y)
{
    svg_group_begin(s, "band", "dropped", "dropped periods");
    row_label(s, y + DROP_HEIGHT / 2 + 4, "dropped");
    for (size_t c = 0; c < tl->ncols;) {
        if (!tl->dropped[c]) {
            c++;
            continue;
        }
        size_t end = c + 1;
        while (end < tl->ncols && tl->dropped[end])
            end++;
        double w = fmax(x_of(tl, end) - x_of(tl, c), 1.5);
        svg_rect(s, x_of(tl, c), y, w, DROP_HEIGHT, DROP_COLOR, 1, NULL);
        c = end;
    }
    if (tl->drops == 0) {
        const struct svg_text_style st = {.size = 10, .fill = PLOT_TEXT_GREY};
        svg_text(s, PLOT_LEFT + 4, y + DROP_HEIGHT - 2, &st, "none in this window");
    }
    svg_rect(s, PLOT_LEFT, y, tl->area_w, DROP_HEIGHT, NULL, 1, "#dddddd");
    svg_group_end(s);
}

/* One legend line per slot, wrapped to the figure's width: a swatch, the value's name and
 * its share of the attributed time in the window. Draws when s is not NULL; returns the
 * baseline after the last line either way. */
static double legend(struct svg *s, const struct timeline *tl, double y)
{
    const struct svg_text_style bold = {.size = PLOT_LEGEND_SIZE, .bold = 1, .klass = "legend"};
    const struct svg_text_style st = {.size = PLOT_LEGEND_SIZE, .klass = "legend"};
    double right = tl->width - 20;
    for (size_t slot = 0; slot < tl->nslots; slot++) {
        const struct slot_bins *b = &tl->slots[slot];
        char head[264], name[256], text[320], share[32];
        double total = 0, x = 20;
        for (size_t k = 0; k <= b->ntop; k++)
            total += b->total[k];
        svg_fit_text(tl->c.p->signals.tags[slot].name, st.size, 1, 200, name, sizeof name);
        snprintf(head, sizeof head, "%s:", name);
        if (s) svg_text(s, x, y, &bold, head);
        x += svg_text_width(head, st.size, 1) + 12;
        if (total == 0 && s) svg_text(s, x, y, &st, "no attributed period in this window");
        for (size_t k = 0; k <= b->ntop && total > 0; k++) {
            if (b->total[k] == 0) continue;
            if (k < b->ntop)
                value_names_get(&tl->names, slot, b->values[k], name, sizeof name);
            else
                snprintf(name, sizeof name, "other values");
            svg_fit_text(name, st.size, 0, 240, text, sizeof name);
            size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, " %s",
                     plot_fmt_share(100 * b->total[k] / total, share, sizeof share));
            double w = 20 + svg_text_width(text, st.size, 0);
            if (x + w > right && x > 40) {
                y += PLOT_LEGEND_LINE;
                x = 40;
            }
            if (s) {
                svg_rect(s, x, y - 10, 14, 12, category_color(b, k), 1, NULL);
                svg_text(s, x + 18, y, &st, text);
            }
            x += w + 14;
        }
        y += PLOT_LEGEND_LINE + 2;
    }
    return y;
}

static void caption(struct svg *s, const struct timeline *tl, double y)
{
    const struct svg_text_style st = {
        .size = PLOT_LEGEND_SIZE, .fill = PLOT_TEXT_GREY, .klass = "caption"};
    char a[32], b[32], c[32], d[32], text[512];
    snprintf(text, sizeof text,
             "%s records in the trace, %s of them in this window, with %s gaps in seq; the "
             "profile counts %s sample periods",
             fmt_count(tl->t->nrecords, a, sizeof a), fmt_count(tl->in_window, b, sizeof b),
             fmt_count(tl->drops, d, sizeof d), fmt_count(tl->c.p->samples.total, c, sizeof c));
    svg_text(s, 20, y, &st, text);
    if (tl->ti->path) {
        snprintf(text, sizeof text,
                 "dropped_full: %s periods lost while the ring was full (gaps in seq, marked on "
                 "the dropped row)",
                 fmt_count(tl->ti->dropped_full, a, sizeof a));
        svg_text(s, 20, y + PLOT_LEGEND_LINE, &st, text);
        snprintf(text, sizeof text,
                 "dropped_limit: %s periods not recorded once the file had reached its limit of "
                 "%s bytes",
                 fmt_count(tl->ti->dropped_limit, a, sizeof a),
                 fmt_count(tl->ti->max_bytes, b, sizeof b));
        svg_text(s, 20, y + 2 * PLOT_LEGEND_LINE, &st, text);
    }
}

static int timeline_draw(FILE *f, const struct plot_ctx *c)
{
    const struct timeline *tl = (const struct timeline *)c;
    const struct profile *p = c->p;
    double ms0 = trace_seconds(tl->t, tl->w0) * 1e3, ms1 = trace_seconds(tl->t, tl->w1) * 1e3;
    char title[] = "Timeline", sub[768], a[32], b[32], span[64];
    snprintf(span, sizeof span, "%s\xe2\x80\x93%s ms", plot_fmt_value(ms0, a, sizeof a),
             plot_fmt_value(ms1, b, sizeof b));
    snprintf(sub, sizeof sub,
             "%s \xc2\xb7 %s (pid %" PRIu64 ") \xc2\xb7 trace %s \xc2\xb7 %s \xc2\xb7 TSC %.4g GHz",
             c->source, p->program.name, p->program.pid, plot_source_name(tl->t->path), span,
             p->machine.tsc_hz / 1e9);
    struct plot_scale xs = {ms0, ms1, PLOT_LEFT, PLOT_LEFT + tl->area_w, 0};
    struct plot_ticks xt;
    plot_ticks_linear_fit(&xt, ms0, ms1, tl->area_w);

    double y = PLOT_TOP + PANEL_HEADING;
    double y_bands = p->nrates > 0 ? y + RATE_HEIGHT + 16 + PANEL_HEADING : y;
    double bands_h = (double)tl->nslots * (BAND_HEIGHT + BAND_GAP) + DROP_HEIGHT;
    double y_legend = y_bands + bands_h + PLOT_X_AXIS_SPACE + 12;
    double y_caption = legend(NULL, tl, y_legend) + 8;
    double height = y_caption + 3 * PLOT_LEGEND_LINE + 4;

    struct svg s;
    svg_begin(&s, f, c->kind, tl->width, height, title);
    plot_title(&s, title, sub);
    if (p->nrates > 0) panel_rate(&s, tl, &xs, &xt, y);
    heading(&s, y_bands,
            p->nrates > 0 ? "B. Tags and dropped periods"
                          : "Tags and dropped periods (the profile has no rates)");
    svg_group_begin(&s, "panel", "panel-tags", "tags and dropped periods");
    plot_axis_x(&s, &xs, &xt, y_bands, bands_h, 1, NULL);
    x_label(&s, tl, y_bands + bands_h + 40, "time since the first record (ms)");
    for (size_t slot = 0; slot < tl->nslots; slot++)
        band(&s, tl, slot, y_bands + (double)slot * (BAND_HEIGHT + BAND_GAP));
    drop_row(&s, tl, y_bands + (double)tl->nslots * (BAND_HEIGHT + BAND_GAP));
    if (tl->t->nrecords == 0) note(&s, tl, y_bands + bands_h / 2 + 4, "the trace holds no records");
    svg_group_end(&s);
    legend(&s, tl, y_legend);
    caption(&s, tl, y_caption);
    svg_end(&s);
    return 0;
}

/* ---- the command ---- */

/* A time in seconds, with an optional unit: s, ms, us (or µs), ns. */
static int parse_time(const char *opt, const char *text, double *out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"ns", 1e-9}};
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0) || !isfinite(v)) goto bad;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = v * units[i].scale;
            return 0;
        }
bad:
    usage_error("timeline", "%s expects a time in seconds such as 0.5, 2.5ms or 300us, not '%s'",
                opt, text);
    return -1;
}

struct timeline_options {
    const char *rate, *trace, *output, *file;
    double from, to, width;
    int has_to;
};

static int parse_options(int argc, char **argv, struct timeline_options *o)
{
    static const struct option options[] = {
        {"rate", required_argument, NULL, 'r'},  {"from", required_argument, NULL, 'F'},
        {"to", required_argument, NULL, 'T'},    {"width", required_argument, NULL, 'w'},
        {"trace", required_argument, NULL, 't'}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    int opt;
    long width;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":r:w:t:o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'r':
            if (!optarg[0]) return usage_error("timeline", "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 'F':
            if (parse_time("--from", optarg, &o->from)) return EXIT_USAGE_ERROR;
            break;
        case 'T':
            if (parse_time("--to", optarg, &o->to)) return EXIT_USAGE_ERROR;
            o->has_to = 1;
            break;
        case 'w':
            if (parse_count_option("timeline", "--width", optarg, &width)) return EXIT_USAGE_ERROR;
            if (width < MIN_WIDTH || width > MAX_WIDTH)
                return usage_error("timeline", "--width must be from %.0f to %.0f px, not %ld",
                                   MIN_WIDTH, MAX_WIDTH, width);
            o->width = (double)width;
            break;
        case 't':
            if (!optarg[0]) return usage_error("timeline", "--trace needs a file");
            o->trace = optarg;
            break;
        case 'o':
            if (!optarg[0]) return usage_error("timeline", "-o needs a file");
            o->output = optarg;
            break;
        case 'h':
            fputs(timeline_usage, stdout);
            return -1;
        default:
            return option_error("timeline", opt, argv);
        }
    }
    if (o->has_to && !(o->to > o->from))
        return usage_error("timeline", "--to must be later than --from");
    if (optind >= argc) return usage_error("timeline", "missing the PROFILE");
    if (optind + 1 < argc)
        return usage_error("timeline", "expects one PROFILE, got %d", argc - optind);
    o->file = argv[optind];
    return 0;
}

/* Read every record into the bins. 0, or EXIT_FILE_ERROR after a message. */
static int read_trace(struct timeline *tl, struct trace *t)
{
    char err[512];
    struct trace_record r;
    int rc;
    while ((rc = trace_next(t, &r, err, sizeof err)) == 1)
        bin_record(tl, &r);
    if (rc < 0) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    return 0;
}

static int draw_timeline(const struct timeline_options *o, struct timeline *tl, struct trace *t)
{
    char stem[256], *path = NULL;
    double span = (double)(t->t_end - t->t0);
    tl->w0 = o->from * t->tsc_hz;
    tl->w1 = o->has_to ? o->to * t->tsc_hz : span;
    if (!o->has_to && !(tl->w1 > tl->w0)) {
        if (o->from > 0)
            return usage_error("timeline", "--from %g s is past the end of the trace (%g s)",
                               o->from, trace_seconds(t, span));
        tl->w1 = tl->w0 + 1; /* an empty trace, or one period of no length */
    }
    tl->width = o->width > 0 ? o->width : DEFAULT_WIDTH;
    tl->area_w = tl->width - PLOT_LEFT - RIGHT_MARGIN;
    tl->ncols = (size_t)tl->area_w;
    if (bins_alloc(tl)) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    int rc = read_trace(tl, t);
    if (rc) return rc;
    plot_file_stem(o->file, stem, sizeof stem);
    if (!o->output && asprintf(&path, "%s-timeline.svg", stem) < 0) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    rc = plot_write_file(o->output ? o->output : path, timeline_draw, &tl->c);
    free(path);
    return rc;
}

int timeline_main(int argc, char **argv)
{
    struct timeline_options o = {0};
    struct timeline tl = {0};
    struct trace_info ti;
    struct trace t;
    struct profile *p;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    rc = trace_command_open(o.file, o.trace, &p, &ti, &t);
    if (rc) return rc;
    tl.t = &t;
    tl.ti = &ti;
    rc = plot_ctx_init(&tl.c, p, o.file, o.rate, 1, "timeline");
    if (rc == 0) {
        rc = draw_timeline(&o, &tl, &t);
        bins_free(&tl);
        plot_ctx_free(&tl.c);
    }
    trace_close(&t);
    profile_free(p);
    return rc;
}
