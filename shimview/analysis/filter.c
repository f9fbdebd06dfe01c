/*
 * filter.c -- the samples a view keeps: --tid, --focus and --ignore (see filter.h).
 *
 * Filtering happens on the tag entries, before anything is added up: the view is the
 * profile with fewer entries, so every sum the views make (calltree.c's per context and
 * per function, the export's stacks) is the sum over the samples kept, with no view of
 * its own to change. The profile's sample counts stay as they are, so shares remain
 * shares of everything attributed, as pprof's percentages stay of the whole profile
 * unless asked otherwise.
 *
 * An entry's stack is walked up its context's path once per entry, marking nothing: the
 * functions named are flagged in an array indexed like `functions`, so the test of a
 * frame is one load.
 */
#include "shimview/analysis/filter.h"
#include "shimview/base/numbers.h"
#include "shimview/base/usage.h"
#include "shimview/analysis/calltree.h"
#include "shimview/analysis/stats.h"
#include "shimview/model/profile_threads.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FOCUS  1
#define IGNORE 2

/* ---- the options ---- */

int filter_option(const char *cmd, int opt, struct filter_spec *f)
{
    const char *name = opt == 'T' ? "--tid" : opt == 'F' ? "--focus" : "--ignore";
    size_t *n = opt == 'T' ? &f->ntids : opt == 'F' ? &f->nfocus : &f->nignore;
    if (opt != 'T' && opt != 'F' && opt != 'I') return 0;
    if (*n == FILTER_MAX) return usage_error(cmd, "%s given more than %d times", name, FILTER_MAX);
    if (opt == 'T') {
        long tid;
        if (parse_count_option(cmd, "--tid", optarg, &tid)) return EXIT_USAGE_ERROR;
        f->tids[(*n)++] = (uint64_t)tid;
        return 1;
    }
    if (!optarg[0]) return usage_error(cmd, "%s needs a function name", name);
    (opt == 'F' ? f->focus : f->ignore)[(*n)++] = optarg;
    return 1;
}

int filter_given(const struct filter_spec *f)
{
    return f->ntids || f->nfocus || f->nignore;
}

/* ---- names and threads ---- */

/* Does name (as the user typed it; address when it read as 0x...) name function fn? */
static int names_function(const struct profile_function *fn, const char *name, uint64_t address)
{
    char buf[256];
    if (address && fn->address == address) return 1;
    return (fn->name && strcmp(fn->name, name) == 0) ||
           (fn->symbol && strcmp(fn->symbol, name) == 0) ||
           (fn->pass && strcmp(fn->pass->name, name) == 0) ||
           strcmp(calltree_function_label(fn, buf, sizeof buf), name) == 0;
}

/* The names close to a typo, or the first functions, as a list on f. */
static void close_names(FILE *f, const struct profile *p, const char *name)
{
    size_t listed = 0, close = 0;
    char buf[256];
    for (size_t i = 0; i < p->nfunctions; i++)
        close += usage_near(name, calltree_function_label(&p->functions[i], buf, sizeof buf));
    fputs(close ? "close names: " : "functions: ", f);
    for (size_t i = 0; i < p->nfunctions && listed < 8; i++) {
        const char *label = calltree_function_label(&p->functions[i], buf, sizeof buf);
        if (close && !usage_near(name, label)) continue;
        fprintf(f, "%s%s", listed++ ? ", " : "", label);
    }
    size_t all = close ? close : p->nfunctions;
    if (all > listed) fprintf(f, ", ...%zu more", all - listed);
}

int filter_find_functions(const struct profile *p, const char *name, const char *option, int bit,
                          const char *cmd, unsigned char *marks)
{
    char *end, *list = NULL;
    size_t len = 0, found = 0;
    uint64_t address = 0;
    if (strncmp(name, "0x", 2) == 0 && name[2]) {
        address = strtoull(name + 2, &end, 16);
        if (*end) address = 0;
    }
    for (size_t i = 0; i < p->nfunctions; i++)
        if (names_function(&p->functions[i], name, address)) {
            marks[i] |= (unsigned char)bit;
            found++;
        }
    if (found) return 0;
    FILE *m = open_memstream(&list, &len);
    if (m) close_names(m, p, name);
    int ok = m && fclose(m) == 0;
    usage_error(cmd, "%s %s: no function of that name in %s (%s)", option, name, p->file,
                ok ? list : "out of memory");
    free(list);
    return EXIT_USAGE_ERROR;
}

/* Does any entry, listed thread or calling-context tree have thread tid? */
static int has_thread(const struct profile *p, uint64_t tid)
{
    if (profile_thread_find(p, tid)) return 1;
    for (size_t i = 0; p->has_cct && i < p->cct.nthreads; i++)
        if (p->cct.threads[i].tid == tid) return 1;
    for (size_t i = 0; i < p->ntags; i++)
        if (p->tags[i].thread == tid) return 1;
    return 0;
}

/* The threads a profile has samples of, as a list on f (the first few). */
static void thread_list(FILE *f, const struct profile *p)
{
    size_t listed = 0;
    for (size_t i = 0; i < p->ntags && listed < 8; i++) {
        size_t j = 0;
        while (j < i && p->tags[j].thread != p->tags[i].thread)
            j++;
        if (j == i) fprintf(f, "%s%" PRIu64, listed++ ? ", " : "", p->tags[i].thread);
    }
    if (!listed) fputs("none", f);
}

static int check_threads(const struct profile *p, const struct filter_spec *f, const char *cmd)
{
    for (size_t i = 0; i < f->ntids; i++) {
        if (has_thread(p, f->tids[i])) continue;
        char *list = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&list, &len);
        if (m) thread_list(m, p);
        int ok = m && fclose(m) == 0;
        usage_error(cmd, "--tid %" PRIu64 ": no thread of that id in %s (threads with samples: %s)",
                    f->tids[i], p->file, ok ? list : "out of memory");
        free(list);
        return EXIT_USAGE_ERROR;
    }
    return 0;
}

/* ---- the entries kept ---- */

/* The marks of the functions on entry t's stack, or'ed together. */
static int stack_marks(const struct profile *p, const struct profile_tag *t,
                       const unsigned char *marks)
{
    int m = t->function ? marks[t->function - p->functions] : 0;
    const struct profile_cct_thread *th = t->context_thread;
    for (size_t node = th ? t->context_node : 0; node != 0; node = th->nodes[node].parent)
        if (th->nodes[node].function) m |= marks[th->nodes[node].function - p->functions];
    return m;
}

static int keeps(const struct profile *p, const struct filter_spec *f, const struct profile_tag *t,
                 const unsigned char *marks)
{
    int tid_ok = f->ntids == 0;
    for (size_t i = 0; i < f->ntids; i++)
        tid_ok |= t->thread == f->tids[i];
    if (!tid_ok) return 0;
    int m = marks ? stack_marks(p, t, marks) : 0;
    return (!f->nfocus || (m & FOCUS)) && !(m & IGNORE);
}

int filter_apply(const struct profile *p, const struct filter_spec *f, const char *cmd,
                 struct profile *view)
{
    unsigned char *marks = NULL;
    int rc = check_threads(p, f, cmd);
    *view = *p;
    view->tags = NULL;
    if (rc) return rc;
    if ((f->nfocus || f->nignore) && !p->has_cct && !p->has_function_slot) {
        fprintf(stderr,
                "shimview: %s has no functions to filter by: --focus and --ignore need a "
                "calling context (-finstrument-functions) or the compiler pass's function "
                "signal\n",
                p->file);
        return EXIT_FILE_ERROR;
    }
    if ((f->nfocus || f->nignore) && !(marks = calloc(p->nfunctions + 1, 1))) goto memory;
    for (size_t i = 0; rc == 0 && i < f->nfocus; i++)
        rc = filter_find_functions(p, f->focus[i], "--focus", FOCUS, cmd, marks);
    for (size_t i = 0; rc == 0 && i < f->nignore; i++)
        rc = filter_find_functions(p, f->ignore[i], "--ignore", IGNORE, cmd, marks);
    if (rc) {
        free(marks);
        return rc;
    }
    if (!(view->tags = malloc((p->ntags + 1) * sizeof *view->tags))) goto memory;
    view->ntags = 0;
    for (size_t i = 0; i < p->ntags; i++)
        if (keeps(p, f, &p->tags[i], marks)) view->tags[view->ntags++] = p->tags[i];
    if (f->ntids || f->nfocus) { /* `other` has no thread and no stack: it goes */
        view->other.samples = view->other.cycles = view->other.kept = 0;
        view->other.straddled = 0;
        if (!(view->other.rates = calloc(p->nrates + 1, sizeof *view->other.rates))) goto memory;
        view->other.by = NULL;
    }
    free(marks);
    return 0;
memory:
    free(marks);
    filter_view_free(p, view);
    fprintf(stderr, "shimview: %s: out of memory\n", p->file);
    return EXIT_FILE_ERROR;
}

void filter_view_free(const struct profile *p, struct profile *view)
{
    free(view->tags);
    view->tags = NULL;
    if (view->other.rates != p->other.rates) free(view->other.rates);
    view->other.rates = p->other.rates;
}

void filter_note(FILE *f, const struct profile *view, const struct filter_spec *spec)
{
    if (!filter_given(spec)) return;
    uint64_t kept = view->other.samples,
             attributed = view->samples.total - view->samples.interrupted;
    char a[32], b[32];
    for (size_t i = 0; i < view->ntags; i++)
        kept += view->tags[i].samples;
    fputs("filter:", f);
    for (size_t i = 0; i < spec->ntids; i++)
        fprintf(f, " --tid %" PRIu64, spec->tids[i]);
    for (size_t i = 0; i < spec->nfocus; i++)
        fprintf(f, " --focus %s", spec->focus[i]);
    for (size_t i = 0; i < spec->nignore; i++)
        fprintf(f, " --ignore %s", spec->ignore[i]);
    char pct[16];
    fprintf(f, ": kept %s of %s attributed samples (%s); shares are of all of them\n",
            fmt_count(kept, a, sizeof a), fmt_count(attributed, b, sizeof b),
            stats_format_share(stats_fraction(kept, attributed), pct, sizeof pct));
}

int filter_load_calltree(const char *file, const struct filter_spec *f, const char *cmd,
                         struct filtered_calltree *x)
{
    *x = (struct filtered_calltree){0};
    int rc = calltree_load_profile(file, &x->p);
    if (rc) return rc;
    if ((rc = filter_apply(x->p, f, cmd, &x->view)) != 0) {
        profile_free(x->p);
        return rc;
    }
    if (!(x->ct = calltree_build(&x->view))) {
        fprintf(stderr, "shimview: %s: out of memory\n", x->p->file);
        filter_free_calltree(x);
        return EXIT_FILE_ERROR;
    }
    x->ct->total_cycles = profile_total_cycles(x->p); /* time shares: of the whole */
    return 0;
}

void filter_free_calltree(struct filtered_calltree *x)
{
    calltree_free(x->ct);
    if (x->p) filter_view_free(x->p, &x->view);
    profile_free(x->p);
    *x = (struct filtered_calltree){0};
}
