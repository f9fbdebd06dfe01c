/*
 * test_cct_overflow.c -- a full arena: every further new context, and whatever is called
 * beneath it, is the overflow node, counted per entry, while the method slot stays
 * right and known contexts are found again; a full shadow stack keeps the deepest
 * recorded context. Limits from cct_set_test_limits() on a thread created after it.
 */
#include "cct_check.h"

#include <pthread.h>

struct run {
    int bad;
    uint32_t worker, known_first, known_again, deep, spill, spill_leaf;
    uint32_t leaf_nodes[2][20];
    int many_calls;
    volatile int steps;
    const struct cct_arena *arena;
    uint64_t overflow_after_first;
};

static struct run *run;

static NOINLINE uint32_t leaf(void)
{
    run->bad += !check_here_quiet(leaf);
    return check_node();
}

static NOINLINE void known(void)
{
    run->bad += !check_here_quiet(known);
    *(run->known_first ? &run->known_again : &run->known_first) = check_node();
}

static NOINLINE void deep(int n)
{
    run->bad += !check_here_quiet(deep);
    if (n == 40) run->deep = check_node();
    if (n > 0) deep(n - 1);
    run->bad += !check_here_quiet(deep) || check_node() != run->deep;
}

/* twenty call sites of leaf */
static NOINLINE void many(void)
{
    uint32_t *n = run->leaf_nodes[run->many_calls];
    n[0] = leaf(), n[1] = leaf(), n[2] = leaf(), n[3] = leaf(), n[4] = leaf();
    n[5] = leaf(), n[6] = leaf(), n[7] = leaf(), n[8] = leaf(), n[9] = leaf();
    n[10] = leaf(), n[11] = leaf(), n[12] = leaf(), n[13] = leaf(), n[14] = leaf();
    n[15] = leaf(), n[16] = leaf(), n[17] = leaf(), n[18] = leaf(), n[19] = leaf();
    run->bad += !check_here_quiet(many);
    if (run->many_calls++ == 0) run->overflow_after_first = cct_arena_overflow(run->arena);
}

static NOINLINE void deep40(void)
{
    deep(40); /* deeper than the 16-frame shadow stack */
    run->bad += !check_here_quiet(deep40);
}

static NOINLINE void spill(void)
{
    run->spill = check_node();
    run->spill_leaf = leaf();
    run->bad += !check_here_quiet(spill) || check_node() != CCT_NODE_OVERFLOW;
}

static NOINLINE void *worker(void *arg)
{
    run = arg;
    check_attach();
    run->arena = cct_arena_self();
    run->worker = check_node();
    /* every step from one call site, so that a repeated step is the same context */
    static void (*const step[])(void) = {known, deep40, many, many, spill, known};
    for (int i = 0; i < run->steps; i++) {
        step[i]();
        run->bad += !check_here_quiet(worker) || check_node() != run->worker;
    }
    run->bad += !check_here_quiet(worker) || check_node() != run->worker;
    return NULL;
}

static void full_arena_overflows(void **state)
{
    (void)state;
    check_attach();
    cct_set_test_limits(16, 16, 0);
    struct run r = {.steps = 6};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, worker, &r), 0);
    pthread_join(t, NULL);
    cct_set_test_limits(0, 0, 0);

    const struct cct_arena *a = r.arena;
    assert_non_null(a);
    assert_int_equal(r.bad, 0);
    assert_int_equal(cct_arena_capacity(a), 16);
    assert_int_equal(cct_arena_capacity(check_arena()), 1u << 21);
    assert_int_equal(cct_arena_node_count(a), 16);
    /* worker 2, known 3, deep40 4, deep 5, many 6, leaf at the first nine sites 7..15 */
    assert_int_equal(r.worker, 2);
    assert_int_equal(r.known_first, 3);
    assert_int_equal(r.deep, 5);
    for (int call = 0; call < 2; call++) {
        for (int i = 0; i < 9; i++)
            assert_int_equal(r.leaf_nodes[call][i], 7 + i);
        for (int i = 9; i < 20; i++)
            assert_int_equal(r.leaf_nodes[call][i], CCT_NODE_OVERFLOW);
    }
    /* eleven overflowing entries per many(); then spill and the leaf beneath it */
    assert_int_equal(r.overflow_after_first, 11);
    assert_int_equal(cct_arena_overflow(a), 24);
    assert_int_equal(r.spill, CCT_NODE_OVERFLOW);
    assert_int_equal(r.spill_leaf, CCT_NODE_OVERFLOW);
    assert_int_equal(r.known_again, r.known_first); /* found again, though full */
    check_tree(a);
    /* the limits apply to arenas created while they were set, and are gone */
    assert_int_equal(cct_arena_overflow(check_arena()), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_arena_overflows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
