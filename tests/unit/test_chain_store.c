/*
 * test_chain_store.c -- specifies the stack walk and the store of its chains
 * (observer/chain_store.{h,c}).
 *
 * A walk follows saved frame pointers upwards from the frame it is given, collecting the
 * return addresses, and stops at the stack's bounds, at a frame pointer that does not
 * rise, at a zero return address, or at the depth limit (cut). Recursion folds as it is
 * read: a return address, or a cycle of up to four, repeated right after itself is kept
 * once, so a recursion of any depth is one chain. The store numbers each distinct chain once (the
 * function, the return addresses, and whether it was cut, all count), answers CHAIN_LOST when full
 * and counts it, and a merge maps every chain of one store to its number in another.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "observer/chain_store.h"
#include "libshim/walk_profile.h"
#include "signals/cct.h"

/* A fake stack of `depth` frames, `words` words apart, innermost at the lowest address:
 * frame i saves the address of frame i + 1 and returns to rets[i] (ret_base + i when
 * rets is NULL). */
static uint64_t stack[1 << 14];

static uint64_t build_frames(unsigned depth, unsigned words, uint64_t ret_base,
                             const uint64_t *rets)
{
    memset(stack, 0, sizeof stack);
    for (unsigned i = 0; i < depth; i++) {
        uint64_t *f = &stack[8 + words * i];
        f[0] = i + 1 < depth ? (uint64_t)(uintptr_t)&stack[8 + words * (i + 1)] : 0;
        f[1] = rets ? rets[i] : ret_base + i;
    }
    return (uint64_t)(uintptr_t)&stack[8];
}

static uint64_t build_stack(unsigned depth, uint64_t ret_base)
{
    return build_frames(depth, 8, ret_base, NULL);
}

static uint64_t lo(void)
{
    return (uint64_t)(uintptr_t)stack;
}
static uint64_t hi(void)
{
    return (uint64_t)(uintptr_t)(stack + (1 << 14));
}

static void walk_follows_the_chain(void **state)
{
    (void)state;
    static struct chain_walk_frames w;
    uint64_t fp = build_stack(5, 100);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 5);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(w.ret[i], 100 + i);
    assert_int_equal(w.cut, 0);
    /* bounds: a stack that ends below the third frame gives two */
    assert_int_equal(chain_walk(fp, lo(), (uint64_t)(uintptr_t)&stack[8 + 16 + 1], &w), 2);
    /* a frame outside the bounds gives nothing; so does a misaligned one */
    assert_int_equal(chain_walk(hi() + 64, lo(), hi(), &w), 0);
    assert_int_equal(chain_walk(fp + 4, lo(), hi(), &w), 0);
    /* a saved frame pointer that does not rise ends the walk after that frame */
    stack[8 + 8 * 2] = (uint64_t)(uintptr_t)&stack[8];
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 3);
    /* a zero return address ends it before that frame */
    build_stack(5, 100);
    stack[8 + 8 * 3 + 1] = 0;
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 3);
}

/* The observer reads the innermost frame alone, checks the thread is still there, then
 * walks on from it: the same chain as one walk. */
static void walk_on_from_the_innermost_frame(void **state)
{
    (void)state;
    static struct chain_walk_frames w;
    uint64_t fp = build_stack(5, 100), next = 0, ret = 0;
    assert_int_equal(chain_frame(fp, lo(), hi(), &next, &ret), 1);
    assert_int_equal(ret, 100);
    assert_int_equal(chain_walk_on(fp, next, ret, hi(), &w), 5);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(w.ret[i], 100 + i);
    assert_int_equal(chain_frame(hi() + 64, lo(), hi(), &next, &ret), 0);
    assert_int_equal(chain_walk_on(fp, fp, ret, hi(), &w), 1); /* a saved fp that does not rise */
    assert_int_equal(chain_walk_on(fp, next, 0, hi(), &w), 0); /* no return address */
}

static void walk_is_cut_at_the_limit(void **state)
{
    (void)state;
    static struct chain_walk_frames w;
    uint64_t fp = build_stack(STACKWALK_MAX_DEPTH + 20, 1000);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), STACKWALK_MAX_DEPTH);
    assert_int_equal(w.cut, 1);
    assert_int_equal(w.ret[0], 1000);
}

static void walk_folds_recursion(void **state)
{
    (void)state;
    static struct chain_walk_frames w;
    /* a function calling itself from one site: one frame of it */
    const uint64_t direct[] = {100, 200, 200, 200, 200, 300};
    uint64_t fp = build_frames(6, 8, 0, direct);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 3);
    assert_int_equal(w.ret[0], 100);
    assert_int_equal(w.ret[1], 200);
    assert_int_equal(w.ret[2], 300);
    /* two functions calling each other: one turn of the cycle */
    const uint64_t mutual[] = {100, 7, 8, 7, 8, 7, 8, 300};
    fp = build_frames(8, 8, 0, mutual);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 4);
    assert_int_equal(w.ret[1], 7);
    assert_int_equal(w.ret[2], 8);
    assert_int_equal(w.ret[3], 300);
    /* a recursion deeper than the chain limit still reaches the frames outside it */
    static uint64_t deep[3000];
    deep[0] = 100;
    for (unsigned i = 1; i < 2999; i++)
        deep[i] = 200;
    deep[2999] = 300;
    fp = build_frames(3000, 4, 0, deep);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 3);
    assert_int_equal(w.ret[2], 300);
    assert_int_equal(w.cut, 0);
    /* deeper than the frames one walk reads: cut, the innermost kept */
    static uint64_t deeper[STACKWALK_MAX_READ + 100];
    for (unsigned i = 0; i < STACKWALK_MAX_READ + 100; i++)
        deeper[i] = 200;
    deeper[0] = 100;
    fp = build_frames(STACKWALK_MAX_READ + 100, 2, 0, deeper);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w), 2);
    assert_int_equal(w.cut, 1);
}

/* When the frames read are the chain of the function read first (chain_steady). */
static void a_walk_is_steady_only_where_the_frame_is_still_its(void **state)
{
    (void)state;
    const uint64_t f = 0x401000, g = 0x402000, fp = 0x7ff0;
    const uint64_t hooks = SHIM_FRAME_HOOKS, exit = SHIM_FRAME_HOOKS | SHIM_FRAME_EXIT;
    /* the same frame */
    assert_true(chain_steady(f, fp, 0, 0, f, fp, 0, 0, 0));  /* the same function */
    assert_false(chain_steady(f, fp, 0, 0, g, fp, 0, 0, 0)); /* a sibling call */
    /* the hooks' entries: from another call site a sibling, from the same one a function
     * inlined there (or a call from the same site, whose chain is the same) */
    assert_false(chain_steady(f, fp, hooks, 0x1234, g, fp, hooks, 0x5678, 0));
    assert_true(chain_steady(f, fp, hooks, 0x1234, g, fp, hooks, 0x1234, 0));
    assert_false(chain_steady(f, fp, 0, 0x1234, g, fp, 0, 0x1234, 0)); /* the pass's */
    /* a hooks' exit on either read: the frame's function left, or one inlined there */
    assert_true(chain_steady(f, fp, hooks, 1, g, fp, exit, 2, 0));
    assert_true(chain_steady(g, fp, exit, 1, f, fp, hooks, 2, 0));
    /* deeper: the frame was not left */
    assert_true(chain_steady(f, fp, 0, 0, g, fp - 64, 0, 0, 0));
    /* above: steady only where the walk read that frame */
    assert_true(chain_steady(f, fp, 0, 0, g, fp + 64, 0, 0, 1));
    assert_false(chain_steady(f, fp, 0, 0, g, fp + 64, 0, 0, 0));
    assert_false(chain_steady(f, fp, exit, 1, g, fp + 64, exit, 1, 0));
    /* outside every function now */
    assert_false(chain_steady(f, fp, 0, 0, 0, 0, 0, 0, 0));
}

static void store_numbers_each_chain_once(void **state)
{
    (void)state;
    static struct chain_store s;
    assert_int_equal(chain_store_init(&s, 64, 1024), 0);
    uint64_t a[] = {10, 11, 12}, b[] = {10, 11, 13};
    uint32_t ia = chain_store_intern(&s, 1, a, 3, 0);
    assert_int_equal(ia, CHAIN_FIRST);
    assert_int_equal(chain_store_intern(&s, 1, a, 3, 0), ia);
    uint32_t ib = chain_store_intern(&s, 1, b, 3, 0);
    uint32_t ifn = chain_store_intern(&s, 2, a, 3, 0);
    uint32_t icut = chain_store_intern(&s, 1, a, 3, 1);
    uint32_t ishort = chain_store_intern(&s, 1, a, 2, 0);
    assert_true(ib != ia && ifn != ia && icut != ia && ishort != ia && ib != ifn);
    unsigned n;
    const uint64_t *c = chain_store_chain(&s, ib, &n);
    assert_int_equal(n, 4);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[3], 13);
    assert_int_equal(s.cut[icut], 1);
    chain_store_free(&s);
}

static void full_store_loses_and_counts(void **state)
{
    (void)state;
    static struct chain_store s;
    assert_int_equal(chain_store_init(&s, 8, 40), 0); /* 8 numbers: 6 chains */
    uint64_t r[4] = {0};
    unsigned kept = 0, lost = 0;
    for (uint64_t fn = 1; fn <= 20; fn++) {
        uint32_t id = chain_store_intern(&s, fn, r, 4, 0);
        if (id == CHAIN_LOST)
            lost++;
        else
            kept++;
    }
    assert_int_equal(kept, 6);
    assert_int_equal(lost, 14);
    assert_int_equal(s.full, 14);
    /* what is in stays findable */
    assert_int_equal(chain_store_intern(&s, 1, r, 4, 0), CHAIN_FIRST);
    chain_store_free(&s);
}

static void merge_maps_every_chain(void **state)
{
    (void)state;
    static struct chain_store a, b;
    assert_int_equal(chain_store_init(&a, 64, 1024), 0);
    assert_int_equal(chain_store_init(&b, 64, 1024), 0);
    uint64_t x[] = {5, 6}, y[] = {7, 8};
    uint32_t ax = chain_store_intern(&a, 1, x, 2, 0);
    uint32_t by = chain_store_intern(&b, 1, y, 2, 0), bx = chain_store_intern(&b, 1, x, 2, 0);
    b.walks = 10, b.unsteady = 1;
    uint32_t *map = chain_store_merge(&a, &b);
    assert_non_null(map);
    assert_int_equal(map[bx], ax);
    assert_true(map[by] != ax && map[by] >= CHAIN_FIRST);
    assert_int_equal(map[CHAIN_NONE], CHAIN_NONE);
    assert_int_equal(map[CHAIN_LOST], CHAIN_LOST);
    unsigned n;
    const uint64_t *c = chain_store_chain(&a, map[by], &n);
    assert_int_equal(c[1], 7);
    assert_int_equal(a.walks, 10);
    assert_int_equal(a.unsteady, 1);
    free(map);
    chain_store_free(&a);
    chain_store_free(&b);
}

/* A chain without a function (the walk read function 0: the thread was outside its
 * functions) and one of a function alone make trees all the same: the first is the
 * thread's root, the second one node under it. */
static void trees_of_chains_without_a_function(void **state)
{
    (void)state;
    static struct chain_store c;
    assert_int_equal(chain_store_init(&c, 64, 1024), 0);
    uint64_t ret[] = {0x1234};
    uint32_t none = chain_store_intern(&c, 0, ret, 0, 0);
    uint32_t bare = chain_store_intern(&c, 0, ret, 1, 0);
    uint32_t one = chain_store_intern(&c, 0x4000, ret, 0, 0);
    uint64_t thread[] = {7, 7, 7};
    uint64_t ctx[] = {STACKWALK_CHAIN(none), STACKWALK_CHAIN(bare), STACKWALK_CHAIN(one)};
    struct walk_trees w;
    assert_int_equal(walk_trees_build(&w, 3, thread, ctx, NULL, &c, NULL, NULL), 0);
    assert_int_equal(w.n, 1);
    assert_int_equal(CCT_SIGNAL_NODE(ctx[0]), CCT_NODE_ROOT);
    assert_int_equal(CCT_SIGNAL_NODE(ctx[1]), CCT_NODE_ROOT);
    assert_int_equal(CCT_SIGNAL_NODE(ctx[2]), CCT_NODE_FIRST);
    assert_int_equal(CCT_SIGNAL_THREAD(ctx[0]), CCT_SIGNAL_THREAD(ctx[2]));
    walk_trees_free(&w);
    chain_store_free(&c);
}

/* After a hooks' exit (signals/stackwalk.h), the sample's function is the one the thread
 * goes on in: where the word's 16 bits are those of the function holding the hook's
 * return address, that function left, and the thread is in the caller, which holds the
 * first return address (the chain is the caller's from there); otherwise it is the one
 * holding the hook's return address (a function inlined into it left). Without symbols
 * every address stands for its own function. A chain kept for its function alone is the
 * lost node; a sample with no chain keeps the function the word names. */
static void exit_words_name_the_function_the_thread_goes_on_in(void **state)
{
    (void)state;
    static struct chain_store c;
    assert_int_equal(chain_store_init(&c, 64, 1024), 0);
    const uint64_t hra = 0x401234, r1 = 0x402345, r2 = 0x403456;
    const uint64_t left = STACKWALK_EXIT(hra, SHIM_HOOKS_TAG(hra));
    const uint64_t inlined = STACKWALK_EXIT(hra, SHIM_HOOKS_TAG(hra) ^ 1);
    uint64_t rets[] = {r1, r2};
    uint32_t own = chain_store_intern(&c, left, rets, 2, CHAIN_WHOLE);
    uint32_t host = chain_store_intern(&c, inlined, rets, 2, CHAIN_WHOLE);
    uint32_t lost = chain_store_intern(&c, left, rets, 1, CHAIN_LEAF_ONLY);
    assert_true(lost != own && lost != host);
    uint64_t thread[] = {7, 7, 7, 7};
    uint64_t ctx[] = {STACKWALK_CHAIN(own), STACKWALK_CHAIN(host), STACKWALK_CHAIN(lost), 0};
    uint64_t method[] = {left, inlined, left, inlined};
    struct walk_trees w;
    assert_int_equal(walk_trees_build(&w, 4, thread, ctx, method, &c, NULL, NULL), 0);
    assert_int_equal(method[0], r1);
    assert_int_equal(method[1], hra);
    assert_int_equal(method[2], r1);
    assert_int_equal(method[3], hra);
    assert_int_equal(w.n, 1);
    const struct walk_node *nodes = w.t[0].nodes;
    assert_int_equal(nodes[CCT_SIGNAL_NODE(ctx[0])].fn, r1);
    assert_int_equal(nodes[CCT_SIGNAL_NODE(ctx[0])].site, r2);
    assert_int_equal(nodes[CCT_SIGNAL_NODE(ctx[1])].fn, hra);
    assert_int_equal(nodes[CCT_SIGNAL_NODE(ctx[1])].site, r1);
    assert_int_equal(CCT_SIGNAL_NODE(ctx[2]), CCT_NODE_OVERFLOW);
    assert_int_equal(ctx[3], 0);
    int named_r1 = 0, named_hra = 0;
    for (size_t i = 0; i < w.nfns; i++) {
        named_r1 |= w.fns[i] == r1;
        named_hra |= w.fns[i] == hra;
    }
    assert_true(named_r1 && named_hra);
    walk_trees_free(&w);
    chain_store_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_follows_the_chain),
        cmocka_unit_test(walk_on_from_the_innermost_frame),
        cmocka_unit_test(walk_is_cut_at_the_limit),
        cmocka_unit_test(walk_folds_recursion),
        cmocka_unit_test(a_walk_is_steady_only_where_the_frame_is_still_its),
        cmocka_unit_test(store_numbers_each_chain_once),
        cmocka_unit_test(full_store_loses_and_counts),
        cmocka_unit_test(merge_maps_every_chain),
        cmocka_unit_test(trees_of_chains_without_a_function),
        cmocka_unit_test(exit_words_name_the_function_the_thread_goes_on_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
