/*
 * walk_profile.h -- calling-context trees from the observer's stack walks, for the
 * profile (walk_profile.c).
 */
#ifndef SHIM_LIBSHIM_WALK_PROFILE_H
#define SHIM_LIBSHIM_WALK_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "observer/chain_store.h"
#include "libshim/sidetable.h"
#include "libshim/symbols.h"

struct walk_node {
    uint64_t fn;   /* function address (or, where no symbol names it, the address itself) */
    uint64_t site; /* return address into the caller; 0 for the root's children */
    uint32_t parent;
};

/* One thread's tree: rows 0 (root) and 1 (lost: the store was full or the stack kept
 * changing) hold no function, as in the hooks' trees (signals/cct.h). */
/* Walk trees are numbered from here in the profile's context values, apart from the
 * hooks' arenas (signals/cct.h: at most 65536), which a program may have too. */
#define WALK_TREE_INDEX 0x40000000u

struct walk_tree {
    uint64_t tid;
    uint32_t index; /* the thread index of the profile's context values */
    struct walk_node *nodes;
    size_t n, cap;
    uint32_t *slots; /* child index: node numbers, 0 empty */
    size_t mask;
};

struct walk_trees {
    struct walk_tree *t;
    size_t n;
    uint64_t *fns; /* every function a node names, for the profile's functions table */
    size_t nfns;
    /* each hooks' exit word an entry held and the function it was named as, in the first
     * (most sampled) entry that held it, by word: for the trace's records, which hold
     * the words (an exit's function depends on its chain, which records do not keep) */
    struct walk_exit {
        uint64_t word, fn, row; /* row: the entry's place among the rows */
    } * exits;
    size_t nexits;
};

/* Builds a tree per thread from the chains that n tag entries name: entry i ran on
 * thread[i] and holds ctx[i] in its context column (STACKWALK_CHAIN values; others are
 * left as they are), which is rewritten as CCT_SIGNAL(thread index, node). A chain ends at
 * the first return address no loaded module holds. Return addresses become their
 * functions through syms (NULL: each stands for itself); the frames outside the outermost
 * function the pass instrumented (st) are left out, as the hooks' trees start there too.
 * Recursion folds onto the nearest ancestor of the same function. method[i] (method may
 * be NULL) is the entry's function column: a hooks' exit word in it (STACKWALK_EXIT form,
 * signals/stackwalk.h) is rewritten as the function the thread went on in, which the
 * chain starts with too; those functions are in w->fns. 0, or -1 when memory runs out. */
int walk_trees_build(struct walk_trees *w, size_t n, const uint64_t *thread, uint64_t *ctx,
                     uint64_t *method, const struct chain_store *c, struct symbols *syms,
                     const struct sidetable *st);
void walk_trees_free(struct walk_trees *w);

#endif
