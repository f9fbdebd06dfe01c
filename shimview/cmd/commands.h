/*
 * commands.h -- the command layer's one header, sectioned by the file that defines each
 * part: every command's usage text and function for main.c's dispatch table, the parts
 * one command writes for another (`html` puts the report, the functions, threads and tree
 * views into one page), and what the commands share (view.c, pass_table.c, plot.c's
 * command line).
 *
 * A command is a function taking (argc, argv) with argv[0] its own name, so it parses
 * its options with getopt_long exactly as a program would (main resets getopt first),
 * and a usage text that `shimview help CMD` and `shimview CMD --help` print. Adding a
 * command is one file defining those two, a section here and one row in main.c's table;
 * docs/shimview/CMD.md documents it (tests/docs checks that it shows the usage text).
 *
 * Exit statuses are shared (usage.h): 0 success, 1 a file could not be read or is not a
 * valid profile, 2 the command line was wrong.
 *
 * The parts written for another command come as text (what the terminal shows) or HTML
 * (a two-column table of facts, and the tables as HTML tables), with every string from
 * the profile escaped: one wording and one format for both, so a page and a terminal
 * never disagree.
 */
#ifndef SHIMVIEW_COMMANDS_H
#define SHIMVIEW_COMMANDS_H

#include "shimview/analysis/calltree.h"
#include "shimview/analysis/filter.h"
#include "shimview/analysis/match.h"
#include "shimview/model/profile.h"
#include "shimview/base/usage.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef SHIMVIEW_VERSION
#define SHIMVIEW_VERSION "0.1.0"
#endif

enum report_format { REPORT_TEXT, REPORT_HTML };

/* ---- report.c ---- */

extern const char report_usage[];
int report_main(int argc, char **argv);
/* Print a loaded profile on stdout as `report` does: the CSV table when csv is set, else
 * the text report; the top N rows, or every row when top is negative. 0, or -1 when
 * memory ran out. */
int report_print(const struct profile *p, int csv, long top);

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

/* A remark under a table: a line of text, or a paragraph of HTML (escaped). */
void report_note(FILE *f, enum report_format fmt, const char *text);

/* ---- plot.c ---- */

extern const char plot_usage[];
int plot_main(int argc, char **argv);

struct plot_ctx;

/* The command line `plot` and `html` share: [--rate NAME] [--top N] [-o OUT] FILE. */
struct plot_options {
    const char *rate;   /* NULL: the default rate */
    long top;           /* default 4 */
    int top_given;      /* --top was given: tiny tags are drawn too */
    const char *output; /* -o: plot's directory, html's page; NULL: the command's default */
    const char *file;
};

/* Command cmd: parse (argc, argv) as plot_options (usage: the --help text; output: what
 * -o names, "a directory", for messages), load the profile, fold its threads together,
 * set up the figures' context (c->p the folded view, c->whole the profile) and call run,
 * which returns the exit status. The exit status (usage.h). */
int plot_command(int argc, char **argv, const char *cmd, const char *usage, const char *output,
                 int (*run)(const struct plot_options *o, struct plot_ctx *c));

/* ---- html.c ---- */

extern const char html_usage[];
int html_main(int argc, char **argv);

/* ---- compare.c ---- */

extern const char compare_usage[];
int compare_main(int argc, char **argv);

/* ---- merge.c ---- */

extern const char merge_usage[];
int merge_main(int argc, char **argv);

/* ---- timeline.c ---- */

extern const char timeline_usage[];
int timeline_main(int argc, char **argv);

/* ---- export.c ---- */

extern const char export_usage[];
int export_main(int argc, char **argv);

/* ---- top.c ---- */

extern const char top_usage[];
int top_main(int argc, char **argv);

/* ---- functions.c ---- */

extern const char functions_usage[], contexts_usage[];
int functions_main(int argc, char **argv);
int contexts_main(int argc, char **argv);

/* The functions table (every row when top is negative; rate: the rate's
 * index, or -1 for every rate) as `shimview functions` prints it, text or HTML. 0, or -1
 * when memory ran out. */
int functions_write(FILE *f, enum report_format fmt, const struct calltree *ct, long rate,
                    long top);

/* ---- tree.c ---- */

extern const char tree_usage[];
int tree_main(int argc, char **argv);

/* The tree of every thread as `shimview tree` prints it (text, or HTML tables),
 * with rate index `rate` (-1: none), nodes under min_share (a fraction) folded, at most
 * depth levels (0: all); utf8: box-drawing characters, else ASCII. 0, or -1 when memory
 * ran out. */
int tree_write(FILE *f, enum report_format fmt, const struct calltree *ct, long rate,
               double min_share, size_t depth, int utf8);

/* ---- flame.c ---- */

extern const char flame_usage[];
int flame_main(int argc, char **argv);

/* The flame graph of ct as `shimview flame` draws it, inside an HTML page (source: the
 * profile's file name; rate: the index of the rate that colours it, or -1). 0, or -1 when
 * memory ran out. */
int flame_figure(FILE *f, const struct calltree *ct, const char *source, long rate);

/* 0 when profiles a and b both have a calling context; else EXIT_FILE_ERROR after a
 * message naming the one that has none. */
int flame_diff_ready(const struct profile *a, const struct profile *b);

/* The differential flame graph from a to b (loaded from file_a and file_b), written to
 * path (NULL: STEMA-vs-STEMB-flame.svg), whose name it prints. The exit status: 1 after a
 * message when a profile has no calling context. */
int flame_diff_write(const char *path, const struct profile *a, const struct profile *b,
                     const char *file_a, const char *file_b, int icicle);

/* ---- loops.c ---- */

extern const char loops_usage[];
int loops_main(int argc, char **argv);

/* ---- threads.c ---- */

extern const char threads_usage[];
int threads_main(int argc, char **argv);

/* The per-thread table as `shimview threads` prints it: text (on stdout,
 * after report_write_threads' lines) or CSV as o says, or an HTML table (every row); rate:
 * the one rate shown, or -1 for every rate. Then how to read it. 0, or -1 when memory ran
 * out. */
int threads_write(FILE *f, enum report_format fmt, const struct profile *p, long rate,
                  const struct match_table_options *o);

/* ---- paths_view.c ---- */

extern const char paths_usage[], path_usage[];
int paths_main(int argc, char **argv);
int path_main(int argc, char **argv);

/* ---- view.c ---- */

/* What the tables of functions, contexts, loops, paths and threads share. */

/* The lines of a usage text for the options every table takes; cmd: the command's name,
 * a string literal. */
#define VIEW_OPTIONS_USAGE(cmd)                                                                    \
    "  -r, --rate NAME   show only this rate (default: every rate)\n"                              \
    "  -n, --top N       show the first N rows (default 20; CSV: every row)\n"                     \
    "  -a, --all         show every row\n"                                                         \
    "      --csv         print the table as CSV (columns: " SHIM_DOC_DIR "/shimview/" cmd ".md)\n" \
    "      --json        print the table as JSON: an array of objects, the CSV's columns\n"        \
    "  -h, --help        print this help\n"

/* Their options: --rate, --top, --all, --csv, --json, --sort (with the keys the command
 * sets in t before parsing), and the command's own --function or filters; the one FILE. */
struct view_options {
    struct match_table_options t;
    const char *rate, *file, *function;
    struct filter_spec filter;
};

/* Parse command cmd's options into o; own holds the letters of the command's own options
 * it takes ("f": --function, "F": --tid, --focus, --ignore). 0, -1 after printing usage
 * for --help, or EXIT_USAGE_ERROR after a message. */
int view_parse_options(int argc, char **argv, const char *cmd, const char *usage, const char *own,
                       struct view_options *o);

/* How many of nrows rows a table shows: --all, or every one in CSV unless --top is given,
 * else --top or 20. */
size_t view_rows_wanted(const struct match_table_options *o, size_t nrows);

/* A table of ncols columns, the first nleft aligned left and the rest right. */
struct table *view_table_new(size_t ncols, size_t nleft);

/* The rates a table shows: every one, or the one of index rate when it is not negative;
 * returns their number, the first in *first. */
size_t view_rates_shown(const struct profile *p, long rate, size_t *first);

/* Column col of the newest row: a share (a fraction), in CSV as it is, else in percent;
 * empty when NAN. */
void view_set_share(struct table *t, size_t col, double frac, int csv);

/* CSV: the rate, its interval and n in columns col to col + 2 (empty where undefined);
 * returns col + 3. */
size_t view_set_rate_csv(struct table *t, size_t col, const struct profile *p, size_t r,
                         const struct calltree_sums *s);

/* ---- pass_table.c ---- */

/* The cells `loops` and `paths` share, from column c of the table's newest row; each
 * returns the next column. The function: its label, or address when the profile does not
 * list it, and in CSV its module and offset (empty then). */
size_t pass_function_cells(struct table *t, size_t c, const struct profile_function *fn,
                           uint64_t address, int csv);
/* What --sort function orders a row by: the function as pass_function_cells names it, then
 * its loop's or path's number; in buf. */
const char *pass_sort_label(const struct profile_function *fn, uint64_t address, uint64_t number,
                            char *buf, size_t len);
/* A group's samples, their share of the attributed samples and of the entries' cycles. */
size_t pass_count_cells(struct table *t, size_t c, const struct profile *p,
                        const struct calltree_count *n, int csv);
/* Its rates (rate: the index of the one shown, or -1 for every one): in text the rate to
 * the precision its interval supports, in CSV the rate, its interval and n. */
size_t pass_rate_cells(struct table *t, size_t c, const struct profile *p, long rate,
                       const struct calltree_count *n, int csv);

/* The headings of those columns: in text the rate's name, in CSV rate_<rate>,
 * rate_ci95_<rate> and n_<rate>. */
size_t pass_rate_heads(struct table *t, size_t c, const struct profile *p, long rate, int csv);

/* What a view of the compiler pass's members needs the profile to have. */
enum pass_view_needs { PASS_VIEW_LOOPS, PASS_VIEW_PATHS };

/* What `loops` and `paths` share: parse cmd's options (own: the command's own, as
 * view_parse_options takes them), load the profile, refuse it when it lacks what the view
 * needs (with what to build the program with), find --rate, and print; print returns 0,
 * -1 when memory ran out, or an exit status after its own message. Returns the command's
 * exit status. */
int pass_view_run(int argc, char **argv, const char *cmd, const char *usage, const char *own,
                  enum pass_view_needs needs,
                  int (*print)(const struct profile *p, const struct view_options *o, long rate));

/* Entries added up by a key of two words: a loop signal, a (function, path) pair. */
struct entry_group {
    uint64_t key[2];
    const struct profile_tag *first; /* its first entry, which names what the key is */
    struct calltree_count c;
};

/* The n entries at entries grouped by what key_of writes for each, sorted by samples
 * (then by key), with their rate sums (nrates per group) in *block; free both. key_of
 * gets ctx. NULL if memory ran out. */
struct entry_group *entry_groups(const struct profile_tag *entries, size_t n, size_t nrates,
                                 void (*key_of)(const struct profile_tag *, const void *ctx,
                                                uint64_t *key),
                                 const void *ctx, size_t *ngroups, struct calltree_sums **block);

/* The --sort keys every table of groups has first: samples (the default), then time (TSC
 * cycles), both largest first; a table's other keys sort by a label. */
enum { ENTRY_SORT_SAMPLES, ENTRY_SORT_TIME };

/* Sort n groups by key `by` (a table's --sort index): samples or time, else by what label
 * writes for the group and that key (A to Z); ties by samples, then by the groups' keys. */
void entry_groups_sort(struct entry_group *g, size_t n, long by,
                       const char *(*label)(const struct entry_group *, long by, char *buf,
                                            size_t len));

#endif /* SHIMVIEW_COMMANDS_H */
