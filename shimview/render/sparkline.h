/*
 * sparkline.h -- a rate histogram as one line of characters, for the per-tag table.
 *
 * A sparkline is the histogram figure shrunk to a word: SPARKLINE_CELLS cells over one
 * range shared by every row, each a block (U+2581..U+2588, "▁▂▃▄▅▆▇█") as tall as the
 * cell's count over the row's largest cell. The range is the one the figures use
 * (plot_rate_range over every tag), so a column of sparklines compares tags the way the
 * histogram figure's stacked panels do, and each row is scaled on its own, as each panel
 * is. An empty cell is a space and any cell with samples at least the lowest block, so a
 * few samples far from the bulk still show. Where the terminal cannot show UTF-8, an
 * ASCII ramp of eight characters stands in.
 */
#ifndef SHIMVIEW_SPARKLINE_H
#define SHIMVIEW_SPARKLINE_H

#include "shimview/model/profile.h"

#include <stddef.h>
#include <stdint.h>

#define SPARKLINE_CELLS 16

enum sparkline_style { SPARKLINE_UTF8, SPARKLINE_ASCII };

/* The style the terminal shows: UTF-8 blocks when the locale's character set is UTF-8
 * (LC_CTYPE taken from the environment, as setlocale(LC_CTYPE, "") does), else ASCII. */
enum sparkline_style sparkline_style_from_locale(void);

/* The range [lo, hi) the sparklines of rate `rate` share. 0, or -1 when no tag has a
 * sample inside its histogram's span (then there is nothing to draw). */
int sparkline_range(const struct profile *p, size_t rate, double *lo, double *hi);

/* Rate histogram h as SPARKLINE_CELLS characters over [lo, hi) in buf (len bytes: 3 per
 * cell and a NUL suffice); "-" when no sample of h falls in the range. A bucket goes to
 * the cell that holds its centre. Returns buf. */
char *sparkline_format(const struct profile_linhist *h, double lo, double hi,
                       enum sparkline_style style, char *buf, size_t len);

/* The characters of the levels, lowest first, for legends. */
const char *sparkline_ramp(enum sparkline_style style);

#endif /* SHIMVIEW_SPARKLINE_H */
