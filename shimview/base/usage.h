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

#include <stddef.h>

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

/* ---- names close to a typo ---- */

/* The edit distance of a and b (each cut to 63 bytes): how far a typo is from a name. */
size_t usage_edit_distance(const char *a, const char *b);

/* Is name close enough to what the user typed to be what was meant: one holds the other,
 * or they are at most a third of typed's length and two edits apart? */
int usage_near(const char *typed, const char *name);

/* Of the n names, the one typed most likely meant: one it begins (two letters at least),
 * else the nearest at most a third of its length and one edit away (the first of
 * equals); NULL when none is: what "did you mean" offers. */
const char *usage_nearest(const char *typed, const char *const *names, size_t n);

/* The value an option takes from a fixed list of n names: its index, or -1 after
 * "CMD: OPTION expects one of: a, b, c; not 'x'" (with "did you mean" when one is near)
 * and the hint. */
long usage_pick(const char *cmd, const char *option, const char *text, const char *const *names,
                size_t n);

#endif /* SHIMVIEW_USAGE_H */
