/*
 * plot.h -- what the figures of `shimview plot` share: the layout, scales and axes,
 * number formats, colours, and the context a figure is drawn from.
 *
 * Every figure has the same anatomy, so they read alike side by side: a title and a
 * one-line subtitle naming the profile, then panels, each a plot area on the left with
 * its y axis, and a legend column on the right that holds every number the panel quotes
 * (counts, means, percentiles, what was left out). Text never goes inside a plot area
 * except short labels placed where nothing else is drawn, which is how the figures avoid
 * overlapping text without a layout engine.
 *
 * plot_axis.c implements the helpers; plot_hist.c, plot_cdf.c, plot_sampling.c and
 * plot_by.c draw one figure each from a struct plot_ctx that plot_ctx.c fills. The
 * declarations below are sectioned by the file that defines them.
 */
#ifndef SHIMVIEW_PLOT_H
#define SHIMVIEW_PLOT_H

#include "shimview/model/profile.h"
#include "shimview/analysis/tags.h"
#include "shimview/render/svg.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The layout, in px. */
#define PLOT_WIDTH        900.0
#define PLOT_LEFT         84.0  /* left edge of the plot areas: y tick labels and y label */
#define PLOT_AREA_WIDTH   540.0 /* width of a plot area */
#define PLOT_LEGEND_X     648.0 /* left edge of the legend column */
#define PLOT_LEGEND_WIDTH 236.0 /* up to PLOT_WIDTH - 16 */
#define PLOT_TOP          70.0  /* below the title and subtitle */
#define PLOT_X_AXIS_SPACE 52.0  /* below a plot area: x tick labels and the x label */
#define PLOT_INSET        5.0   /* data starts this far inside a linear plot area's frame */

/* Text sizes, in px. */
#define PLOT_TITLE_SIZE    18.0
#define PLOT_SUBTITLE_SIZE 12.5
#define PLOT_LABEL_SIZE    13.0 /* axis labels, panel headings */
#define PLOT_TICK_SIZE     11.5
#define PLOT_LEGEND_SIZE   12.0
#define PLOT_LEGEND_LINE   16.0 /* baseline to baseline */

#define PLOT_TEXT_GREY "#555555"
#define PLOT_GRID      "#e4e4e4"
#define PLOT_AXIS      "#333333"

/* ---- plot_ctx.c ---- */

/* One tag chosen for the figures: its entry and its display name. */
struct plot_ctx {
    const struct profile *p;     /* for `plot` and `html`, the profile's threads folded together
                                  * (match_fold), so a tag is one series whoever ran it */
    const struct profile *whole; /* the profile as loaded, threads apart; NULL when unused */
    const char *source;          /* the profile's file name without its directory */
    size_t rate;                 /* index into p->rates (when p->nrates > 0) */
    struct named_tag *top;
    size_t ntop;        /* the top N tags by samples */
    size_t tiny;        /* tags left out of the top for a share under PLOT_TINY_SHARE */
    enum svg_kind kind; /* SVG_INLINE when the figures go into an HTML page */
    /* A second profile drawn over the first (`shimview compare`), or NULL: its file name,
     * the index of the same rate in it, and for each top tag its entry there (an entry
     * without samples where it has none). The rate figures then draw each tag's two
     * histograms in one panel and the two profiles' distributions in one plot, in the
     * colours plot_profile_color() gives, with a key naming the files; both profiles'
     * histograms count towards the x range. */
    const struct profile *p2;
    const char *source2;
    size_t rate2;
    const struct profile_tag **top2;
};

/* Without --top, a tag with less than this share of the samples gets no panel or curve
 * of its own: its histogram holds too few samples to say anything, and it would take a
 * panel from the tags that matter (the first tag is always drawn). */
#define PLOT_TINY_SHARE 0.001

/* Fill c for profile p, loaded from `file`, with the rate named `rate` (NULL: the default
 * rate) and the top `top` tags by samples, named. 0; or EXIT_USAGE_ERROR after a message
 * for command cmd (no such rate, naming the rates there are); or EXIT_FILE_ERROR after a
 * message (memory ran out). c->kind is SVG_DOCUMENT. */
int plot_ctx_init(struct plot_ctx *c, const struct profile *p, const char *file, const char *rate,
                  long top, const char *cmd);
void plot_ctx_free(struct plot_ctx *c);

/* The file name without its directory; "stdin" for "-". */
const char *plot_source_name(const char *file);
/* The stem output files are named after: the file name without ".json" (or whatever
 * extension it has), "profile" if nothing is left. */
void plot_file_stem(const char *file, char *buf, size_t len);

/* Write path whole with draw(f, c) (output.h: beside it, then renamed) and print the
 * path; "-" writes to standard output (and prints nothing else). 0, or EXIT_FILE_ERROR
 * with a message, leaving what was at the path as it was. */
int plot_write_file(const char *path, int (*draw)(FILE *, const struct plot_ctx *),
                    const struct plot_ctx *c);

/* The same to where -o puts a file called name (output.h): given is what -o named (NULL:
 * nothing), a directory always when dir (a command writing several files), else
 * output_path()'s file or directory. */
int plot_write_output(const char *given, int dir, const char *name,
                      int (*draw)(FILE *, const struct plot_ctx *), const struct plot_ctx *c);

/* ---- plot_axis.c ---- */

/* A map from data values [d0, d1] to pixels [r0, r1], linear or log10. */
struct plot_scale {
    double d0, d1, r0, r1;
    int log;
};

#define PLOT_MAX_TICKS 256

struct plot_ticks {
    size_t n;
    double v[PLOT_MAX_TICKS];
    int labelled[PLOT_MAX_TICKS]; /* 0: a minor tick, drawn without a label */
    int decimals;                 /* for labels of a linear axis; -1: a log axis */
};

double plot_map(const struct plot_scale *s, double v);

/* About `target` ticks at 1, 2, 2.5 or 5 times a power of ten within [lo, hi]. */
void plot_ticks_linear(struct plot_ticks *t, double lo, double hi, int target);

/* Linear ticks along a horizontal axis of `pixels` length: as many (up to one per 65 px)
 * as fit without labels touching. */
void plot_ticks_linear_fit(struct plot_ticks *t, double lo, double hi, double pixels);

/* Ticks for a log axis over [lo, hi] (lo > 0) of `pixels` length: powers of ten, or
 * 1-2-5 or 1..9 times them when the range is short, as many as fit without labels
 * touching; a short range falls back to linear ticks. vertical: labels are stacked. */
void plot_ticks_log(struct plot_ticks *t, double lo, double hi, double pixels, int vertical);

/* A tick label: fixed decimals on a linear axis; on a log axis 1k, 20M style. */
void plot_fmt_tick(char *buf, size_t len, double v, const struct plot_ticks *t);

/* A nice round number >= x (1, 2, 2.5, 5 times a power of ten). */
double plot_nice_ceil(double x);

/* Axes of the plot area (x, y, w, h): gridlines at the ticks, tick marks, tick labels
 * (x: only when labels is set) and the axis label (NULL: none). The y label is centred
 * on [label_y0, label_y1], which may span several panels. */
void plot_axis_x(struct svg *s, const struct plot_scale *sc, const struct plot_ticks *t, double y,
                 double h, int labels, const char *label);
void plot_axis_y(struct svg *s, const struct plot_scale *sc, const struct plot_ticks *t, double x,
                 double w, const char *suffix);
void plot_label_y(struct svg *s, double y0, double y1, const char *label);
void plot_frame(struct svg *s, double x, double y, double w, double h);

/* The title and subtitle lines; the subtitle is cut to the figure's width. */
void plot_title(struct svg *s, const char *title, const char *subtitle);

/* A legend line at (x, y) in the legend column, cut with "…" to fit. */
void plot_legend_text(struct svg *s, double x, double y, const char *fill, int bold,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Colour of series i (a palette that stays distinct for colour-blind readers). */
const char *plot_color(size_t i);

/* "value ± spread", both to the decimal place two significant digits of spread need;
 * just the value (4 significant digits) when spread is not a positive number. */
const char *plot_fmt_pm(double value, double spread, char *buf, size_t len);
/* The same with value's interval: "value ± h", or "value up to h" for an interval from 0
 * (a rate without events, interval_format); just the value without a positive half. */
struct interval;
const char *plot_fmt_interval(const struct interval *iv, double value, char *buf, size_t len);
/* A percentage: "0%", "<0.1%", "12.3%". */
const char *plot_fmt_share(double percent, char *buf, size_t len);
/* A value with 3 significant digits, thousands separated: 0.0123, 1.23, 117, 12,345. */
const char *plot_fmt_value(double v, char *buf, size_t len);

/* The figures, one file each, draw one figure from c: 0, or -1 if memory ran out.
 * Writing errors show in ferror(f). */

/* ---- plot_cdf.c ---- */

int plot_cdf_write(FILE *f, const struct plot_ctx *c);

/* ---- plot_sampling.c ---- */

int plot_sampling_write(FILE *f, const struct plot_ctx *c);

/* ---- plot_by.c ---- */

/* One rate per bucket of another, for the top tags; only for a profile with `by`. */
int plot_by_write(FILE *f, const struct plot_ctx *c);

/* ---- plot_hist.c ---- */

int plot_hist_write(FILE *f, const struct plot_ctx *c);

/* Shared by the two rate figures. */

/* Rate c->rate of top tag i in profile j (0: c->p, 1: c->p2). */
const struct profile_rate_stats *plot_top_rate(const struct plot_ctx *c, size_t i, size_t j);
/* The colour of profile j (0 or 1) when two are drawn. */
const char *plot_profile_color(size_t j);
/* The key of a figure of two profiles, one line at y: a swatch, "A" or "B" and the file
 * name for each. */
void plot_profiles_key(struct svg *s, const struct plot_ctx *c, double y);

/* The rate's axis label, "items per 1000 cycles", in buf. */
const char *plot_rate_label(const struct plot_ctx *c, char *buf, size_t len);
/* The same for rate index `rate` of p. */
const char *plot_rate_label_of(const struct profile *p, size_t rate, char *buf, size_t len);
/* Edges of bucket i of a linear histogram. */
double plot_lin_edge(const struct profile_linhist *h, double i);
/* The data range of the non-empty buckets of the top tags' histograms (all: every tag and
 * `other`), of both profiles when there are two, widened to round ticks and kept within
 * the histograms' span. 0, or -1 if nothing was recorded in range. */
int plot_rate_range(const struct plot_ctx *c, int all, double *lo, double *hi);

#endif /* SHIMVIEW_PLOT_H */
