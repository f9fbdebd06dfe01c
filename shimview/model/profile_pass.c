/*
 * profile_pass.c -- what the compiler pass adds to a profile (docs/compiler-pass.md): each
 * function's side table (`functions[].pass`), the samples attributed to Ball-Larus paths
 * (`paths`), and the meaning of tag slots 8 and 10, read and checked as profile.c reads
 * the rest.
 *
 * Code built with the pass publishes the loop executing (slot 10: the function's address
 * with the loop's number in the upper 16 bits), from which the observer takes the
 * function executing (slot 8, as with -finstrument-functions), and appends every acyclic path it
 * completes to a ring the observer reads. All three are numbers that mean something only
 * with the table the pass wrote for the function: its loops with their source lines, its
 * blocks, and the edges of the acyclic graph its paths were numbered on. So a loaded
 * profile ties each tag entry to the function and loop its slots name, and each path
 * entry to its function, and the commands never look a number up again.
 *
 * What is checked, beyond types, is what the commands rely on: loop numbers run from 1 to
 * the number of loops, headers and edges name blocks the table has, each kind of edge
 * joins what it says it joins (a "start" edge leaves ENTRY, a "return" edge reaches EXIT),
 * the edges form an acyclic graph whose ENTRY-to-EXIT paths number exactly `paths` (so
 * regenerating a path always ends, and every number below `paths` has a path), a loop
 * signal names no loop beyond its function's table, and a path entry's function, address
 * and number agree with one another and with the function's table. A function address
 * that `functions` does not list is not an error: the views show it by its address.
 */
#include "shimview/model/profile_pass.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const edge_kinds[] = {"entry", "edge", "start", "end", "return"};
#define NKINDS (sizeof edge_kinds / sizeof edge_kinds[0])

/* ---- a function's table ---- */

static int element_block(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct pass_block *b = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    return member_string(r, v, "name", &b->name) ||
                   member(r, v, "file", value_string_or_null, &b->file) ||
                   member_values(r, v, "lines", sizeof *b->lines, value_u64, &b->lines, &b->nlines)
               ? -1
               : 0;
}

/* Member key of o is a number from lo to hi. */
static int member_in_range(struct reader *r, const json_t *o, const char *key, uint64_t lo,
                           uint64_t hi, const char *what, uint64_t *out)
{
    if (member_u64(r, o, key, out)) return -1;
    if (*out >= lo && *out <= hi) return 0;
    path_key(r, key);
    return reader_fail(r, "%" PRIu64 " is not %s (%" PRIu64 " to %" PRIu64 ")", *out, what, lo, hi);
}

static int element_loop(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct pass_loop *l = elem;
    const struct profile_pass *f = ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_in_range(r, v, "loop", 1, f->nloops, "a loop number of the table", &l->loop) ||
        member(r, v, "file", value_string_or_null, &l->file) ||
        member_u64(r, v, "line", &l->line) ||
        member_in_range(r, v, "parent", 0, f->nloops, "0 or a loop number", &l->parent) ||
        member_in_range(r, v, "depth", 1, f->nloops, "a loop depth", &l->depth))
        return -1;
    if (f->nblocks == 0) {
        path_key(r, "header");
        return reader_fail(r, "the table has no blocks for a loop header to be");
    }
    if (member_in_range(r, v, "header", 0, f->nblocks - 1, "a block index", &l->header)) return -1;
    if (l->parent == l->loop) {
        path_key(r, "parent");
        return reader_fail(r, "loop %" PRIu64 " is its own parent", l->loop);
    }
    return 0;
}

/* Each number once, then the loops in the order of their numbers, so loop L is
 * loops[L - 1]. */
static int order_loops(struct reader *r, struct profile_pass *f)
{
    struct pass_loop *sorted = calloc(f->nloops ? f->nloops : 1, sizeof *sorted);
    if (!sorted) return reader_fail(r, "out of memory");
    for (size_t i = 0; i < f->nloops; i++) {
        struct pass_loop *slot = &sorted[f->loops[i].loop - 1];
        if (slot->loop) {
            uint64_t twice = slot->loop;
            free(sorted);
            path_key(r, "loops");
            path_index(r, i);
            path_key(r, "loop");
            return reader_fail(r, "%" PRIu64 " is the number of another loop too", twice);
        }
        *slot = f->loops[i];
    }
    free(f->loops);
    f->loops = sorted;
    return 0;
}

static int value_edge_kind(struct reader *r, const json_t *v, void *out)
{
    const char *s;
    if (value_string(r, v, &s)) return -1;
    for (size_t k = 0; k < NKINDS; k++)
        if (strcmp(s, edge_kinds[k]) == 0) {
            *(enum pass_edge_kind *)out = (enum pass_edge_kind)k;
            return 0;
        }
    return reader_fail(r, "\"%s\" is not an edge kind (entry, edge, start, end, return)", s);
}

/* Item i of an edge is node `node`, which an edge of its kind may join: ENTRY, EXIT or a
 * block index, as `want` says (block 0 alone for an "entry" edge's target). */
static int edge_node(struct reader *r, const json_t *t, size_t i, int64_t node, int64_t want,
                     enum pass_edge_kind kind, size_t nblocks)
{
    int ok = want < 0 ? node == want : node >= 0 && (uint64_t)node < nblocks;
    if (ok && kind == PASS_EDGE_ENTRY && i == 1) ok = node == 0;
    if (ok) return 0;
    size_t mark = path_index(r, i);
    const char *joins = want == PASS_NODE_ENTRY   ? "ENTRY (-1)"
                        : want == PASS_NODE_EXIT  ? "EXIT (-2)"
                        : kind == PASS_EDGE_ENTRY ? "block 0"
                                                  : "a block index";
    reader_fail(r, "%" PRId64 ": an edge of kind \"%s\" %s %s (the table has %zu blocks)",
                (int64_t)json_integer_value(json_array_get(t, i)), edge_kinds[kind],
                i == 0 ? "leaves" : "reaches", joins, nblocks);
    path_restore(r, mark);
    return -1;
}

static int element_edge(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct pass_edge *e = elem;
    const struct profile_pass *f = ctx;
    uint64_t from, to;
    const json_t *t = value_tuple(r, v, 4, "an array [from, to, val, kind]");
    if (!t || tuple_item(r, t, 0, value_integer, &from) ||
        tuple_item(r, t, 1, value_integer, &to) || tuple_item(r, t, 2, value_u64, &e->val) ||
        tuple_item(r, t, 3, value_edge_kind, &e->kind))
        return -1;
    e->from = (int64_t)from;
    e->to = (int64_t)to;
    int from_entry = e->kind == PASS_EDGE_ENTRY || e->kind == PASS_EDGE_START;
    int to_exit = e->kind == PASS_EDGE_END || e->kind == PASS_EDGE_RETURN;
    return edge_node(r, t, 0, e->from, from_entry ? PASS_NODE_ENTRY : 0, e->kind, f->nblocks) ||
                   edge_node(r, t, 1, e->to, to_exit ? PASS_NODE_EXIT : 0, e->kind, f->nblocks)
               ? -1
               : 0;
}

static int by_from_val(const void *a, const void *b)
{
    const struct pass_edge *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    if (x->val != y->val) return x->val < y->val ? -1 : 1;
    if (x->to != y->to) return x->to < y->to ? -1 : 1;
    return (int)x->kind - (int)y->kind;
}

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The edges sorted and indexed by their source, and every node's number of paths to
 * EXIT, counted in reverse topological order (Kahn's algorithm): a graph that has a
 * cycle is refused, so a walk along its edges always ends. Nodes are numbered v + 2. */
static int index_edges(struct reader *r, struct profile_pass *f)
{
    size_t nodes = f->nblocks + 2, done = 0;
    size_t *indeg = calloc(nodes, sizeof *indeg), *order = malloc(nodes * sizeof *order);
    int rc = -1;
    f->out = calloc(f->nblocks + 2, sizeof *f->out);
    f->np = calloc(nodes, sizeof *f->np);
    if (!indeg || !order || !f->out || !f->np) {
        reader_fail(r, "out of memory");
        goto done;
    }
    qsort(f->edges, f->nedges, sizeof *f->edges, by_from_val);
    for (size_t i = 0, k = 0; k < f->nblocks + 2; k++) { /* k = from + 1 */
        while (i < f->nedges && f->edges[i].from + 1 < (int64_t)k)
            i++;
        f->out[k] = i;
    }
    for (size_t i = 0; i < f->nedges; i++)
        indeg[f->edges[i].to + 2]++;
    for (size_t v = 0; v < nodes; v++)
        if (indeg[v] == 0) order[done++] = v;
    for (size_t head = 0; head < done; head++) {
        size_t v = order[head];
        if (v == 0) continue; /* EXIT has no edges out */
        for (size_t e = f->out[v - 1]; e < f->out[v]; e++)
            if (--indeg[f->edges[e].to + 2] == 0) order[done++] = (size_t)(f->edges[e].to + 2);
    }
    if (done < nodes) {
        path_key(r, "edges");
        reader_fail(r, "the edges go round a cycle (the pass numbers paths on an acyclic graph)");
        goto done;
    }
    f->np[0] = 1;
    for (size_t k = nodes; k-- > 0;) {
        size_t v = order[k];
        if (v == 0) continue;
        for (size_t e = f->out[v - 1]; e < f->out[v]; e++)
            f->np[v] = add_saturating(f->np[v], f->np[f->edges[e].to + 2]);
    }
    if (f->paths > 0 && f->np[1] != f->paths) {
        path_key(r, "paths");
        reader_fail(r, "%" PRIu64 ", but its edges make %" PRIu64 " paths from ENTRY to EXIT",
                    f->paths, f->np[1]);
        goto done;
    }
    rc = 0;
done:
    free(indeg);
    free(order);
    return rc;
}

static int read_table(struct reader *r, const json_t *v, struct profile_pass *f)
{
    if (!json_is_object(v)) return reader_expected(r, v, "an object (the compiler pass's table)");
    if (member_string(r, v, "name", &f->name) ||
        member(r, v, "file", value_string_or_null, &f->file) ||
        member_u64(r, v, "line", &f->line) || member_u64(r, v, "paths", &f->paths) ||
        member_optional(r, v, "fallback", value_string, &f->fallback, NULL) ||
        member_array(r, v, "blocks", sizeof *f->blocks, element_block, NULL, &f->blocks,
                     &f->nblocks) ||
        member_array(r, v, "loops", sizeof *f->loops, element_loop, f, &f->loops, &f->nloops) ||
        order_loops(r, f) ||
        member_array(r, v, "edges", sizeof *f->edges, element_edge, f, &f->edges, &f->nedges))
        return -1;
    return index_edges(r, f);
}

static int read_tables(struct reader *r, const json_t *root, struct profile *p)
{
    const json_t *functions = json_object_get(root, "functions");
    for (size_t i = 0; i < p->nfunctions; i++) {
        const json_t *v = json_object_get(json_array_get(functions, i), "pass");
        if (!v || json_is_null(v)) continue;
        if (!(p->functions[i].pass = calloc(1, sizeof *p->functions[i].pass)))
            return reader_fail(r, "out of memory");
        size_t mark = path_key(r, "functions");
        path_index(r, i);
        path_key(r, "pass");
        if (read_table(r, v, p->functions[i].pass)) return -1;
        path_restore(r, mark);
    }
    return 0;
}

/* ---- slots 8 and 10 ---- */

static const struct profile_function *
function_at(const struct profile *p, const struct key_ref *fn_by_address, uint64_t address)
{
    long i = address ? key_find(fn_by_address, p->nfunctions, address) : -1;
    return i >= 0 ? &p->functions[i] : NULL;
}

/* Slot 8 is a function only where the profile lists functions to name it by. */
static void find_slots(struct profile *p)
{
    for (size_t i = 0; i < p->signals.ntags; i++) {
        if (p->signals.tags[i].slot == PROFILE_SLOT_FUNCTION && p->nfunctions > 0 &&
            !p->has_function_slot) {
            p->has_function_slot = 1;
            p->function_tag = i;
        }
        if (p->signals.tags[i].slot == PROFILE_SLOT_LOOP && !p->has_loop_slot) {
            p->has_loop_slot = 1;
            p->loop_tag = i;
        }
    }
    if (p->has_cct) { /* the calling context says where its function signal is */
        p->has_function_slot = 1;
        p->function_tag = p->cct.method_tag;
    }
}

/* Entry t's function (without `cct`, which ties it itself) and loop. */
static int tie_entry(struct reader *r, const struct profile *p, const struct key_ref *fn_by_address,
                     struct profile_tag *t)
{
    if (p->has_function_slot && !p->has_cct)
        t->function = function_at(p, fn_by_address, t->values[p->function_tag]);
    if (!p->has_loop_slot) return 0;
    uint64_t v = t->values[p->loop_tag];
    t->loop = v >> PROFILE_LOOP_SHIFT;
    t->loop_function = function_at(p, fn_by_address, v & ((UINT64_C(1) << PROFILE_LOOP_SHIFT) - 1));
    const struct profile_pass *f = t->loop_function ? t->loop_function->pass : NULL;
    if (!f || t->loop <= f->nloops) return 0;
    size_t mark = path_key(r, "values");
    path_index(r, p->loop_tag);
    reader_fail(r, "%#" PRIx64 " names loop %" PRIu64 " of %s, whose table has %zu loop%s", v,
                t->loop, f->name, f->nloops, f->nloops == 1 ? "" : "s");
    path_restore(r, mark);
    return -1;
}

/* ---- paths ---- */

struct paths_ctx {
    const struct profile *p;
    const struct key_ref *fn_by_id, *fn_by_address;
};

/* A path entry's function: by `function` (an id), else by the address it holds. */
static int path_function(struct reader *r, const json_t *v, struct profile_tag *t,
                         const struct paths_ctx *c)
{
    const struct profile *p = c->p;
    uint64_t id;
    int has_id;
    if (member_optional(r, v, "function", value_u64, &id, &has_id)) return -1;
    if (!has_id) {
        t->function = function_at(p, c->fn_by_address, t->values[0]);
        return 0;
    }
    size_t mark = path_key(r, "function");
    long i = key_find(c->fn_by_id, p->nfunctions, id);
    if (i < 0) return reader_fail(r, "%" PRIu64 " is not the id of any entry of functions", id);
    t->function = &p->functions[i];
    if (t->function->address != t->values[0])
        return reader_fail(r, "function %" PRIu64 " is at %#" PRIx64 ", but values[0] is %#" PRIx64,
                           id, t->function->address, t->values[0]);
    path_restore(r, mark);
    return 0;
}

static int element_path_entry(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_tag *t = elem;
    const struct paths_ctx *c = ctx;
    uint64_t path;
    int has_path;
    if (profile_read_entry(r, v, t, c->p, 0) || path_function(r, v, t, c) ||
        member_optional(r, v, "path", value_u64, &path, &has_path))
        return -1;
    if (has_path && path != t->values[1]) {
        path_key(r, "path");
        return reader_fail(r, "%" PRIu64 ", but values[1] is %" PRIu64, path, t->values[1]);
    }
    const struct profile_pass *f = t->function ? t->function->pass : NULL;
    if (!f || t->values[1] < f->paths) return 0;
    path_key(r, "values");
    path_index(r, 1);
    if (f->paths == 0)
        return reader_fail(r, "path %" PRIu64 " of %s, which has no path numbering", t->values[1],
                           f->name);
    return reader_fail(r,
                       "%" PRIu64 " is not a path of %s, which has %" PRIu64 " (0 to %" PRIu64 ")",
                       t->values[1], f->name, f->paths, f->paths - 1);
}

static int read_paths(struct reader *r, const json_t *root, struct profile *p,
                      const struct paths_ctx *c)
{
    struct profile_paths *pp = &p->paths;
    json_t *o;
    size_t mark;
    const json_t *v = json_object_get(root, "paths");
    if (!v || json_is_null(v)) return 0;
    p->has_paths = 1;
    if (member_object(r, root, "paths", &o, &mark) || member_u64(r, o, "ring", &pp->ring) ||
        member_u64(r, o, "resolved", &pp->resolved) ||
        member_u64(r, o, "overwritten", &pp->overwritten) ||
        member_u64(r, o, "pending", &pp->pending) ||
        member_optional(r, o, "pathless", value_u64, &pp->pathless, NULL) ||
        member_array(r, o, "entries", sizeof *pp->entries, element_path_entry, (void *)c,
                     &pp->entries, &pp->nentries))
        return -1;
    const json_t *other = json_object_get(o, "other");
    if (other && !json_is_null(other)) {
        size_t m = path_key(r, "other");
        pp->has_other = 1;
        if (profile_read_entry(r, other, &pp->other, p, 1)) return -1;
        path_restore(r, m);
    }
    path_restore(r, mark);
    return 0;
}

/* profile.silent_tags: the tags no entry holds anything but an unnamed 0 in. */
static void find_silent(struct profile *p)
{
    p->silent_tags = 0;
    for (size_t i = 0; i < p->signals.ntags && i < 32; i++) {
        if ((p->has_function_slot && i == p->function_tag) || (p->has_cct && i == p->cct.cct_tag) ||
            (p->has_loop_slot && i == p->loop_tag))
            continue;
        int used = 0;
        for (size_t k = 0; k < p->ntags && !used; k++)
            used = i < p->tags[k].nvalues &&
                   (p->tags[k].values[i] != 0 || (p->tags[k].names && p->tags[k].names[i]));
        if (!used) p->silent_tags |= UINT32_C(1) << i;
    }
}

int profile_read_pass(struct reader *r, const json_t *root, struct profile *p,
                      const struct key_ref *fn_by_id, const struct key_ref *fn_by_address)
{
    struct paths_ctx c = {p, fn_by_id, fn_by_address};
    if (read_tables(r, root, p)) return -1;
    find_slots(p);
    find_silent(p);
    for (size_t i = 0; i < p->ntags; i++) {
        size_t mark = path_key(r, "tags");
        path_index(r, i);
        if (tie_entry(r, p, fn_by_address, &p->tags[i])) return -1;
        path_restore(r, mark);
    }
    return read_paths(r, root, p, &c);
}

void profile_pass_free(struct profile *p)
{
    for (size_t i = 0; p->functions && i < p->nfunctions; i++) {
        struct profile_pass *f = p->functions[i].pass;
        if (!f) continue;
        for (size_t b = 0; f->blocks && b < f->nblocks; b++)
            free(f->blocks[b].lines);
        free(f->blocks);
        free(f->loops);
        free(f->edges);
        free(f->out);
        free(f->np);
        free(f);
    }
    for (size_t i = 0; p->paths.entries && i < p->paths.nentries; i++)
        profile_free_entry(&p->paths.entries[i], p->nrates);
    free(p->paths.entries);
    if (p->paths.has_other) profile_free_entry(&p->paths.other, p->nrates);
}
