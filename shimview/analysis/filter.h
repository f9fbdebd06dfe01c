/*
 * filter.h -- the samples a view keeps: --tid, --focus and --ignore (filter.c), as
 * `functions`, `contexts`, `tree` and `export` (pprof, folded) take them.
 *
 * A sample's stack is the functions on its calling context's path, from the thread's
 * root down, and the function slot 8 named (the only one when the profile has no
 * calling context but the compiler pass's function slot). As pprof's -focus and
 * -ignore: --focus F keeps the samples whose stack holds F, --ignore F drops them; each
 * may be given several times (any of the functions), and both together keep what one
 * focus holds and no ignore does. --tid keeps the samples of the threads named. Shares
 * stay shares of the profile's attributed samples, so a filtered row reads against the
 * unfiltered table, and a line says what the filter kept.
 *
 * A function is named as shimview shows it (its name, the symbol it was demangled
 * from, its name in the compiler pass's table, MODULE+0xOFFSET), or by its address
 * (0x...); a name that several functions have (one in each of two libraries) stands
 * for all of them.
 */
#ifndef SHIMVIEW_FILTER_H
#define SHIMVIEW_FILTER_H

#include "shimview/model/profile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FILTER_MAX 16 /* of each option, at most */

/* The filter options as the command line gave them. */
struct filter_spec {
    size_t ntids, nfocus, nignore;
    uint64_t tids[FILTER_MAX];
    const char *focus[FILTER_MAX], *ignore[FILTER_MAX];
};

/* Their getopt_long entries (long options only). */
#define FILTER_LONG_OPTIONS                                                                        \
    {"tid", required_argument, NULL, 'T'}, {"focus", required_argument, NULL, 'F'},                \
    {                                                                                              \
        "ignore", required_argument, NULL, 'I'                                                     \
    }

/* Take option opt (getopt_long's return, with optarg) for command cmd if it is one of
 * those: 1 when taken, 0 when it is not one, EXIT_USAGE_ERROR after a message. */
int filter_option(const char *cmd, int opt, struct filter_spec *f);

/* Flag with bit, in marks (one byte per entry of p's `functions`), every function that
 * name names for command cmd's option (a message's words). 0, or EXIT_USAGE_ERROR after
 * a message naming the close names. */
int filter_find_functions(const struct profile *p, const char *name, const char *option, int bit,
                          const char *cmd, unsigned char *marks);

/* Was any filter given? */
int filter_given(const struct filter_spec *f);

/* A profile filtered: view is a shallow copy of p whose tags are the entries the filter
 * keeps (and whose `other` is empty when --tid or --focus is given: its samples have no
 * thread nor stack); p must outlive it. Function names and thread ids that p does not
 * have are refused for command cmd, with the close names or the threads it has. 0,
 * EXIT_USAGE_ERROR or EXIT_FILE_ERROR after a message. */
int filter_apply(const struct profile *p, const struct filter_spec *f, const char *cmd,
                 struct profile *view);
void filter_view_free(const struct profile *p, struct profile *view);

/* A calling-context profile loaded for command cmd, filtered, and added up: ct is built
 * from view (p with the entries the filter keeps), its shares of time still of p's
 * cycles, as its shares of samples are of p's samples. */
struct calltree;
struct filtered_calltree {
    struct profile *p;
    struct profile view;
    struct calltree *ct;
};

/* Load file into x; 0, or an exit status after a message (a bad file, one without
 * `cct`, a filter that names what the profile lacks, memory). */
int filter_load_calltree(const char *file, const struct filter_spec *f, const char *cmd,
                         struct filtered_calltree *x);
void filter_free_calltree(struct filtered_calltree *x);

/* One line on f saying what the filter kept: "filter: --focus walk: 7,600 of 9,853
 * attributed samples (77.13%); shares are of all of them"; nothing when none was given. */
void filter_note(FILE *f, const struct profile *view, const struct filter_spec *spec);

#endif /* SHIMVIEW_FILTER_H */
