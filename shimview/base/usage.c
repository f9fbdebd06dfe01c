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
