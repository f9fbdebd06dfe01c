/*
 * match.h -- the tag entries of several profiles lined up by name, for `shimview compare`
 * and `shimview merge`.
 *
 * Two runs of one program give its threads other tids, so entries are matched by what the
 * program said it was doing, not by which thread did it: the thread word is dropped, and
 * entries whose names agree become one. The name is tag_entry_name()'s: the value names
 * joined by '/', or "slot=value" where a value has no name; so named values match by name
 * (a name survives a value that changes between runs, such as an address) and unnamed
 * values by slot and value. `other` matches only `other`.
 *
 * Within one profile this folds threads together: entries of one name are added up
 * (samples, cycles, kept periods, rate sums, `by` slots) and their histograms merged, so
 * a folded entry is what the profile would hold had the tag table ignored the thread
 * word. The samples of other processes and of the idle CPU are named as one row each
 * (profile_threads.h), so all of theirs fold into "(other processes)" and "(idle)", never
 * into a tag of the program. Each profile gets a folded copy (`folded[j]`): the same
 * struct profile with `tags` replaced by the folded entries, the program's first, each
 * group sorted by samples, so code written for one profile (the plots, the report) runs
 * on it unchanged.
 *
 * Rates are compared by name: the rates every profile has under the same name and unit
 * are the common ones; the others are left out, and match_note_left_out() says which.
 */
#ifndef SHIMVIEW_MATCH_H
#define SHIMVIEW_MATCH_H

#include "shimview/model/profile.h"
#include "shimview/analysis/tags.h"

#include <stddef.h>
#include <stdio.h>

struct match_row {
    const char *name; /* "other" for the `other` row */
    int is_other;
    const struct profile_tag **entry; /* per profile: its folded entry, NULL where absent */
};

struct match {
    size_t nprofiles;
    struct profile *folded; /* per profile: a shallow copy with the tags folded */
    char ***names;          /* per profile: its folded entries' names, in `tags` order */
    size_t nrows;
    struct match_row *rows; /* every name of every profile, sorted by name; then `other`
                             * when some profile has samples there (present in all) */
    size_t nrates;
    size_t *rate_index; /* rate k is rates[rate_index[k * nprofiles + j]] of profile j */
    const struct profile_tag **slots; /* the rows' entry arrays, in one block */
};

/* Fold p's threads together into view, a shallow copy of *p whose `tags` are the folded
 * entries (names[i] is tags[i]'s name), for the report's merged rows. p must outlive the
 * view. 0, or -1 if memory ran out (nothing is left to free). */
int match_fold(const struct profile *p, struct profile *view, char ***names);
void match_fold_free(struct profile *view, char **names);

/* The k entries e of profile p added up into out: samples, cycles, kept periods, the rate
 * sums (the ratio sum_a / sum_b and the mean sum / n formed again from them), the
 * histograms and `by` slots; values, names and the thread word are the first entry's,
 * several_threads says whether the others had another. One entry (k == 1) is not copied:
 * out borrows its arrays (profile_tag.borrowed), so it lives no longer than p. 0, or -1 if
 * memory ran out (free out with match_entry_free all the same). */
int match_entry_fold(const struct profile *p, const struct named_tag *e, size_t k,
                     struct profile_tag *out);
void match_entry_free(struct profile_tag *t, size_t nrates);

/* Fold and match n profiles (which must outlive the match). NULL if memory ran out. */
struct match *match_profiles(struct profile *const *p, size_t n);
void match_free(struct match *m);

/* Index of common rate k in profile j; and its name. */
size_t match_rate(const struct match *m, size_t k, size_t j);
const char *match_rate_name(const struct match *m, size_t k);

/* The common rate named `name`; -1 when not every profile has it. */
long match_find_rate(const struct match *m, const char *name);

/* The share of samples of an entry of profile j: samples over the periods attributed to
 * some tag (samples.total - samples.interrupted); NAN when none were. */
double match_share(const struct match *m, size_t j, const struct profile_tag *t);

/* The periods a share of profile j is a proportion of: total - interrupted. */
uint64_t match_attributed(const struct match *m, size_t j);

/* When some rate is not common, print one line to stderr, "shimview CMD: rates not in
 * every profile, left out: l2 (only in a.json), ipc (units differ)". */
void match_note_left_out(const struct match *m, const char *cmd);

/* ---- what the commands built on a match share ---- */

/* Load the n profiles named (at most one "-"); 0, or EXIT_FILE_ERROR after the loader's
 * message for the first that failed (then none is left loaded). */
int match_load(char *const *files, size_t n, struct profile **out);

/* Profiles [from, to) as replicates pooled across runs (merge, compare --runs): 0, or
 * EXIT_USAGE_ERROR after a line naming two files that hold the same run (one file given
 * twice, or a copy: the same process, start and length, the same samples, cycles and
 * rates tag by tag; or two snapshots of one run, each holding it so far), which would
 * count its samples twice and make the runs look to agree. */
int match_distinct_runs(const char *cmd, char *const *files, struct profile *const *p, size_t from,
                        size_t to);

/* One line per profile on stdout: its label (labels[j], or "run j+1" when labels is
 * NULL), file, program, pid, attributed samples and kept periods; then a blank line. */
void match_print_sources(const struct match *m, const char *const *labels);

/* The table options `compare`, `merge` and the views share: text or a table for
 * programs (csv: CSV, or JSON when json is set too: the same columns), and how many rows. */
struct match_table_options {
    int csv, json, all, top_given;
    long top;
    /* --sort: the command sets its keys before parsing (the first is its default order);
     * sort is the index of the key given */
    const char *const *sort_keys;
    size_t nsort_keys;
    long sort;
};

/* Their getopt_long entries; the short options are "n:as:" ("s:" only with sort keys). */
#define MATCH_TABLE_LONG_OPTIONS                                                                   \
    {"top", required_argument, NULL, 'n'}, {"all", no_argument, NULL, 'a'},                        \
        {"csv", no_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'},                         \
    {                                                                                              \
        "sort", required_argument, NULL, 's'                                                       \
    }

/* Take option opt (getopt_long's return, with optarg) for command cmd if it is one of
 * those: 1 when taken, 0 when it is not one, EXIT_USAGE_ERROR after a message. */
int match_table_option(const char *cmd, int opt, struct match_table_options *o);
/* After the options: 0, or EXIT_USAGE_ERROR when they contradict each other. */
int match_table_options_check(const char *cmd, const struct match_table_options *o);

/* Print t as the options say: aligned text, CSV or JSON (table.h). 0, or -1 after a
 * memory failure. */
struct table;
int match_table_print(const struct table *t, FILE *f, const struct match_table_options *o);

/* How many of the match's tag rows (`other` aside) the table shows: --all, or every one
 * in CSV unless --top is given, else --top or `default_top`. */
size_t match_rows_shown(const struct match *m, const struct match_table_options *o,
                        size_t default_top);
/* The tag rows of the match, `other` aside; and whether it has an `other` row (the last). */
size_t match_tag_rows(const struct match *m);
int match_has_other(const struct match *m);
/* The line under a text table that leaves rows out. */
void match_note_hidden(size_t hidden);

#endif /* SHIMVIEW_MATCH_H */
