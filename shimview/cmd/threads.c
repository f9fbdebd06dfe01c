/*
 * threads.c -- `shimview threads`: whose samples a profile holds, one row per thread.
 *
 * The observer files every sample under the thread that ran on the CPU it watches, so a
 * profile of a program with several threads, or of one that shared its CPU, holds the
 * samples of each of its threads and of whatever else ran there. This view adds the tag
 * entries up by thread, whatever their tags: a row per thread of the program
 * (`placement.threads`: its tid and name), largest first, then the observed threads that
 * got no sample, then one row for every other process together and one for the idle CPU
 * (profile_threads.h). Every row says the same as a row of `loops` or `paths`: samples,
 * their share of all attributed samples and of TSC time, and each rate as sum_a / sum_b
 * over the thread's kept periods. The grouping is pass_table.c's, by a key of (group,
 * tid), so the sums and cells are the ones those views print.
 */
#include "shimview/analysis/calltree.h"
#include "shimview/analysis/intervals.h"
#include "shimview/cmd/commands.h"
#include "shimview/base/numbers.h"
#include "shimview/model/profile_threads.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"

#include <inttypes.h>
#include <stdlib.h>

const char threads_usage[] =
    "usage: shimview threads [--sort KEY] [--rate NAME] [--top N | --all]\n"
    "                        [--csv | --json] (FILE | -)\n"
    "\n"
    "Print one row per thread of the program (its tid and name), largest first, with its\n"
    "samples, their share of all attributed samples and of TSC time, and each rate over\n"
    "its kept periods (sum_a / sum_b, to the precision its 95% interval supports); the\n"
    "observed threads without a sample; then one row for the samples of other processes\n"
    "and one for the idle CPU, when there are any. --top counts the program's threads.\n"
    "\n"
    "  -s, --sort KEY    the program's threads' order (keys: samples, time, tid, name):\n"
    "                    samples (the default) or TSC time, largest first, thread ids\n"
    "                    smallest first, or names A to Z\n" VIEW_OPTIONS_USAGE("threads");

/* Key: the group, then the tid (0 for the rows of other processes and idle, one each). */
static void thread_key(const struct profile_tag *t, const void *ctx, uint64_t *key)
{
    enum thread_group g = tag_thread_group(ctx, t);
    key[0] = (uint64_t)g;
    key[1] = g == THREAD_PROGRAM ? t->thread : 0;
}

/* The program's threads, then the other groups (entry_groups sorted by samples). */
static int program_first(const void *a, const void *b)
{
    const struct entry_group *x = a, *y = b;
    if (x->key[0] != y->key[0]) return x->key[0] < y->key[0] ? -1 : 1;
    if (x->c.samples != y->c.samples) return x->c.samples > y->c.samples ? -1 : 1;
    return x->key[1] < y->key[1] ? -1 : x->key[1] > y->key[1];
}

/* Has a listed thread a row among the n groups? */
static int has_row(const struct entry_group *g, size_t n, uint64_t tid)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].key[0] == THREAD_PROGRAM && g[i].key[1] == tid) return 1;
    return 0;
}

/* The rows: the entries added up by thread, and a row without samples for each listed
 * thread that has none (a tid the list holds twice gets one row), in the order above;
 * their rate sums in *block, the empty rows' in *zeros. NULL if memory ran out. */
static struct entry_group *thread_rows(const struct profile *p, size_t *n,
                                       struct calltree_sums **block, struct calltree_sums **zeros)
{
    const struct profile_placement *pl = &p->placement;
    struct entry_group *g = entry_groups(p->tags, p->ntags, p->nrates, thread_key, p, n, block);
    if (!g) return NULL;
    struct entry_group *rows = calloc(*n + pl->nthreads + 1, sizeof *rows);
    *zeros = calloc(p->nrates + 1, sizeof **zeros);
    if (!rows || !*zeros) {
        free(g);
        free(rows);
        free(*block);
        free(*zeros);
        return NULL;
    }
    size_t k = *n;
    for (size_t i = 0; i < k; i++)
        rows[i] = g[i];
    for (size_t i = 0; i < pl->nthreads; i++) {
        if (has_row(rows, k, pl->threads[i].tid)) continue;
        rows[k++] = (struct entry_group){.key = {THREAD_PROGRAM, pl->threads[i].tid},
                                         .c = {.rates = *zeros}};
    }
    qsort(rows, k, sizeof *rows, program_first);
    free(g);
    *n = k;
    return rows;
}

static struct table *threads_table(const struct profile *p, long rate, int csv)
{
    static const char *const text_heads[] = {"thread", "name", "samples", "share", "time"};
    static const char *const csv_heads[] = {"thread", "name", "samples", "share", "time_share"};
    size_t r0, nr = view_rates_shown(p, rate, &r0), c = 0;
    struct table *t = view_table_new(5 + (csv ? 3 : 1) * nr, 2);
    if (t) table_column_text(t, 1);
    if (!t) return NULL;
    table_add_row(t);
    for (size_t i = 0; i < 5; i++)
        table_set(t, c++, "%s", csv ? csv_heads[i] : text_heads[i]);
    pass_rate_heads(t, c, p, rate, csv);
    table_end_header(t);
    table_column_class(t, 1, "name");
    return t;
}

/* The thread and its name: the list's name, "-" when the profile has no list; for the
 * two group rows the group's name (and tid 0 for idle). */
static void thread_row(struct table *t, const struct profile *p, const struct entry_group *row,
                       long rate, int csv)
{
    table_add_row(t);
    const char *group = thread_group_name((enum thread_group)row->key[0]);
    if (!group) {
        const struct profile_thread *th = profile_thread_find(p, row->key[1]);
        table_set(t, 0, "%" PRIu64, row->key[1]);
        table_set(t, 1, "%s", th ? th->name : "-");
    } else {
        if (row->key[0] == THREAD_IDLE) table_set(t, 0, "0");
        table_set(t, 1, "%s", group);
    }
    size_t c = pass_count_cells(t, 2, p, &row->c, csv);
    pass_rate_cells(t, c, p, rate, &row->c, csv);
}

/* --sort's keys: samples, time (entry_groups_sort), then these by their labels */
static const char *const thread_keys[] = {"samples", "time", "tid", "name"};
enum { SORT_TID = ENTRY_SORT_TIME + 1, SORT_NAME };

static const struct profile *label_profile; /* the profile thread_label names threads from */

/* A thread's tid (zero-padded, so that text order is numeric order) or its name. */
static const char *thread_label(const struct entry_group *g, long by, char *buf, size_t len)
{
    const struct profile_thread *th = profile_thread_find(label_profile, g->key[1]);
    if (by == SORT_TID)
        snprintf(buf, len, "%020" PRIu64, g->key[1]);
    else
        snprintf(buf, len, "%s", th ? th->name : "");
    return buf;
}

/* How many rows a table shows: --top counts the program's threads; the rows of other
 * processes and idle come whatever it is. */
static size_t rows_shown(const struct entry_group *rows, size_t n,
                         const struct match_table_options *o, size_t *program)
{
    for (*program = 0; *program < n && rows[*program].key[0] == THREAD_PROGRAM; (*program)++)
        ;
    return view_rows_wanted(o, *program);
}

/* The lines under the table: how to read it. */
static void threads_notes(FILE *f, enum report_format fmt, const struct profile *p)
{
    char text[512], a[32], slow[320];
    snprintf(text, sizeof text, "rates: over each row's kept periods (sum_a / sum_b)%s",
             profile_slow_rates_note(p, slow, sizeof slow));
    report_note(f, fmt, text);
    if (p->placement.has_threads) {
        report_note(f, fmt,
                    THREADS_OTHER_NAME ": while another process ran on the observed CPU, or a "
                                       "thread of the program that shim did not observe");
        report_note(f, fmt, THREADS_IDLE_NAME ": while the CPU ran nothing");
    } else {
        report_note(f, fmt,
                    "the profile does not list the program's threads: every thread word counts "
                    "as the program's");
    }
    if (p->other.samples) {
        snprintf(text, sizeof text,
                 "in other (the tag table was full), of no known thread: %s "
                 "samples",
                 fmt_count(p->other.samples, a, sizeof a));
        report_note(f, fmt, text);
    }
}

int threads_write(FILE *f, enum report_format fmt, const struct profile *p, long rate,
                  const struct match_table_options *o)
{
    size_t n, program;
    struct calltree_sums *block, *zeros;
    int csv = o->csv && fmt == REPORT_TEXT;
    struct entry_group *rows = thread_rows(p, &n, &block, &zeros);
    if (!rows) return -1;
    size_t shown = rows_shown(rows, n, o, &program);
    label_profile = p;
    entry_groups_sort(rows, program, o->sort, thread_label); /* the program's threads */
    struct table *t = threads_table(p, rate, csv);
    for (size_t i = 0; t && i < n; i++)
        if (i < shown || i >= program) thread_row(t, p, &rows[i], rate, csv);
    int rc = -1;
    if (t && csv) {
        rc = match_table_print(t, f, o);
    } else if (t) {
        if (fmt == REPORT_TEXT) { /* the page has these lines among the run's facts */
            report_write_threads(f, fmt, p);
            fputc('\n', f);
        }
        rc = fmt == REPORT_TEXT ? table_print_text(t, f) : table_print_html(t, f);
        if (fmt == REPORT_TEXT) {
            match_note_hidden(program - shown); /* text goes to stdout */
            fputc('\n', f);
        }
        threads_notes(f, fmt, p);
    }
    table_free(t);
    free(rows);
    free(block);
    free(zeros);
    return rc;
}

int threads_main(int argc, char **argv)
{
    struct view_options o = {.t = {.sort_keys = thread_keys, .nsort_keys = 4}};
    char err[512];
    size_t rate = 0;
    int rc = view_parse_options(argc, argv, "threads", threads_usage, "", &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct profile *p = profile_open(o.file, err, sizeof err);
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    if (o.rate) rc = calltree_find_rate(p, o.rate, "threads", &rate);
    if (rc == 0 && threads_write(stdout, REPORT_TEXT, p, o.rate ? (long)rate : -1, &o.t) != 0) {
        fprintf(stderr, "shimview: %s: out of memory while printing\n", p->file);
        rc = EXIT_FILE_ERROR;
    }
    profile_free(p);
    return rc;
}
