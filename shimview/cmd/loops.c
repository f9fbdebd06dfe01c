/*
 * loops.c -- `shimview loops`: where a program built with the compiler pass spent its
 * time, loop by loop.
 *
 * Slot 10 holds the loop executing now in the function executing now (docs/compiler-
 * pass.md): the function's address and the loop's number, 0 between its loops. The tag
 * entries that read one value are added up, whatever their thread and the program's own
 * slots, into one row: a loop, or a function's time outside its loops. A loop's row
 * holds the samples taken while it was the innermost loop running in its function, so
 * the loops nested in it and the functions it calls have their own rows; the depth
 * column says which loops are nested. A row per function outside its loops, rather than
 * a total per function, keeps every row a place in the code and every sample in one
 * row, so the shares add up and the table sorts as one list.
 */
#include "shimview/analysis/calltree.h"
#include "shimview/cmd/commands.h"
#include "shimview/base/numbers.h"
#include "shimview/analysis/paths.h"
#include "shimview/model/profile_pass.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char loops_usage[] =
    "usage: shimview loops [--rate NAME] [--top N | --all] [--csv] (FILE | -)\n"
    "\n"
    "Print one row per loop of a program built with the compiler pass (tag slot 10), and\n"
    "one per function for its time outside its loops, largest first: the function, the\n"
    "loop's number and source line, its depth in the loop nest, the samples taken while\n"
    "it was the innermost loop running, their share of the attributed samples and of TSC\n"
    "time, and each rate over those samples' kept periods.\n"
    "\n" VIEW_OPTIONS_USAGE("loops");

static void loop_key(const struct profile_tag *t, const void *ctx, uint64_t *key)
{
    key[0] = t->values[((const struct profile *)ctx)->loop_tag];
    key[1] = 0;
}

/* One row per value of slot 10 but 0, sorted by samples; the entries that held 0 added
 * up in *outside (its rate sums in the block too). NULL if memory ran out. */
static struct entry_group *loop_rows(const struct profile *p, size_t *n,
                                     struct calltree_count *outside, struct calltree_sums **block)
{
    struct entry_group *rows = entry_groups(p->tags, p->ntags, p->nrates, loop_key, p, n, block);
    for (size_t i = 0; rows && i < *n; i++) {
        if (rows[i].key[0] != 0) continue;
        *outside = rows[i].c;
        memmove(&rows[i], &rows[i + 1], (*n - i - 1) * sizeof *rows);
        (*n)--;
        break;
    }
    return rows;
}

static struct table *loops_table(const struct profile *p, long rate, int csv)
{
    static const char *const text_heads[] = {"function", "loop",  "source", "depth",
                                             "samples",  "share", "time"};
    static const char *const csv_heads[] = {"function", "module", "offset",    "loop",
                                            "file",     "line",   "depth",     "parent",
                                            "samples",  "share",  "time_share"};
    size_t r0, nr = view_rates_shown(p, rate, &r0), nh = csv ? 11 : 7, c = 0;
    struct table *t = view_table_new(nh + (csv ? 3 : 1) * nr, 3);
    if (!t) return NULL;
    table_add_row(t);
    for (size_t i = 0; i < nh; i++)
        table_set(t, c++, "%s", csv ? csv_heads[i] : text_heads[i]);
    pass_rate_heads(t, c, p, rate, csv);
    table_end_header(t);
    return t;
}

/* The function, the loop number, where it is and its depth (text). */
static size_t loop_cells(struct table *t, const struct entry_group *row, int csv)
{
    const struct profile_function *fn = row->first->loop_function;
    const struct profile_pass *f = fn ? fn->pass : NULL;
    uint64_t loop = row->first->loop;
    const struct pass_loop *l = f && loop ? &f->loops[loop - 1] : NULL;
    char buf[256];
    size_t c =
        pass_function_cells(t, 0, fn, row->key[0] & ((UINT64_C(1) << PROFILE_LOOP_SHIFT) - 1), csv);
    if (loop)
        table_set(t, c, "%" PRIu64, loop);
    else
        table_set(t, c, "%s", csv ? "0" : "-");
    c++;
    if (csv) {
        const char *file = l && l->file ? l->file : f ? f->file : NULL;
        if (file && loop) table_set(t, c, "%s", file);
        if (l && l->line) table_set(t, c + 1, "%" PRIu64, l->line);
        c += 2;
    } else if (loop) {
        table_set(t, c++, "%s", f ? pass_loop_where(f, loop, buf, sizeof buf) : "");
    } else {
        table_set(t, c++, "(outside loops)");
    }
    if (l || !loop) table_set(t, c, "%" PRIu64, l ? l->depth : 0);
    c++;
    if (csv) {
        if (l) table_set(t, c, "%" PRIu64, l->parent);
        c++;
    }
    return c;
}

static void loop_row(struct table *t, const struct profile *p, const struct entry_group *row,
                     long rate, int csv)
{
    table_add_row(t);
    size_t c = pass_count_cells(t, loop_cells(t, row, csv), p, &row->c, csv);
    pass_rate_cells(t, c, p, rate, &row->c, csv);
}

static void loops_notes(const struct profile *p, const struct calltree_count *outside)
{
    uint64_t attributed = p->samples.total - p->samples.interrupted;
    char a[32], b[32];
    printf("\nloop: its number in the function's table (slot 10), '-' for the function's time "
           "outside its loops;\nsamples: taken while the loop was the innermost loop running in "
           "its function (its nested loops\nand the functions it calls have their own rows); "
           "shares of the %s attributed samples;\ntime: share of TSC cycles; rates: over those "
           "samples' kept periods (sum_a / sum_b)\n",
           fmt_count(attributed, a, sizeof a));
    if (outside->samples)
        printf("outside instrumented functions (slot 10 held 0): %s samples, %s\n",
               fmt_count(outside->samples, a, sizeof a),
               stats_format_share(stats_fraction(outside->samples, attributed), b, sizeof b));
    if (p->other.samples)
        printf("in other (the tag table was full): %s samples\n",
               fmt_count(p->other.samples, a, sizeof a));
}

static int print_loops(const struct profile *p, const struct view_options *o, long rate)
{
    size_t n;
    struct calltree_sums *block;
    struct calltree_count outside = {0};
    struct entry_group *rows = loop_rows(p, &n, &outside, &block);
    if (!rows) return -1;
    size_t shown = view_rows_wanted(&o->t, n);
    struct table *t = loops_table(p, rate, o->t.csv);
    for (size_t i = 0; t && i < shown; i++)
        loop_row(t, p, &rows[i], rate, o->t.csv);
    int rc = !t ? -1 : o->t.csv ? table_print_csv(t, stdout) : table_print_text(t, stdout);
    table_free(t);
    if (!o->t.csv) {
        match_note_hidden(n - shown);
        loops_notes(p, &outside);
    }
    free(rows);
    free(block);
    return rc;
}

int loops_main(int argc, char **argv)
{
    return pass_view_run(argc, argv, "loops", loops_usage, "", PASS_VIEW_LOOPS, print_loops);
}
