/*
 * flame.c -- `shimview flame`: the calling contexts of a profile as a flame graph, or the
 * difference of two profiles' contexts, in one self-contained SVG.
 *
 * The tree of frames is flame_tree.c's (a root "all", a frame per thread, the contexts
 * merged by name under their callers, the samples without a context as frames of their
 * own), drawn by render/flame.c. The same figure goes into `shimview html`'s page
 * (flame_figure) and a difference into `shimview compare --flame` (flame_diff_write), so
 * the three say the same thing in the same way.
 */
#include "shimview/analysis/flame_tree.h"
#include "shimview/analysis/rates.h"
#include "shimview/base/output.h"
#include "shimview/cmd/commands.h"
#include "shimview/render/flame.h"
#include "shimview/render/plot.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char flame_usage[] =
    "usage: shimview flame [--icicle] [--rate NAME] [--tid TID] [-o FILE] (FILE | -)\n"
    "       shimview flame --diff [--icicle] [-o FILE] A B\n"
    "\n"
    "Draw the calling contexts of a profile (a program built with the compiler pass or\n"
    "with -finstrument-functions) as a flame graph in one self-contained SVG, and print\n"
    "its path: each context a frame as wide as its inclusive samples, on top of its\n"
    "caller, under a root 'all' with a frame per thread and one per group of samples\n"
    "without a context. A frame's tooltip gives its function, its caller, its inclusive\n"
    "and exclusive samples and shares and each rate with its 95% interval; in a browser\n"
    "a click on a frame zooms into it. With --diff, the frames of B (and, hatched, those\n"
    "only A has) coloured by the change of inclusive share from A to B, outlined where\n"
    "the 95% interval of the change excludes 0; threads are folded together.\n"
    "\n"
    "  -i, --icicle       draw the root at the top and the callees below it\n"
    "  -r, --rate NAME    colour each frame by this rate over its inclusive periods\n"
    "                     (default: a colour per function's name); not with --diff\n"
    "  -t, --tid TID      draw only this thread's contexts, its frame the root; not\n"
    "                     with --diff\n"
    "  -d, --diff         two profiles A and B: draw the difference from A to B\n"
    "  -o, --output FILE  the SVG to write (default: STEM-flame.svg in the current\n"
    "                     directory, run.json giving run-flame.svg; with --diff\n"
    "                     STEMA-vs-STEMB-flame.svg); '-' writes it to standard output\n"
    "  -h, --help         print this help\n";

struct flame_options {
    const char *rate, *output;
    int icicle, diff, has_tid;
    uint64_t tid;
    char *file[2];
};

/* ---- writing ---- */

/* A flame graph to draw, for output_write(). */
struct drawing {
    const struct flame_tree *t;
    const struct flame_look *look;
};

static int draw(FILE *f, const void *arg)
{
    const struct drawing *d = arg;
    return flame_write(f, d->t, d->look);
}

/* Draw t to path (output.h: written whole or not at all) and print the path; "-" writes
 * to standard output. The exit status. */
static int write_svg(const char *path, const struct flame_tree *t, const struct flame_look *look)
{
    struct drawing d = {t, look};
    return output_write(path, draw, &d);
}

static int out_of_memory(const char *what)
{
    fprintf(stderr, "shimview: %s: out of memory\n", what);
    return EXIT_FILE_ERROR;
}

int flame_figure(FILE *f, const struct calltree *ct, const char *source, long rate)
{
    int missing;
    struct flame_tree *t = flame_tree_build(ct, NULL, &missing);
    if (!t) return -1;
    struct flame_look look = {
        .rate = rate, .kind = SVG_INLINE, .width = FLAME_INLINE_WIDTH, .source = {source}};
    int rc = flame_write(f, t, &look);
    flame_tree_free(t);
    return rc;
}

int flame_diff_ready(const struct profile *a, const struct profile *b)
{
    const struct profile *p[2] = {a, b};
    for (size_t j = 0; j < 2; j++)
        if (!p[j]->has_cct) {
            fprintf(stderr,
                    "shimview: %s has no calling context, so no flame graph of the difference: "
                    "build the program with the compiler pass or -finstrument-functions and "
                    "run it under shimrun\n",
                    p[j]->file);
            return EXIT_FILE_ERROR;
        }
    return 0;
}

int flame_diff_write(const char *path, const struct profile *a, const struct profile *b,
                     const char *file_a, const char *file_b, int icicle)
{
    if (flame_diff_ready(a, b) != 0) return EXIT_FILE_ERROR;
    char stem[2][256], *fallback = NULL;
    plot_file_stem(file_a, stem[0], sizeof stem[0]);
    plot_file_stem(file_b, stem[1], sizeof stem[1]);
    if (!path && asprintf(&fallback, "%s-vs-%s-flame.svg", stem[0], stem[1]) < 0)
        return out_of_memory("the file name");
    struct calltree *ct_a = calltree_build(a), *ct_b = calltree_build(b);
    struct flame_tree *t = ct_a && ct_b ? flame_tree_diff(ct_b, ct_a) : NULL;
    int rc;
    if (!t) {
        rc = out_of_memory(b->file);
    } else {
        struct flame_look look = {.icicle = icicle,
                                  .rate = -1,
                                  .kind = SVG_DOCUMENT,
                                  .width = FLAME_WIDTH,
                                  .source = {plot_source_name(file_b), plot_source_name(file_a)}};
        rc = write_svg(path ? path : fallback, t, &look);
    }
    flame_tree_free(t);
    calltree_free(ct_a);
    calltree_free(ct_b);
    free(fallback);
    return rc;
}

/* ---- the command ---- */

static int parse_tid(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (!text[0] || *end || errno || text[0] == '-' || text[0] == '+')
        return usage_error("flame", "--tid expects a thread id (a number), not '%s'", text);
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, struct flame_options *o)
{
    static const struct option options[] = {
        {"icicle", no_argument, NULL, 'i'},
        {"rate", required_argument, NULL, 'r'},
        {"tid", required_argument, NULL, 't'},
        {"diff", no_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":ir:t:do:h", options, NULL)) != -1) {
        switch (opt) {
        case 'i':
            o->icicle = 1;
            break;
        case 'r':
            if (!optarg[0]) return usage_error("flame", "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 't':
            if (parse_tid(optarg, &o->tid)) return EXIT_USAGE_ERROR;
            o->has_tid = 1;
            break;
        case 'd':
            o->diff = 1;
            break;
        case 'o':
            if (!optarg[0]) return usage_error("flame", "-o needs a file name");
            o->output = optarg;
            break;
        case 'h':
            fputs(flame_usage, stdout);
            return -1;
        default:
            return option_error("flame", opt, argv);
        }
    }
    int nfiles = argc - optind;
    if (o->diff) {
        if (o->rate || o->has_tid)
            return usage_error("flame", "--diff colours by the change of share and draws every "
                                        "thread: it takes neither --rate nor --tid");
        if (nfiles != 2)
            return usage_error("flame", "--diff expects two profiles A and B, got %d", nfiles);
        o->file[0] = argv[optind];
        o->file[1] = argv[optind + 1];
        if (strcmp(o->file[0], "-") == 0 && strcmp(o->file[1], "-") == 0)
            return usage_error("flame", "standard input can be only one of the two profiles");
        return 0;
    }
    if (nfiles == 0) return usage_error("flame", "missing the profile FILE");
    if (nfiles > 1)
        return usage_error("flame", "expects one FILE, got %d (two with --diff)", nfiles);
    o->file[0] = argv[optind];
    return 0;
}

/* The tids of ct's trees, for a --tid that names none of them. */
static int unknown_tid(const struct calltree *ct, uint64_t tid)
{
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    for (size_t i = 0; f && i < ct->nthreads; i++)
        fprintf(f, "%s%" PRIu64, i ? ", " : "", ct->threads[i].t->tid);
    if (f) fclose(f);
    usage_error("flame", "no thread %" PRIu64 " in %s (threads with a calling-context tree: %s)",
                tid, ct->p->file, list && list[0] ? list : "none");
    free(list);
    return EXIT_USAGE_ERROR;
}

static int draw_one(const struct flame_options *o)
{
    struct profile *p;
    struct calltree *ct;
    int rc = calltree_load(o->file[0], &p, &ct), missing = 0;
    if (rc) return rc;
    size_t rate = 0;
    rc = o->rate ? rates_find(p, o->rate, "flame", &rate) : 0;
    struct flame_tree *t = NULL;
    if (rc == 0) {
        t = flame_tree_build(ct, o->has_tid ? &o->tid : NULL, &missing);
        if (!t) rc = missing ? unknown_tid(ct, o->tid) : out_of_memory(p->file);
    }
    if (rc == 0) {
        char stem[256], path[272];
        plot_file_stem(o->file[0], stem, sizeof stem);
        snprintf(path, sizeof path, "%s-flame.svg", stem);
        struct flame_look look = {.icicle = o->icicle,
                                  .rate = o->rate ? (long)rate : -1,
                                  .kind = SVG_DOCUMENT,
                                  .width = FLAME_WIDTH,
                                  .source = {plot_source_name(o->file[0])}};
        rc = write_svg(o->output ? o->output : path, t, &look);
    }
    flame_tree_free(t);
    calltree_free(ct);
    profile_free(p);
    return rc;
}

int flame_main(int argc, char **argv)
{
    struct flame_options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.diff) return draw_one(&o);
    struct profile *p[2];
    if ((rc = match_load(o.file, 2, p))) return rc;
    rc = flame_diff_write(o.output, p[0], p[1], o.file[0], o.file[1], o.icicle);
    profile_free(p[0]);
    profile_free(p[1]);
    return rc;
}
