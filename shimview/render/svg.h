/*
 * svg.h -- a small writer of self-contained SVG 1.1 documents.
 *
 * shimview's figures are plain SVG text: every element carries its own presentation
 * attributes (no style sheet, no script, no external font or image), so a file opens the
 * same in a browser, an editor or a document converter, offline. This writer knows only
 * the handful of elements the figures use -- text, line, rect, path, circle, groups and
 * titles -- and it takes care of the two things that are easy to get wrong by hand:
 * escaping text for XML (profile strings are data: any '<' or control byte must come out
 * harmless; markup.c does it, for the HTML report too) and guessing how wide a string will be
 * drawn, so that labels can be fitted or cut with "…" before they collide. The guess uses the
 * advance widths of DejaVu Sans, which is wider than the other fonts the family list names, so a
 * string that fits by this measure fits on screen.
 *
 * Write errors are not checked call by call: the caller checks ferror() on the stream
 * once the document is done.
 */
#ifndef SHIMVIEW_SVG_H
#define SHIMVIEW_SVG_H

#include <stddef.h>
#include <stdio.h>

/* The font family of every text element. */
#define SVG_FONT_FAMILY "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };

/* How one text element is drawn. A zero-initialised style is 12 px, left-anchored,
 * regular, in the default text colour. */
struct svg_text_style {
    double size; /* px; 0 means 12 */
    enum svg_anchor anchor;
    int bold;
    const char *fill;  /* NULL: the default text colour */
    const char *klass; /* the class attribute, or NULL */
    int vertical;      /* rotated -90 degrees about (x, y), reading upwards */
};

struct svg {
    FILE *f;
    double width, height;
};

/* What svg_begin opens: a file of its own, or an svg element inside an HTML page,
 * which must not start with an XML declaration. */
enum svg_kind { SVG_DOCUMENT, SVG_INLINE };

/* Open the document: the XML declaration (SVG_DOCUMENT only), the svg element with its
 * size, a <title> (the figure's name in a browser tab, a tooltip in a page), and a white
 * background. */
void svg_begin(struct svg *s, FILE *f, enum svg_kind kind, double width, double height,
               const char *title);
void svg_end(struct svg *s);

/* A group; klass and id may be NULL. A non-NULL title becomes the group's <title>
 * (a tooltip, and the full text of a label the figure had to shorten). */
void svg_group_begin(struct svg *s, const char *klass, const char *id, const char *title);
void svg_group_end(struct svg *s);

void svg_text(struct svg *s, double x, double y, const struct svg_text_style *st, const char *text);
void svg_textf(struct svg *s, double x, double y, const struct svg_text_style *st, const char *fmt,
               ...) __attribute__((format(printf, 5, 6)));

/* dash is a stroke-dasharray such as "4 3", or NULL for a solid line. */
void svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke,
              double width, const char *dash);
/* fill or stroke may be NULL (none); opacity applies to the fill. */
void svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
              double opacity, const char *stroke);
void svg_circle(struct svg *s, double cx, double cy, double r, const char *fill,
                const char *stroke);

/* A rect with an outline stroke_width px wide (stroke NULL: none); fill may name a
 * pattern, "url(#ID)". */
void svg_rect_outlined(struct svg *s, double x, double y, double w, double h, const char *fill,
                       const char *stroke, double stroke_width);

/* A pattern of diagonal lines on a background, for fill="url(#ID)": what is there only in
 * part, or only elsewhere. */
void svg_pattern_hatch(struct svg *s, const char *id, const char *background, const char *line);

/* A path built point by point: svg_path_begin, then svg_path_move / svg_path_line, then
 * svg_path_end. fill may be NULL (an open line). */
void svg_path_begin(struct svg *s);
void svg_path_move(struct svg *s, double x, double y);
void svg_path_line(struct svg *s, double x, double y);
void svg_path_end(struct svg *s, const char *stroke, double width, const char *fill,
                  double fill_opacity, const char *dash);

/* The drawn width in px of UTF-8 text at size px (bold: 10% wider), an upper estimate. */
double svg_text_width(const char *text, double size, int bold);

/* text cut to at most max_width px at size px, ending in "…" when it was cut, in buf
 * (len bytes); returns buf. Cuts at character boundaries, never inside a UTF-8 sequence. */
char *svg_fit_text(const char *text, double size, int bold, double max_width, char *buf,
                   size_t len);

#endif /* SHIMVIEW_SVG_H */
