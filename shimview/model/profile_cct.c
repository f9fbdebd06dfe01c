/*
 * profile_cct.c -- the calling-context members of a profile (docs/profile-format.md,
 * `modules`, `functions` and `cct`), read and checked as profile.c reads the rest, and
 * every tag entry tied to what its two reserved slots name.
 *
 * A program built with -finstrument-functions publishes two words: slot 8 the run-time
 * address of the function executing, slot 9 the calling context as thread index × 2^32 +
 * node. Neither means anything once the process is gone, so the profile carries the
 * functions (by module and offset, with their run-time addresses) and each thread's tree
 * (rows of [parent, function id, call site]). Here those become pointers: each node to
 * its function, each tag entry to its function and to its node, so the commands never
 * look a number up again.
 *
 * What is checked, beyond types, is what the commands rely on: function ids and addresses
 * are distinct, a function's module is one of `modules`, rows 0 and 1 are the root and the
 * overflow node, every other row's parent is an earlier row and its function id is in
 * `functions`, no path from the root holds a function twice (the runtime folds recursion,
 * and inclusive samples count a sample once per function only because of that), thread
 * indices are distinct and fit 32 bits, both reserved slots are among `signals.tags`, and
 * every context a tag entry names is a node of a tree. A function address slot 8 held that
 * `functions` does not list is not an error: the runtime names only the functions that got
 * a node, and calls made while a thread's arena was full got none.
 *
 * Lookups are sorted arrays of (key, index) searched by bisection, so a profile with many
 * threads, functions or tag entries loads in n log n. profile_pass.c reads what the
 * compiler pass adds to `functions`, and `paths`, with the same lookups.
 */
#include "shimview/model/profile_cct.h"
#include "shimview/model/keys.h"
#include "shimview/model/profile_pass.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The first key that two elements share, as a message on the later one's member. */
static int key_distinct(struct reader *r, const struct key_ref *k, size_t n, const char *array,
                        const char *member)
{
    for (size_t j = 1; j < n; j++) {
        if (k[j].key != k[j - 1].key) continue;
        size_t mark = path_key(r, array);
        path_index(r, k[j].i);
        path_key(r, member);
        reader_fail(r, "%" PRIu64 " is also %s[%zu]'s %s", k[j].key, array, k[j - 1].i, member);
        path_restore(r, mark);
        return -1;
    }
    return 0;
}

/* What the checks and the tag entries look things up by. */
struct cct_lookup {
    struct profile *p;
    struct key_ref *fn_by_id, *fn_by_address, *thread_by_index, *thread_by_tid;
    unsigned char *on_path;            /* per function: on the path the fold check is walking */
    const struct profile_table *table; /* the trees a table file holds, or NULL */
};

/* ---- modules and functions ---- */

static int element_module(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_module *m = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    return member_string(r, v, "path", &m->path) || member_string(r, v, "build_id", &m->build_id) ||
                   member_u64(r, v, "base", &m->base)
               ? -1
               : 0;
}

static int element_function(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_function *f = elem;
    const struct profile *p = ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_u64(r, v, "id", &f->id) || member(r, v, "address", value_integer, &f->address) ||
        member(r, v, "module", value_string_or_null, &f->module) ||
        member(r, v, "build_id", value_string_or_null, &f->build_id) ||
        member_u64(r, v, "offset", &f->offset) ||
        member(r, v, "name", value_string_or_null, &f->name))
        return -1;
    size_t mark = path_key(r, "module");
    if (f->module) {
        size_t m = 0;
        while (m < p->nmodules && strcmp(p->modules[m].path, f->module) != 0)
            m++;
        if (m == p->nmodules)
            return reader_fail(r, "\"%s\" is not the path of any entry of modules", f->module);
    } else if (f->build_id) {
        path_restore(r, mark);
        path_key(r, "build_id");
        return reader_fail(r, "a build id for a function in no module (module is null)");
    }
    path_restore(r, mark);
    return 0;
}

static int read_functions(struct reader *r, const json_t *root, struct cct_lookup *l)
{
    struct profile *p = l->p;
    if (json_object_get(root, "modules") &&
        member_array(r, root, "modules", sizeof *p->modules, element_module, NULL, &p->modules,
                     &p->nmodules))
        return -1;
    if (json_object_get(root, "functions") &&
        member_array(r, root, "functions", sizeof *p->functions, element_function, p, &p->functions,
                     &p->nfunctions))
        return -1;
    l->fn_by_id = key_index(p->functions, p->nfunctions, sizeof *p->functions,
                            offsetof(struct profile_function, id));
    l->fn_by_address = key_index(p->functions, p->nfunctions, sizeof *p->functions,
                                 offsetof(struct profile_function, address));
    if (!l->fn_by_id || !l->fn_by_address) return reader_fail(r, "out of memory");
    return key_distinct(r, l->fn_by_id, p->nfunctions, "functions", "id") ||
                   key_distinct(r, l->fn_by_address, p->nfunctions, "functions", "address")
               ? -1
               : 0;
}

/* ---- the trees ---- */

struct thread_ctx {
    struct cct_lookup *l;
    struct profile_cct_thread *t;
};

/* Item i of a node's row: a non-negative integer, or null (*present 0). */
static int node_item(struct reader *r, const json_t *row, size_t i, uint64_t *out, int *present)
{
    const json_t *v = json_array_get(row, i);
    *present = !json_is_null(v);
    return *present ? tuple_item(r, row, i, value_u64, out) : 0;
}

static int element_node(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_cct_node *n = elem;
    const struct thread_ctx *c = ctx;
    const struct profile *p = c->l->p;
    size_t row = (size_t)(n - c->t->nodes);
    uint64_t parent, id;
    int has_parent, has_id;
    const json_t *t = value_tuple(r, v, 3, "an array [parent, function, site]");
    if (!t || node_item(r, t, 0, &parent, &has_parent) || node_item(r, t, 1, &id, &has_id) ||
        node_item(r, t, 2, &n->site, &n->has_site))
        return -1;
    if (row < 2) {
        if (!has_parent || parent != 0 || has_id || n->has_site)
            return reader_fail(r, "expected [0, null, null] (row %zu is the %s node)", row,
                               row == 0 ? "root" : "overflow");
        return 0;
    }
    size_t mark = path_index(r, 0);
    if (!has_parent) return reader_expected(r, json_array_get(t, 0), "a non-negative integer");
    if (parent >= row)
        return reader_fail(r, "parent %" PRIu64 " is not an earlier row (this is row %zu)", parent,
                           row);
    path_restore(r, mark);
    n->parent = (size_t)parent;
    mark = path_index(r, 1);
    if (!has_id) return reader_expected(r, json_array_get(t, 1), "a function id");
    long f = key_find(c->l->fn_by_id, p->nfunctions, id);
    if (f < 0)
        return reader_fail(r, "function id %" PRIu64 " is not the id of any entry of functions",
                           id);
    n->function = &p->functions[f];
    path_restore(r, mark);
    return 0;
}

/* No path from the root may hold a function twice: walked depth first over the rows'
 * children, marking the functions on the path, so a tree of millions of nodes costs one
 * pass and no recursion. */
static int check_folded(struct reader *r, struct cct_lookup *l, const struct profile_cct_thread *t)
{
    size_t n = t->nnodes, *first = calloc(n + 1, sizeof *first), *kids = malloc(n * sizeof *kids);
    size_t *stack = malloc(n * sizeof *stack), *cursor = malloc(n * sizeof *cursor), sp = 0;
    int rc = -1;
    if (!first || !kids || !stack || !cursor) {
        reader_fail(r, "out of memory");
        goto done;
    }
    for (size_t i = 1; i < n; i++)
        first[t->nodes[i].parent + 1]++;
    for (size_t i = 0; i < n; i++) {
        first[i + 1] += first[i];
        cursor[i] = first[i]; /* here: where node i's next child goes */
    }
    for (size_t i = 1; i < n; i++)
        kids[cursor[t->nodes[i].parent]++] = i;
    stack[sp] = 0;
    cursor[sp++] = first[0];
    while (sp > 0) {
        size_t top = stack[sp - 1];
        const struct profile_function *f = t->nodes[top].function;
        if (cursor[sp - 1] == first[top + 1]) { /* every child done: leave the node */
            if (f) l->on_path[f - l->p->functions] = 0;
            sp--;
            continue;
        }
        size_t child = kids[cursor[sp - 1]++];
        const struct profile_function *g = t->nodes[child].function;
        if (g && l->on_path[g - l->p->functions]) {
            size_t at = t->nodes[child].parent;
            while (t->nodes[at].function != g)
                at = t->nodes[at].parent;
            path_index(r, child);
            reader_fail(r,
                        "function id %" PRIu64 " (%s) is already on its path, at row %zu "
                        "(recursion folds back to that node)",
                        g->id, g->name ? g->name : "unnamed", at);
            goto done;
        }
        if (g) l->on_path[g - l->p->functions] = 1;
        stack[sp] = child;
        cursor[sp++] = first[child];
    }
    rc = 0;
done:
    /* A failed walk leaves marks behind; the load fails with it, so none is read again. */
    free(first);
    free(kids);
    free(stack);
    free(cursor);
    return rc;
}

/* A tree the table file holds (the thread's `nodes` is null), checked as element_node()
 * checks a JSON row. */
static int table_nodes(struct reader *r, struct thread_ctx *c, struct profile_cct_thread *t)
{
    const struct profile *p = c->l->p;
    const uint64_t *parent, *function, *site;
    size_t n;
    if (profile_table_tree(c->l->table, t->index, &n, &parent, &function, &site))
        return reader_fail(r, "is null, and the profile's table holds no tree of index %" PRIu64,
                           t->index);
    if (!(t->nodes = calloc(n ? n : 1, sizeof *t->nodes))) return reader_fail(r, "out of memory");
    t->nnodes = n;
    for (size_t row = 0; row < n; row++) {
        struct profile_cct_node *node = &t->nodes[row];
        node->has_site = site[row] != 0;
        node->site = site[row] - node->has_site;
        if (row < 2) {
            if (parent[row] != 0 || function[row] != 0 || site[row] != 0)
                return reader_fail(r, "row %zu of the table's tree is not [0, none, none]", row);
            continue;
        }
        if (parent[row] >= row)
            return reader_fail(
                r, "row %zu of the table's tree: parent %" PRIu64 " is not an earlier row", row,
                parent[row]);
        node->parent = (size_t)parent[row];
        long f = function[row] ? key_find(c->l->fn_by_id, p->nfunctions, function[row] - 1) : -1;
        if (f < 0)
            return reader_fail(r, "row %zu of the table's tree names no function of functions",
                               row);
        node->function = &p->functions[f];
    }
    return 0;
}

static int element_thread(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_cct_thread *t = elem;
    struct thread_ctx c = {ctx, t};
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_u64(r, v, "index", &t->index) || member_u64(r, v, "tid", &t->tid) ||
        member_u64(r, v, "overflow", &t->overflow))
        return -1;
    if (t->index > UINT32_MAX) {
        path_key(r, "index");
        return reader_fail(r, "%" PRIu64 " does not fit the 32 bits slot 9 gives it", t->index);
    }
    const json_t *nodes = json_object_get(v, "nodes");
    if (nodes && json_is_null(nodes)) {
        size_t mark = path_key(r, "nodes");
        if (table_nodes(r, &c, t)) return -1;
        path_restore(r, mark);
    } else if (member_array(r, v, "nodes", sizeof *t->nodes, element_node, &c, &t->nodes,
                            &t->nnodes)) {
        return -1;
    }
    size_t mark = path_key(r, "nodes");
    if (t->nnodes < 2)
        return reader_fail(r, "has %zu row%s, expected at least 2 (the root and the overflow node)",
                           t->nnodes, t->nnodes == 1 ? "" : "s");
    if (check_folded(r, c.l, t)) return -1;
    path_restore(r, mark);
    return 0;
}

/* Where slot `slot` is in signals.tags; -1 with the message on cct.<member>. */
static long tag_column(struct reader *r, const struct profile *p, uint64_t slot, const char *member)
{
    for (size_t i = 0; i < p->signals.ntags; i++)
        if (p->signals.tags[i].slot == slot) return (long)i;
    path_key(r, member);
    reader_fail(r, "slot %" PRIu64 " is not among signals.tags (the observer did not read it)",
                slot);
    return -1;
}

/* cct.exits: [word as a hexadecimal string, function address], in increasing words. */
static int element_exit(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_cct_exit *e = elem;
    const struct profile_cct_exit *first = ctx ? *(struct profile_cct_exit **)ctx : NULL;
    const char *word;
    const json_t *t = value_tuple(r, v, 2, "an array [word, function]");
    if (!t || tuple_item(r, t, 0, value_string, &word) || tuple_item(r, t, 1, value_u64, &e->fn))
        return -1;
    char *end;
    errno = 0;
    e->word = strtoull(word, &end, 16);
    if (errno || end == word || *end || strncmp(word, "0x", 2) != 0)
        return reader_fail(r, "\"%s\" is not a word in hexadecimal (0x...)", word);
    if (first && e > first && e[-1].word >= e->word)
        return reader_fail(
            r, "%s is not above the word before it (the words are in increasing order)", word);
    return 0;
}

static int read_cct(struct reader *r, const json_t *root, struct cct_lookup *l)
{
    struct profile *p = l->p;
    struct profile_cct *cct = &p->cct;
    json_t *o;
    size_t mark;
    p->has_cct = 1;
    if (member_object(r, root, "cct", &o, &mark) ||
        member_u64(r, o, "method_slot", &cct->method_slot) ||
        member_u64(r, o, "cct_slot", &cct->cct_slot))
        return -1;
    long m = tag_column(r, p, cct->method_slot, "method_slot");
    long c = m < 0 ? -1 : tag_column(r, p, cct->cct_slot, "cct_slot");
    if (c < 0) return -1;
    if (c == m) {
        path_key(r, "cct_slot");
        return reader_fail(r, "slot %" PRIu64 " is also method_slot", cct->cct_slot);
    }
    cct->method_tag = (size_t)m;
    cct->cct_tag = (size_t)c;
    l->on_path = calloc(p->nfunctions ? p->nfunctions : 1, 1);
    if (!l->on_path) return reader_fail(r, "out of memory");
    if (member_array(r, o, "threads", sizeof *cct->threads, element_thread, l, &cct->threads,
                     &cct->nthreads))
        return -1;
    l->thread_by_index = key_index(cct->threads, cct->nthreads, sizeof *cct->threads,
                                   offsetof(struct profile_cct_thread, index));
    l->thread_by_tid = key_index(cct->threads, cct->nthreads, sizeof *cct->threads,
                                 offsetof(struct profile_cct_thread, tid));
    if (!l->thread_by_index || !l->thread_by_tid) return reader_fail(r, "out of memory");
    if (key_distinct(r, l->thread_by_index, cct->nthreads, "threads", "index")) return -1;
    if (json_object_get(o, "exits") && member_array(r, o, "exits", sizeof *cct->exits, element_exit,
                                                    &cct->exits, &cct->exits, &cct->nexits))
        return -1;
    path_restore(r, mark);
    return 0;
}

/* ---- the tag entries ---- */

static int tie_entry(struct reader *r, const struct cct_lookup *l, struct profile_tag *t)
{
    const struct profile *p = l->p;
    const struct profile_cct *cct = &p->cct;
    uint64_t fn = t->values[cct->method_tag], ctx = t->values[cct->cct_tag];
    long i = fn ? key_find(l->fn_by_address, p->nfunctions, fn) : -1;
    t->function = i >= 0 ? &p->functions[i] : NULL;
    if (ctx == 0) { /* the thread never entered an instrumented function: its root, if any */
        i = key_find(l->thread_by_tid, cct->nthreads, t->thread);
        t->context_thread = i >= 0 ? &cct->threads[i] : NULL;
        t->context_node = 0;
        return 0;
    }
    uint64_t index = ctx >> 32, node = ctx & UINT32_MAX;
    size_t mark = path_key(r, "values");
    path_index(r, cct->cct_tag);
    i = key_find(l->thread_by_index, cct->nthreads, index);
    if (i < 0)
        return reader_fail(r,
                           "context %#" PRIx64 " names thread index %" PRIu64
                           ", which cct.threads does not have",
                           ctx, index);
    t->context_thread = &cct->threads[i];
    if (node >= t->context_thread->nnodes)
        return reader_fail(r,
                           "context %#" PRIx64 " names node %" PRIu64 " of thread index %" PRIu64
                           ", whose tree has %zu nodes",
                           ctx, node, index, t->context_thread->nnodes);
    t->context_node = (size_t)node;
    path_restore(r, mark);
    return 0;
}

int profile_read_cct(struct reader *r, const json_t *root, struct profile *p,
                     const struct profile_table *table)
{
    struct cct_lookup l = {.p = p, .table = table};
    const json_t *cct = json_object_get(root, "cct");
    int rc = read_functions(r, root, &l);
    if (rc == 0 && cct && !json_is_null(cct)) rc = read_cct(r, root, &l);
    if (rc == 0) rc = profile_read_pass(r, root, p, l.fn_by_id, l.fn_by_address);
    for (size_t i = 0; rc == 0 && p->has_cct && i < p->ntags; i++) {
        size_t mark = path_key(r, "tags");
        path_index(r, i);
        rc = tie_entry(r, &l, &p->tags[i]);
        path_restore(r, mark);
    }
    free(l.fn_by_id);
    free(l.fn_by_address);
    free(l.thread_by_index);
    free(l.thread_by_tid);
    free(l.on_path);
    return rc;
}

void profile_cct_free(struct profile *p)
{
    profile_pass_free(p);
    for (size_t i = 0; p->cct.threads && i < p->cct.nthreads; i++)
        free(p->cct.threads[i].nodes);
    free(p->cct.threads);
    free(p->cct.exits);
    free(p->functions);
    free(p->modules);
}
