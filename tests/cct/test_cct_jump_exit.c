/*
 * test_cct_jump_exit.c -- the tree at -O2, where gcc calls the exit hook of a function
 * returning void with a jump once the function's frame is gone: the hook returns
 * straight to the caller, and its own return slot is the function's. Such an exit pops
 * the function's frame and no other: after every return the slots name the caller,
 * a recursive one included.
 */
#include "cct_check.h"

static volatile int sink;

static NOINLINE void void_leaf(void)
{
    check_here(void_leaf);
    sink++;
}

static NOINLINE void void_middle(void)
{
    check_here(void_middle);
    void_leaf();
    check_here(void_middle);
    void_leaf();
    sink++;
}

static void void_calls_return_to_their_caller(void **state)
{
    (void)state;
    uint32_t me = check_here(void_calls_return_to_their_caller);
    void_leaf();
    assert_int_equal(check_here(void_calls_return_to_their_caller), me);
    void_middle();
    assert_int_equal(check_here(void_calls_return_to_their_caller), me);
}

static uint32_t level_node[8];

static NOINLINE void void_recursion(int n)
{
    level_node[n] = check_here(void_recursion);
    if (n > 0) void_recursion(n - 1);
    /* the level inside has returned: this level's function and node again */
    assert_int_equal(check_here(void_recursion), level_node[n]);
    sink++;
}

/* The same with a frame too large for the entry to find the return slot near its stack
 * pointer (its marker is then only a lower bound, below the slot). */
static uint32_t big_level_node[8];

static NOINLINE void void_recursion_big_frame(int n)
{
    volatile char buf[4096];
    buf[n] = (char)n;
    big_level_node[n] = check_here(void_recursion_big_frame);
    if (n > 0) void_recursion_big_frame(n - 1);
    assert_int_equal(check_here(void_recursion_big_frame), big_level_node[n]);
    sink += buf[n];
}

static void a_void_recursion_with_a_big_frame_returns_level_by_level(void **state)
{
    (void)state;
    uint32_t me = check_here(a_void_recursion_with_a_big_frame_returns_level_by_level);
    void_recursion_big_frame(6);
    assert_int_equal(check_here(a_void_recursion_with_a_big_frame_returns_level_by_level), me);
    check_tree(check_arena());
}

static void a_void_recursion_returns_level_by_level(void **state)
{
    (void)state;
    uint32_t me = check_here(a_void_recursion_returns_level_by_level);
    void_recursion(6);
    assert_int_equal(check_here(a_void_recursion_returns_level_by_level), me);
    check_tree(check_arena());
}

int main(void)
{
    check_attach();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(void_calls_return_to_their_caller),
        cmocka_unit_test(a_void_recursion_returns_level_by_level),
        cmocka_unit_test(a_void_recursion_with_a_big_frame_returns_level_by_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
