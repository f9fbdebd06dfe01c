/*
 * walk_profile.c -- the observer's stack-walk chains made into calling-context trees, in
 * the form the -finstrument-functions runtime gives its own (signals/cct.h), so that the
 * profile's `cct` member and every shimview command read both the same way.
 *
 * A chain (observer/chain_store.h) is the function executing, then the return addresses
 * from its frame outwards. Frame j's function is the chain's first word for j = 0 and
 * the function holding return address j - 1 otherwise; its call site is return address
 * j. Return addresses become functions through the module's symbol table (symbols.c:
 * .symtab, which names static functions too), looked up at the byte before them (the
 * call's last byte: a call that ends a function returns past its end); an address no
 * symbol names stands for itself. Each distinct return address is looked up once.
 *
 * The outermost frames, below the outermost function the compiler pass instrumented
 * (the C library's start-up, a thread's start routine's caller), are left out (without
 * side tables, with the hooks' frame signal: the outermost frames no symbol names): the
 * hooks' trees start at the first instrumented function too, and they say nothing
 * about where the program spends its time. Frames of uninstrumented code between
 * instrumented ones (a qsort calling back a comparator) stay, when they keep frame
 * pointers; code without them hides its caller (docs/calling-contexts.md).
 *
 * Recursion folds as in the hooks' trees (Ammons, Ball and Larus): a call to a
 * function already on the path is that ancestor's node again, so no path from the root
 * names a function twice. Runs at shim_stop(), after the observers have stopped.
 */
#include "libshim/walk_profile.h"

#include <stdlib.h>
#include <string.h>

#include "signals/cct.h"
#include "signals/stackwalk.h"

struct addr_fn {
    uint64_t addr, fn;
    uint64_t callee; /* the function the direct call before it calls, 0 when not known */
    int code;        /* a loaded module holds it */
    int named;       /* a symbol names the function holding it */
};

static int cmp_addr(const void *a, const void *b)
{
    uint64_t x = ((const struct addr_fn *)a)->addr, y = ((const struct addr_fn *)b)->addr;
    return x < y ? -1 : x > y;
}

/* What the lookup found for return address addr, or NULL. */
static const struct addr_fn *addr_info(const struct addr_fn *m, size_t n, uint64_t addr)
{
    struct addr_fn key = {addr, 0, 0, 0, 0};
    return n ? bsearch(&key, m, n, sizeof *m, cmp_addr) : NULL;
}

/* Whether a symbol names the function that holds return address addr. */
static int named(const struct addr_fn *m, size_t n, uint64_t addr)
{
    const struct addr_fn *hit = addr_info(m, n, addr);
    return hit && hit->named;
}

/* The function holding return address addr; 0 when no loaded module holds it (the walk
 * went through something that was not a frame). */
static uint64_t fn_of(const struct addr_fn *m, size_t n, uint64_t addr)
{
    const struct addr_fn *hit = addr_info(m, n, addr);
    return !hit ? addr : hit->code ? hit->fn : 0;
}

static size_t slot_of(uint32_t parent, uint64_t fn, uint64_t site, size_t mask)
{
    uint64_t h = (fn * 0x9e3779b97f4a7c15ull) ^ (site * 0xff51afd7ed558ccdull) ^ parent;
    h ^= h >> 29;
    return (size_t)h & mask;
}

static int tree_grow(struct walk_tree *t)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct walk_node *p = realloc(t->nodes, cap * sizeof *p);
        if (!p) return -1;
        t->nodes = p, t->cap = cap;
    }
    if (2 * (t->n + 1) > t->mask + 1 || !t->slots) { /* the index at most half full */
        size_t size = t->slots ? 2 * (t->mask + 1) : 128;
        uint32_t *s = calloc(size, sizeof *s);
        if (!s) return -1;
        for (size_t i = CCT_NODE_FIRST; i < t->n; i++) {
            const struct walk_node *nd = &t->nodes[i];
            size_t k = slot_of(nd->parent, nd->fn, nd->site, size - 1);
            while (s[k])
                k = (k + 1) & (size - 1);
            s[k] = (uint32_t)i;
        }
        free(t->slots);
        t->slots = s, t->mask = size - 1;
    }
    return 0;
}

/* The child (parent, fn, site), made if new; 0 when memory runs out. */
static uint32_t tree_child(struct walk_tree *t, uint32_t parent, uint64_t fn, uint64_t site)
{
    if (tree_grow(t) != 0) return 0;
    size_t k = slot_of(parent, fn, site, t->mask);
    for (; t->slots[k]; k = (k + 1) & t->mask) {
        const struct walk_node *nd = &t->nodes[t->slots[k]];
        if (nd->parent == parent && nd->fn == fn && nd->site == site) return t->slots[k];
    }
    uint32_t id = (uint32_t)t->n++;
    t->nodes[id] = (struct walk_node){fn, site, parent};
    t->slots[k] = id;
    return id;
}

static struct walk_tree *tree_for(struct walk_trees *w, uint64_t tid)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->t[i].tid == tid) return &w->t[i];
    struct walk_tree *p = realloc(w->t, (w->n + 1) * sizeof *p);
    if (!p) return NULL;
    w->t = p;
    struct walk_tree *t = &w->t[w->n];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->index = WALK_TREE_INDEX + (uint32_t)w->n++;
    if (tree_grow(t) != 0) return NULL;
    t->nodes[0] = t->nodes[1] = (struct walk_node){0, 0, 0};
    t->n = CCT_NODE_FIRST;
    return t;
}

/* The function a direct call (e8 and a 32-bit displacement) just before return address
 * ret calls, when a symbol starts there; 0 otherwise (an indirect call, a call through
 * the PLT). The code is the loaded image's: ret lies in a function a loaded module
 * holds, at least the call's length past its start. */
static uint64_t call_target(struct symbols *syms, uint64_t ret)
{
    const unsigned char *at = (const unsigned char *)(uintptr_t)(ret - 5);
    if (at[0] != 0xe8) return 0;
    int32_t rel;
    memcpy(&rel, at + 1, sizeof rel);
    uint64_t target = ret + (uint64_t)(int64_t)rel;
    struct symbol_info si;
    return symbols_lookup(syms, target, &si) == 0 && si.name && si.sym_offset == 0 ? target : 0;
}

/* The chain number a context value holds; CHAIN_NONE when it holds none (0, or the node
 * of a thread the hooks gave its context). */
static uint64_t chain_of(uint64_t v)
{
    return STACKWALK_IS_CHAIN(v) ? STACKWALK_CHAIN_ID(v) : CHAIN_NONE;
}

/* Exit words in order, the first row's first among equal ones. */
static int cmp_exit_word(const void *a, const void *b)
{
    const struct walk_exit *x = a, *y = b;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The function a sample's word names (`method` of walk_trees_build): itself, or after a
 * hooks' exit (STACKWALK_EXIT form, signals/stackwalk.h) the function the thread goes on
 * in: the one holding the first return address `ret` (0: none was read) where the
 * function holding the hook's return address is the one that left, as the 16 bits stored
 * with it say, and that one otherwise. *own says which (1: the caller's). */
static uint64_t word_fn(const struct addr_fn *m, size_t nm, uint64_t v, uint64_t ret, int *own)
{
    *own = 0;
    if (!STACKWALK_IS_EXIT(v)) return v;
    uint64_t left = fn_of(m, nm, STACKWALK_EXIT_ADDR(v));
    uint64_t caller = ret ? fn_of(m, nm, ret) : 0;
    if (caller && left && SHIM_HOOKS_TAG(left) == STACKWALK_EXIT_TAG(v)) {
        *own = 1;
        return caller;
    }
    return left; /* or, where no caller was read, the function that left */
}

/* The frames of one chain as chain_node() reads them (one more than a chain's depth: an
 * inlined function's host). */
struct frame_scratch {
    uint64_t fn[STACKWALK_MAX_DEPTH + 2], site[STACKWALK_MAX_DEPTH + 2];
    int named[STACKWALK_MAX_DEPTH + 2];
};

/* The node of chain c in tree t into *node and the function it starts with into *leaf
 * (fns: the functions of its frames, scratch); 0, or -1 when memory ran out. A chain
 * without a function (an empty one, or one whose innermost function is 0: the thread
 * outside its functions) is the thread's root; one kept for its function alone
 * (CHAIN_LEAF_ONLY) the lost node. */
static int chain_node(struct walk_tree *t, const uint64_t *c, unsigned n, int kind,
                      const struct addr_fn *m, size_t nm, const struct sidetable *st,
                      struct frame_scratch *f, uint32_t *node, uint64_t *leaf)
{
    int own, entry = !STACKWALK_IS_EXIT(c[0]) && (c[0] & STACKWALK_ENTRY_BIT);
    uint64_t word = entry ? c[0] & ~STACKWALK_ENTRY_BIT : c[0];
    *leaf = word_fn(m, nm, word, n > 1 ? c[1] : 0, &own);
    *node = CCT_NODE_ROOT;
    if (kind == CHAIN_LEAF_ONLY) {
        *node = CCT_NODE_OVERFLOW;
        return 0;
    }
    if (own) { /* the caller's chain: its frame is the first one read */
        c++;
        n--;
    }
    /* frame k: its function, its call site (the return address into frame k + 1's), and
     * whether a symbol names it. A hooks' entry whose frame was called for another
     * function (the direct call before its return address) is a function gcc inlined
     * there: that one is its host, between it and the frame's caller, called from no site
     * of its own. */
    unsigned k = 0;
    const struct addr_fn *ra = n > 1 ? addr_info(m, nm, c[1]) : NULL;
    uint64_t host = entry && ra && ra->callee && ra->callee != *leaf ? ra->callee : 0;
    f->fn[k] = *leaf, f->site[k] = host ? 0 : n > 1 ? c[1] : 0, f->named[k++] = 0;
    if (host) f->fn[k] = host, f->site[k] = c[1], f->named[k++] = 1;
    for (unsigned j = 1; j < n; j++) {
        uint64_t fn = fn_of(m, nm, c[j]);
        if (!fn) break; /* not code: the walk left the frames here */
        f->fn[k] = fn, f->site[k] = j + 1 < n ? c[j + 1] : 0, f->named[k++] = named(m, nm, c[j]);
    }
    if (!*leaf) return 0;
    /* the outermost frame the pass instrumented; else (hooks, no side tables) the
     * outermost that a symbol names: the C library's unnamed start-up frames go */
    unsigned top = k - 1;
    if (st && st->n) {
        while (top > 0 && !sidetable_lookup(st, f->fn[top]))
            top--;
        if (!sidetable_lookup(st, f->fn[top])) top = k - 1;
    }
    if (top == k - 1)
        while (top > 0 && !f->named[top])
            top--;
    uint32_t cur = CCT_NODE_ROOT;
    for (unsigned j = top + 1; j-- > 0;) {
        uint32_t at = cur; /* recursion: the nearest ancestor of the same function */
        while (at != CCT_NODE_ROOT && t->nodes[at].fn != f->fn[j])
            at = t->nodes[at].parent;
        if (at != CCT_NODE_ROOT) {
            cur = at;
            continue;
        }
        cur = tree_child(t, cur, f->fn[j], f->site[j]);
        if (!cur) return -1;
    }
    *node = cur;
    return 0;
}

int walk_trees_build(struct walk_trees *w, size_t n_rows, const uint64_t *thread, uint64_t *ctx,
                     uint64_t *method, const struct chain_store *c, struct symbols *syms,
                     const struct sidetable *st)
{
    memset(w, 0, sizeof *w);
    /* every return address of every chain an entry names, and every hooks' exit word's
     * address, each looked up once */
    size_t n_addr = 0;
    for (size_t i = 0; i < n_rows; i++) {
        uint64_t id = chain_of(ctx[i]);
        if (id >= CHAIN_FIRST && id < c->n) n_addr += c->len[id];
        if (method) n_addr++;
    }
    struct addr_fn *m = malloc((n_addr ? n_addr : 1) * sizeof *m);
    struct frame_scratch *fns = malloc(sizeof *fns);
    w->exits = malloc((n_rows ? n_rows : 1) * sizeof *w->exits);
    if (!m || !fns || !w->exits) goto fail;
    size_t nm = 0;
    for (size_t i = 0; i < n_rows; i++) {
        uint64_t id = chain_of(ctx[i]);
        if (method && STACKWALK_IS_EXIT(method[i])) m[nm++].addr = STACKWALK_EXIT_ADDR(method[i]);
        if (id < CHAIN_FIRST || id >= c->n) continue;
        unsigned n;
        const uint64_t *ch = chain_store_chain(c, (uint32_t)id, &n);
        if (STACKWALK_IS_EXIT(ch[0])) m[nm++].addr = STACKWALK_EXIT_ADDR(ch[0]);
        for (unsigned j = 1; j < n; j++)
            m[nm++].addr = ch[j];
    }
    qsort(m, nm, sizeof *m, cmp_addr);
    size_t k = 0;
    for (size_t j = 0; j < nm; j++)
        if (k == 0 || m[j].addr != m[k - 1].addr) m[k++] = m[j];
    nm = k;
    for (size_t j = 0; j < nm; j++) { /* the call is the byte before: a call ending a
                                        function (to a noreturn one) returns past its end */
        struct symbol_info si;
        uint64_t call = m[j].addr - 1;
        int found = syms && symbols_lookup(syms, call, &si) == 0;
        m[j].code = !syms || found;
        m[j].named = found && si.name;
        m[j].fn = found && si.name ? call - si.sym_offset : m[j].addr;
        m[j].callee = found && si.name && si.sym_offset >= 4 ? call_target(syms, m[j].addr) : 0;
    }
    for (size_t i = 0; i < n_rows; i++) {
        uint64_t id = chain_of(ctx[i]), leaf = 0;
        int own;
        /* a chain names its own function; a word without one (no walk, or a lost walk
         * with no return address kept) is named alone */
        if (id >= CHAIN_FIRST && id < c->n) {
            struct walk_tree *t = tree_for(w, thread[i]);
            if (!t) goto fail;
            unsigned n;
            uint32_t node;
            const uint64_t *ch = chain_store_chain(c, (uint32_t)id, &n);
            if (chain_node(t, ch, n, c->cut[id], m, nm, st, fns, &node, &leaf)) goto fail;
            ctx[i] = CCT_SIGNAL(t->index, node);
        } else {
            if (method) leaf = word_fn(m, nm, method[i], 0, &own);
            if (id != CHAIN_NONE) { /* lost */
                struct walk_tree *t = tree_for(w, thread[i]);
                if (!t) goto fail;
                ctx[i] = CCT_SIGNAL(t->index, CCT_NODE_OVERFLOW);
            }
        }
        if (method && STACKWALK_IS_EXIT(method[i])) {
            w->exits[w->nexits++] = (struct walk_exit){method[i], leaf, i};
            method[i] = leaf;
        }
    }
    size_t total = w->nexits;
    for (size_t j = 0; j < w->n; j++)
        total += w->t[j].n;
    w->fns = malloc((total ? total : 1) * sizeof *w->fns);
    if (!w->fns) goto fail;
    for (size_t j = 0; j < w->n; j++)
        for (size_t q = CCT_NODE_FIRST; q < w->t[j].n; q++)
            w->fns[w->nfns++] = w->t[j].nodes[q].fn;
    for (size_t j = 0; j < w->nexits; j++) /* before the words are made one each */
        w->fns[w->nfns++] = w->exits[j].fn;
    /* one per word, the first row's (the rows come most sampled first) */
    qsort(w->exits, w->nexits, sizeof *w->exits, cmp_exit_word);
    k = 0;
    for (size_t j = 0; j < w->nexits; j++)
        if (k == 0 || w->exits[j].word != w->exits[k - 1].word) w->exits[k++] = w->exits[j];
    w->nexits = k;
    free(m);
    free(fns);
    return 0;
fail:
    free(m);
    free(fns);
    walk_trees_free(w);
    return -1;
}

void walk_trees_free(struct walk_trees *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->t[i].nodes);
        free(w->t[i].slots);
    }
    free(w->t);
    free(w->fns);
    free(w->exits);
    memset(w, 0, sizeof *w);
}
