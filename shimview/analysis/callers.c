/*
 * callers.c -- a function's callers, bottom up (see callers.h).
 *
 * Two passes over the tag entries. The first walks each entry's path from the function
 * towards the root and finds or makes a node per caller, children kept on a list per
 * node (a caller has few callers: a scan of them beats a hash); it remembers the node
 * where each entry's chain ends. Once the tree is whole its rate sums are allocated in
 * one block, and the second pass adds each entry to the nodes from that end back down to
 * the root. Then calltree_link_children() orders each node's callers by total samples,
 * as the top-down tree orders callees.
 */
#include "shimview/analysis/callers.h"

#include <stdint.h>
#include <stdlib.h>

#define NONE SIZE_MAX

struct builder {
    size_t n, cap;
    struct profile_cct_node *nodes;
    size_t *child, *sibling; /* each node's first child and next sibling, NONE at the end */
};

/* The child of node parent for function fn, made when missing; NONE if memory ran out. */
static size_t child_of(struct builder *b, size_t parent, const struct profile_function *fn)
{
    for (size_t k = b->child[parent]; k != NONE; k = b->sibling[k])
        if (b->nodes[k].function == fn) return k;
    if (b->n == b->cap) {
        size_t cap = 2 * b->cap;
        struct profile_cct_node *nodes = realloc(b->nodes, cap * sizeof *nodes);
        if (nodes) b->nodes = nodes;
        size_t *child = nodes ? realloc(b->child, cap * sizeof *child) : NULL;
        if (child) b->child = child;
        size_t *sibling = child ? realloc(b->sibling, cap * sizeof *sibling) : NULL;
        if (!sibling) return NONE;
        b->sibling = sibling;
        b->cap = cap;
    }
    size_t k = b->n++;
    b->nodes[k] = (struct profile_cct_node){.parent = parent, .function = fn};
    b->child[k] = NONE;
    b->sibling[k] = b->child[parent];
    b->child[parent] = k;
    return k;
}

/* Entry t's chain: the node its callers lead to (NONE: its path does not hold one of
 * the functions), and whether the function itself ran (*self). */
static size_t chain(struct builder *b, const struct profile *p, const struct profile_tag *t,
                    const unsigned char *marks, size_t *path, int *self, int *failed)
{
    const struct profile_cct_thread *th = t->context_thread;
    if (!th || t->context_node < 2) return NONE;
    size_t d = calltree_path_nodes(th, t->context_node, path), k = d;
    while (k-- > 0) /* the innermost of the functions on the path */
        if (th->nodes[path[k]].function && marks[th->nodes[path[k]].function - p->functions]) break;
    if (k == SIZE_MAX) return NONE;
    *self = k + 1 == d;
    size_t node = 0;
    while (k-- > 0) {
        const struct profile_function *caller = th->nodes[path[k]].function;
        if (!caller) break;
        if ((node = child_of(b, node, caller)) == NONE) {
            *failed = 1;
            return NONE;
        }
    }
    return node;
}

static size_t longest_path(const struct profile *p)
{
    size_t most = 1;
    for (size_t i = 0; i < p->cct.nthreads; i++)
        if (p->cct.threads[i].nnodes > most) most = p->cct.threads[i].nnodes;
    return most;
}

/* The counts, their rate sums from one block, and the children lists; 0 or -1. */
static int add_counts(struct callers *c, const struct calltree *ct, const size_t *ends,
                      const unsigned char *selfs)
{
    const struct profile *p = ct->p;
    size_t n = c->tree.nnodes, nrates = p->nrates;
    struct calltree_thread *th = &c->th;
    th->t = &c->tree;
    th->incl = calloc(n, sizeof *th->incl);
    th->excl = calloc(n, sizeof *th->excl);
    th->first = calloc(n + 1, sizeof *th->first);
    th->kids = calloc(n, sizeof *th->kids);
    th->twin = calloc(n, 1);
    c->block = calloc(2 * n * nrates + 1, sizeof *c->block);
    if (!th->incl || !th->excl || !th->first || !th->kids || !th->twin || !c->block) return -1;
    for (size_t i = 0; i < n; i++) {
        th->incl[i].rates = c->block + 2 * i * nrates;
        th->excl[i].rates = c->block + (2 * i + 1) * nrates;
    }
    for (size_t i = 0; i < p->ntags; i++) {
        if (ends[i] == NONE) continue;
        for (size_t node = ends[i];; node = c->tree.nodes[node].parent) {
            calltree_count_entry(&th->incl[node], &p->tags[i], nrates);
            if (selfs[i]) calltree_count_entry(&th->excl[node], &p->tags[i], nrates);
            if (node == 0) break;
        }
    }
    return calltree_link_children(th, p);
}

struct callers *callers_build(const struct calltree *ct, const unsigned char *marks)
{
    const struct profile *p = ct->p;
    struct callers *c = calloc(1, sizeof *c);
    struct builder b = {.n = 2, .cap = 64};
    size_t *path = malloc(longest_path(p) * sizeof *path);
    size_t *ends = malloc((p->ntags + 1) * sizeof *ends);
    unsigned char *selfs = calloc(p->ntags + 1, 1);
    b.nodes = calloc(b.cap, sizeof *b.nodes);
    b.child = malloc(b.cap * sizeof *b.child);
    b.sibling = malloc(b.cap * sizeof *b.sibling);
    int failed = !c || !path || !ends || !selfs || !b.nodes || !b.child || !b.sibling;
    if (!failed) {
        b.child[0] = b.child[1] = b.sibling[0] = b.sibling[1] = NONE;
        b.nodes[1].parent = 0; /* the unused row: a child of the root without samples */
    }
    for (size_t i = 0; !failed && i < p->ntags; i++) {
        int self = 0;
        ends[i] = chain(&b, p, &p->tags[i], marks, path, &self, &failed);
        selfs[i] = (unsigned char)self;
    }
    if (!failed) {
        c->tree = (struct profile_cct_thread){.nnodes = b.n, .nodes = b.nodes};
        b.nodes = NULL;
        failed = add_counts(c, ct, ends, selfs) != 0;
    }
    free(b.nodes);
    free(b.child);
    free(b.sibling);
    free(path);
    free(ends);
    free(selfs);
    if (failed) {
        callers_free(c);
        return NULL;
    }
    return c;
}

void callers_free(struct callers *c)
{
    if (!c) return;
    free(c->tree.nodes);
    free(c->th.incl);
    free(c->th.excl);
    free(c->th.first);
    free(c->th.kids);
    free(c->th.twin);
    free(c->block);
    free(c);
}
