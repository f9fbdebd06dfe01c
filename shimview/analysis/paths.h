/*
 * paths.h -- the compiler pass's tables as the views show them (paths.c): a path number
 * turned back into its blocks, a loop signal named, a function found by the name a user
 * types.
 */
#ifndef SHIMVIEW_PATHS_H
#define SHIMVIEW_PATHS_H

#include "shimview/model/profile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum path_walk_result {
    PATH_WALK_OK,
    PATH_WALK_NO_NUMBERING, /* the function's table has no path numbering (paths 0) */
    PATH_WALK_OUT_OF_RANGE, /* the id is not below the table's paths */
    PATH_WALK_STUCK,        /* no edge out of a node had a val small enough */
    PATH_WALK_LEFTOVER,     /* EXIT was reached with part of the id left over */
};

struct path_walk {
    size_t nblocks;     /* the blocks of the path, in order */
    size_t *blocks;     /* room for the table's nblocks: a path visits a block once */
    int from_loop_head; /* it begins with a "start" edge: at a loop header, after a back
                         * edge; else at the function's entry */
    int to_back_edge;   /* it ends with an "end" edge: going round its loop; else with a
                         * "return" */
    int64_t at;         /* where the walk stopped: PASS_NODE_EXIT when it ended */
    uint64_t remaining; /* what was left of the id there */
};

/* Path `id` of function table f, regenerated: from ENTRY with the id as what remains,
 * take each time the edge out of the current node with the largest val not above what
 * remains (among edges to nodes that reach EXIT), subtract its val, go to its target,
 * until EXIT, where nothing may remain. w->blocks must have room for f->nblocks. */
enum path_walk_result path_regenerate(const struct profile_pass *f, uint64_t id,
                                      struct path_walk *w);

/* Why path id of function fn (named `name`) has no blocks to show, as one line. */
void path_walk_explain(char *buf, size_t len, const struct profile_pass *f, const char *name,
                       uint64_t id, enum path_walk_result res, const struct path_walk *w);

/* The first and last source lines of the path's blocks (0: none known). */
void path_span(const struct profile_pass *f, const struct path_walk *w, uint64_t *first,
               uint64_t *last);

/* The last component of a source path, as views show files. */
const char *pass_basename(const char *path);

/* Where loop `loop` of table f is: "file.c:12", "line 12", or "" when unknown. */
const char *pass_loop_where(const struct profile_pass *f, uint64_t loop, char *buf, size_t len);

/* A loop signal's name: "FUNCTION loop L (file.c:12)", "FUNCTION (no loop)"; the
 * function by its address when the profile does not list it; "(none)" for 0. */
void pass_write_loop(FILE *out, const struct profile_function *fn, uint64_t value, uint64_t loop);

/* The function a user named for command cmd: by its name (functions[].name, or the name
 * in its table) or its address (0x...). Among several of one name, the one with a table,
 * when there is one. 0 with *out set, or EXIT_USAGE_ERROR after a message that names
 * close names, or the functions that have a table. */
int pass_find_function(const struct profile *p, const char *name, const char *cmd,
                       const struct profile_function **out);

#endif /* SHIMVIEW_PATHS_H */
