/*
 * test_cct_recursion.c -- recursion folds onto the nearest ancestor of the same function
 * (Ammons, Ball and Larus, PLDI 1997, section 4.1): the tree has one node per distinct
 * folded chain, not one per call, and its depth is bounded by the number of functions.
 * Compiled with -finstrument-functions -O1; every function checks that slot 8 names it.
 */
#include "cct_check.h"

static unsigned long calls;

static NOINLINE unsigned long fib(unsigned n)
{
    calls++;
    if (n < 2) {
        check_here(fib);
        return n;
    }
    unsigned long r = fib(n - 1); /* two call sites, both folded onto this node */
    r += fib(n - 2);
    check_here(fib);
    return r;
}

static NOINLINE unsigned long run_fib(unsigned n)
{
    unsigned long r = fib(n);
    check_here(run_fib);
    return r;
}

static void fib_folds(void **state)
{
    (void)state;
    check_attach();
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(fib_folds);
    uint32_t before = cct_arena_node_count(a);
    calls = 0;
    assert_int_equal(run_fib(20), 6765);
    check_here(fib_folds);
    assert_int_equal(check_node(), me);
    /* 21891 calls, two new contexts: run_fib and fib under it */
    assert_int_equal(calls, 21891);
    assert_int_equal(cct_arena_node_count(a) - before, 2);
    uint32_t rf, f;
    assert_int_equal(check_children(a, me, FN(run_fib), &rf), 1);
    assert_int_equal(check_children(a, rf, FN(fib), &f), 1);
    assert_int_equal(check_subtree(a, f, NULL), 1);
    assert_int_equal(check_node_at(f)->depth, check_node_at(me)->depth + 2);
    check_tree(a);
}

/* a -> b -> a: the second a is the first a's node again */
static uint32_t a_node, deepest_a_node;
static NOINLINE void mut_b(int n);

static NOINLINE void mut_a(int n)
{
    uint32_t here = check_here(mut_a);
    if (a_node == 0) a_node = here;
    if (n == 0) deepest_a_node = here;
    if (n > 0) mut_b(n);
    check_here(mut_a);
}

static NOINLINE void mut_b(int n)
{
    check_here(mut_b);
    mut_a(n - 1);
    check_here(mut_b);
}

static void mutual_recursion_folds_to_the_first(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(mutual_recursion_folds_to_the_first);
    uint32_t before = cct_arena_node_count(a);
    a_node = deepest_a_node = 0;
    mut_a(1000);
    check_here(mutual_recursion_folds_to_the_first);
    assert_int_equal(cct_arena_node_count(a) - before, 2); /* a, and b under it */
    assert_int_equal(deepest_a_node, a_node);
    uint32_t na, nb;
    assert_int_equal(check_children(a, me, FN(mut_a), &na), 1);
    assert_int_equal(na, a_node);
    assert_int_equal(check_children(a, na, FN(mut_b), &nb), 1);
    assert_int_equal(check_children(a, nb, FN(mut_a), NULL), 0); /* folded, no node */
    check_tree(a);
}

/* Folding follows the tree, as Ammons' construction does: in x -> y -> x -> z -> y the
 * second x folds onto the first, z becomes x's child, and y below z is a new context,
 * since y is not on the chain x -> z (even though a y frame is live). Each chain still
 * names a function once. */
static uint32_t z_node, y_below_z;
static NOINLINE void fx(int);
static NOINLINE void fy(int step)
{
    uint32_t here = check_here(fy);
    if (step < 0) {
        y_below_z = here;
        return;
    }
    fx(step + 1);
}
static NOINLINE void fz(void)
{
    z_node = check_here(fz);
    fy(-1);
}
static NOINLINE void fx(int step)
{
    check_here(fx);
    if (step == 0)
        fy(step + 1);
    else
        fz();
    check_here(fx);
}

static void folding_follows_the_tree(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(folding_follows_the_tree);
    fx(0);
    uint32_t x, y, z;
    assert_int_equal(check_children(a, me, FN(fx), &x), 1);
    assert_int_equal(check_children(a, x, FN(fy), &y), 1);
    assert_int_equal(check_children(a, x, FN(fz), &z), 1);
    assert_int_equal(z, z_node);
    assert_int_equal(check_node_at(y_below_z)->parent, z);
    assert_int_equal(check_subtree(a, x, NULL), 4); /* x, y, z, y under z */
    check_tree(a);
}

/* Deep recursion through two functions and three call sites: the number of nodes and
 * the depth do not grow with the recursion depth. */
static NOINLINE unsigned deep2(unsigned n);
static NOINLINE unsigned deep1(unsigned n)
{
    check_here(deep1);
    if (n == 0) return 0;
    if (n % 2) return deep2(n - 1) + 1;
    return deep1(n - 1) + 1;
}
static NOINLINE unsigned deep2(unsigned n)
{
    check_here(deep2);
    return n == 0 ? 0 : deep1(n - 1) + 1;
}

static NOINLINE unsigned run_deep(unsigned n)
{
    unsigned r = deep1(n);
    check_here(run_deep);
    return r;
}

static void depth_is_bounded(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(depth_is_bounded);
    uint32_t n0 = cct_arena_node_count(a);
    assert_int_equal(run_deep(10), 10);
    uint32_t n1 = cct_arena_node_count(a);
    assert_int_equal(run_deep(20000), 20000); /* another call site: a sibling subtree */
    uint32_t n2 = cct_arena_node_count(a);
    assert_int_equal(n1 - n0, 3); /* run_deep, deep1, deep2 */
    assert_int_equal(n2 - n1, 3); /* 2000 times deeper, the same three */
    uint32_t rd, deepest;
    assert_int_equal(check_children(a, me, FN(run_deep), &rd), 2);
    assert_int_equal(check_subtree(a, me, &deepest), 7);
    assert_int_equal(deepest, check_node_at(me)->depth + 3);
    check_here(depth_is_bounded);
    check_tree(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fib_folds),
        cmocka_unit_test(mutual_recursion_folds_to_the_first),
        cmocka_unit_test(folding_follows_the_tree),
        cmocka_unit_test(depth_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
