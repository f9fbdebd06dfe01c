/*
 * view.c -- what the table commands share (functions, contexts, loops, paths, threads):
 * their options (--rate, --top, --all, --csv and a command's own --sort or --function),
 * how many rows a table shows, and the cells of shares and rates, so that the same
 * number reads the same in every table.
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/intervals.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 20

/* ---- cells ---- */

void view_set_share(struct table *t, size_t col, double frac, int csv)
{
    char buf[32];
    if (isnan(frac)) return;
    if (csv)
        table_set(t, col, "%.10g", frac);
    else
        table_set(t, col, "%s", stats_format_share(frac, buf, sizeof buf));
}

/* CSV: the rate, its interval and n from column col; empty where undefined. */
size_t view_set_rate_csv(struct table *t, size_t col, const struct profile *p, size_t r,
                         const struct calltree_sums *s)
{
    struct interval iv = calltree_rate_interval(p, r, s);
    double v = calltree_rate(s), ci = interval_half(&iv);
    if (!isnan(v)) table_set(t, col, "%.10g", v);
    if (!isnan(ci)) table_set(t, col + 1, "%.6g", ci);
    table_set(t, col + 2, "%" PRIu64, s->n);
    return col + 3;
}

/* The rates a table shows: every one, or the one --rate named. */
size_t view_rates_shown(const struct profile *p, long rate, size_t *first)
{
    *first = rate >= 0 ? (size_t)rate : 0;
    return rate >= 0 ? 1 : p->nrates;
}

struct table *view_table_new(size_t ncols, size_t nleft)
{
    enum table_align *align = calloc(ncols, sizeof *align);
    if (!align) return NULL;
    for (size_t c = nleft; c < ncols; c++)
        align[c] = TABLE_RIGHT;
    struct table *t = table_new(ncols, align);
    free(align);
    return t;
}

/* How many rows the options show: --all, or every one in CSV unless --top is given, else
 * --top or DEFAULT_TOP. */
size_t view_rows_wanted(const struct match_table_options *o, size_t nrows)
{
    if (o->all || (o->csv && !o->top_given)) return nrows;
    size_t top = o->top_given ? (size_t)o->top : DEFAULT_TOP;
    return top < nrows ? top : nrows;
}

/* ---- options ---- */

int view_parse_options(int argc, char **argv, const char *cmd, const char *usage, const char *own,
                       struct view_options *o)
{
    static const struct option options[] = {
        MATCH_TABLE_LONG_OPTIONS,
        {"rate", required_argument, NULL, 'r'},
        {"sort", required_argument, NULL, 's'},
        {"function", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char shorts[16] = ":n:ar:h";
    int opt, sort = strchr(own, 's') != NULL, function = strchr(own, 'f') != NULL;
    strcat(shorts, sort ? "s:" : "");
    strcat(shorts, function ? "f:" : "");
    opterr = 0;
    while ((opt = getopt_long(argc, argv, shorts, options, NULL)) != -1) {
        int taken = match_table_option(cmd, opt, &o->t);
        if (taken == EXIT_USAGE_ERROR) return taken;
        if (taken) continue;
        switch (opt) {
        case 'r':
            if (!optarg[0]) return usage_error(cmd, "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 'f': /* getopt_long knows every long option of the table: refuse the others' */
            if (!function) return usage_error(cmd, "unknown option '--function'");
            if (!optarg[0]) return usage_error(cmd, "--function needs a function name");
            o->function = optarg;
            break;
        case 's':
            if (!sort) return usage_error(cmd, "unknown option '--sort'");
            if (strcmp(optarg, "incl") != 0 && strcmp(optarg, "excl") != 0)
                return usage_error(cmd, "--sort expects 'incl' or 'excl', not '%s'", optarg);
            o->sort_excl = strcmp(optarg, "excl") == 0;
            break;
        case 'h':
            fputs(usage, stdout);
            return -1;
        default:
            return option_error(cmd, opt, argv);
        }
    }
    if (match_table_options_check(cmd, &o->t)) return EXIT_USAGE_ERROR;
    if (optind >= argc) return usage_error(cmd, "missing the profile FILE");
    if (optind + 1 < argc) return usage_error(cmd, "expects one FILE, got %d", argc - optind);
    o->file = argv[optind];
    return 0;
}
