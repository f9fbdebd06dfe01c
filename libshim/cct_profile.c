/*
 * cct_profile.c -- the calling-context part of a profile: the trees the program's
 * threads built (signals/cct.c), and every function in them named by module, offset,
 * build id and symbol (symbols.c), so that the tag values of the reserved slots (the
 * method signal: a function's run-time address; the CCT signal: thread index and node)
 * can be turned into names now and later (docs/profile-format.md, `cct`). The same
 * functions table names what the compiler pass's signals saw (function addresses in
 * the method and loop signals and in paths), each with the table the pass recorded for
 * it (sidetable.c), which says what its loops and path numbers are.
 *
 * Runs at shim_stop(), on the stopping thread, after the observer has stopped; the
 * program's threads may still be adding nodes, which is safe: each arena's published
 * count is read once, with acquire, and nodes below it never change.
 */
#include "libshim/cct_profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signals/cct.h"
#include "libshim/sidetable.h"
#include "libshim/symbols.h"
#include "signals/stackwalk.h"
#include "libshim/walk_profile.h"

struct fn_map {
    uint64_t *addr; /* sorted, distinct */
    size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every function address of every published node, and the `seen` ones, sorted and
 * distinct. */
static int collect_functions(struct fn_map *m, const uint64_t *seen, size_t n_seen)
{
    size_t total = n_seen;
    for (uint32_t t = 0; t < cct_arena_count(); t++) {
        const struct cct_arena *a = cct_arena_at(t);
        if (a) total += cct_arena_node_count(a);
    }
    m->addr = malloc((total ? total : 1) * sizeof *m->addr);
    m->n = 0;
    if (!m->addr) return -1;
    for (uint32_t t = 0; t < cct_arena_count(); t++) {
        const struct cct_arena *a = cct_arena_at(t);
        if (!a) continue;
        uint32_t n = cct_arena_node_count(a);
        const struct cct_node *nodes = cct_arena_nodes(a);
        for (uint32_t i = CCT_NODE_FIRST; i < n && m->n < total; i++)
            m->addr[m->n++] = nodes[i].fn;
    }
    for (size_t i = 0; i < n_seen && m->n < total; i++)
        if (seen[i]) m->addr[m->n++] = seen[i];
    qsort(m->addr, m->n, sizeof *m->addr, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++)
        if (k == 0 || m->addr[i] != m->addr[k - 1]) m->addr[k++] = m->addr[i];
    m->n = k;
    return 0;
}

/* The function id of an address (its index in the sorted map), or -1. */
static long function_id(const struct fn_map *m, uint64_t addr)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->addr[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->addr[lo] == addr ? (long)lo : -1;
}

static json_t *text_or_null(const char *s, json_t *(*text)(const char *))
{
    return s ? text(s) : json_null();
}

/* The compiler pass's table of the function at addr, parsed, or NULL. */
static json_t *pass_json(const struct sidetable *st, uint64_t addr)
{
    const struct sidetable_record *rec = sidetable_lookup(st, addr);
    return rec ? json_loadb(rec->json, (size_t)rec->json_len, 0, NULL) : NULL;
}

static json_t *functions_json(const struct fn_map *m, struct symbols *syms,
                              const struct sidetable *st, json_t *(*text)(const char *))
{
    json_t *a = json_array();
    for (size_t i = 0; i < m->n; i++) {
        struct symbol_info si;
        json_t *f;
        if (syms && symbols_lookup(syms, m->addr[i], &si) == 0)
            f = json_pack("{s:I, s:I, s:o, s:o, s:I, s:o}", "id", (json_int_t)i, "address",
                          (json_int_t)m->addr[i], "module", text(si.module_path), "build_id",
                          text(si.build_id), "offset", (json_int_t)si.offset, "name",
                          text_or_null(si.name, text));
        else
            f = json_pack("{s:I, s:I, s:n, s:n, s:I, s:n}", "id", (json_int_t)i, "address",
                          (json_int_t)m->addr[i], "module", "build_id", "offset",
                          (json_int_t)m->addr[i], "name");
        json_t *pass = pass_json(st, m->addr[i]);
        if (pass) json_object_set_new(f, "pass", pass);
        json_array_append_new(a, f);
    }
    return a;
}

static json_t *modules_json(struct symbols *syms, json_t *(*text)(const char *))
{
    json_t *a = json_array();
    for (size_t i = 0; syms && i < symbols_module_count(syms); i++) {
        struct symbol_module mod;
        if (symbols_module(syms, i, &mod) != 0) continue;
        json_array_append_new(a, json_pack("{s:o, s:o, s:I}", "path", text(mod.path), "build_id",
                                           text(mod.build_id), "base", (json_int_t)mod.base));
    }
    return a;
}

/* Row i of a tree: its parent's row, its function's id and its call site as an offset in
 * its module (the value addr2line takes); no function and no site (-1) for the two fixed
 * rows, and no site when no module holds it or there is none (0). */
static void node_fields(size_t i, uint32_t parent, uint64_t fn, uint64_t call_site,
                        const struct fn_map *m, struct symbols *syms, uint64_t out[3])
{
    struct symbol_info si;
    out[0] = i < CCT_NODE_FIRST ? 0 : parent;
    out[1] = i < CCT_NODE_FIRST ? UINT64_MAX : (uint64_t)function_id(m, fn);
    out[2] = i >= CCT_NODE_FIRST && call_site && syms && symbols_lookup(syms, call_site, &si) == 0
                 ? si.offset
                 : UINT64_MAX;
}

/* A tree's rows, from the hooks' arena or from a walk tree. */
struct tree_rows {
    const struct cct_node *arena;
    const struct walk_node *walk;
};

static void tree_row(const struct tree_rows *t, size_t i, const struct fn_map *m,
                     struct symbols *syms, uint64_t out[3])
{
    if (t->arena)
        node_fields(i, t->arena[i].parent, t->arena[i].fn, t->arena[i].call_site, m, syms, out);
    else
        node_fields(i, t->walk[i].parent, t->walk[i].fn, t->walk[i].site, m, syms, out);
}

/* Where the trees' rows go: the JSON ([parent, function id, site] per row, null for none)
 * or, with a table, the profile's table file (each number + 1, 0 for none). */
struct tree_out {
    const struct fn_map *m;
    struct symbols *syms;
    struct table_writer *table; /* NULL: the rows go in the JSON */
};

static json_t *tree_json(const struct tree_out *o, uint32_t index, uint64_t tid, uint64_t overflow,
                         const struct tree_rows *t, size_t n)
{
    json_t *rows;
    uint64_t f[3];
    if (o->table) {
        uint64_t *col = malloc((n ? n : 1) * 3 * sizeof *col);
        if (!col) return NULL;
        for (size_t i = 0; i < n; i++) {
            tree_row(t, i, o->m, o->syms, f);
            col[i] = f[0];
            col[n + i] = f[1] + 1;
            col[2 * n + i] = f[2] + 1;
        }
        table_tree(o->table, index, n, col, col + n, col + 2 * n);
        free(col);
        rows = json_null();
    } else {
        rows = json_array();
        for (size_t i = 0; i < n; i++) {
            tree_row(t, i, o->m, o->syms, f);
            json_array_append_new(
                rows, json_pack("[I, o, o]", (json_int_t)f[0],
                                f[1] == UINT64_MAX ? json_null() : json_integer((json_int_t)f[1]),
                                f[2] == UINT64_MAX ? json_null() : json_integer((json_int_t)f[2])));
        }
    }
    return json_pack("{s:I, s:I, s:I, s:o}", "index", (json_int_t)index, "tid", (json_int_t)tid,
                     "overflow", (json_int_t)overflow, "nodes", rows);
}

/* One thread's tree as the hooks built it: a node per row. */
static json_t *thread_json(const struct tree_out *o, const struct cct_arena *a)
{
    struct tree_rows t = {cct_arena_nodes(a), NULL};
    return tree_json(o, cct_arena_index(a), cct_arena_tid(a), cct_arena_overflow(a), &t,
                     cct_arena_node_count(a));
}

/* Each path entry of the profile names its function by id too. */
static void name_path_functions(json_t *root, const struct fn_map *m)
{
    json_t *entries = json_object_get(json_object_get(root, "paths"), "entries"), *e;
    size_t i;
    json_array_foreach(entries, i, e)
    {
        json_t *fn = json_array_get(json_object_get(e, "values"), 0);
        long id = fn ? function_id(m, (uint64_t)json_integer_value(fn)) : -1;
        json_object_set_new(e, "function", id >= 0 ? json_integer(id) : json_null());
    }
}

/* One thread's tree as the stack walks gave it (walk_profile.c), in the same rows. */
static json_t *walk_thread_json(const struct tree_out *o, const struct walk_tree *w)
{
    struct tree_rows t = {NULL, w->nodes};
    return tree_json(o, w->index, w->tid, 0, &t, w->n);
}

/* Every tree's rows together, hooks' and walks'. */
static size_t tree_rows_total(const struct walk_trees *w)
{
    size_t n = 0;
    for (size_t t = 0; t < w->n; t++)
        n += w->t[t].n;
    for (uint32_t t = 0; cct_active() && t < cct_arena_count(); t++)
        if (cct_arena_at(t)) n += cct_arena_node_count(cct_arena_at(t));
    return n;
}

static json_t *walk_json(const struct chain_store *c)
{
    uint32_t kept = 0; /* not those kept for a lost walk's function alone */
    for (uint32_t i = CHAIN_FIRST; i < c->n; i++)
        kept += c->cut[i] != CHAIN_LEAF_ONLY;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "walks", (json_int_t)c->walks, "chains",
                     (json_int_t)kept, "unsteady", (json_int_t)c->unsteady, "full",
                     (json_int_t)c->full, "no_stack", (json_int_t)c->no_stack, "cut",
                     (json_int_t)c->cut_walks, "max_depth", (json_int_t)STACKWALK_MAX_DEPTH);
}

/* The hooks' exit words and the functions they were named as (walk_trees.exits), for
 * the trace's records: [word as "0x..." (its top bit is set), function address]. */
static json_t *exits_json(const struct walk_trees *w)
{
    json_t *a = json_array();
    for (size_t i = 0; i < w->nexits; i++) {
        if (!w->exits[i].fn) continue; /* no function: the word stays unnamed */
        char word[24];
        snprintf(word, sizeof word, "%#" PRIx64, w->exits[i].word);
        json_array_append_new(a, json_pack("[s, I]", word, (json_int_t)w->exits[i].fn));
    }
    return a;
}

/* What cct_profile_add() does, inside a read section of the trees (cct.h). */
static int cct_profile_add_read(json_t *root, json_t *(*text)(const char *), const uint64_t *seen,
                                size_t n_seen, const struct chain_store *chains,
                                struct tag_rows *rows, struct table_writer *table,
                                uint64_t inline_max)
{
    struct fn_map m;
    struct sidetable st;
    struct walk_trees w = {0};
    if (sidetable_open(&st) != 0) return -1;
    struct symbols *syms = symbols_open(); /* NULL: functions go unnamed, not lost */
    uint64_t *all = NULL;
    if (chains) {
        if (walk_trees_build(&w, rows->n, rows->thread, rows->ctx, rows->method, chains, syms,
                             &st) != 0 ||
            !(all = malloc((n_seen + w.nfns + 1) * sizeof *all))) {
            walk_trees_free(&w);
            if (syms) symbols_close(syms);
            sidetable_close(&st);
            return -1;
        }
        if (n_seen) memcpy(all, seen, n_seen * sizeof *all);
        memcpy(all + n_seen, w.fns, w.nfns * sizeof *all);
        seen = all;
        n_seen += w.nfns;
    }
    int rc = collect_functions(&m, seen, n_seen);
    free(all);
    if (rc != 0) {
        walk_trees_free(&w);
        if (syms) symbols_close(syms);
        sidetable_close(&st);
        return -1;
    }
    json_object_set_new(root, "modules", modules_json(syms, text));
    if (st.stale) { /* said, in the profile and here: those functions have no `pass` */
        json_object_set_new(root, "sidetables_stale", json_integer((json_int_t)st.stale));
        fprintf(stderr,
                "shim: %zu compiler-pass side table(s) not read: their module's file was "
                "rebuilt or replaced since it was loaded; its functions have no pass data\n",
                st.stale);
    }
    json_object_set_new(root, "functions", functions_json(&m, syms, &st, text));
    struct tree_out out = {&m, syms, table && tree_rows_total(&w) > inline_max ? table : NULL};
    if (chains) { /* the walks' trees, and the hooks' where code built with them ran too */
        json_t *threads = json_array();
        for (size_t t = 0; t < w.n; t++)
            json_array_append_new(threads, walk_thread_json(&out, &w.t[t]));
        for (uint32_t t = 0; cct_active() && t < cct_arena_count(); t++) {
            const struct cct_arena *a = cct_arena_at(t);
            if (a) json_array_append_new(threads, thread_json(&out, a));
        }
        json_t *cct =
            json_pack("{s:i, s:i, s:s, s:o, s:o}", "method_slot", SHIM_SLOT_METHOD, "cct_slot",
                      SHIM_SLOT_CCT, "source", cct_active() ? "stack walk and hooks" : "stack walk",
                      "walk", walk_json(chains), "threads", threads);
        if (w.nexits) json_object_set_new(cct, "exits", exits_json(&w));
        json_object_set_new(root, "cct", cct);
    } else if (cct_active()) {
        json_t *threads = json_array();
        for (uint32_t t = 0; t < cct_arena_count(); t++) {
            const struct cct_arena *a = cct_arena_at(t);
            if (a) json_array_append_new(threads, thread_json(&out, a));
        }
        json_object_set_new(root, "cct",
                            json_pack("{s:i, s:i, s:s, s:o}", "method_slot", SHIM_SLOT_METHOD,
                                      "cct_slot", SHIM_SLOT_CCT, "source", "hooks", "threads",
                                      threads));
    }
    name_path_functions(root, &m);
    if (syms) symbols_close(syms);
    sidetable_close(&st);
    walk_trees_free(&w);
    free(m.addr);
    return 0;
}

int cct_profile_add(json_t *root, json_t *(*text)(const char *), const uint64_t *seen,
                    size_t n_seen, const struct chain_store *chains, struct tag_rows *rows,
                    struct table_writer *table, uint64_t inline_max)
{
    if (!cct_active() && n_seen == 0 && !chains) return 0;
    cct_read_begin(); /* threads may exit meanwhile: their nodes stay where they are */
    int rc = cct_profile_add_read(root, text, seen, n_seen, chains, rows, table, inline_max);
    cct_read_end();
    return rc;
}
