/*
 * pass_table.h -- what the tables of `loops` and `paths` share (pass_table.c): tag and
 * path entries added up by a key, their cells, and the skeleton of the two commands.
 */
#ifndef SHIMVIEW_PASS_TABLE_H
#define SHIMVIEW_PASS_TABLE_H

#include "calltree.h"
#include "profile.h"

#include <stddef.h>
#include <stdint.h>

/* The cells `loops` and `paths` share, from column c of the table's newest row; each
 * returns the next column. The function: its label, or address when the profile does not
 * list it, and in CSV its module and offset (empty then). */
size_t pass_function_cells(struct table *t, size_t c, const struct profile_function *fn,
                           uint64_t address, int csv);
/* A group's samples, their share of the attributed samples and of the entries' cycles. */
size_t pass_count_cells(struct table *t, size_t c, const struct profile *p,
                        const struct calltree_count *n, int csv);
/* Its rates (rate: the index of the one shown, or -1 for every one): in text the rate to
 * the precision its interval supports, in CSV the rate, its interval and n. */
size_t pass_rate_cells(struct table *t, size_t c, const struct profile *p, long rate,
                       const struct calltree_count *n, int csv);

/* The headings of those columns: in text the rate's name, in CSV rate_<rate>,
 * rate_ci95_<rate> and n_<rate>. */
size_t pass_rate_heads(struct table *t, size_t c, const struct profile *p, long rate, int csv);

/* What a view of the compiler pass's members needs the profile to have. */
enum pass_view_needs { PASS_VIEW_LOOPS, PASS_VIEW_PATHS };

/* What `loops` and `paths` share: parse cmd's options (own: the command's own, as
 * view_parse_options takes them), load the profile, refuse it when it lacks what the view
 * needs (with what to build the program with), find --rate, and print; print returns 0,
 * -1 when memory ran out, or an exit status after its own message. Returns the command's
 * exit status. */
int pass_view_run(int argc, char **argv, const char *cmd, const char *usage, const char *own,
                  enum pass_view_needs needs,
                  int (*print)(const struct profile *p, const struct view_options *o, long rate));

/* Entries added up by a key of two words: a loop signal, a (function, path) pair. */
struct entry_group {
    uint64_t key[2];
    const struct profile_tag *first; /* its first entry, which names what the key is */
    struct calltree_count c;
};

/* The n entries at entries grouped by what key_of writes for each, sorted by samples
 * (then by key), with their rate sums (nrates per group) in *block; free both. key_of
 * gets ctx. NULL if memory ran out. */
struct entry_group *entry_groups(const struct profile_tag *entries, size_t n, size_t nrates,
                                 void (*key_of)(const struct profile_tag *, const void *ctx,
                                                uint64_t *key),
                                 const void *ctx, size_t *ngroups, struct calltree_sums **block);

#endif /* SHIMVIEW_PASS_TABLE_H */
