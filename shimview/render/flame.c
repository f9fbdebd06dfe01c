/*
 * flame.c -- a flame graph of calling contexts as one self-contained SVG (see flame.h).
 *
 * Each frame is a rect as wide as its inclusive samples, on top of its caller's (below it
 * in an icicle graph), its callees left to right from the heaviest, so the widest towers
 * are where the time went. A frame is one group: a <title> (the tooltip a browser shows,
 * and a viewer's way to every number: the function, its caller, its inclusive and
 * exclusive samples and shares, each rate over both groups of periods with its 95%
 * interval), the rect, and its name cut to the rect's width (svg_fit_text). Frames
 * narrower than FLAME_MIN_WIDTH are not drawn, and the figure says how many.
 *
 * Colours say one thing at a time. With a rate, the rate over the frame's inclusive
 * periods on a sequential scale (viridis: ordered, readable in grey and by colour-blind
 * readers) between the lowest and highest rate of the drawn frames that have
 * FLAME_SCALE_PERIODS kept periods or more, with a legend; a frame with no kept period is
 * grey. Without one, a warm hue from a hash of the function's name, so a function is one
 * colour wherever it is called, as in Brendan Gregg's flamegraph.pl.
 *
 * A difference (flame_tree_diff) is drawn from B's frames, coloured by the change of
 * inclusive share from A to B on a diverging scale (blue: less in B, red: more, white: no
 * change); a frame whose change has a 95% interval (compare's: each side's share interval,
 * a frame being a sum over tuples widened by its run's design effect, and MOVER's
 * interval of their difference) that excludes 0 is outlined in black when it is wide
 * enough to keep its colour inside the outline, and its tooltip says so in any case. Frames that
 * only A has are drawn hatched, as wide as their share in A; to make room for them a frame is as
 * wide as its exclusive share in B plus its children's widths, which is its inclusive
 * share in B wherever A has nothing B lacks.
 *
 * The inline script is the only thing a static viewer misses: a click on a frame widens
 * it and its callees to the whole figure (its callers stay below, faded, their labels
 * dark, since a white one would fade with them), a click on the root goes back. It reads
 * the frames' geometry from the rects themselves, so the figure stays the source of
 * truth.
 */
#include "shimview/render/flame.h"
#include "shimview/base/markup.h"
#include "shimview/base/numbers.h"
#include "shimview/analysis/stats.h"
#include "shimview/render/plot.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROW          18.0 /* px from a frame's top to the next level's */
#define FRAME_HEIGHT 17.0
#define MARGIN       10.0
#define GRAPH_TOP    62.0
#define LABEL_SIZE   11.0
#define LEGEND_SIZE  12.0
#define BAR_WIDTH    300.0
#define BAR_STEPS    60
#define HATCH_ID     "flame-only-a"

/* A frame at least this wide whose change is significant is outlined in black, 1 px (a
 * stroke as wide as the gap between rows, so two outlined rows stay apart); a narrower one
 * is not, since an outline would hide its colour: its tooltip says. */
#define SIGNIFICANT_MIN_WIDTH 3.0
#define SIGNIFICANT_STROKE    1.0

/* Rates of frames with fewer kept periods than this do not stretch the colour scale. */
#define FLAME_SCALE_PERIODS 30

#define GREY       "#d2d2d2"
#define NO_RATE    "#ececec"
#define TEXT_DARK  "#1a1a1a"
#define TEXT_LIGHT "#ffffff"

struct rgb {
    double r, g, b; /* 0 to 255 */
};

struct layout {
    const struct flame_tree *t;
    const struct flame_look *look;
    int diff;
    double *x, *w;
    unsigned char *drawn;
    size_t depth;  /* of the deepest frame drawn */
    size_t hidden; /* frames not drawn whose caller is */
    double lo, hi; /* the colour scale: a rate's range, or -max..max of the change */
    int scaled;    /* some frame has a value on it */
};

/* ---- colours ---- */

static struct rgb mix(struct rgb a, struct rgb b, double t)
{
    return (struct rgb){a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

static void hex(struct rgb c, char *buf, size_t len)
{
    snprintf(buf, len, "#%02x%02x%02x", (int)lround(c.r), (int)lround(c.g), (int)lround(c.b));
}

/* viridis at t in [0, 1], from nine of its colours */
static struct rgb viridis(double t)
{
    static const struct rgb stops[] = {{68, 1, 84},    {71, 45, 123},  {59, 82, 139},
                                       {44, 114, 142}, {33, 145, 140}, {40, 174, 128},
                                       {94, 201, 98},  {173, 220, 48}, {253, 231, 37}};
    double pos = (t < 0 ? 0 : t > 1 ? 1 : t) * 8;
    size_t i = pos >= 8 ? 7 : (size_t)pos;
    return mix(stops[i], stops[i + 1], pos - (double)i);
}

/* The change of share d on -m..m: blue below 0, white at 0, red above. */
static struct rgb diverging(double d, double m)
{
    static const struct rgb white = {255, 255, 255}, blue = {33, 102, 172}, red = {178, 24, 43};
    double t = m > 0 ? d / m : 0;
    if (t > 1) t = 1;
    if (t < -1) t = -1;
    return t < 0 ? mix(white, blue, -t) : mix(white, red, t);
}

/* A warm hue from the name (without a call site's " @0x..."), FNV-1a hashed. */
static struct rgb hashed(const char *name)
{
    uint32_t h = 2166136261u;
    const char *end = strstr(name, " @0x");
    for (const char *c = name; *c && c != end; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return (struct rgb){205 + (h % 50), (h >> 8) % 230, (h >> 20) % 55};
}

/* WCAG's relative luminance of c, 0 (black) to 1 (white). */
static double luminance(struct rgb c)
{
    const double v[3] = {c.r / 255, c.g / 255, c.b / 255};
    double lin[3];
    for (int k = 0; k < 3; k++)
        lin[k] = v[k] <= 0.04045 ? v[k] / 12.92 : pow((v[k] + 0.055) / 1.055, 2.4);
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

/* Does a white label contrast more with c than a dark one (TEXT_DARK, luminance 0.0103)?
 * WCAG's contrast ratio, (L1 + 0.05) / (L2 + 0.05): on the warm hues and mid viridis
 * colours a plain lightness threshold puts white where dark reads better. */
static int is_dark(struct rgb c)
{
    double l = luminance(c);
    return (1.0 + 0.05) / (l + 0.05) > (l + 0.05) / (0.0103 + 0.05);
}

static const struct calltree_sums *frame_rate(const struct layout *l, size_t i)
{
    return &l->t->frames[i].side[0].incl.rates[l->look->rate];
}

/* Is frame i a function's context? Not the root, a thread, a group, or a tree's root or
 * overflow node. */
static int is_function(const struct flame_frame *f)
{
    return f->kind == FLAME_CONTEXT && strcmp(f->name, CALLTREE_ROOT_NAME) != 0 &&
           strcmp(f->name, CALLTREE_OVERFLOW_NAME) != 0;
}

/* Frame i's fill (a colour, or the hatch) and whether its label must be light. */
static void frame_fill(const struct layout *l, size_t i, char *fill, size_t len, int *light)
{
    const struct flame_frame *f = &l->t->frames[i];
    struct rgb c = {210, 210, 210};
    *light = 0;
    if (l->diff) {
        if (!flame_tree_has(l->t, i, 0)) {
            snprintf(fill, len, "url(#%s)", HATCH_ID);
            return;
        }
        double d = flame_tree_share_diff(l->t, i).value;
        c = diverging(isnan(d) ? 0 : d, l->hi);
    } else if (l->look->rate >= 0) {
        double v = calltree_rate(frame_rate(l, i));
        if (isnan(v)) {
            snprintf(fill, len, "%s", NO_RATE);
            return;
        }
        c = viridis(l->hi > l->lo ? (v - l->lo) / (l->hi - l->lo) : 0.5);
    } else if (is_function(f)) {
        c = hashed(f->name);
    } else {
        snprintf(fill, len, "%s", GREY);
        return;
    }
    *light = is_dark(c);
    hex(c, fill, len);
}

/* ---- layout ---- */

/* Each frame's width in units of the root's: its inclusive samples; in a difference its
 * exclusive share in B and its children's widths, or its share in A when B has none. */
static void extents(const struct layout *l, double *e)
{
    const struct flame_tree *t = l->t;
    for (size_t i = 0; i < t->nframes; i++) {
        const struct flame_counts *c = &t->frames[i].side[0];
        e[i] = !l->diff                  ? (double)c->incl.samples
               : flame_tree_has(t, i, 0) ? stats_fraction(c->excl.samples, t->ct[0]->attributed)
                                         : 0;
    }
    if (!l->diff) return;
    for (size_t i = t->nframes; i-- > 1;) {
        if (!flame_tree_has(t, i, 0)) e[i] = flame_tree_share(t, i, 1);
        if (isnan(e[i])) e[i] = 0;
        if (flame_tree_has(t, t->frames[i].parent, 0)) e[t->frames[i].parent] += e[i];
    }
}

static int place(struct layout *l)
{
    const struct flame_tree *t = l->t;
    size_t n = t->nframes;
    double *e = calloc(n + 1, sizeof *e), graph = l->look->width - 2 * MARGIN;
    l->x = malloc(n * sizeof *l->x);
    l->w = malloc(n * sizeof *l->w);
    l->drawn = calloc(n, 1);
    if (!e || !l->x || !l->w || !l->drawn) {
        free(e);
        return -1;
    }
    extents(l, e);
    double unit = e[0] > 0 ? graph / e[0] : 0;
    l->x[0] = MARGIN;
    l->w[0] = e[0] > 0 ? graph : 0;
    l->drawn[0] = e[0] > 0;
    for (size_t i = 0; i < n; i++) { /* a parent is placed before its children */
        double x = l->x[i];
        for (size_t k = 0; k < t->frames[i].nkids; k++) {
            size_t c = t->kids[t->frames[i].first + k];
            l->x[c] = x;
            l->w[c] = e[c] * unit;
            x += l->w[c];
            l->drawn[c] = l->drawn[i] && l->w[c] >= FLAME_MIN_WIDTH;
            l->hidden += l->drawn[i] && !l->drawn[c];
            if (l->drawn[c] && t->frames[c].depth > l->depth) l->depth = t->frames[c].depth;
        }
    }
    free(e);
    return 0;
}

/* The colour scale: the rates of the drawn frames with enough periods (any period when
 * none has enough), or from minus to plus the largest change of share drawn. */
static void scale(struct layout *l)
{
    const struct flame_tree *t = l->t;
    if (l->diff) {
        double m = 0;
        for (size_t i = 0; i < t->nframes; i++) {
            double d = l->drawn[i] ? flame_tree_share_diff(t, i).value : NAN;
            if (!isnan(d) && fabs(d) > m) m = fabs(d);
        }
        l->scaled = m > 0;
        l->hi = m > 0 ? m : 0.01; /* the largest change is the deepest colour */
        l->lo = -l->hi;
        return;
    }
    if (l->look->rate < 0) return;
    for (int pass = 0; pass < 2 && !l->scaled; pass++) {
        for (size_t i = 0; i < t->nframes; i++) {
            const struct calltree_sums *s = frame_rate(l, i);
            double v = calltree_rate(s);
            if (!l->drawn[i] || isnan(v) || (pass == 0 && s->n < FLAME_SCALE_PERIODS)) continue;
            if (!l->scaled || v < l->lo) l->lo = v;
            if (!l->scaled || v > l->hi) l->hi = v;
            l->scaled = 1;
        }
    }
}

static double frame_y(const struct layout *l, size_t depth)
{
    double level = l->look->icicle ? (double)depth : (double)(l->depth - depth);
    return GRAPH_TOP + level * ROW;
}

/* ---- tooltips ---- */

static void put_counts(FILE *f, const char *what, const struct calltree_count *c, uint64_t whole)
{
    char a[32], pct[16];
    fprintf(f, "%s: %s samples, %s", what, fmt_count(c->samples, a, sizeof a),
            stats_format_share(stats_fraction(c->samples, whole), pct, sizeof pct));
}

/* Rate r of profile p over sums s: "R ± CI" with the interval's mark (intervals.h). */
static const char *fmt_rate(const struct profile *p, size_t r, const struct calltree_sums *s,
                            char *buf, size_t len)
{
    double v = calltree_rate(s);
    if (isnan(v)) return "no period kept";
    struct interval iv = calltree_rate_interval(p, r, s);
    double half = interval_half(&iv);
    char pm[64];
    snprintf(buf, len, "%s%s", plot_fmt_interval(&iv, v, pm, sizeof pm),
             isfinite(half) && half > 0 ? interval_mark(iv.basis) : ""); /* as plot_fmt_pm */
    return buf;
}

/* What a frame that is not a function stands for. */
static const char *frame_note(const struct flame_frame *f)
{
    if (f->kind == FLAME_ALL) return "every attributed sample: the shares are of these";
    if (f->kind == FLAME_THREAD)
        return "its exclusive samples are outside every instrumented function";
    if (f->kind == FLAME_CONTEXT && strcmp(f->name, CALLTREE_ROOT_NAME) == 0)
        return "samples outside every instrumented function";
    if (f->kind == FLAME_CONTEXT && strcmp(f->name, CALLTREE_OVERFLOW_NAME) == 0)
        return "samples of contexts the calling-context arena had no room for";
    if (f->kind != FLAME_GROUP) return NULL;
    if (strcmp(f->name, "other") == 0) return "samples whose tags found no room in the tag table";
    if (strcmp(f->name, "(idle)") == 0) return "samples of the idle observed CPU";
    if (strcmp(f->name, "(other processes)") == 0)
        return "samples of other processes on the observed CPU";
    return "samples of the program's threads without a calling-context tree";
}

/* The rates of one side: "NAME: inclusive R ± CI, exclusive R ± CI (UNIT)" a line each. */
static void put_rates(FILE *f, const struct flame_tree *t, size_t i, size_t s, const char *side)
{
    const struct profile *p = t->ct[s]->p;
    const struct flame_counts *c = &t->frames[i].side[s];
    char a[64], b[64];
    for (size_t r = 0; r < p->nrates; r++)
        fprintf(f, "\n%s%s: inclusive %s, exclusive %s%s%s%s", side, p->rates[r].name,
                fmt_rate(p, r, &c->incl.rates[r], a, sizeof a),
                fmt_rate(p, r, &c->excl.rates[r], b, sizeof b), p->rates[r].unit[0] ? " (" : "",
                p->rates[r].unit, p->rates[r].unit[0] ? ")" : "");
}

/* A change of share in percentage points, to the precision half (a fraction) supports,
 * with its sign. */
static const char *fmt_points(double v, double half, char *buf, size_t len)
{
    char pm[64];
    stats_format_estimate(100 * v, 100 * half, buf + 1, pm, len - 1);
    buf[0] = '+';
    return buf[1] == '-' ? buf + 1 : buf;
}

static void put_diff(FILE *f, const struct flame_tree *t, size_t i)
{
    struct interval d = flame_tree_share_diff(t, i);
    double half = interval_half(&d);
    char v[64], lo[64], hi[64];
    if (!flame_tree_has(t, i, 0)) fputs("\nonly in A", f);
    if (!flame_tree_has(t, i, 1)) fputs("\nonly in B", f);
    for (size_t s = 0; s < 2; s++) {
        fputs(s == 0 ? "\nB " : "\nA ", f);
        put_counts(f, "inclusive", &t->frames[i].side[s].incl, t->ct[s]->attributed);
        put_counts(f, "; exclusive", &t->frames[i].side[s].excl, t->ct[s]->attributed);
    }
    if (isnan(d.value)) return;
    fprintf(f, "\nchange of inclusive share, B - A: %s percentage points",
            fmt_points(d.value, half, v, sizeof v));
    if (!isnan(half))
        fprintf(f, "\n95%% interval: %s to %s%s; it %s 0", fmt_points(d.lo, half, lo, sizeof lo),
                fmt_points(d.hi, half, hi, sizeof hi), interval_mark(d.basis),
                interval_excludes_zero(&d) ? "excludes" : "includes");
    put_rates(f, t, i, 0, "B ");
    put_rates(f, t, i, 1, "A ");
}

/* Frame i's tooltip, in *out (free it); -1 if memory ran out. */
static int tooltip(const struct layout *l, size_t i, char **out)
{
    const struct flame_tree *t = l->t;
    const struct flame_frame *fr = &t->frames[i];
    size_t len;
    FILE *f = open_memstream(out, &len);
    if (!f) return -1;
    fputs(fr->name, f);
    if (fr->kind == FLAME_THREAD) fprintf(f, "\ntree index %" PRIu64, fr->index);
    const char *note = frame_note(fr);
    if (note) fprintf(f, "\n%s", note);
    if (fr->kind == FLAME_CONTEXT && i > 0 && t->frames[fr->parent].kind == FLAME_CONTEXT)
        fprintf(f, "\ncalled from %s", t->frames[fr->parent].name);
    if (l->diff) {
        put_diff(f, t, i);
    } else {
        fputc('\n', f);
        put_counts(f, "inclusive", &fr->side[0].incl, t->ct[0]->attributed);
        fputc('\n', f);
        put_counts(f, "exclusive", &fr->side[0].excl, t->ct[0]->attributed);
        put_rates(f, t, i, 0, "");
    }
    if (i == 0) { /* what the intervals are, once */
        char legend[512];
        for (size_t s = 0; s < t->nsides; s++)
            fprintf(f, "\n%s%s", t->nsides > 1 ? (s ? "A: " : "B: ") : "",
                    intervals_legend(t->ct[s]->p, legend, sizeof legend));
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- drawing ---- */

/* A <title> of several lines: each escaped (markup_escape() turns a newline into U+FFFD,
 * as it does every control character), joined by newlines, which browsers show as line
 * breaks. */
static void put_title(FILE *f, char *text)
{
    fputs("<title>", f);
    for (char *line = text, *nl; line; line = nl ? nl + 1 : NULL) {
        if ((nl = strchr(line, '\n'))) *nl = '\0';
        markup_escape(f, line);
        if (nl) fputc('\n', f);
    }
    fputs("</title>\n", f);
}

static int draw_frame(struct svg *s, const struct layout *l, size_t i)
{
    const struct flame_tree *t = l->t;
    char *title = NULL, fill[32], label[512];
    int light;
    if (tooltip(l, i, &title) != 0) return -1;
    frame_fill(l, i, fill, sizeof fill, &light);
    double x = l->x[i], w = l->w[i], y = frame_y(l, t->frames[i].depth);
    const char *stroke = NULL;
    double stroke_width = 0.5;
    struct interval d = flame_tree_share_diff(t, i);
    if (l->diff && interval_excludes_zero(&d)) {
        if (w >= SIGNIFICANT_MIN_WIDTH) {
            stroke = "#000000";
            stroke_width = SIGNIFICANT_STROKE;
        }
    } else if (w >= 2) {
        stroke = l->diff ? "#b4b4b4" : "#ffffff";
    }
    svg_group_begin(s, "frame", NULL, NULL);
    put_title(s->f, title);
    svg_rect_outlined(s, x, y, w, FRAME_HEIGHT, fill, stroke, stroke_width);
    const struct svg_text_style st = {.size = LABEL_SIZE, .fill = light ? TEXT_LIGHT : TEXT_DARK};
    label[0] = '\0';
    if (w - 6 >= 2 * LABEL_SIZE)
        svg_fit_text(t->frames[i].name, LABEL_SIZE, 0, w - 6, label, sizeof label);
    svg_text(s, x + 3, y + FRAME_HEIGHT - 5, &st, label);
    svg_group_end(s);
    free(title);
    return 0;
}

/* A bar of colours over [lo, hi] at (x, y) with ticks under it, and what it shows. */
static void colour_bar(struct svg *s, const struct layout *l, double x, double y, const char *what)
{
    const struct svg_text_style tick = {.size = PLOT_TICK_SIZE, .anchor = SVG_MIDDLE};
    const struct svg_text_style text = {.size = LEGEND_SIZE};
    char fill[32], buf[32];
    for (int k = 0; k < BAR_STEPS; k++) {
        double v = l->lo + (l->hi - l->lo) * (k + 0.5) / BAR_STEPS;
        hex(l->diff ? diverging(v, l->hi) : viridis((v - l->lo) / (l->hi - l->lo)), fill,
            sizeof fill);
        svg_rect(s, x + BAR_WIDTH * k / BAR_STEPS, y, BAR_WIDTH / BAR_STEPS + 0.4, 12, fill, 1,
                 NULL);
    }
    svg_rect(s, x, y, BAR_WIDTH, 12, NULL, 1, "#888888");
    struct plot_ticks ticks;
    double scale = l->diff ? 100 : 1; /* a change of share in percentage points */
    plot_ticks_linear(&ticks, l->lo * scale, l->hi * scale, 4);
    for (size_t k = 0; k < ticks.n; k++) {
        double tx = x + BAR_WIDTH * (ticks.v[k] / scale - l->lo) / (l->hi - l->lo);
        svg_line(s, tx, y + 12, tx, y + 16, PLOT_AXIS, 1, NULL);
        plot_fmt_tick(buf, sizeof buf, ticks.v[k], &ticks);
        svg_textf(s, tx, y + 28, &tick, "%s%s", l->diff && ticks.v[k] > 0 ? "+" : "", buf);
    }
    char fitted[512];
    double room = l->look->width - MARGIN - (x + BAR_WIDTH + 16);
    svg_text(s, x + BAR_WIDTH + 16, y + 11, &text,
             svg_fit_text(what, LEGEND_SIZE, 0, room, fitted, sizeof fitted));
}

/* The legend under the graph, from y: what the widths and the colours say, what was left
 * out. Returns the baseline of its last line. */
static double legend(struct svg *s, const struct layout *l, double y)
{
    const struct svg_text_style text = {.size = LEGEND_SIZE};
    const struct svg_text_style grey = {.size = LEGEND_SIZE, .fill = PLOT_TEXT_GREY};
    const struct flame_tree *t = l->t;
    char buf[512], label[256];
    double room = l->look->width - 2 * MARGIN;
    const char *where = l->look->icicle ? "hangs below" : "sits on";
    if (l->diff)
        snprintf(label, sizeof label,
                 "Width: the frame's inclusive share of the attributed samples in B (hatched: "
                 "its share in A, for frames B does not have); a frame %s its caller.",
                 where);
    else
        snprintf(label, sizeof label,
                 "Width: inclusive samples (the frame's and its callees'); a frame %s its "
                 "caller, its callees left to right from the heaviest.",
                 where);
    svg_text(s, MARGIN, y, &text, svg_fit_text(label, LEGEND_SIZE, 0, room, buf, sizeof buf));
    if (l->diff) {
        colour_bar(s, l, MARGIN + 12, y + 12,
                   "colour: change of inclusive share B - A, in percentage points");
        y += 58;
        svg_rect(s, MARGIN, y - 11, 36, 14, "url(#" HATCH_ID ")", 1, "#888888");
        svg_text(s, MARGIN + 44, y, &text, "only in A");
        svg_rect_outlined(s, MARGIN + 160, y - 11, 36, 14, "#ffffff", "#000000",
                          SIGNIFICANT_STROKE);
        svg_text(s, MARGIN + 204, y, &text, "the 95% interval of the change excludes 0");
    } else if (l->look->rate >= 0 && l->scaled) {
        plot_rate_label_of(t->ct[0]->p, (size_t)l->look->rate, label, sizeof label);
        snprintf(buf, sizeof buf,
                 "colour: %s over the frame's inclusive periods (pale grey: none kept)", label);
        colour_bar(s, l, MARGIN + 12, y + 12, buf);
        y += 40;
    } else {
        y += 18;
        svg_text(s, MARGIN, y, &text,
                 l->look->rate >= 0 ? "Colour: no frame has a kept period of the rate"
                                    : "Colour: a hue per function's name; grey: the root, threads "
                                      "and samples outside every function");
    }
    if (l->hidden) {
        y += 18;
        snprintf(buf, sizeof buf,
                 "%zu frames narrower than %.1f px are not drawn: their samples are in their "
                 "callers' widths.",
                 l->hidden, FLAME_MIN_WIDTH);
        svg_text(s, MARGIN, y, &grey, buf);
    }
    return y;
}

/* What legend() takes below its first baseline. */
static double legend_height(const struct layout *l)
{
    double h = l->diff ? 58 : l->look->rate >= 0 && l->scaled ? 40 : 18;
    return h + (l->hidden ? 18 : 0);
}

static void title(struct svg *s, const struct layout *l)
{
    const struct svg_text_style t = {.size = PLOT_TITLE_SIZE, .bold = 1, .klass = "title"};
    const struct svg_text_style sub = {
        .size = PLOT_SUBTITLE_SIZE, .fill = PLOT_TEXT_GREY, .klass = "subtitle"};
    const struct flame_tree *tr = l->t;
    const struct flame_frame *root = &tr->frames[0];
    const struct profile *p = tr->ct[0]->p;
    double room = l->look->width - 2 * MARGIN;
    char text[512], buf[512], a[32], b[32], pct[16];
    const char *kind = l->look->icicle ? "icicle" : "flame";
    if (l->diff)
        snprintf(text, sizeof text, "Differential %s graph: %s (A) to %s (B)", kind,
                 l->look->source[1], l->look->source[0]);
    else
        snprintf(text, sizeof text, "%c%s graph: %s", kind[0] - 'a' + 'A', kind + 1,
                 l->look->source[0]);
    svg_text(s, MARGIN, 26, &t, svg_fit_text(text, t.size, 1, room, buf, sizeof buf));
    if (l->diff)
        snprintf(text, sizeof text,
                 "%s: %s attributed samples in A, %s in B; threads folded together",
                 p->program.name, fmt_count(tr->ct[1]->attributed, a, sizeof a),
                 fmt_count(tr->ct[0]->attributed, b, sizeof b));
    else if (root->kind == FLAME_THREAD)
        snprintf(text, sizeof text, "%s, %s: %s samples, %s of the %s attributed", p->program.name,
                 root->name, fmt_count(root->side[0].incl.samples, a, sizeof a),
                 stats_format_share(flame_tree_share(tr, 0, 0), pct, sizeof pct),
                 fmt_count(tr->ct[0]->attributed, b, sizeof b));
    else
        snprintf(text, sizeof text, "%s: %s attributed samples", p->program.name,
                 fmt_count(tr->ct[0]->attributed, a, sizeof a));
    /* the script's hint goes on the right of that line */
    svg_text(s, MARGIN, 46, &sub, svg_fit_text(text, sub.size, 0, room - 300, buf, sizeof buf));
}

/* The zoom: the figure reads the same without it (see the file's comment). */
static void script(struct svg *s, const struct layout *l)
{
    fprintf(s->f,
            "<script type=\"text/ecmascript\"><![CDATA[\n"
            "(function () {\n"
            "var all = document.getElementsByTagName('script');\n"
            "var svg = (document.currentScript || all[all.length - 1]).parentNode;\n"
            "var L = %g, W = %g, ROW = %g, BASE = %g, ICICLE = %d, FONT = %g, DARK = '%s';\n",
            MARGIN, l->look->width - 2 * MARGIN, ROW, frame_y(l, 0), l->look->icicle, LABEL_SIZE,
            TEXT_DARK);
    fputs("var frames = Array.prototype.map.call(svg.querySelectorAll('g.frame'), function (g) {\n"
          "  var r = g.querySelector('rect'), t = g.querySelector('text'), "
          "n = g.querySelector('title');\n"
          "  var y = +r.getAttribute('y');\n"
          "  g.style.cursor = 'pointer';\n"
          "  return {g: g, r: r, t: t, x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
          "    ink: t ? t.getAttribute('fill') : null,\n"
          "    d: Math.round((ICICLE ? y - BASE : BASE - y) / ROW),\n"
          "    name: n ? n.textContent.split('\\n')[0] : ''};\n"
          "});\n"
          "function label(f, w) {\n"
          "  var n = Math.floor((w - 6) / (FONT * 0.62));\n"
          "  if (n < 3) return '';\n"
          "  return f.name.length <= n ? f.name : f.name.slice(0, n - 1) + '\\u2026';\n"
          "}\n"
          "function zoom(z) {\n"
          "  frames.forEach(function (f) {\n"
          "    var x = f.x, w = f.w, shown = true, faded = false, e = 0.15;\n"
          "    if (z && f.d >= z.d && f.x >= z.x - e && f.x + f.w <= z.x + z.w + e) {\n"
          "      x = L + (f.x - z.x) * W / z.w; w = f.w * W / z.w;\n"
          "    } else if (z && f.d < z.d && f.x <= z.x + e && f.x + f.w >= z.x + z.w - e) {\n"
          "      x = L; w = W; faded = true;\n"
          "    } else if (z) {\n"
          "      shown = false;\n"
          "    }\n"
          "    f.g.style.display = shown ? '' : 'none';\n"
          "    f.g.style.opacity = faded ? '0.6' : '';\n"
          "    f.r.setAttribute('x', x); f.r.setAttribute('width', w);\n"
          "    if (f.t) {\n"
          "      f.t.setAttribute('x', x + 3); f.t.textContent = label(f, w);\n"
          "      f.t.setAttribute('fill', faded ? DARK : f.ink); /* white would fade away */\n"
          "    }\n"
          "  });\n"
          "}\n"
          "svg.addEventListener('click', function (ev) {\n"
          "  var g = ev.target;\n"
          "  while (g && g !== svg && !(g.getAttribute && g.getAttribute('class') === 'frame'))\n"
          "    g = g.parentNode;\n"
          "  if (!g || g === svg) return;\n"
          "  var f = frames.filter(function (f) { return f.g === g; })[0];\n"
          "  zoom(f.d === 0 ? null : f);\n"
          "});\n"
          "var hint = document.createElementNS('http://www.w3.org/2000/svg', 'text');\n"
          "hint.setAttribute('x', L + W); hint.setAttribute('y', 46);\n"
          "hint.setAttribute('text-anchor', 'end'); hint.setAttribute('font-size', '12');\n"
          "hint.setAttribute('fill', '#555555');\n"
          "hint.textContent = 'click a frame to zoom in, the root to zoom out';\n"
          "svg.appendChild(hint);\n"
          "})();\n"
          "]]></script>\n",
          s->f);
}

int flame_write(FILE *f, const struct flame_tree *t, const struct flame_look *look)
{
    struct layout l = {.t = t, .look = look, .diff = t->nsides > 1};
    int rc = place(&l);
    if (rc == 0) {
        scale(&l);
        struct svg s;
        double graph_bottom = frame_y(&l, look->icicle ? l.depth : 0) + ROW;
        double height = graph_bottom + 24 + legend_height(&l) + 12;
        char name[512];
        snprintf(name, sizeof name, "%s%s graph of %s", l.diff ? "Differential " : "",
                 look->icicle ? "icicle" : "flame", look->source[0]);
        svg_begin(&s, f, look->kind, look->width, height, name);
        if (l.diff) svg_pattern_hatch(&s, HATCH_ID, "#ffffff", "#6d9bc9");
        title(&s, &l);
        for (size_t i = 0; rc == 0 && i < t->nframes; i++)
            if (l.drawn[i]) rc = draw_frame(&s, &l, i);
        if (!l.drawn[0]) {
            const struct svg_text_style st = {.size = LEGEND_SIZE, .fill = PLOT_TEXT_GREY};
            svg_text(&s, MARGIN, GRAPH_TOP + 12, &st, "no samples: nothing to draw");
        }
        legend(&s, &l, graph_bottom + 24);
        script(&s, &l);
        svg_end(&s);
    }
    free(l.x);
    free(l.w);
    free(l.drawn);
    return rc;
}
