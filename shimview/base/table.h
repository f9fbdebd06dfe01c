/*
 * table.h -- a table of text cells printed as aligned columns or as CSV.
 *
 * Reports build a table row by row and print it once, so column widths come from the
 * widest cell and the same code serves the terminal, CSV and HTML. Cells are copied. Memory
 * failures are sticky: the table remembers them and table_print_* returns -1, so
 * builders need not check every call.
 */
#ifndef SHIMVIEW_TABLE_H
#define SHIMVIEW_TABLE_H

#include <stddef.h>
#include <stdio.h>

enum table_align { TABLE_LEFT, TABLE_RIGHT };

struct table;

/* A table of ncols columns; align[i] says how column i is padded in text output. */
struct table *table_new(size_t ncols, const enum table_align *align);
void table_free(struct table *t);

/* Start a new, empty row; table_set fills cells of the newest row. */
void table_add_row(struct table *t);
void table_set(struct table *t, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A cell holding text cut to max_width code points (max_width 0: never cut): its start
 * and its end with "..." between them, so that a long calling context keeps both the
 * function it names first and the innermost calls and loop it ends with. */
void table_set_cut(struct table *t, size_t col, const char *text, size_t max_width);

/* The rows added so far are headers: text output rules a line under them. */
void table_end_header(struct table *t);

/* A class for column col's cells in HTML, so a style sheet can set their look (klass is
 * not copied: a string constant). */
void table_column_class(struct table *t, size_t col, const char *klass);

/* Aligned columns, two spaces apart; control characters print as '?'. The display
 * width of a cell counts UTF-8 code points. Returns 0, or -1 after a memory failure. */
int table_print_text(const struct table *t, FILE *out);

/* RFC 4180 fields (quoted when they hold a comma, quote, CR or LF; quotes doubled),
 * one record per line, header rows included. Returns 0 or -1. */
int table_print_csv(const struct table *t, FILE *out);

/* The rows as JSON (written by jansson): an array of objects, one per row that is not a
 * header, keyed by the last header row's cells (what CSV's header row holds; the first
 * row when none is marked), one object per line. A column whose every non-empty cell is a number
 * (as CSV prints it) holds numbers, unless table_column_text() made it text; other cells are
 * strings, an empty cell null. An integer beyond 2^63 - 1 stays a string, exact. Returns 0 or -1.
 */
int table_print_json(const struct table *t, FILE *out);

/* Column col holds text in JSON even when every cell of it reads as a number (a name). */
void table_column_text(struct table *t, size_t col);

/* An HTML table: header rows in <thead> as <th>, the others in <tbody>; right-aligned
 * columns get class "num", and the classes table_column_class() gave; every cell
 * escaped (markup.h). Returns 0 or -1. */
int table_print_html(const struct table *t, FILE *out);

/* The number of terminal columns s occupies: its UTF-8 code points. */
size_t table_text_width(const char *s);

#endif /* SHIMVIEW_TABLE_H */
