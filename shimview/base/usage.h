/*
 * usage.h -- the exit statuses every command shares, and the one-line messages for a
 * command line that is wrong (see usage.c).
 *
 * Exit statuses: 0 success, 1 a file could not be read or is not a valid profile, 2 the
 * command line was wrong. Every layer may return them: a reader that cannot open a file
 * says so and returns EXIT_FILE_ERROR, a lookup that finds no rate by the name the user
 * typed says so and returns EXIT_USAGE_ERROR, and main() exits with what came back.
 */
#ifndef SHIMVIEW_USAGE_H
#define SHIMVIEW_USAGE_H

/* Where `cmake --install` puts the documents the usage texts name (CMakeLists.txt) */
#ifndef SHIM_DOC_DIR
#define SHIM_DOC_DIR "/usr/local/share/doc/shim"
#endif

#define EXIT_FILE_ERROR  1
#define EXIT_USAGE_ERROR 2

/* Print "shimview CMD: <message>" and a hint to stderr; returns EXIT_USAGE_ERROR. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Report what getopt_long rejected (its return value opt, after opterr = 0 and an
 * optstring starting with ':'); returns EXIT_USAGE_ERROR. */
int option_error(const char *cmd, int opt, char **argv);

/* Parse a non-negative decimal count for an option; 0 or -1 (message printed). */
int parse_count_option(const char *cmd, const char *option, const char *text, long *out);

#endif /* SHIMVIEW_USAGE_H */
