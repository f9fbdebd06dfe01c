/*
 * callers.h -- a function's callers, bottom up (callers.c): the calling-context tree
 * turned over at one function, as perf report's caller graph and pprof's -peek show it.
 *
 * Every sample whose context's path holds the function (one of the functions a name
 * stands for: the innermost on the path) is followed from the function up to the
 * thread's root: its caller, the caller's caller, ... Those chains, merged where they
 * agree, are a tree whose root is the function, whose children are its callers, and so
 * on up: each node holds the samples that reached the function through that chain of
 * callers ("total": the function and what it called), and of those the ones where the
 * function itself was running ("self"). Threads are merged, and a caller is a function
 * whichever call site it called from.
 *
 * The tree has the shape of a thread's calling-context tree (a profile_cct_thread and
 * its calltree_thread sums), so the terminal's tree draws it as it draws a thread.
 */
#ifndef SHIMVIEW_CALLERS_H
#define SHIMVIEW_CALLERS_H

#include "shimview/analysis/calltree.h"

#include <stddef.h>

struct callers {
    /* row 0: the function (all its samples); row 1: unused (the overflow row's place);
     * from row 2: a caller, whose parent is the row it called */
    struct profile_cct_thread tree;
    /* incl: the samples that reached row 0 through the row; excl: those of them in which
     * row 0's function itself ran */
    struct calltree_thread th;
    struct calltree_sums *block;
};

/* The callers of the functions marks flags (one byte per entry of ct->p's `functions`,
 * non-zero: one of them), from ct's profile. NULL if memory ran out. */
struct callers *callers_build(const struct calltree *ct, const unsigned char *marks);
void callers_free(struct callers *c);

#endif /* SHIMVIEW_CALLERS_H */
