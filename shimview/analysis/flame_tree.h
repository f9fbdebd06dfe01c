/*
 * flame_tree.h -- the frames of a flame graph (flame_tree.c): a calling-context profile's
 * trees as one tree under a root "all", or two profiles' trees merged for their
 * difference.
 *
 * A flame graph draws every calling context as a frame as wide as its inclusive
 * samples, on top of its caller's. calltree.c has the counts per context; this adds what
 * a picture of the whole profile needs above them: a root holding every attributed
 * sample, a frame per thread under it (perf's comm level), and a frame for each group of
 * samples that have no calling context (threads without a tree, other processes, the
 * idle CPU, `other`), so the root's width is what the shares are shares of.
 *
 * Frames are found by name below their parent, which is what lets two profiles be laid
 * over each other: a difference is built from B's contexts and then A's, each added to
 * the frame of the same name under the same parent, with the threads folded together
 * (their tids differ from run to run, as `compare` folds them) and the call sites left
 * out of the names (two builds put them at other addresses). Each frame keeps the counts
 * of each side: side 0 is the profile (B for a difference), side 1 is A.
 */
#ifndef SHIMVIEW_FLAME_TREE_H
#define SHIMVIEW_FLAME_TREE_H

#include "shimview/analysis/calltree.h"
#include "shimview/analysis/intervals.h"

#include <stddef.h>
#include <stdint.h>

/* The names of the frames that are not a function. */
#define FLAME_ALL_NAME        "all"
#define FLAME_NO_CONTEXT_NAME "(no calling context)"

enum flame_kind {
    FLAME_ALL,     /* the root */
    FLAME_THREAD,  /* a thread's tree (not in a difference) */
    FLAME_CONTEXT, /* a calling context: a function, the thread's root or overflow node */
    FLAME_GROUP,   /* samples without a calling context */
};

/* A frame's counts in one profile: inclusive (with its callees') and exclusive. */
struct flame_counts {
    struct calltree_count incl, excl;
};

struct flame_frame {
    char *name;
    enum flame_kind kind;
    uint64_t tid, index; /* FLAME_THREAD: the thread's tid and tree index */
    size_t parent;       /* the root's is itself (0) */
    size_t depth;        /* the root's is 0 */
    size_t first, nkids; /* its children are kids[first .. first + nkids), sorted: most
                          * inclusive samples in side 0 first, then in side 1, then by name */
    struct flame_counts side[2];
};

struct flame_tree {
    size_t nsides;                /* 1, or 2 for a difference (side 1: A) */
    const struct calltree *ct[2]; /* each side's profile */
    size_t nframes;
    struct flame_frame *frames; /* frames[0] is the root; a parent comes before its children */
    size_t *kids;
    void *index; /* tsearch(3)'s tree of (parent, name), while building */
    size_t cap;
};

/* The frames of ct: "all", a frame per thread with samples ("thread TID") holding its
 * contexts, and the groups without a context. With tid non-NULL only that thread's: its
 * frame is the root. NULL if memory ran out, or (with *missing set) when no tree has
 * that tid. */
struct flame_tree *flame_tree_build(const struct calltree *ct, const uint64_t *tid, int *missing);

/* The frames of b (side 0) and a (side 1) merged by name under "all", threads folded
 * together, call sites not told apart. NULL if memory ran out. */
struct flame_tree *flame_tree_diff(const struct calltree *b, const struct calltree *a);

void flame_tree_free(struct flame_tree *t);

/* Does frame i have samples in side s? */
int flame_tree_has(const struct flame_tree *t, size_t i, size_t s);

/* The inclusive share of frame i in side s: of the side's attributed samples. */
double flame_tree_share(const struct flame_tree *t, size_t i, size_t s);

/* Frame i's inclusive share in B less that in A, with its 95% interval as `compare`
 * forms one (intervals.h: each side's share interval, a frame being a sum over tuples
 * widened by its profile's design effect, or independent in a profile without time
 * batches; the difference's by MOVER); value NAN without two sides. */
struct interval flame_tree_share_diff(const struct flame_tree *t, size_t i);

#endif /* SHIMVIEW_FLAME_TREE_H */
