/*
 * commands.h -- what main.c's dispatch table knows about each command.
 *
 * A command is a function taking (argc, argv) with argv[0] its own name, so it parses
 * its options with getopt_long exactly as a program would (main resets getopt first),
 * and a usage text that `shimview help CMD` and `shimview CMD --help` print. Adding a
 * command is one file defining those two and one row in main.c's table.
 *
 * Exit statuses are shared: 0 success, 1 a file could not be read or is not a valid
 * profile, 2 the command line was wrong.
 */
#ifndef SHIMVIEW_COMMANDS_H
#define SHIMVIEW_COMMANDS_H

#define EXIT_FILE_ERROR  1
#define EXIT_USAGE_ERROR 2

#ifndef SHIMVIEW_VERSION
#define SHIMVIEW_VERSION "0.1.0"
#endif

/* Where `cmake --install` puts the documents the usage texts name (CMakeLists.txt) */
#ifndef SHIM_DOC_DIR
#define SHIM_DOC_DIR "/usr/local/share/doc/shim"
#endif

/* Print "shimview CMD: <message>" and a hint to stderr; returns EXIT_USAGE_ERROR. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Report what getopt_long rejected (its return value opt, after opterr = 0 and an
 * optstring starting with ':'); returns EXIT_USAGE_ERROR. */
int option_error(const char *cmd, int opt, char **argv);

/* Parse a non-negative decimal count for an option; 0 or -1 (message printed). */
int parse_count_option(const char *cmd, const char *option, const char *text, long *out);

/* report.c */
struct profile;
extern const char report_usage[];
int report_main(int argc, char **argv);
/* Print a loaded profile on stdout as `report` does: the CSV table when csv is set, else
 * the text report; the top N rows, or every row when top is negative. 0, or -1 when
 * memory ran out. */
int report_print(const struct profile *p, int csv, long top);

/* plot.c */
extern const char plot_usage[];
int plot_main(int argc, char **argv);

/* html.c */
extern const char html_usage[];
int html_main(int argc, char **argv);

/* compare.c */
extern const char compare_usage[];
int compare_main(int argc, char **argv);

/* merge.c */
extern const char merge_usage[];
int merge_main(int argc, char **argv);

/* timeline.c */
extern const char timeline_usage[];
int timeline_main(int argc, char **argv);

/* export.c */
extern const char export_usage[];
int export_main(int argc, char **argv);

/* functions.c */
extern const char functions_usage[], contexts_usage[];
int functions_main(int argc, char **argv);
int contexts_main(int argc, char **argv);

/* tree.c */
extern const char tree_usage[];
int tree_main(int argc, char **argv);

/* loops.c */
extern const char loops_usage[];
int loops_main(int argc, char **argv);

/* threads.c */
extern const char threads_usage[];
int threads_main(int argc, char **argv);

/* paths_view.c */
extern const char paths_usage[], path_usage[];
int paths_main(int argc, char **argv);
int path_main(int argc, char **argv);

#endif /* SHIMVIEW_COMMANDS_H */
