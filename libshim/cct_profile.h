/*
 * cct_profile.h -- the calling-context members of a profile (modules, functions, cct).
 */
#ifndef SHIM_LIBSHIM_CCT_PROFILE_H
#define SHIM_LIBSHIM_CCT_PROFILE_H

#include <jansson.h>

#include <stddef.h>
#include <stdint.h>

#include "libshim/profile_table.h"
#include "observer/chain_store.h"

/* The profile's tag entries in the order they are written: entry i ran on thread[i] and
 * holds ctx[i] in its calling-context column (the stack walks' chain numbers there are
 * rewritten as context values). */
struct tag_rows {
    size_t n;
    const uint64_t *thread;
    uint64_t *ctx;
    uint64_t *method; /* the function column, with ctx */
};

/* When the program ran instrumented code (-finstrument-functions, or the compiler pass,
 * whose function addresses the observer saw are `seen`), add `modules`, `functions`
 * (with the pass's table of each function it instrumented) and `cct` to the profile's
 * root, and name the function of each `paths` entry; `text` makes a JSON string of
 * program-supplied text (UTF-8 sanitised). `cct` holds the hooks' trees, or, when
 * `chains` is not NULL, the trees of the observer's stack walks, whose chain numbers
 * the tag entries hold in rows (rewritten as the hooks' context values). When the trees
 * have more than inline_max rows in all and table is not NULL, their rows go to the
 * table file and each thread's `nodes` is null. 0, or -1 out of memory. */
int cct_profile_add(json_t *root, json_t *(*text)(const char *), const uint64_t *seen,
                    size_t n_seen, const struct chain_store *chains, struct tag_rows *rows,
                    struct table_writer *table, uint64_t inline_max);

#endif
