/*
 * usage.c -- mistakes on the command line cost one line plus a hint and status 2.
 *
 * Every command parses its own options with getopt_long (opterr = 0, an optstring that
 * starts with ':'), and words what getopt rejected, or a value it cannot take, the same
 * way: "shimview CMD: what was wrong", then "Try 'shimview CMD --help'.".
 */
#include "shimview/base/usage.h"

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "shimview%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'shimview%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    return EXIT_USAGE_ERROR;
}

int option_error(const char *cmd, int opt, char **argv)
{
    const char *arg = argv[optind - 1];
    if (opt == ':') return usage_error(cmd, "option '%s' needs a value", arg);
    if (optopt && strncmp(arg, "--", 2) != 0)
        return usage_error(cmd, "unknown option '-%c'", optopt);
    return usage_error(cmd, "unknown option '%s'", arg);
}

int parse_count_option(const char *cmd, const char *option, const char *text, long *out)
{
    char *end;
    long v;
    if (text[0] < '0' || text[0] > '9') goto bad;
    v = strtol(text, &end, 10);
    if (*end || v < 0 || v == LONG_MAX) goto bad;
    *out = v;
    return 0;
bad:
    usage_error(cmd, "%s expects a non-negative number, not '%s'", option, text);
    return -1;
}

/* ---- names close to a typo ---- */

size_t usage_edit_distance(const char *a, const char *b)
{
    size_t n = strnlen(a, 63), m = strnlen(b, 63), row[64];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[m];
}

int usage_near(const char *typed, const char *name)
{
    if (!typed[0] || !name[0]) return 0;
    return strstr(name, typed) || strstr(typed, name) ||
           usage_edit_distance(typed, name) <= strlen(typed) / 3 + 2;
}

const char *usage_nearest(const char *typed, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_score = 0, len = strlen(typed);
    for (size_t i = 0; i < n && len > 0; i++) {
        /* a name it begins, else one a third of its length and one edit away at most */
        int prefix = len >= 2 && strncmp(names[i], typed, len) == 0;
        size_t d = usage_edit_distance(typed, names[i]);
        if (!prefix && d > len / 3 + 1) continue;
        size_t score = prefix ? 0 : d;
        if (!best || score < best_score) best = names[i], best_score = score;
    }
    return best;
}

long usage_pick(const char *cmd, const char *option, const char *text, const char *const *names,
                size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], text) == 0) return (long)i;
    char list[512];
    size_t len = 0;
    list[0] = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++) {
        int k = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
        if (k > 0) len += (size_t)k;
    }
    const char *near = usage_nearest(text, names, n);
    if (near)
        usage_error(cmd, "%s expects one of: %s; not '%s' (did you mean '%s'?)", option, list, text,
                    near);
    else
        usage_error(cmd, "%s expects one of: %s; not '%s'", option, list, text);
    return -1;
}
