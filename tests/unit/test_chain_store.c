/*
 * test_chain_store.c -- specifies the stack walk and the store of its chains
 * (observer/chain_store.{h,c}).
 *
 * A walk follows saved frame pointers upwards from the frame it is given, collecting the
 * return addresses, and stops at the stack's bounds, at a frame pointer that does not
 * rise, at a zero return address, or at the depth limit (cut). Given the last walk of the
 * same stack, it stops reading at the first frame below the innermost that is unchanged
 * and copies the rest. The store numbers each distinct chain once (the function, the
 * return addresses, and whether it was cut, all count), answers CHAIN_LOST when full
 * and counts it, and a merge maps every chain of one store to its number in another.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "chain_store.h"

/* A fake stack of `depth` frames, 64 bytes apart, innermost at the lowest address:
 * frame i saves the address of frame i + 1 and returns to ret_base + i. */
static uint64_t stack[4096];

static uint64_t build_stack(unsigned depth, uint64_t ret_base)
{
    memset(stack, 0, sizeof stack);
    for (unsigned i = 0; i < depth; i++) {
        uint64_t *f = &stack[8 + 8 * i];
        f[0] = i + 1 < depth ? (uint64_t)(uintptr_t)&stack[8 + 8 * (i + 1)] : 0;
        f[1] = ret_base + i;
    }
    return (uint64_t)(uintptr_t)&stack[8];
}

static uint64_t lo(void)
{
    return (uint64_t)(uintptr_t)stack;
}
static uint64_t hi(void)
{
    return (uint64_t)(uintptr_t)(stack + 4096);
}

static void walk_follows_the_chain(void **state)
{
    (void)state;
    static struct chain_walk_frames w;
    uint64_t fp = build_stack(5, 100);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, NULL), 5);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(w.ret[i], 100 + i);
    assert_int_equal(w.cut, 0);
    /* bounds: a stack that ends below the third frame gives two */
    assert_int_equal(chain_walk(fp, lo(), (uint64_t)(uintptr_t)&stack[8 + 16 + 1], &w, NULL), 2);
    /* a frame outside the bounds gives nothing; so does a misaligned one */
    assert_int_equal(chain_walk(hi() + 64, lo(), hi(), &w, NULL), 0);
    assert_int_equal(chain_walk(fp + 4, lo(), hi(), &w, NULL), 0);
    /* a saved frame pointer that does not rise ends the walk after that frame */
    stack[8 + 8 * 2] = (uint64_t)(uintptr_t)&stack[8];
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, NULL), 3);
    /* a zero return address ends it before that frame */
    build_stack(5, 100);
    stack[8 + 8 * 3 + 1] = 0;
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, NULL), 3);
}

static void walk_is_cut_at_the_limit(void **state)
{
    (void)state;
    static struct chain_walk_frames w;
    uint64_t fp = build_stack(STACKWALK_MAX_DEPTH + 20, 1000);
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, NULL), STACKWALK_MAX_DEPTH);
    assert_int_equal(w.cut, 1);
    assert_int_equal(w.ret[0], 1000);
}

static void walk_reuses_the_unchanged_frames(void **state)
{
    (void)state;
    static struct chain_walk_frames prev, w;
    uint64_t fp = build_stack(10, 500);
    assert_int_equal(chain_walk(fp, lo(), hi(), &prev, NULL), 10);
    /* the outer frames change in memory, but the walk stops reading at frame 1, which is
     * unchanged, and copies the last walk's: proof that it did not read them */
    for (unsigned i = 2; i < 10; i++)
        stack[8 + 8 * i + 1] = 9999;
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, &prev), 10);
    for (unsigned i = 0; i < 10; i++)
        assert_int_equal(w.ret[i], 500 + i);
    /* a changed return address in frame 1 is read, and so is everything outside it */
    stack[8 + 8 * 1 + 1] = 7777;
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, &prev), 10);
    assert_int_equal(w.ret[1], 7777);
    assert_int_equal(w.ret[5], 9999);
    /* the innermost frame is always read: a new return address there is seen */
    build_stack(10, 500);
    stack[8 + 1] = 4242;
    assert_int_equal(chain_walk(fp, lo(), hi(), &w, &prev), 10);
    assert_int_equal(w.ret[0], 4242);
    assert_int_equal(w.ret[9], 509);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walk_follows_the_chain),
        cmocka_unit_test(walk_is_cut_at_the_limit),
        cmocka_unit_test(walk_reuses_the_unchanged_frames),
        cmocka_unit_test(store_numbers_each_chain_once),
        cmocka_unit_test(full_store_loses_and_counts),
        cmocka_unit_test(merge_maps_every_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
