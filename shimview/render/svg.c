/*
 * svg.c -- the SVG writer: elements with inline attributes, XML escaping, text widths.
 *
 * Coordinates are written with one decimal: a tenth of a pixel is below what a screen or
 * a printer shows, and it keeps files small (a histogram has hundreds of bars).
 *
 * Text goes through markup_escape() (markup.c), which decodes UTF-8 itself rather than
 * trusting it: the five XML specials become entities, and anything XML 1.0 forbids in a
 * document (C0 controls, U+FFFE, U+FFFF, bytes that are not UTF-8) becomes U+FFFD, so no
 * tag name can make a figure ill-formed.
 */
#include "shimview/render/svg.h"
#include "shimview/base/markup.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TEXT_SIZE  12.0
#define DEFAULT_TEXT_COLOR "#222222"

/* ---- text widths ---- */

/* Advance widths of DejaVu Sans in thousandths of an em, for ' ' (0x20) to '~' (0x7e). */
static const unsigned short ascii_width[95] = {
    318,  401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, /*  ../ */
    636,  636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, /* 0..? */
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, /* @..O */
    603,  787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, /* P.._ */
    500,  613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, /* `..o */
    635,  635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,      /* p..~ */
};

static int is_wide(long cp)
{
    return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
           (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
           (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
           (cp >= 0xffe0 && cp <= 0xffe6) || cp >= 0x1f300;
}

static double codepoint_em(long cp)
{
    if (cp >= 0x20 && cp <= 0x7e) return ascii_width[cp - 0x20] / 1000.0;
    if (cp >= 0x300 && cp <= 0x36f) return 0; /* combining marks */
    if (is_wide(cp) || cp == 0x2026) return 1.0;
    return 0.84; /* the widest of the symbols the figures use (±, ≥, −, ×) */
}

double svg_text_width(const char *text, double size, int bold)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), adv;
    double em = 0;
    for (size_t i = 0; i < n; i += adv) {
        long cp = markup_utf8_next(s + i, n - i, &adv);
        em += codepoint_em(cp < 0 ? MARKUP_REPLACEMENT_CHAR : cp);
    }
    return em * (size > 0 ? size : DEFAULT_TEXT_SIZE) * (bold ? 1.1 : 1.0);
}

char *svg_fit_text(const char *text, double size, int bold, double max_width, char *buf, size_t len)
{
    static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
    if (len == 0) return buf;
    buf[0] = '\0';
    size_t n = strlen(text);
    if (svg_text_width(text, size, bold) <= max_width && n < len) {
        memcpy(buf, text, n + 1);
        return buf;
    }
    double budget = max_width - svg_text_width(ellipsis, size, bold);
    double scale = (size > 0 ? size : DEFAULT_TEXT_SIZE) * (bold ? 1.1 : 1.0);
    const unsigned char *s = (const unsigned char *)text;
    size_t keep = 0, adv;
    double w = 0;
    for (size_t i = 0; i < n; i += adv) {
        long cp = markup_utf8_next(s + i, n - i, &adv);
        w += codepoint_em(cp < 0 ? MARKUP_REPLACEMENT_CHAR : cp) * scale;
        if (w > budget || i + adv + sizeof ellipsis > len) break;
        keep = i + adv;
    }
    memcpy(buf, text, keep);
    memcpy(buf + keep, ellipsis, sizeof ellipsis);
    return buf;
}

/* ---- elements ---- */

/* A coordinate or length with one decimal, without a "-0.0". */
static void put_num(FILE *f, double v)
{
    if (!isfinite(v)) v = 0;
    double r = round(v * 10) / 10;
    if (r == 0) r = 0;
    if (r == floor(r))
        fprintf(f, "%.0f", r);
    else
        fprintf(f, "%.1f", r);
}

static void put_attr_num(FILE *f, const char *name, double v)
{
    fprintf(f, " %s=\"", name);
    put_num(f, v);
    fputc('"', f);
}

static void put_attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    markup_escape(f, value);
    fputc('"', f);
}

void svg_begin(struct svg *s, FILE *f, enum svg_kind kind, double width, double height,
               const char *title)
{
    s->f = f;
    s->width = width;
    s->height = height;
    if (kind == SVG_DOCUMENT) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"", f);
    put_attr_num(f, "width", width);
    put_attr_num(f, "height", height);
    fprintf(f, " viewBox=\"0 0 ");
    put_num(f, width);
    fputc(' ', f);
    put_num(f, height);
    fputc('"', f);
    put_attr(f, "font-family", SVG_FONT_FAMILY);
    fputs(">\n<title>", f);
    markup_escape(f, title);
    fputs("</title>\n", f);
    svg_rect(s, 0, 0, width, height, "#ffffff", 1, NULL);
}

void svg_end(struct svg *s)
{
    fputs("</svg>\n", s->f);
}

void svg_group_begin(struct svg *s, const char *klass, const char *id, const char *title)
{
    fputs("<g", s->f);
    if (klass) put_attr(s->f, "class", klass);
    if (id) put_attr(s->f, "id", id);
    fputs(">\n", s->f);
    if (title) {
        fputs("<title>", s->f);
        markup_escape(s->f, title);
        fputs("</title>\n", s->f);
    }
}

void svg_group_end(struct svg *s)
{
    fputs("</g>\n", s->f);
}

void svg_text(struct svg *s, double x, double y, const struct svg_text_style *st, const char *text)
{
    static const struct svg_text_style plain = {0};
    static const char *const anchors[] = {"start", "middle", "end"};
    if (!st) st = &plain;
    FILE *f = s->f;
    fputs("<text", f);
    if (st->klass) put_attr(f, "class", st->klass);
    put_attr_num(f, "x", x);
    put_attr_num(f, "y", y);
    put_attr_num(f, "font-size", st->size > 0 ? st->size : DEFAULT_TEXT_SIZE);
    if (st->anchor != SVG_START) put_attr(f, "text-anchor", anchors[st->anchor]);
    if (st->bold) put_attr(f, "font-weight", "bold");
    put_attr(f, "fill", st->fill ? st->fill : DEFAULT_TEXT_COLOR);
    if (st->vertical) {
        fputs(" transform=\"rotate(-90 ", f);
        put_num(f, x);
        fputc(' ', f);
        put_num(f, y);
        fputs(")\"", f);
    }
    fputc('>', f);
    markup_escape(f, text);
    fputs("</text>\n", f);
}

void svg_textf(struct svg *s, double x, double y, const struct svg_text_style *st, const char *fmt,
               ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    svg_text(s, x, y, st, buf);
}

void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke,
              double width, const char *dash)
{
    FILE *f = s->f;
    fputs("<line", f);
    put_attr_num(f, "x1", x1);
    put_attr_num(f, "y1", y1);
    put_attr_num(f, "x2", x2);
    put_attr_num(f, "y2", y2);
    put_attr(f, "stroke", stroke);
    put_attr_num(f, "stroke-width", width);
    if (dash) put_attr(f, "stroke-dasharray", dash);
    fputs("/>\n", f);
}

/* A rect's opening and geometry, and its fill. */
static void rect_begin(FILE *f, double x, double y, double w, double h, const char *fill)
{
    fputs("<rect", f);
    put_attr_num(f, "x", x);
    put_attr_num(f, "y", y);
    put_attr_num(f, "width", w);
    put_attr_num(f, "height", h);
    put_attr(f, "fill", fill ? fill : "none");
}

void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
              double opacity, const char *stroke)
{
    FILE *f = s->f;
    rect_begin(f, x, y, w, h, fill);
    if (fill && opacity < 1) fprintf(f, " fill-opacity=\"%.2f\"", opacity);
    if (stroke) put_attr(f, "stroke", stroke);
    fputs("/>\n", f);
}

void svg_circle(struct svg *s, double cx, double cy, double r, const char *fill, const char *stroke)
{
    FILE *f = s->f;
    fputs("<circle", f);
    put_attr_num(f, "cx", cx);
    put_attr_num(f, "cy", cy);
    put_attr_num(f, "r", r);
    put_attr(f, "fill", fill ? fill : "none");
    if (stroke) put_attr(f, "stroke", stroke);
    fputs("/>\n", f);
}

void svg_rect_outlined(struct svg *s, double x, double y, double w, double h, const char *fill,
                       const char *stroke, double stroke_width)
{
    FILE *f = s->f;
    rect_begin(f, x, y, w, h, fill);
    if (stroke) {
        put_attr(f, "stroke", stroke);
        put_attr_num(f, "stroke-width", stroke_width);
    }
    fputs("/>\n", f);
}

void svg_pattern_hatch(struct svg *s, const char *id, const char *background, const char *line)
{
    FILE *f = s->f;
    fputs("<defs><pattern", f);
    put_attr(f, "id", id);
    fputs(" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\""
          " patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\"",
          f);
    put_attr(f, "fill", background);
    fputs("/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke-width=\"3\"", f);
    put_attr(f, "stroke", line);
    fputs("/></pattern></defs>\n", f);
}

void svg_path_begin(struct svg *s)
{
    fputs("<path d=\"", s->f);
}

void svg_path_move(struct svg *s, double x, double y)
{
    fputc('M', s->f);
    put_num(s->f, x);
    fputc(' ', s->f);
    put_num(s->f, y);
}

void svg_path_line(struct svg *s, double x, double y)
{
    fputc('L', s->f);
    put_num(s->f, x);
    fputc(' ', s->f);
    put_num(s->f, y);
}

void svg_path_end(struct svg *s, const char *stroke, double width, const char *fill,
                  double fill_opacity, const char *dash)
{
    FILE *f = s->f;
    fputc('"', f);
    put_attr(f, "fill", fill ? fill : "none");
    if (fill && fill_opacity < 1) fprintf(f, " fill-opacity=\"%.2f\"", fill_opacity);
    put_attr(f, "stroke", stroke ? stroke : "none");
    if (stroke) put_attr_num(f, "stroke-width", width);
    if (dash) put_attr(f, "stroke-dasharray", dash);
    if (stroke) put_attr(f, "stroke-linejoin", "round");
    fputs("/>\n", f);
}
