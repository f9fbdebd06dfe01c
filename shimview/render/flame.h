/*
 * flame.h -- a flame graph (or icicle graph) of a flame_tree as one SVG (flame.c).
 */
#ifndef SHIMVIEW_FLAME_H
#define SHIMVIEW_FLAME_H

#include "shimview/analysis/flame_tree.h"
#include "shimview/render/svg.h"

#include <stdio.h>

/* Frames narrower than this many px are not drawn (the figure says how many). */
#define FLAME_MIN_WIDTH 0.3

/* The width of a flame graph: of a file of its own, and inside a page. */
#define FLAME_WIDTH        1200.0
#define FLAME_INLINE_WIDTH 950.0

struct flame_look {
    int icicle;            /* the root at the top, callees below */
    long rate;             /* colour by this rate of side 0 over each frame's inclusive
                            * periods; -1: by the function's name (a difference: by the change
                            * of share, whatever this is) */
    enum svg_kind kind;    /* a file, or inside an HTML page */
    double width;          /* px */
    const char *source[2]; /* the profiles' file names: side 0 (B), side 1 (A) */
};

/* Draw t into f: a title, the frames (each a group with a <title> tooltip, a rect as wide
 * as its inclusive samples and a label fitted to it), the legend of widths and colours,
 * and a small script that zooms into a clicked frame (the figure reads the same without
 * it). 0, or -1 if memory ran out; write errors show in ferror(f). */
int flame_write(FILE *f, const struct flame_tree *t, const struct flame_look *look);

#endif /* SHIMVIEW_FLAME_H */
