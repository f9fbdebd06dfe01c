/*
 * functions.c -- `shimview functions` and `shimview contexts`: a calling-context profile
 * as a table per function and a table per context.
 *
 * The function table answers "which functions cost the most, by themselves and with what
 * they call": each function's exclusive samples (its own code was running: slot 8 named
 * it) and inclusive ones (it was on the calling context's path: slot 9), with their shares
 * of samples and of TSC time, and each rate over both groups of periods. The context table
 * answers "along which call path": one row per context with samples, named by its path.
 * Both are built from calltree.c's sums, print as text, CSV or (the functions table) HTML
 * through table.c, and hide rows beyond --top as `report` does. Their options and cells
 * are the ones every table command takes (view.c).
 */
#include "shimview/analysis/calltree.h"
#include "shimview/analysis/loss.h"
#include "shimview/cmd/commands.h"
#include "shimview/analysis/match.h"
#include "shimview/base/numbers.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The lines of the usage texts for the filters (filter.h). */
#define FILTER_OPTIONS_USAGE                                                                       \
    "      --tid TID     only the samples of thread TID (again: of any of them)\n"                 \
    "      --focus FUNCTION\n"                                                                     \
    "                    only the samples whose call stack holds FUNCTION (again: any\n"           \
    "                    of them)\n"                                                               \
    "      --ignore FUNCTION\n"                                                                    \
    "                    leave out the samples whose call stack holds FUNCTION (again:\n"          \
    "                    any of them)\n"

const char functions_usage[] =
    "usage: shimview functions [--sort KEY] [--rate NAME] [--top N | --all]\n"
    "                          [--csv | --json] [--tid TID] [--focus FUNCTION]\n"
    "                          [--ignore FUNCTION] (FILE | -)\n"
    "\n"
    "Print one row per function of a calling-context profile (a program built with\n"
    "the pass or -finstrument-functions): its exclusive samples (slot 8 named it: its\n"
    "own code ran) and inclusive samples (it was on the context's path, or its own\n"
    "code ran where the context was lost; each sample counted once), each as a share\n"
    "of the attributed samples and of TSC time, and each rate over the exclusive and\n"
    "over the inclusive periods. Unnamed functions are MODULE+0xOFFSET.\n"
    "\n"
    "  -s, --sort KEY    the rows' order (keys: incl, excl, name): inclusive (the\n"
    "                    default) or exclusive samples, largest first, or names A to "
    "Z\n" FILTER_OPTIONS_USAGE VIEW_OPTIONS_USAGE("functions");

const char contexts_usage[] =
    "usage: shimview contexts [--sort KEY] [--rate NAME] [--top N | --all]\n"
    "                         [--csv | --json] [--tid TID] [--focus FUNCTION]\n"
    "                         [--ignore FUNCTION] (FILE | -)\n"
    "\n"
    "Print one row per calling context with samples, named by its path from the thread's\n"
    "root (main > parse > expr), largest first: samples, share of the attributed\n"
    "samples, share of TSC time, and each rate with its 95% interval and kept periods.\n"
    "A function called from two call sites is two contexts, told apart by ' @0xSITE'.\n"
    "\n"
    "  -s, --sort KEY    the rows' order (keys: samples, time, name): samples (the\n"
    "                    default) or TSC time, largest first, or paths A to "
    "Z\n" FILTER_OPTIONS_USAGE VIEW_OPTIONS_USAGE("contexts");

/* ---- functions ---- */

/* --sort's keys for the functions, in the order of their index */
static const char *const function_keys[] = {"incl", "excl", "name"};
enum { SORT_INCL, SORT_EXCL, SORT_NAME };

static long sort_key; /* qsort has no context argument in C11 */

static int by_key(const void *a, const void *b)
{
    const struct calltree_function *x = *(const struct calltree_function *const *)a;
    const struct calltree_function *y = *(const struct calltree_function *const *)b;
    if (sort_key == SORT_NAME) {
        char bx[256], by[256];
        int c = strcmp(calltree_function_label(x->f, bx, sizeof bx),
                       calltree_function_label(y->f, by, sizeof by));
        if (c) return c;
    }
    uint64_t kx[2] = {x->incl.samples, x->excl.samples}, ky[2] = {y->incl.samples, y->excl.samples};
    for (int i = 0; i < 2; i++) {
        int k = sort_key == SORT_EXCL ? 1 - i : i;
        if (kx[k] != ky[k]) return kx[k] > ky[k] ? -1 : 1;
    }
    return x < y ? -1 : x > y;
}

/* The functions with samples, sorted by key; NULL if memory ran out. */
static const struct calltree_function **function_rows(const struct calltree *ct, long key,
                                                      size_t *n)
{
    const struct calltree_function **rows = malloc((ct->p->nfunctions + 1) * sizeof *rows);
    if (!rows) return NULL;
    *n = 0;
    for (size_t i = 0; i < ct->p->nfunctions; i++)
        if (ct->functions[i].excl.samples || ct->functions[i].incl.samples)
            rows[(*n)++] = &ct->functions[i];
    sort_key = key;
    qsort(rows, *n, sizeof *rows, by_key);
    return rows;
}

static struct table *functions_table(const struct calltree *ct, long rate, int csv)
{
    const struct profile *p = ct->p;
    size_t r0, nr = view_rates_shown(p, rate, &r0), c = 0;
    size_t ncols = csv ? 9 + 6 * nr : 7 + 2 * nr;
    struct table *t = view_table_new(ncols, csv ? 2 : 1);
    if (!t) return NULL;
    static const char *const text_heads[] = {"function", "excl",       "excl share", "excl time",
                                             "incl",     "incl share", "incl time"};
    static const char *const csv_heads[] = {"function",     "module",     "offset",
                                            "excl_samples", "excl_share", "excl_time_share",
                                            "incl_samples", "incl_share", "incl_time_share"};
    table_add_row(t);
    for (size_t i = 0; i < (csv ? 9u : 7u); i++)
        table_set(t, c++, "%s", csv ? csv_heads[i] : text_heads[i]);
    for (size_t r = r0; r < r0 + nr; r++) {
        const char *name = p->rates[r].name;
        if (!csv) {
            table_set(t, c++, "%s excl", name);
            table_set(t, c++, "%s incl", name);
            continue;
        }
        static const char *const kinds[] = {"excl", "incl"};
        for (size_t k = 0; k < 2; k++) {
            table_set(t, c++, "rate_%s_%s", name, kinds[k]);
            table_set(t, c++, "rate_ci95_%s_%s", name, kinds[k]);
            table_set(t, c++, "n_%s_%s", name, kinds[k]);
        }
    }
    table_end_header(t);
    table_column_class(t, 0, "name");
    table_column_text(t, 0);
    table_column_text(t, 1);
    return t;
}

static void function_row(struct table *t, const struct calltree *ct,
                         const struct calltree_function *fn, long rate, int csv)
{
    const struct profile_function *f = fn->f;
    const struct calltree_count *cnt[2] = {&fn->excl, &fn->incl};
    char label[256], a[32];
    size_t r0, nr = view_rates_shown(ct->p, rate, &r0), c = 0;
    table_add_row(t);
    table_set(t, c++, "%s", calltree_function_label(f, label, sizeof label));
    if (csv) {
        if (f->module) table_set(t, c, "%s", f->module);
        table_set(t, c + 1, "%" PRIu64, f->offset);
        c += 2;
    }
    for (size_t k = 0; k < 2; k++) {
        if (csv)
            table_set(t, c, "%" PRIu64, cnt[k]->samples);
        else
            table_set(t, c, "%s", fmt_count(cnt[k]->samples, a, sizeof a));
        view_set_share(t, c + 1, calltree_share(ct, cnt[k]), csv);
        view_set_share(t, c + 2, calltree_time_share(ct, cnt[k]), csv);
        c += 3;
    }
    for (size_t r = r0; r < r0 + nr; r++)
        for (size_t k = 0; k < 2; k++) {
            if (csv)
                c = view_set_rate_csv(t, c, ct->p, r, &cnt[k]->rates[r]);
            else
                calltree_rate_cell(t, c++, ct->p, r, &cnt[k]->rates[r]);
        }
}

/* The samples the table cannot show as a function, and how to read it. */
static void functions_notes(FILE *f, enum report_format fmt, const struct calltree *ct)
{
    char a[32], b[32], text[768], slow[320];
    snprintf(text, sizeof text,
             "excl: samples whose function signal (slot 8) named the function; incl: samples "
             "whose calling context (slot 9) has it on its path, each once, and its own where the "
             "context was lost; shares of the %s "
             "attributed samples; time: share of TSC cycles; rates: over those samples' kept "
             "periods (sum_a / sum_b)%s",
             fmt_count(ct->attributed, a, sizeof a),
             profile_slow_rates_note(ct->p, slow, sizeof slow));
    report_note(f, fmt, text);
    if (ct->outside.samples) {
        snprintf(text, sizeof text,
                 "outside instrumented functions (slot 8 held 0): %s samples, %s",
                 fmt_count(ct->outside.samples, a, sizeof a),
                 stats_format_share(calltree_share(ct, &ct->outside), b, sizeof b));
        report_note(f, fmt, text);
    }
    if (ct->unlisted.samples) {
        snprintf(text, sizeof text,
                 "in functions the profile does not list (entered while the thread's arena was "
                 "full, so they have no context of their own): %s samples, %s",
                 fmt_count(ct->unlisted.samples, a, sizeof a),
                 stats_format_share(calltree_share(ct, &ct->unlisted), b, sizeof b));
        report_note(f, fmt, text);
    }
}

int functions_write(FILE *f, enum report_format fmt, const struct calltree *ct, long rate, long top)
{
    size_t n;
    const struct calltree_function **rows = function_rows(ct, SORT_INCL, &n);
    if (!rows) return -1;
    size_t shown = top >= 0 && (size_t)top < n ? (size_t)top : n;
    struct table *t = functions_table(ct, rate, 0);
    for (size_t i = 0; t && i < shown; i++)
        function_row(t, ct, rows[i], rate, 0);
    int rc = !t ? -1 : fmt == REPORT_HTML ? table_print_html(t, f) : table_print_text(t, f);
    table_free(t);
    free(rows);
    if (shown < n) {
        char text[128];
        snprintf(text, sizeof text, "(%zu more function%s hidden)", n - shown,
                 n - shown == 1 ? "" : "s");
        report_note(f, fmt, text);
    }
    functions_notes(f, fmt, ct);
    return rc;
}

static int print_functions(const struct calltree *ct, const struct view_options *o, long rate)
{
    size_t n;
    const struct calltree_function **rows = function_rows(ct, o->t.sort, &n);
    if (!rows) return -1;
    size_t shown = view_rows_wanted(&o->t, n);
    struct table *t = functions_table(ct, rate, o->t.csv);
    for (size_t i = 0; t && i < shown; i++)
        function_row(t, ct, rows[i], rate, o->t.csv);
    int rc = !t ? -1 : match_table_print(t, stdout, &o->t);
    table_free(t);
    free(rows);
    if (!o->t.csv) {
        match_note_hidden(n - shown);
        fputc('\n', stdout);
        functions_notes(stdout, REPORT_TEXT, ct);
    }
    return rc;
}

/* ---- contexts ---- */

struct context_row {
    const struct calltree_thread *th;
    size_t node;
    uint64_t samples, cycles;
    char *path; /* --sort name: the path as the table names it */
};

/* --sort's keys for the contexts */
static const char *const context_keys[] = {"samples", "time", "name"};
enum { SORT_SAMPLES, SORT_TIME, SORT_PATH };

static int by_context_key(const void *a, const void *b)
{
    const struct context_row *x = a, *y = b;
    int c = sort_key == SORT_PATH && x->path && y->path ? strcmp(x->path, y->path) : 0;
    if (c) return c;
    if (sort_key == SORT_TIME && x->cycles != y->cycles) return x->cycles > y->cycles ? -1 : 1;
    if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
    if (x->th != y->th) return x->th < y->th ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* Row's path, joined by " > ", with twin call sites told apart when twins is set; NULL if
 * memory ran out. */
static char *context_path(const struct context_row *row, int twins)
{
    char *path = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&path, &len);
    if (!m) return NULL;
    calltree_write_path(m, row->th->t, twins ? row->th->twin : NULL, row->node, " > ");
    if (fclose(m) != 0) return NULL;
    return path;
}

static void context_rows_free(struct context_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i].path);
    free(rows);
}

static struct context_row *context_rows(const struct calltree *ct, long key, size_t *n)
{
    size_t cap = 1;
    for (size_t i = 0; i < ct->nthreads; i++)
        cap += ct->threads[i].t->nnodes;
    struct context_row *rows = malloc(cap * sizeof *rows);
    if (!rows) return NULL;
    *n = 0;
    for (size_t i = 0; i < ct->nthreads; i++)
        for (size_t j = 0; j < ct->threads[i].t->nnodes; j++)
            if (ct->threads[i].excl[j].samples)
                rows[(*n)++] =
                    (struct context_row){&ct->threads[i], j, ct->threads[i].excl[j].samples,
                                         ct->threads[i].excl[j].cycles, NULL};
    for (size_t i = 0; key == SORT_PATH && i < *n; i++)
        if (!(rows[i].path = context_path(&rows[i], 0))) { /* as CSV names it */
            context_rows_free(rows, *n);
            return NULL;
        }
    sort_key = key;
    qsort(rows, *n, sizeof *rows, by_context_key);
    return rows;
}

static struct table *contexts_table(const struct calltree *ct, long rate, int csv, int threads)
{
    const struct profile *p = ct->p;
    size_t r0, nr = view_rates_shown(p, rate, &r0), c = 0, nfixed = csv ? 8 : 4 + (size_t)threads;
    struct table *t = view_table_new(nfixed + 3 * nr, csv ? 5 : 1 + (size_t)threads);
    if (!t) return NULL;
    static const char *const csv_heads[] = {"thread",  "index",   "node",  "call_site",
                                            "context", "samples", "share", "time_share"};
    table_add_row(t);
    if (csv) {
        table_column_text(t, 4);
        for (size_t i = 0; i < 8; i++)
            table_set(t, c++, "%s", csv_heads[i]);
    } else {
        if (threads) table_set(t, c++, "thread");
        table_set(t, c++, "context");
        table_set(t, c++, "samples");
        table_set(t, c++, "share");
        table_set(t, c++, "time share");
    }
    for (size_t r = r0; r < r0 + nr; r++) {
        table_set(t, c++, csv ? "rate_%s" : "%s rate", p->rates[r].name);
        if (csv)
            table_set(t, c++, "rate_ci95_%s", p->rates[r].name);
        else
            table_set(t, c++, "± 95%% CI");
        if (csv)
            table_set(t, c++, "n_%s", p->rates[r].name);
        else
            table_set(t, c++, "n");
    }
    table_end_header(t);
    return t;
}

static void context_row(struct table *t, const struct calltree *ct, const struct context_row *row,
                        long rate, int csv, int threads)
{
    const struct profile_cct_thread *th = row->th->t;
    const struct calltree_count *cnt = &row->th->excl[row->node];
    size_t r0, nr = view_rates_shown(ct->p, rate, &r0), c = 0;
    char *path = context_path(row, !csv), a[32];
    table_add_row(t);
    if (csv) {
        table_set(t, c++, "%" PRIu64, th->tid);
        table_set(t, c++, "%" PRIu64, th->index);
        table_set(t, c++, "%zu", row->node);
        if (th->nodes[row->node].has_site) table_set(t, c, "%" PRIu64, th->nodes[row->node].site);
        c++;
    } else if (threads) {
        table_set(t, c++, "%" PRIu64, th->tid);
    }
    table_set(t, c++, "%s", path ? path : "?");
    free(path);
    if (csv)
        table_set(t, c++, "%" PRIu64, cnt->samples);
    else
        table_set(t, c++, "%s", fmt_count(cnt->samples, a, sizeof a));
    view_set_share(t, c++, calltree_share(ct, cnt), csv);
    view_set_share(t, c++, calltree_time_share(ct, cnt), csv);
    for (size_t r = r0; r < r0 + nr; r++) {
        const struct calltree_sums *s = &cnt->rates[r];
        if (csv) {
            c = view_set_rate_csv(t, c, ct->p, r, s);
            continue;
        }
        struct interval iv = calltree_rate_interval(ct->p, r, s);
        char v[64], h[64];
        calltree_rate_cell(t, c++, ct->p, r, s);
        interval_format(&iv, iv.value, v, h, sizeof v);
        if (!isnan(interval_half(&iv))) table_set(t, c, "%s%s", h, interval_mark(iv.basis));
        table_set(t, c + 1, "%s", fmt_count(s->n, a, sizeof a));
        c += 2;
    }
}

static int print_contexts(const struct calltree *ct, const struct view_options *o, long rate)
{
    size_t n;
    struct context_row *rows = context_rows(ct, o->t.sort, &n);
    if (!rows) return -1;
    size_t shown = view_rows_wanted(&o->t, n);
    int threads = ct->nthreads > 1;
    struct table *t = contexts_table(ct, rate, o->t.csv, threads);
    for (size_t i = 0; t && i < shown; i++)
        context_row(t, ct, &rows[i], rate, o->t.csv, threads);
    int rc = !t ? -1 : match_table_print(t, stdout, &o->t);
    table_free(t);
    context_rows_free(rows, n);
    if (o->t.csv) return rc;
    match_note_hidden(n - shown);
    char a[32];
    printf("\ncontexts: paths of calls from the thread's root, recursion folded; samples: "
           "those taken in the context itself\n(its callees' are theirs); shares of the %s "
           "attributed samples; time: share of TSC cycles\n",
           fmt_count(ct->attributed, a, sizeof a));
    if (ct->no_context.samples)
        printf("without a context (a thread that entered no instrumented function, or other): "
               "%s samples\n",
               fmt_count(ct->no_context.samples, a, sizeof a));
    return rc;
}

/* ---- the commands ---- */

static int run(int argc, char **argv, const char *cmd, const char *usage,
               int (*print)(const struct calltree *, const struct view_options *, long))
{
    int functions = strcmp(cmd, "functions") == 0;
    struct view_options o = {
        .t = {.sort_keys = functions ? function_keys : context_keys, .nsort_keys = 3}};
    struct filtered_calltree x;
    int rc = view_parse_options(argc, argv, cmd, usage, "F", &o);
    if (rc) return rc < 0 ? 0 : rc;
    if ((rc = filter_load_calltree(o.file, &o.filter, cmd, &x)) != 0) return rc;
    size_t rate = 0;
    rc = o.rate ? calltree_find_rate(x.p, o.rate, cmd, &rate) : 0;
    if (rc == 0) { /* above the table, never among the records */
        loss_print(x.p, o.t.csv ? stderr : stdout);
        if (!o.t.csv) filter_note(stdout, &x.view, &o.filter);
    }
    if (rc == 0 && print(x.ct, &o, o.rate ? (long)rate : -1) != 0) {
        fprintf(stderr, "shimview: %s: out of memory while printing\n", x.p->file);
        rc = EXIT_FILE_ERROR;
    }
    filter_free_calltree(&x);
    return rc;
}

int functions_main(int argc, char **argv)
{
    return run(argc, argv, "functions", functions_usage, print_functions);
}

int contexts_main(int argc, char **argv)
{
    return run(argc, argv, "contexts", contexts_usage, print_contexts);
}
