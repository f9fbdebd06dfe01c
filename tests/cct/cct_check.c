/*
 * cct_check.c -- helpers of the calling-context tests (see cct_check.h). Compiled
 * without -finstrument-functions.
 */
#include "cct_check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signals/signal_block.h"

/* CCT_TEST_SLOT_CACHE=n runs a test with an n-entry return-slot cache (1: the hooks
 * search the stack on nearly every entry), set before the first hook: main's. */
__attribute__((constructor)) static void check_slot_cache(void)
{
    const char *n = getenv("CCT_TEST_SLOT_CACHE");
    if (n != NULL) cct_set_test_limits(0, 0, (uint32_t)strtoul(n, NULL, 10));
}

void check_attach(void)
{
    struct shim_block *b = signal_block_acquire();
    assert_non_null(b);
    signal_block_attach(b);
    cct_republish();
}

const struct cct_arena *check_arena(void)
{
    const struct cct_arena *a = cct_arena_self();
    assert_non_null(a);
    return a;
}

const struct cct_node *check_node_at(uint32_t id)
{
    const struct cct_arena *a = check_arena();
    assert_true(id < cct_arena_node_count(a));
    return &cct_arena_nodes(a)[id];
}

uint32_t check_node(void)
{
    return CCT_SIGNAL_NODE(cct_current());
}

static int here(void *fn, char *why, size_t n)
{
    const struct cct_arena *a = cct_arena_self();
    if (a == NULL) return snprintf(why, n, "no arena"), 0;
    uint64_t method = __atomic_load_n(&shim_tls_block->tag[SHIM_SLOT_METHOD], __ATOMIC_RELAXED);
    uint64_t ctx = __atomic_load_n(&shim_tls_block->tag[SHIM_SLOT_CCT], __ATOMIC_RELAXED);
    if (method != FN(fn))
        return snprintf(why, n, "slot 8 is %#llx, not %p", (unsigned long long)method, fn), 0;
    if (cct_current_method() != FN(fn)) return snprintf(why, n, "current method differs"), 0;
    if (ctx != cct_current())
        return snprintf(why, n, "slot 9 is %#llx, current context %#llx", (unsigned long long)ctx,
                        (unsigned long long)cct_current()),
               0;
    if (CCT_SIGNAL_THREAD(ctx) != cct_arena_index(a))
        return snprintf(why, n, "slot 9 names thread %u", CCT_SIGNAL_THREAD(ctx)), 0;
    uint32_t id = CCT_SIGNAL_NODE(ctx);
    if (id >= cct_arena_node_count(a)) return snprintf(why, n, "node %u unpublished", id), 0;
    if (id != CCT_NODE_OVERFLOW && cct_arena_nodes(a)[id].fn != FN(fn))
        return snprintf(why, n, "node %u is another function's", id), 0;
    return 1;
}

uint32_t check_here_(void *fn, const char *name, const char *file, int line)
{
    char why[160];
    if (!here(fn, why, sizeof why)) {
        print_error("%s:%d: in %s: %s\n", file, line, name, why);
        fail();
    }
    return check_node();
}

int check_here_quiet(void *fn)
{
    char why[160];
    return here(fn, why, sizeof why);
}

uint32_t check_tree(const struct cct_arena *a)
{
    uint32_t n = cct_arena_node_count(a);
    const struct cct_node *nodes = cct_arena_nodes(a);
    assert_true(n >= CCT_NODE_FIRST);
    assert_true(n <= cct_arena_capacity(a));
    assert_int_equal(nodes[CCT_NODE_ROOT].fn, 0);
    assert_int_equal(nodes[CCT_NODE_ROOT].depth, 0);
    assert_int_equal(nodes[CCT_NODE_OVERFLOW].fn, 0);
    assert_int_equal(nodes[CCT_NODE_OVERFLOW].parent, CCT_NODE_ROOT);
    /* children keyed by (parent, fn, call_site): open addressing over node ids */
    uint32_t size = 16;
    while (size < 2 * n)
        size <<= 1;
    uint32_t *seen = calloc(size, sizeof *seen);
    assert_non_null(seen);
    for (uint32_t id = CCT_NODE_FIRST; id < n; id++) {
        const struct cct_node *x = &nodes[id];
        assert_true(x->fn != 0);
        assert_true(x->parent < id);
        assert_true(x->parent != CCT_NODE_OVERFLOW);
        assert_int_equal(x->depth, nodes[x->parent].depth + 1);
        for (uint32_t p = x->parent; p != CCT_NODE_ROOT; p = nodes[p].parent)
            if (nodes[p].fn == x->fn)
                fail_msg("node %u: function %#llx twice on its chain", id,
                         (unsigned long long)x->fn);
        uint64_t h =
            (x->fn ^ x->call_site * 31 ^ x->parent * 0x9e3779b97f4a7c15ull) * 0x9e3779b97f4a7c15ull;
        for (uint32_t i = (uint32_t)(h >> 40) & (size - 1);; i = (i + 1) & (size - 1)) {
            if (seen[i] == 0) {
                seen[i] = id;
                break;
            }
            const struct cct_node *y = &nodes[seen[i]];
            if (y->parent == x->parent && y->fn == x->fn && y->call_site == x->call_site)
                fail_msg("nodes %u and %u are the same context", seen[i], id);
        }
    }
    free(seen);
    return n;
}

uint32_t check_subtree(const struct cct_arena *a, uint32_t id, uint32_t *max_depth)
{
    uint32_t n = cct_arena_node_count(a), count = 0, deepest = 0;
    const struct cct_node *nodes = cct_arena_nodes(a);
    for (uint32_t i = CCT_NODE_FIRST; i < n; i++) {
        uint32_t p = i;
        while (p != id && p != CCT_NODE_ROOT)
            p = nodes[p].parent;
        if (p != id) continue;
        count++;
        if (nodes[i].depth > deepest) deepest = nodes[i].depth;
    }
    if (max_depth != NULL) *max_depth = deepest;
    return count;
}

uint32_t check_children(const struct cct_arena *a, uint32_t parent, uint64_t fn, uint32_t *first)
{
    uint32_t n = cct_arena_node_count(a), count = 0;
    const struct cct_node *nodes = cct_arena_nodes(a);
    if (first != NULL) *first = 0;
    for (uint32_t i = CCT_NODE_FIRST; i < n; i++) {
        if (nodes[i].parent != parent || nodes[i].fn != fn) continue;
        if (count++ == 0 && first != NULL) *first = i;
    }
    return count;
}

void check_install(int sig, void (*handler)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(sig, &sa, NULL), 0);
}
