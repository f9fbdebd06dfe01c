/*
 * report.h -- the parts of `shimview report` that other commands show too.
 *
 * `shimview html` puts the report's facts and tables into a page. Rather than a second
 * copy of the wording and the formatting, report.c writes each part either as the text
 * the terminal report prints or as HTML (a two-column table of facts, and the tables as
 * HTML tables), with every string from the profile escaped.
 */
#ifndef SHIMVIEW_REPORT_H
#define SHIMVIEW_REPORT_H

#include "profile.h"

#include <stdio.h>

enum report_format { REPORT_TEXT, REPORT_HTML };

/* The run: the profile, the program, the duration, the machine, the TSC, the placement,
 * then what report_write_threads writes. */
void report_write_run(FILE *f, enum report_format fmt, const struct profile *p);

/* The observed threads and where their ids came from, the observers, and what the shares
 * are shares of. */
void report_write_threads(FILE *f, enum report_format fmt, const struct profile *p);

/* The per-tag table of p, a profile whose threads match_fold() folded together (the top
 * N rows of the program's tags and the rows of other threads, every row when top is
 * negative; HTML names are not cut), with a column of sparklines (UTF-8 blocks) of rate index
 * sparkline_rate when it is not negative and the profile has samples in that rate's histograms,
 * then the rates and how to read them. 0, or -1 when memory ran out. */
int report_write_tags(FILE *f, enum report_format fmt, const struct profile *p, long top,
                      long sparkline_rate);

/* One rate per bucket of another (the profile's `by`), for the first `top` tags by
 * samples (every tag when top is negative): a line saying which rates, the table and its
 * legend; nothing when the profile has no `by`. 0, or -1 when memory ran out. */
int report_write_by(FILE *f, enum report_format fmt, const struct profile *p, long top);

/* How the samples were taken: samples, DTE, the sample period's summary, shim's cost.
 * 0, or -1 when memory ran out. */
int report_write_sampling(FILE *f, enum report_format fmt, const struct profile *p);

/* threads.c: the per-thread table as `shimview threads` prints it: text (on stdout,
 * after report_write_threads' lines) or CSV as o says, or an HTML table (every row); rate:
 * the one rate shown, or -1 for every rate. Then how to read it. 0, or -1 when memory ran
 * out. */
struct match_table_options;
int threads_write(FILE *f, enum report_format fmt, const struct profile *p, long rate,
                  const struct match_table_options *o);

/* A remark under a table: a line of text, or a paragraph of HTML (escaped). */
void report_note(FILE *f, enum report_format fmt, const char *text);

#endif /* SHIMVIEW_REPORT_H */
