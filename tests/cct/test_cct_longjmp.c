/*
 * test_cct_longjmp.c -- frames left by longjmp. Until the next instrumented entry or
 * exit the slots still name the frame that jumped (no hook ran); the next entry pops
 * every frame whose return slot is at or below the new one's, so the new call is a child
 * of the function that caught the jump; the catcher's own exit repairs it too.
 */
#include "cct_check.h"

static jmp_buf env;
static int dive_depth;

static NOINLINE void dive(int n)
{
    check_here(dive);
    if (n < 0) return;
    if (n == 0) {
        dive_depth++;
        longjmp(env, 1);
    }
    dive(n - 1);
}

static NOINLINE void level2(int n)
{
    check_here(level2);
    dive(n);
}

static NOINLINE void level1(int n)
{
    check_here(level1);
    level2(n);
}

static NOINLINE void after_jump(void)
{
    check_here(after_jump);
}

/* longjmp out of a deep stack; after the jump and one call, context and method are right */
static NOINLINE void catches_then_calls(void)
{
    uint32_t me = check_here(catches_then_calls);
    if (setjmp(env) == 0) {
        level1(500);
        fail_msg("no jump");
    }
    /* No hook has run since the jump: the slots still say the jumping frame. */
    assert_int_equal(cct_current_method(), FN(dive));
    after_jump();
    assert_int_equal(check_here(catches_then_calls), me);
    uint32_t aj;
    assert_int_equal(check_children(check_arena(), me, FN(after_jump), &aj), 1);
}

static void call_after_longjmp(void **state)
{
    (void)state;
    check_attach();
    uint32_t me = check_here(call_after_longjmp);
    catches_then_calls();
    assert_int_equal(check_here(call_after_longjmp), me);
    check_tree(check_arena());
}

/* The function that caught the jump returns without another call: its exit repairs the
 * context of its caller. */
static NOINLINE void catches_then_returns(void)
{
    check_here(catches_then_returns);
    if (setjmp(env) == 0) level1(50);
}

static void return_after_longjmp(void **state)
{
    (void)state;
    uint32_t me = check_here(return_after_longjmp);
    catches_then_returns();
    assert_int_equal(check_here(return_after_longjmp), me);
}

/* Jumping back to the same point again and again: the re-entered calls are the same
 * contexts (no growth of the tree), and the current frame is right each time. */
static NOINLINE void jumps_in_a_loop(int times)
{
    uint32_t me = check_here(jumps_in_a_loop);
    volatile int round = 0;
    setjmp(env);
    if (round++ < times) level1(round);
    after_jump();
    assert_int_equal(check_here(jumps_in_a_loop), me);
}

static void repeated_jumps(void **state)
{
    (void)state;
    const struct cct_arena *a = check_arena();
    uint32_t me = check_here(repeated_jumps);
    dive_depth = 0;
    jumps_in_a_loop(3);
    jumps_in_a_loop(100);
    assert_int_equal(dive_depth, 103);
    /* each call site's subtree: the loop, level1, level2, dive, after_jump */
    uint32_t n = cct_arena_node_count(a), seen = 0;
    const struct cct_node *nodes = cct_arena_nodes(a);
    for (uint32_t id = CCT_NODE_FIRST; id < n; id++) {
        if (nodes[id].parent != me || nodes[id].fn != FN(jumps_in_a_loop)) continue;
        assert_int_equal(check_subtree(a, id, NULL), 5);
        seen++;
    }
    assert_int_equal(seen, 2);
    assert_int_equal(check_here(repeated_jumps), me);
    check_tree(a);
}

/* A jump from a recursion back into an outer activation of the same function: exits
 * and entries of that function find its own frame, not the deeper ones. */
static jmp_buf rec_env;
static NOINLINE int recursive_catcher(int n)
{
    check_here(recursive_catcher);
    if (n == 0) longjmp(rec_env, 1);
    if (n == 3) {
        if (setjmp(rec_env) == 0) recursive_catcher(n - 1);
        after_jump();
        check_here(recursive_catcher);
        return 3;
    }
    int r = recursive_catcher(n - 1);
    check_here(recursive_catcher);
    return r;
}

static void jump_within_recursion(void **state)
{
    (void)state;
    uint32_t me = check_here(jump_within_recursion);
    assert_int_equal(recursive_catcher(6), 3);
    assert_int_equal(check_here(jump_within_recursion), me);
    check_tree(check_arena());
}

/* A jump back into a function that then calls another function from the very call
 * instruction it jumped out of (an indirect call, as in a dispatch loop): the new
 * function's return slot is the left frame's, but its stack pointer stands elsewhere
 * (another frame size), so the left frame is recognised; an instrumented function
 * inlined into its caller shares both and nests (test_cct_calls). The new function has
 * run before: on its very first run its uninitialised locals, which still hold the
 * left frames' saved registers, can hide its return slot (signals/cct.c). */
static uint32_t other_parent;
static NOINLINE void jumper(int n)
{
    check_here(jumper);
    dive(n);
}
static NOINLINE void other(int n)
{
    volatile char room[256]; /* another frame size than jumper's */
    room[n & 255] = (char)n;
    assert_int_equal(room[n & 255], n);
    other_parent = check_node_at(check_here(other))->parent;
}
static void (*volatile dispatch)(int);

/* Calls dispatch(4) from one site three times: other, then jumper (which jumps back
 * here), then other again. */
static NOINLINE void dispatch_after_jump(void)
{
    uint32_t me = check_here(dispatch_after_jump);
    static void (*const order[])(int) = {other, jumper, other};
    volatile int round = 0;
    setjmp(env);
    while (round < 3) {
        dispatch = order[round++];
        other_parent = 0;
        dispatch(4); /* one call site for all */
        if (dispatch == other) assert_int_equal(other_parent, me);
    }
    assert_int_equal(check_here(dispatch_after_jump), me);
}

static void same_site_after_longjmp(void **state)
{
    (void)state;
    uint32_t me = check_here(same_site_after_longjmp);
    dispatch_after_jump();
    assert_int_equal(check_here(same_site_after_longjmp), me);
    check_tree(check_arena());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(call_after_longjmp),      cmocka_unit_test(return_after_longjmp),
        cmocka_unit_test(repeated_jumps),          cmocka_unit_test(jump_within_recursion),
        cmocka_unit_test(same_site_after_longjmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
