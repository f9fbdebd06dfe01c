/*
 * flame_tree.c -- the frames of a flame graph, from one calling-context profile or two
 * (see flame_tree.h).
 *
 * Frames are made by walking each thread's tree in row order, where a parent's row is
 * always smaller than its child's, so the frame of a node's parent is known when the node
 * is reached: the node's exclusive counts go to the frame of its name under that one,
 * made on first sight. Nodes without samples are skipped (their descendants have none
 * either). The frame of (parent, name) is looked up in a tsearch(3) tree, so a node with
 * thousands of callees (an interpreter's dispatch) costs a logarithm per callee, not a
 * scan of its siblings. Inclusive counts come last, bottom-up, each frame's added to its
 * parent's: frames are numbered in order of first sight, so a parent's number is smaller
 * than its children's, and no recursion is needed.
 *
 * The counts are calltree.c's (samples, cycles and rate sums), so any group of periods a
 * frame stands for has its rate and interval as calltree_rate() gives them.
 */
#include "shimview/analysis/flame_tree.h"
#include "shimview/analysis/intervals.h"
#include "shimview/analysis/stats.h"
#include "shimview/model/profile_threads.h"

#include <inttypes.h>
#include <math.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_FRAME SIZE_MAX

/* What the index holds: a frame's parent and name, and its number. */
struct frame_key {
    size_t parent;
    const char *name;
    size_t frame;
};

static int key_order(const void *a, const void *b)
{
    const struct frame_key *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    return strcmp(x->name, y->name);
}

static size_t nrates_of(const struct flame_tree *t, size_t s)
{
    return t->ct[s] ? t->ct[s]->p->nrates : 0;
}

/* A new frame (no lookup); NO_FRAME if memory ran out. Its counts' rate sums are one
 * block, whose start is side[0].incl.rates. */
static size_t new_frame(struct flame_tree *t, size_t parent, const char *name, enum flame_kind kind)
{
    if (t->nframes == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct flame_frame *grown = realloc(t->frames, cap * sizeof *grown);
        if (!grown) return NO_FRAME;
        t->frames = grown;
        t->cap = cap;
    }
    size_t n0 = nrates_of(t, 0), n1 = nrates_of(t, 1);
    struct calltree_sums *sums = calloc(2 * (n0 + n1) + 1, sizeof *sums);
    char *copy = strdup(name);
    if (!sums || !copy) {
        free(sums);
        free(copy);
        return NO_FRAME;
    }
    size_t i = t->nframes++;
    struct flame_frame *f = &t->frames[i];
    *f = (struct flame_frame){.name = copy, .kind = kind, .parent = parent};
    f->side[0].incl.rates = sums;
    f->side[0].excl.rates = sums + n0;
    f->side[1].incl.rates = sums + 2 * n0;
    f->side[1].excl.rates = sums + 2 * n0 + n1;
    return i;
}

/* The frame called name under parent, made when there is none; NO_FRAME if memory ran
 * out. */
static size_t child_frame(struct flame_tree *t, size_t parent, const char *name,
                          enum flame_kind kind)
{
    struct frame_key probe = {parent, name, 0};
    struct frame_key **found = tfind(&probe, &t->index, key_order);
    if (found) return (*found)->frame;
    size_t i = new_frame(t, parent, name, kind);
    struct frame_key *key = i == NO_FRAME ? NULL : malloc(sizeof *key);
    if (!key) return NO_FRAME;
    *key = (struct frame_key){parent, t->frames[i].name, i};
    if (!tsearch(key, &t->index, key_order)) {
        free(key);
        return NO_FRAME;
    }
    return i;
}

static void add_excl(struct flame_tree *t, size_t frame, size_t s, const struct calltree_count *c)
{
    calltree_count_add(&t->frames[frame].side[s].excl, c, nrates_of(t, s));
}

/* Thread th's contexts into side s, below frame top (the thread's frame; in a difference,
 * the root). In a difference the thread's own samples, outside every instrumented
 * function, are a frame of their own, and call sites are left out of the names. 0 or -1. */
static int add_thread(struct flame_tree *t, size_t s, const struct calltree_thread *th, size_t top,
                      int diff)
{
    const struct profile_cct_thread *ct = th->t;
    size_t *map = malloc(ct->nnodes * sizeof *map);
    char name[320];
    if (!map) return -1;
    map[0] = top;
    if (!diff) {
        add_excl(t, top, s, &th->excl[0]);
    } else if (th->excl[0].samples) {
        size_t f = child_frame(t, top, CALLTREE_ROOT_NAME, FLAME_CONTEXT);
        if (f == NO_FRAME) goto fail;
        add_excl(t, f, s, &th->excl[0]);
    }
    for (size_t i = 1; i < ct->nnodes; i++) {
        map[i] = NO_FRAME;
        if (th->incl[i].samples == 0) continue; /* nor any below it */
        size_t parent = map[ct->nodes[i].parent];
        if (parent == NO_FRAME) continue; /* cannot happen: the parent has the samples too */
        const char *label = diff ? calltree_node_label(ct, i, name, sizeof name)
                                 : calltree_node_name(ct, th->twin, i, name, sizeof name);
        if ((map[i] = child_frame(t, parent, label, FLAME_CONTEXT)) == NO_FRAME) goto fail;
        add_excl(t, map[i], s, &th->excl[i]);
    }
    free(map);
    return 0;
fail:
    free(map);
    return -1;
}

/* The samples of side s without a calling context, one frame per kind under the root:
 * other processes, the idle CPU, the program's threads without a tree, `other`. */
static int add_groups(struct flame_tree *t, size_t s)
{
    const struct profile *p = t->ct[s]->p;
    for (size_t i = 0; i <= p->ntags; i++) {
        const struct profile_tag *e = i < p->ntags ? &p->tags[i] : &p->other;
        if (e->context_thread || e->samples == 0) continue;
        const char *name = e->is_other ? "other" : thread_group_name(tag_thread_group(p, e));
        size_t f = child_frame(t, 0, name ? name : FLAME_NO_CONTEXT_NAME, FLAME_GROUP);
        if (f == NO_FRAME) return -1;
        calltree_count_entry(&t->frames[f].side[s].excl, e, p->nrates);
    }
    return 0;
}

/* ---- finishing: inclusive counts, depths, children in order ---- */

struct kid {
    size_t parent, frame;
    uint64_t samples; /* inclusive, side 0 */
    double share1;    /* inclusive share, side 1 */
    const char *name;
};

static int kid_order(const void *a, const void *b)
{
    const struct kid *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    if (x->samples != y->samples) return x->samples > y->samples ? -1 : 1;
    if (x->share1 != y->share1) return x->share1 > y->share1 ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int finish(struct flame_tree *t)
{
    size_t n = t->nframes;
    for (size_t s = 0; s < t->nsides; s++) {
        for (size_t i = 0; i < n; i++)
            calltree_count_add(&t->frames[i].side[s].incl, &t->frames[i].side[s].excl,
                               nrates_of(t, s));
        for (size_t i = n; i-- > 1;)
            calltree_count_add(&t->frames[t->frames[i].parent].side[s].incl,
                               &t->frames[i].side[s].incl, nrates_of(t, s));
    }
    for (size_t i = 1; i < n; i++)
        t->frames[i].depth = t->frames[t->frames[i].parent].depth + 1;
    struct kid *k = malloc(n * sizeof *k);
    t->kids = malloc(n * sizeof *t->kids);
    if (!k || !t->kids) {
        free(k);
        return -1;
    }
    for (size_t i = 1; i < n; i++)
        k[i - 1] = (struct kid){t->frames[i].parent, i, t->frames[i].side[0].incl.samples,
                                t->nsides > 1 ? flame_tree_share(t, i, 1) : 0, t->frames[i].name};
    qsort(k, n - 1, sizeof *k, kid_order);
    for (size_t i = 0; i < n; i++)
        t->frames[i].nkids = 0;
    for (size_t j = n - 1; j-- > 0;) { /* backwards: each parent's range starts at its first */
        t->kids[j] = k[j].frame;
        t->frames[k[j].parent].first = j;
        t->frames[k[j].parent].nkids++;
    }
    free(k);
    return 0;
}

static struct flame_tree *tree_new(const struct calltree *b, const struct calltree *a)
{
    struct flame_tree *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->ct[0] = b;
    t->ct[1] = a;
    t->nsides = a ? 2 : 1;
    return t;
}

static struct flame_tree *done(struct flame_tree *t, int rc)
{
    tdestroy(t->index, free);
    t->index = NULL;
    if (rc == 0 && finish(t) == 0) return t;
    flame_tree_free(t);
    return NULL;
}

struct flame_tree *flame_tree_build(const struct calltree *ct, const uint64_t *tid, int *missing)
{
    struct flame_tree *t = tree_new(ct, NULL);
    char name[64];
    *missing = 0;
    if (!t) return NULL;
    if (tid) { /* that thread's frame is the root */
        size_t i = 0;
        while (i < ct->nthreads && ct->threads[i].t->tid != *tid)
            i++;
        if (i == ct->nthreads) {
            *missing = 1;
            return done(t, -1);
        }
        snprintf(name, sizeof name, "thread %" PRIu64, *tid);
        if (new_frame(t, 0, name, FLAME_THREAD) == NO_FRAME) return done(t, -1);
        t->frames[0].tid = *tid;
        t->frames[0].index = ct->threads[i].t->index;
        return done(t, add_thread(t, 0, &ct->threads[i], 0, 0));
    }
    int rc = new_frame(t, 0, FLAME_ALL_NAME, FLAME_ALL) == NO_FRAME ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < ct->nthreads; i++) {
        const struct calltree_thread *th = &ct->threads[i];
        if (th->incl[0].samples == 0) continue;
        snprintf(name, sizeof name, "thread %" PRIu64, th->t->tid);
        size_t f = child_frame(t, 0, name, FLAME_THREAD);
        if (f == NO_FRAME) {
            rc = -1;
            break;
        }
        t->frames[f].tid = th->t->tid;
        t->frames[f].index = th->t->index;
        rc = add_thread(t, 0, th, f, 0);
    }
    if (rc == 0) rc = add_groups(t, 0);
    return done(t, rc);
}

struct flame_tree *flame_tree_diff(const struct calltree *b, const struct calltree *a)
{
    struct flame_tree *t = tree_new(b, a);
    if (!t) return NULL;
    int rc = new_frame(t, 0, FLAME_ALL_NAME, FLAME_ALL) == NO_FRAME ? -1 : 0;
    for (size_t s = 0; rc == 0 && s < 2; s++) {
        for (size_t i = 0; rc == 0 && i < t->ct[s]->nthreads; i++)
            rc = add_thread(t, s, &t->ct[s]->threads[i], 0, 1);
        if (rc == 0) rc = add_groups(t, s);
    }
    return done(t, rc);
}

void flame_tree_free(struct flame_tree *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nframes; i++) {
        free(t->frames[i].name);
        free(t->frames[i].side[0].incl.rates);
    }
    free(t->frames);
    free(t->kids);
    free(t);
}

int flame_tree_has(const struct flame_tree *t, size_t i, size_t s)
{
    return s < t->nsides && t->frames[i].side[s].incl.samples > 0;
}

double flame_tree_share(const struct flame_tree *t, size_t i, size_t s)
{
    return stats_fraction(t->frames[i].side[s].incl.samples, t->ct[s]->attributed);
}

struct interval flame_tree_share_diff(const struct flame_tree *t, size_t i)
{
    struct interval share[2] = {{NAN, NAN, NAN, NAN, INTERVAL_NONE}};
    if (t->nsides < 2) return share[0];
    for (size_t s = 0; s < 2; s++) /* a frame is a sum over tuples: no batches of its own */
        share[s] = interval_share_count(t->ct[s]->p, t->frames[i].side[s].incl.samples);
    return interval_diff(&share[1], &share[0]); /* B - A */
}
