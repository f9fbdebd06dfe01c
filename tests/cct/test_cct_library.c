/*
 * test_cct_library.c -- an instrumented shared library (cct_lib.c) calls the program's
 * hooks: its functions are nodes of the calling thread's tree, with their call sites;
 * a callback from the library into the program nests below them; recursion inside the
 * library folds like anywhere else.
 */
#include "cct_check.h"

#include "cct_lib.h"

static uint32_t callback_node;

static NOINLINE int callback(int x)
{
    callback_node = check_here(callback);
    return x * 2;
}

static void library_functions_join_the_tree(void **state)
{
    (void)state;
    check_attach();
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(library_functions_join_the_tree);
    assert_int_equal(cct_lib_outer(callback, 5), 22);
    assert_int_equal(check_here(library_functions_join_the_tree), me);

    uint32_t outer, inner;
    assert_int_equal(check_children(a, me, FN(cct_lib_outer), &outer), 1);
    assert_int_equal(check_children(a, outer, FN(cct_lib_inner), &inner), 2); /* two sites */
    const struct cct_node *in = check_node_at(inner);
    assert_true(in->call_site > FN(cct_lib_outer) && in->call_site < FN(cct_lib_outer) + 4096);
    const struct cct_node *cb = check_node_at(callback_node);
    assert_int_equal(cb->fn, FN(callback));
    assert_int_equal(check_node_at(cb->parent)->fn, FN(cct_lib_inner));
    assert_int_equal(check_node_at(cb->parent)->parent, outer);
    /* the callback's call site lies in the library, its function in the program */
    assert_true(cb->call_site > FN(cct_lib_inner) && cb->call_site < FN(cct_lib_inner) + 4096);
    check_tree(a);
}

static void recursion_inside_the_library_folds(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(recursion_inside_the_library_folds);
    uint32_t n = cct_arena_node_count(a);
    assert_int_equal(cct_lib_recurse(1000), 1000);
    assert_int_equal(cct_arena_node_count(a), n + 1);
    assert_int_equal(check_children(a, me, FN(cct_lib_recurse), NULL), 1);
    assert_int_equal(check_here(recursion_inside_the_library_folds), me);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(library_functions_join_the_tree),
        cmocka_unit_test(recursion_inside_the_library_folds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
