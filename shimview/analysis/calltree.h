/*
 * calltree.h -- a calling-context profile added up (calltree.c): per context and per
 * function, exclusive and inclusive samples, TSC cycles and rate sums; and the names a
 * function, a context and a path are shown by.
 *
 * A tag entry of a calling-context profile names a function (slot 8) and a context
 * (slot 9). A context's exclusive counts are those of the entries naming it, its
 * inclusive ones add its descendants'. A function's exclusive counts are those of the
 * entries whose slot 8 named it; its inclusive ones, those of every context whose path
 * holds it, each sample once: paths hold a function at most once (the loader checks it),
 * so the sum of the inclusive counts of the nodes of a function is that number.
 *
 * Rates are added up as their sums (n, sum_a, sum_b and the cross sums), so the rate of
 * any group of periods is sum_a / sum_b over the group with the delta-method interval,
 * as `report` gives it for one entry.
 */
#ifndef SHIMVIEW_CALLTREE_H
#define SHIMVIEW_CALLTREE_H

#include "shimview/analysis/match.h"
#include "shimview/model/profile.h"
#include "shimview/analysis/intervals.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The names of the two nodes that are not a function's context. */
#define CALLTREE_ROOT_NAME     "(outside instrumented functions)"
#define CALLTREE_OVERFLOW_NAME "(context lost)"

/* One rate's sums over a group of kept periods. */
struct calltree_sums {
    uint64_t n;
    double sum_a, sum_b, sum_aa, sum_bb, sum_ab;
};

struct calltree_count {
    uint64_t samples, cycles;
    struct calltree_sums *rates; /* profile.nrates */
};

struct calltree_thread {
    const struct profile_cct_thread *t;
    struct calltree_count *excl, *incl; /* per node */
    size_t *first, *kids; /* node i's children are kids[first[i] .. first[i + 1]), most
                           * inclusive samples first */
    unsigned char *twin;  /* per node: a sibling has the same function (another call site) */
};

struct calltree_function {
    const struct profile_function *f;
    struct calltree_count excl, incl;
};

struct calltree {
    const struct profile *p;
    size_t nthreads;
    struct calltree_thread *threads;     /* in cct.threads order */
    struct calltree_function *functions; /* profile.nfunctions, in profile order */
    struct calltree_count outside;       /* entries whose slot 8 held 0 */
    struct calltree_count unlisted;      /* slot 8 held an address `functions` lacks */
    struct calltree_count no_context;    /* entries without a context, and `other` */
    uint64_t attributed;                 /* samples.total - samples.interrupted */
    uint64_t total_cycles;               /* profile_total_cycles() */
    struct calltree_sums *block;         /* every count's rate sums */
};

/* Add up profile p, which has `cct`. NULL if memory ran out. */
struct calltree *calltree_build(const struct profile *p);
void calltree_free(struct calltree *ct);

/* th's children lists (first, kids: th->t's rows, each parent's children by inclusive
 * samples, most first) and twins, from its inclusive counts; first, kids and twin
 * allocated and zeroed (nnodes + 1, nnodes, nnodes), every row from 2 on with a function.
 * 0, or -1 if memory ran out. */
int calltree_link_children(struct calltree_thread *th, const struct profile *p);

/* Add entry t's samples, cycles and rate sums (nrates of them) to c. */
void calltree_count_entry(struct calltree_count *c, const struct profile_tag *t, size_t nrates);

/* Add count s (its samples, cycles and nrates rate sums) to d. */
void calltree_count_add(struct calltree_count *d, const struct calltree_count *s, size_t nrates);

/* sum_a / sum_b; NAN without kept periods. And its 95% interval as rate r of profile p:
 * a sum over tuples has no time batches of its own, so the independent interval widened
 * by the profile's design effect (intervals.h). */
double calltree_rate(const struct calltree_sums *s);
struct interval calltree_rate_interval(const struct profile *p, size_t r,
                                       const struct calltree_sums *s);

/* Column col of table t's newest row: s's rate to the precision its interval supports,
 * "-" without kept periods. */
struct table;
void calltree_rate_cell(struct table *t, size_t col, const struct profile *p, size_t r,
                        const struct calltree_sums *s);

/* The shares a count is shown with: of the attributed samples, of the entries' cycles. */
double calltree_share(const struct calltree *ct, const struct calltree_count *c);
double calltree_time_share(const struct calltree *ct, const struct calltree_count *c);

/* A function's name: its symbol, else the name in the compiler pass's table, else
 * "MODULE+0xOFFSET" (the module's file name), else "0xADDRESS"; in buf unless it is one
 * of the names. */
const char *calltree_function_label(const struct profile_function *f, char *buf, size_t len);

/* The frame name of node i of thread t: its function's label, or the root's or the
 * overflow node's name. */
const char *calltree_node_label(const struct profile_cct_thread *t, size_t i, char *buf,
                                size_t len);

/* The frame name of node i as a view shows it: its label, and " @0xSITE" (the call site)
 * when twin (a calltree_thread's, or NULL) says a sibling has the same function. */
const char *calltree_node_name(const struct profile_cct_thread *t, const unsigned char *twin,
                               size_t i, char *buf, size_t len);

/* The path of node i from the root's child, node names joined by sep ("main > heavy");
 * the root and the overflow node are their names alone. Written to f. */
void calltree_write_path(FILE *f, const struct profile_cct_thread *t, const unsigned char *twin,
                         size_t i, const char *sep);

/* The nodes of that path, outermost first, into out (room for calltree_depth() of them);
 * returns their number: 0 for the root, 1 for the overflow node (itself). */
size_t calltree_depth(const struct profile_cct_thread *t, size_t i);
size_t calltree_path_nodes(const struct profile_cct_thread *t, size_t i, size_t *out);

/* Load the profile at file for a command that needs a calling context, and add it up.
 * 0, or EXIT_FILE_ERROR after a message (a bad file, one without `cct`, memory). */
int calltree_load(const char *file, struct profile **p, struct calltree **ct);

/* Its first half: load the profile and refuse one without `cct`; 0 or EXIT_FILE_ERROR. */
int calltree_load_profile(const char *file, struct profile **p);

/* The rate named `name`, for command cmd: 0 with its index in *out, or EXIT_USAGE_ERROR
 * after a message naming the rates the profile has. */
int calltree_find_rate(const struct profile *p, const char *name, const char *cmd, size_t *out);

#endif /* SHIMVIEW_CALLTREE_H */
