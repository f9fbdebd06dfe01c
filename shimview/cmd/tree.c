/*
 * tree.c -- `shimview tree`: the calling-context tree, top down, in the terminal.
 *
 * One tree per thread, from the thread's root (its line: every sample of the thread, and
 * as its exclusive samples those taken outside every instrumented function) down through
 * the contexts, each line a context with its inclusive and exclusive shares and its
 * function, children heaviest first. What is too light to matter (inclusive share under
 * --min-share) or too deep (--depth) is folded into one line per parent, "…N more", with
 * the share they hold together, so the tree stays a page long whatever the program; a
 * context without samples is left out altogether.
 *
 * The lines are rows of a table.c table whose last column is the tree, drawn with
 * box-drawing characters (├─ └─ │) when the locale is UTF-8 and with ASCII (|- `- |)
 * otherwise, the choice sparklines make; so the numbers line up, and `shimview html`
 * prints the same rows as an HTML table. The walk keeps its own stack, not the C one, so
 * a deep tree cannot overflow it.
 */
#include "shimview/analysis/callers.h"
#include "shimview/analysis/calltree.h"
#include "shimview/cmd/commands.h"
#include "shimview/base/numbers.h"
#include "shimview/render/sparkline.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MIN_SHARE 0.005

const char tree_usage[] =
    "usage: shimview tree [--callers FUNCTION] [--rate NAME] [--min-share PCT] [--depth N]\n"
    "                     [--tid TID] [--focus FUNCTION] [--ignore FUNCTION] (FILE | -)\n"
    "\n"
    "Print the calling-context tree of a profile of a program built with\n"
    "-finstrument-functions, top down, one tree per thread: each context with its\n"
    "inclusive share (its samples and its callees') and exclusive share (its own) of the\n"
    "attributed samples and its function, children sorted by inclusive samples. Contexts\n"
    "under --min-share, or deeper than --depth, are folded into one line '...N more' per\n"
    "parent; contexts without samples are not shown. With --callers, the tree bottom up:\n"
    "FUNCTION, then its callers, their callers, and so on (every thread's together), each\n"
    "with the share of samples that reached FUNCTION through it (total) and of those in\n"
    "which FUNCTION itself ran (self).\n"
    "\n"
    "  -c, --callers FUNCTION the callers of FUNCTION, bottom up, instead of the tree\n"
    "  -r, --rate NAME        add the rate over each context's inclusive and exclusive\n"
    "                         periods\n"
    "  -m, --min-share PCT    fold contexts whose inclusive share is under PCT percent\n"
    "                         (default 0.5; 0 shows every context with samples)\n"
    "  -d, --depth N          show N levels below each thread's root (default: all)\n"
    "      --tid TID          only the samples of thread TID (again: of any of them)\n"
    "      --focus FUNCTION   only the samples whose call stack holds FUNCTION (again:\n"
    "                         any of them)\n"
    "      --ignore FUNCTION  leave out the samples whose call stack holds FUNCTION\n"
    "                         (again: any of them)\n"
    "  -h, --help             print this help\n";

/* The connectors: a child that has siblings after it, the last child, and what a line
 * below carries under each. */
struct tree_look {
    const char *branch, *last, *pipe, *blank, *more;
};

static const struct tree_look look_utf8 = {"\xe2\x94\x9c\xe2\x94\x80 ", "\xe2\x94\x94\xe2\x94\x80 ",
                                           "\xe2\x94\x82  ", "   ", "\xe2\x80\xa6"};
static const struct tree_look look_ascii = {"|- ", "`- ", "|  ", "   ", "..."};

struct tree_walk {
    const struct calltree *ct;
    const struct calltree_thread *th;
    struct table *t;
    const struct tree_look *look;
    long rate;
    double min_share;
    size_t depth;
    char *prefix; /* the connectors of the lines above, grown as the walk goes down */
    size_t cap;
};

/* One level of the walk: a node whose children are being drawn. */
struct frame {
    size_t node, next, shown, hidden, prefix_len;
    uint64_t hidden_samples;
};

static void set_share(struct table *t, size_t col, double frac)
{
    char buf[32];
    if (!isnan(frac)) table_set(t, col, "%s", stats_format_share(frac, buf, sizeof buf));
}

/* A line of the tree: shares, rates and the name after the prefix and connector. A
 * line of folded contexts (excl NULL) has only their inclusive share. */
static void line(struct tree_walk *w, const struct calltree_count *incl,
                 const struct calltree_count *excl, size_t prefix_len, const char *connector,
                 const char *name)
{
    struct table *t = w->t;
    size_t c = 0;
    table_add_row(t);
    set_share(t, c++, calltree_share(w->ct, incl));
    if (excl) set_share(t, c, calltree_share(w->ct, excl));
    c++;
    if (w->rate >= 0) {
        size_t r = (size_t)w->rate;
        if (excl) calltree_rate_cell(t, c, w->ct->p, r, &incl->rates[r]);
        if (excl) calltree_rate_cell(t, c + 1, w->ct->p, r, &excl->rates[r]);
        c += 2;
    }
    table_set(t, c, "%.*s%s%s", (int)prefix_len, w->prefix, connector, name);
}

/* The children of node shown in frame f: a prefix of them (they are sorted), those with
 * at least min_share of the samples, within the depth; the others with samples fold. */
static void frame_init(const struct tree_walk *w, struct frame *f, size_t node, size_t level,
                       size_t prefix_len)
{
    const struct calltree_thread *th = w->th;
    *f = (struct frame){.node = node, .prefix_len = prefix_len};
    for (size_t k = th->first[node]; k < th->first[node + 1]; k++) {
        uint64_t s = th->incl[th->kids[k]].samples;
        if (s == 0) break;
        if (f->hidden == 0 && (w->depth == 0 || level < w->depth) &&
            !(stats_fraction(s, w->ct->attributed) < w->min_share)) {
            f->shown++;
        } else {
            f->hidden++;
            f->hidden_samples += s;
        }
    }
}

/* Make room for a prefix of len bytes; -1 if memory ran out. */
static int prefix_reserve(struct tree_walk *w, size_t len)
{
    if (len <= w->cap) return 0;
    size_t cap = w->cap ? 2 * w->cap : 256;
    while (cap < len)
        cap *= 2;
    char *grown = realloc(w->prefix, cap);
    if (!grown) return -1;
    w->prefix = grown;
    w->cap = cap;
    return 0;
}

/* The lines below the thread's root, depth first. */
static int walk(struct tree_walk *w)
{
    const struct calltree_thread *th = w->th;
    size_t cap = 16, sp = 0;
    struct frame *stack = malloc(cap * sizeof *stack);
    char name[320];
    if (!stack) return -1;
    frame_init(w, &stack[sp++], 0, 0, 0);
    while (sp > 0) {
        struct frame *f = &stack[sp - 1];
        if (f->next == f->shown) {
            if (f->hidden) {
                struct calltree_count folded = {.samples = f->hidden_samples};
                char more[64];
                snprintf(more, sizeof more, "%s%zu more", w->look->more, f->hidden);
                line(w, &folded, NULL, f->prefix_len, w->look->last, more);
            }
            sp--;
            continue;
        }
        size_t child = w->th->kids[th->first[f->node] + f->next++];
        int last = f->next == f->shown && f->hidden == 0;
        line(w, &th->incl[child], &th->excl[child], f->prefix_len,
             last ? w->look->last : w->look->branch,
             calltree_node_name(th->t, th->twin, child, name, sizeof name));
        const char *carry = last ? w->look->blank : w->look->pipe;
        size_t len = f->prefix_len + strlen(carry);
        if (prefix_reserve(w, len) != 0) break;
        memcpy(w->prefix + f->prefix_len, carry, strlen(carry));
        if (sp == cap) {
            struct frame *grown = realloc(stack, 2 * cap * sizeof *stack);
            if (!grown) break;
            stack = grown;
            cap *= 2;
        }
        frame_init(w, &stack[sp], child, sp, len);
        sp++;
    }
    free(stack);
    return sp == 0 ? 0 : -1;
}

/* The table: the two shares (heads[0], heads[1]: "incl" and "excl" in the tree), the
 * rate over each when rate is not negative, the tree (heads[2]). */
static struct table *tree_table(const struct calltree *ct, long rate, const char *const *heads)
{
    size_t ncols = rate >= 0 ? 5 : 3;
    enum table_align align[5] = {TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT, TABLE_LEFT};
    if (rate < 0) align[2] = TABLE_LEFT;
    struct table *t = table_new(ncols, align);
    if (!t) return NULL;
    size_t c = 0;
    table_add_row(t);
    table_set(t, c++, "%s", heads[0]);
    table_set(t, c++, "%s", heads[1]);
    if (rate >= 0) {
        table_set(t, c++, "%s %s", ct->p->rates[rate].name, heads[0]);
        table_set(t, c++, "%s %s", ct->p->rates[rate].name, heads[1]);
    }
    table_set(t, c, "%s", heads[2]);
    table_column_class(t, c, "tree");
    table_end_header(t);
    return t;
}

/* w's tree under a root line named root_name, the shares headed heads[0] and heads[1]. */
static int draw(FILE *f, enum report_format fmt, struct tree_walk *w, const char *root_name,
                const char *const *heads)
{
    if (!(w->t = tree_table(w->ct, w->rate, heads))) return -1;
    line(w, &w->th->incl[0], &w->th->excl[0], 0, "", root_name);
    int rc = walk(w);
    if (rc == 0) rc = fmt == REPORT_HTML ? table_print_html(w->t, f) : table_print_text(w->t, f);
    table_free(w->t);
    w->t = NULL;
    return rc;
}

/* One thread: a line saying whose tree it is, then the tree. */
static int write_thread(FILE *f, enum report_format fmt, struct tree_walk *w)
{
    static const char *const heads[] = {"incl", "excl", "context"};
    const struct profile_cct_thread *t = w->th->t;
    const struct calltree_count *root = &w->th->incl[0];
    char a[32], b[32], text[256];
    size_t contexts = 0;
    for (size_t i = 2; i < t->nnodes; i++)
        contexts += w->th->incl[i].samples > 0;
    snprintf(text, sizeof text,
             "thread %" PRIu64 " (index %" PRIu64 "): %s samples, %s; %zu of %zu contexts "
             "with samples",
             t->tid, t->index, fmt_count(root->samples, a, sizeof a),
             stats_format_share(calltree_share(w->ct, root), b, sizeof b), contexts, t->nnodes - 2);
    report_note(f, fmt, text);
    if (root->samples == 0) return 0;
    snprintf(text, sizeof text, "thread %" PRIu64, t->tid);
    return draw(f, fmt, w, text, heads);
}

/* The line under a tree: text, then which of its lines (what: "contexts") were folded. */
static void legend(FILE *f, enum report_format fmt, const struct tree_walk *w, const char *what,
                   char *text, size_t len)
{
    size_t n = strlen(text);
    char under[64] = "";
    if (w->min_share > 0) snprintf(under, sizeof under, "under %g%% of them", 100 * w->min_share);
    if (n < len && (w->min_share > 0 || w->depth))
        snprintf(text + n, len - n, "; %s %s%s%s folded into '%s' lines", what, under,
                 w->min_share > 0 && w->depth ? " or " : "",
                 w->depth ? "below the depth shown" : "", w->look->more);
    report_note(f, fmt, text);
}

int tree_write(FILE *f, enum report_format fmt, const struct calltree *ct, long rate,
               double min_share, size_t depth, int utf8)
{
    struct tree_walk w = {.ct = ct,
                          .look = utf8 ? &look_utf8 : &look_ascii,
                          .rate = rate,
                          .min_share = min_share,
                          .depth = depth};
    int rc = 0;
    char text[512];
    for (size_t i = 0; rc == 0 && i < ct->nthreads; i++) {
        w.th = &ct->threads[i];
        if (i > 0 && fmt == REPORT_TEXT) fputc('\n', f);
        rc = write_thread(f, fmt, &w);
    }
    free(w.prefix);
    if (fmt == REPORT_TEXT) fputc('\n', f);
    snprintf(text, sizeof text,
             "incl: samples in the context and in what it called; excl: in the context "
             "itself (a thread's: outside every instrumented function); shares of the "
             "attributed samples");
    legend(f, fmt, &w, "contexts", text, sizeof text);
    return rc;
}

/* The callers of a function as `tree --callers` prints them: a line saying whose, then
 * the tree bottom up (name: what the user named the function by). 0, or -1 when memory
 * ran out. */
static int callers_write(FILE *f, const struct calltree *ct, const struct callers *c,
                         const char *name, long rate, double min_share, size_t depth, int utf8)
{
    static const char *const heads[] = {"total", "self", "caller"};
    struct tree_walk w = {.ct = ct,
                          .th = &c->th,
                          .look = utf8 ? &look_utf8 : &look_ascii,
                          .rate = rate,
                          .min_share = min_share,
                          .depth = depth};
    const struct calltree_count *root = &c->th.incl[0], *self = &c->th.excl[0];
    char a[32], b[32], text[512], pa[16], pb[16];
    snprintf(text, sizeof text,
             "callers of %s: %s samples reached it, %s; %s of them in its own code, %s", name,
             fmt_count(root->samples, a, sizeof a),
             stats_format_share(calltree_share(ct, root), pa, sizeof pa),
             fmt_count(self->samples, b, sizeof b),
             stats_format_share(calltree_share(ct, self), pb, sizeof pb));
    report_note(f, REPORT_TEXT, text);
    int rc = root->samples ? draw(f, REPORT_TEXT, &w, name, heads) : 0;
    free(w.prefix);
    fputc('\n', f);
    snprintf(text, sizeof text,
             "bottom up: each line a caller of the line above it; total: samples that reached %s "
             "through those callers (it and what it called), less those that came from the "
             "thread's root with no instrumented caller there; self: those in which %s itself "
             "ran; shares of the attributed samples",
             name, name);
    legend(f, REPORT_TEXT, &w, "callers", text, sizeof text);
    return rc;
}

/* ---- the command ---- */

struct tree_options {
    const char *rate, *file, *callers;
    double min_share;
    long depth;
    struct filter_spec filter;
};

static int parse_percent(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end || !(v >= 0 && v <= 100))
        return usage_error("tree", "--min-share expects a percentage from 0 to 100, not '%s'",
                           text);
    *out = v / 100;
    return 0;
}

static int parse_options(int argc, char **argv, struct tree_options *o)
{
    static const struct option options[] = {
        {"rate", required_argument, NULL, 'r'},
        {"min-share", required_argument, NULL, 'm'},
        {"depth", required_argument, NULL, 'd'},
        {"callers", required_argument, NULL, 'c'},
        FILTER_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, rc;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":r:m:d:c:h", options, NULL)) != -1) {
        if ((rc = filter_option("tree", opt, &o->filter)) != 0) {
            if (rc != 1) return rc;
            continue;
        }
        switch (opt) {
        case 'c':
            if (!optarg[0]) return usage_error("tree", "--callers needs a function name");
            o->callers = optarg;
            break;
        case 'r':
            if (!optarg[0]) return usage_error("tree", "--rate needs a rate name");
            o->rate = optarg;
            break;
        case 'm':
            if (parse_percent(optarg, &o->min_share)) return EXIT_USAGE_ERROR;
            break;
        case 'd':
            if (parse_count_option("tree", "--depth", optarg, &o->depth)) return EXIT_USAGE_ERROR;
            if (o->depth == 0) return usage_error("tree", "--depth must be at least 1");
            break;
        case 'h':
            fputs(tree_usage, stdout);
            return -1;
        default:
            return option_error("tree", opt, argv);
        }
    }
    if (optind >= argc) return usage_error("tree", "missing the profile FILE");
    if (optind + 1 < argc) return usage_error("tree", "expects one FILE, got %d", argc - optind);
    o->file = argv[optind];
    return 0;
}

/* The callers of the functions o->callers names, bottom up. 0, -1 when memory ran out,
 * or EXIT_USAGE_ERROR after a message (no such function). */
static int print_callers(const struct tree_options *o, const struct filtered_calltree *x, long rate,
                         int utf8)
{
    unsigned char *marks = calloc(x->p->nfunctions + 1, 1);
    if (!marks) return -1;
    int rc = filter_find_functions(x->p, o->callers, "--callers", 1, "tree", marks);
    struct callers *c = rc ? NULL : callers_build(x->ct, marks);
    if (rc == 0)
        rc = !c ? -1
                : callers_write(stdout, x->ct, c, o->callers, rate, o->min_share, (size_t)o->depth,
                                utf8);
    callers_free(c);
    free(marks);
    return rc;
}

int tree_main(int argc, char **argv)
{
    struct tree_options o = {.min_share = DEFAULT_MIN_SHARE};
    struct filtered_calltree x;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if ((rc = filter_load_calltree(o.file, &o.filter, "tree", &x)) != 0) return rc;
    size_t rate = 0;
    int utf8 = sparkline_style_from_locale() == SPARKLINE_UTF8;
    rc = o.rate ? calltree_find_rate(x.p, o.rate, "tree", &rate) : 0;
    if (rc == 0) filter_note(stdout, &x.view, &o.filter);
    if (rc == 0)
        rc = o.callers ? print_callers(&o, &x, o.rate ? (long)rate : -1, utf8)
                       : tree_write(stdout, REPORT_TEXT, x.ct, o.rate ? (long)rate : -1,
                                    o.min_share, (size_t)o.depth, utf8);
    if (rc < 0) {
        fprintf(stderr, "shimview: %s: out of memory while printing\n", x.p->file);
        rc = EXIT_FILE_ERROR;
    }
    filter_free_calltree(&x);
    return rc;
}
