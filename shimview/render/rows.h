/*
 * rows.h -- the per-tag table of `report` (rows.c): a row per tag entry, of the profile
 * as loaded (a row per thread and tag tuple) or of its threads folded together
 * (match.h), as aligned text (or HTML) and as CSV.
 */
#ifndef SHIMVIEW_ROWS_H
#define SHIMVIEW_ROWS_H

#include "shimview/model/profile.h"
#include "shimview/render/sparkline.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"

#include <stddef.h>
#include <stdint.h>

/* The sparkline column: drawn or not, in which characters, of which rate, over which
 * range (the one every row shares). */
struct sparkline_look {
    int on;
    enum sparkline_style style;
    size_t rate;
    double lo, hi;
};

/* Sparklines of rate index `rate` (negative: none) when there is something to draw: the
 * rate, and samples inside some tag's histogram span. */
struct sparkline_look rows_sparkline_look(const struct profile *p, long rate,
                                          enum sparkline_style style);

/* Which columns a table has. */
struct rows_look {
    int thread;      /* text: a first column with the thread word (CSV always has it) */
    int thread_name; /* then the thread's name from placement.threads */
    int slots;       /* CSV: the slot numbers and values, between the thread and the name */
    struct sparkline_look spark;
};

/* The thread word of a row: empty for `other` and for a folded row of several threads. */
int rows_has_thread(const struct profile_tag *t);

/* A text (or HTML) table with its header row; NULL if memory ran out. Name columns are
 * cut to ROWS_NAME_WIDTH code points with "..." when cut is set. */
#define ROWS_NAME_WIDTH 48
struct table *rows_text_table(const struct profile *p, const struct rows_look *l);
void rows_text_row(struct table *t, const struct profile *p, const struct named_tag *row,
                   const struct rows_look *l, uint64_t total_cycles, int cut);

/* A CSV table with its header row (docs/shimview/report.md lists the columns); NULL if memory
 * ran out. */
struct table *rows_csv_table(const struct profile *p, const struct rows_look *l);
void rows_csv_row(struct table *t, const struct profile *p, const struct named_tag *row,
                  const struct rows_look *l, uint64_t total_cycles);

/* A fraction as a percentage with two decimals, "-" for NAN. */
const char *rows_fmt_percent(double frac, char *buf, size_t len);

#endif /* SHIMVIEW_ROWS_H */
