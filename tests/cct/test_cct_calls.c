/*
 * test_cct_calls.c -- call sites, indirect calls, inlined instrumented functions, the
 * method and context slots at every point of a function, the slots before and after a
 * signal block is attached, more contexts than the child index and the call cache start
 * with, and the size of a node.
 */
#include "cct_check.h"

#include <stdio.h>

static uint32_t last_leaf;

static NOINLINE void leaf(void)
{
    last_leaf = check_here(leaf);
}

static NOINLINE void two_sites(void)
{
    leaf();
    check_here(two_sites);
    leaf();
    check_here(two_sites);
}

static NOINLINE void one_site(int n)
{
    for (int i = 0; i < n; i++) {
        leaf();
        check_here(one_site);
    }
}

static void call_sites_are_distinct(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(call_sites_are_distinct);
    two_sites();
    one_site(100);
    check_here(call_sites_are_distinct);
    uint32_t two, one, first;
    assert_int_equal(check_children(a, me, FN(two_sites), &two), 1);
    assert_int_equal(check_children(a, two, FN(leaf), &first), 2);
    assert_int_equal(check_children(a, me, FN(one_site), &one), 1);
    assert_int_equal(check_children(a, one, FN(leaf), &first), 1);
    assert_int_equal(first, last_leaf);
    const struct cct_node *n = check_node_at(first);
    assert_true(n->call_site > FN(one_site) && n->call_site < FN(one_site) + 4096);
    check_tree(a);
}

/* Indirect calls: a call through a pointer is a call like any other, named by its site. */
static NOINLINE void target1(void)
{
    check_here(target1);
}
static NOINLINE void target2(void)
{
    check_here(target2);
}
static void (*volatile pointer)(void);

static NOINLINE void pointer_two_sites(void)
{
    pointer = target1;
    pointer();
    check_here(pointer_two_sites);
    pointer();
    check_here(pointer_two_sites);
}

static NOINLINE void pointer_one_site(void)
{
    static void (*const targets[])(void) = {target1, target1, target1, target2, target1, target2};
    for (unsigned i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        pointer = targets[i];
        pointer();
        check_here(pointer_one_site);
    }
}

static void indirect_calls(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(indirect_calls);
    pointer_two_sites();
    pointer_one_site();
    uint32_t two, one, t1, t2;
    assert_int_equal(check_children(a, me, FN(pointer_two_sites), &two), 1);
    assert_int_equal(check_children(a, two, FN(target1), NULL), 2); /* two sites */
    assert_int_equal(check_children(a, two, FN(target2), NULL), 0);
    assert_int_equal(check_children(a, me, FN(pointer_one_site), &one), 1);
    assert_int_equal(check_children(a, one, FN(target1), &t1), 1); /* one site, 4 calls */
    assert_int_equal(check_children(a, one, FN(target2), &t2), 1);
    assert_int_equal(check_node_at(t1)->call_site, check_node_at(t2)->call_site);
    check_tree(a);
}

/* An instrumented function inlined into its caller calls the hooks with the caller's
 * return address: it nests inside the caller (a child with the caller's call site) and
 * the caller is current again after it. Compiled with clang's
 * -finstrument-functions-after-inlining (CCT_AFTER_INLINING) an inlined copy has no
 * hooks: the caller stays current inside it, and its calls are the caller's. */
static NOINLINE void has_inlined(void);
#ifdef CCT_AFTER_INLINING
#define INLINED_RUNS has_inlined
#else
#define INLINED_RUNS inlined
#endif
static uint32_t inlined_node;
static inline __attribute__((always_inline)) void inlined(void)
{
    inlined_node = check_here(INLINED_RUNS);
    leaf();
    check_here(INLINED_RUNS);
}

static NOINLINE void has_inlined(void)
{
    uint32_t me = check_here(has_inlined);
    inlined();
    assert_int_equal(check_here(has_inlined), me);
    inlined();
    assert_int_equal(check_here(has_inlined), me);
}

static void inlined_functions_nest(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(inlined_functions_nest);
    has_inlined();
    uint32_t h, in;
    assert_int_equal(check_children(a, me, FN(has_inlined), &h), 1);
#ifdef CCT_AFTER_INLINING
    assert_int_equal(inlined_node, h);
    assert_int_equal(check_children(a, h, FN(inlined), NULL), 0);
    in = h;
#else
    assert_int_equal(check_children(a, h, FN(inlined), &in), 1);
    assert_int_equal(in, inlined_node);
    assert_int_equal(check_node_at(in)->call_site, check_node_at(h)->call_site);
#endif
    assert_int_equal(check_children(a, in, FN(leaf), NULL), 2); /* a site per inlined copy */
    check_here(inlined_functions_nest);
    check_tree(a);
}

/* Slot 8 names the executing function at every point: before, between and after calls
 * of every kind, in loops, after returns from deep chains. */
static NOINLINE int chain3(int x)
{
    check_here(chain3);
    return x + 1;
}
static NOINLINE int chain2(int x)
{
    check_here(chain2);
    int r = chain3(x);
    check_here(chain2);
    r += chain3(r);
    check_here(chain2);
    return r;
}
static NOINLINE int chain1(int x)
{
    int r = 0;
    for (int i = 0; i < x; i++) {
        check_here(chain1);
        r += chain2(i);
        check_here(chain1);
        pointer = leaf;
        pointer();
        check_here(chain1);
    }
    return r;
}

static void method_slot_always_names_the_running_function(void **state)
{
    (void)state;
    check_here(method_slot_always_names_the_running_function);
    assert_int_equal(chain1(50), 2 * (49 * 50 / 2) + 150);
    check_here(method_slot_always_names_the_running_function);
}

/* Before a real block is attached the hooks store nothing, yet keep the tree: the
 * slots are right as soon as the block is attached and cct_republish() has run. */
static NOINLINE void attaches_then_checks(void)
{
    check_attach();
}

static NOINLINE void before_attach(void)
{
    uint32_t me = check_node();
    assert_int_equal(cct_current_method(), FN(before_attach));
    assert_int_equal(shim_tls_block->tag[SHIM_SLOT_METHOD], 0); /* the dummy block */
    check_attach();
    assert_int_equal(check_here(before_attach), me);
    attaches_then_checks();
    assert_int_equal(check_here(before_attach), me);
}

static void slots_after_attach(void **state)
{
    (void)state;
    assert_true(cct_active());
    before_attach();
    check_here(slots_after_attach);
}

/* More contexts than the child index starts with buckets (1024), and than the call cache
 * has entries: a binary tree of calls, each level calling the next from two sites,
 * 4095 contexts in all. The index grows while they are made; run again, every one is
 * found, through the cache or the index, and nothing new is made. */
static volatile int level_sink;
static NOINLINE void level11(void)
{
    check_here(level11);
    level_sink++;
}
#define LEVEL(k, next)                                                                             \
    static NOINLINE void level##k(void)                                                            \
    {                                                                                              \
        next();                                                                                    \
        level_sink++;                                                                              \
        next();                                                                                    \
        level_sink++;                                                                              \
    }
LEVEL(10, level11)
LEVEL(9, level10)
LEVEL(8, level9)
LEVEL(7, level8)
LEVEL(6, level7)
LEVEL(5, level6)
LEVEL(4, level5)
LEVEL(3, level4)
LEVEL(2, level3)
LEVEL(1, level2)
LEVEL(0, level1)

static void many_contexts(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(many_contexts);
    uint32_t before = cct_arena_node_count(a), made[3];
    for (int run = 0; run < 3; run++) { /* one call site */
        level0();
        made[run] = cct_arena_node_count(a) - before;
    }
    check_here(many_contexts);
    assert_int_equal(made[0], 4095);
    assert_int_equal(made[2], 4095);
    uint32_t top, depth;
    assert_int_equal(check_children(a, me, FN(level0), &top), 1);
    assert_int_equal(check_subtree(a, top, &depth), 4095);
    assert_int_equal(depth, check_node_at(top)->depth + 11);
    assert_int_equal(level_sink, 3 * (2 * 2047 + 2048));
    check_tree(a);
}

static void node_size(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    printf("cct: sizeof(struct cct_node) = %zu bytes; %zu bytes per node with the child "
           "index; %u nodes per thread (address space, touched as it fills)\n",
           sizeof(struct cct_node), cct_arena_bytes_per_node(a), cct_arena_capacity(a));
    assert_int_equal(sizeof(struct cct_node), 32);
    assert_true(cct_arena_bytes_per_node(a) <= 40);
    assert_int_equal(cct_arena_capacity(a), 1u << 21);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slots_after_attach),
        cmocka_unit_test(call_sites_are_distinct),
        cmocka_unit_test(indirect_calls),
        cmocka_unit_test(inlined_functions_nest),
        cmocka_unit_test(method_slot_always_names_the_running_function),
        cmocka_unit_test(many_contexts),
        cmocka_unit_test(node_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
