/*
 * plot.c -- `shimview plot`: a profile as SVG figures, one file per figure.
 *
 * It writes, into DIR (-o; default: the current directory), files named after the profile
 * (`run.json` gives `run-hist.svg`, ...), and prints the path of each file it wrote:
 *
 *   <stem>-hist.svg      the rate's distribution for each of the top N tags (plot_hist.c)
 *   <stem>-cdf.svg       the rate's cumulative distribution over all tags (plot_cdf.c)
 *   <stem>-sampling.svg  sample period, gap and CPC with DTE's band (plot_sampling.c)
 *   <stem>-by.svg        one rate per bucket of another, when the profile has `by`
 *                        (plot_by.c)
 *
 * A profile without rates (nothing counted, so no counters) still has sampling figures;
 * the rate figures are skipped with a note on stderr rather than drawn empty. Files are
 * SVG 1.1 with every attribute inline, so they need nothing but a viewer.
 *
 * This file holds the command line the figures' commands share (plot_command: `shimview
 * html` takes the same options) and the files of `plot`; the context each figure is
 * drawn from, the choice of rate and of the top tags with their display names, and the
 * writing of each file, which reaches its path only when written whole, are plot_ctx.c's.
 * A tag is drawn with the program's threads added together (match.c folds them, as
 * `report` shows them), and the samples of other processes and of the idle CPU are a tag
 * each, ranked after the program's.
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/intervals.h"
#include "shimview/analysis/match.h"
#include "shimview/render/plot.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 4

const char plot_usage[] =
    "usage: shimview plot [--rate NAME] [--top N] [-o DIR] (FILE | -)\n"
    "\n"
    "Draw a profile as SVG files in DIR, named after FILE (run.json: run-hist.svg, ...),\n"
    "and print the path of each file written:\n"
    "  STEM-hist.svg      the distribution of a rate for each of the top N tags by\n"
    "                     samples, one panel per tag, with n, mean ± sd and the rate\n"
    "  STEM-cdf.svg       the cumulative distribution of the rate over every kept sample\n"
    "                     of every tag, and of each top tag\n"
    "  STEM-sampling.svg  sample period and gap between kept samples (log-log), and CPC\n"
    "                     before DTE with the band DTE keeps and the kept fraction\n"
    "  STEM-by.svg        when the run set SHIM_BY: one rate in each bucket of another,\n"
    "                     a line per top tag, and the kept periods behind each point\n"
    "A profile without rates (no counters) gets only the sampling figure. The files are\n"
    "self-contained SVG 1.1: they open in any browser, offline.\n"
    "\n"
    "  -r, --rate NAME  the rate to draw (default: ipc when present, else the first rate)\n"
    "  -n, --top N      tags to draw in the histogram and SHIM_BY figures (default\n"
    "                   4, less those under 0.1% of the samples)\n"
    "  -o, --output DIR the directory to write into (default: the current directory)\n"
    "  -h, --help       print this help\n";

/* Write one figure to DIR/STEM-SUFFIX.svg and print its path; 0, or EXIT_FILE_ERROR with
 * a message (and no file left behind). */
static int write_figure(const struct plot_options *o, const char *stem, const char *suffix,
                        int (*draw)(FILE *, const struct plot_ctx *), const struct plot_ctx *c)
{
    char *path = NULL;
    int n = o->output ? asprintf(&path, "%s/%s-%s.svg", o->output, stem, suffix)
                      : asprintf(&path, "%s-%s.svg", stem, suffix);
    if (n < 0) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    int rc = plot_write_file(path, draw, c);
    free(path);
    return rc;
}

static int plot_files(const struct plot_options *o, struct plot_ctx *c)
{
    const struct profile *p = c->p;
    char stem[256];
    int rc = 0;
    plot_file_stem(o->file, stem, sizeof stem);
    if (p->nrates > 0) {
        rc = write_figure(o, stem, "hist", plot_hist_write, c);
        if (rc == 0) rc = write_figure(o, stem, "cdf", plot_cdf_write, c);
    }
    if (rc == 0 && p->has_by) rc = write_figure(o, stem, "by", plot_by_write, c);
    if (rc == 0) rc = write_figure(o, stem, "sampling", plot_sampling_write, c);
    if (rc == 0 && p->nrates == 0)
        fprintf(stderr,
                "shimview plot: %s has no rates (no counters were read): skipped %s-hist.svg "
                "and %s-cdf.svg\n",
                p->file, stem, stem);
    return rc;
}

/* ---- the command ---- */

static int parse_options(int argc, char **argv, const char *cmd, const char *usage,
                         const char *output, struct plot_options *o)
{
    static const struct option options[] = {
        {"rate", required_argument, NULL, 'r'},
        {"top", required_argument, NULL, 'n'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":r:n:o:h", options, NULL)) != -1) {
        switch (opt) {
        case 'r':
            if (!optarg[0]) return usage_error(cmd, "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 'n':
            if (parse_count_option(cmd, "--top", optarg, &o->top)) return EXIT_USAGE_ERROR;
            if (o->top == 0) return usage_error(cmd, "--top must be at least 1");
            o->top_given = 1;
            break;
        case 'o':
            if (!optarg[0]) return usage_error(cmd, "-o needs %s", output);
            o->output = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return -1;
        default:
            return option_error(cmd, opt, argv);
        }
    }
    if (optind >= argc) return usage_error(cmd, "missing the profile FILE");
    if (optind + 1 < argc) return usage_error(cmd, "expects one FILE, got %d", argc - optind);
    o->file = argv[optind];
    return 0;
}

/* The top tags less those under PLOT_TINY_SHARE, which come last (by samples), keeping
 * the first; counted in c->tiny for the figures to say. */
static void drop_tiny(struct plot_ctx *c)
{
    while (c->ntop > 1 && c->top[c->ntop - 1].tag->share < PLOT_TINY_SHARE) {
        c->ntop--;
        free(c->top[c->ntop].name);
        c->top[c->ntop].name = NULL;
        c->tiny++;
    }
}

int plot_command(int argc, char **argv, const char *cmd, const char *usage, const char *output,
                 int (*run)(const struct plot_options *o, struct plot_ctx *c))
{
    struct plot_options o = {.top = DEFAULT_TOP};
    char err[512];
    int rc = parse_options(argc, argv, cmd, usage, output, &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct profile *p = profile_open(o.file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    struct profile view;
    char **names;
    if (match_fold(p, &view, &names)) {
        fprintf(stderr, "shimview: %s: out of memory\n", p->file);
        profile_free(p);
        return EXIT_FILE_ERROR;
    }
    struct plot_ctx c;
    rc = plot_ctx_init(&c, &view, o.file, o.rate, o.top, cmd);
    if (rc == 0 && !o.top_given) drop_tiny(&c);
    c.whole = p;
    if (rc == 0) {
        rc = run(&o, &c);
        plot_ctx_free(&c);
    }
    match_fold_free(&view, names);
    profile_free(p);
    return rc;
}

int plot_main(int argc, char **argv)
{
    return plot_command(argc, argv, "plot", plot_usage, "a directory", plot_files);
}
