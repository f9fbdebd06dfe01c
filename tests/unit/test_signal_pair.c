/*
 * test_signal_pair.c -- specifies that two tag slots written together are read together
 * (signals/signal_block.h, signal_block_store_pair and signal_block_load_pair), as the
 * calling-context hooks write the function (slot 8) and its context (slot 9) and the
 * observer reads them.
 *
 * A writer thread switches a block between two states, (function A, context of A) and
 * (function B, context of B), as fast as it can, while this thread reads the pair again
 * and again: every pair read must be one of the two states, never A with B's context.
 * The same race with two 8-byte stores and two 8-byte loads, the way the hooks and the
 * observer used to do it, runs first as a control and prints how many pairs it tore (on
 * a machine where the two threads run side by side, thousands in a few milliseconds;
 * with one CPU, only when the writer is preempted between its stores, so it may see
 * none). Nothing is timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "signals/cct.h"
#include "signals/signal_block.h"

#define FN_A  0x401000u
#define FN_B  0x402000u
#define CTX_A CCT_SIGNAL(3, 17)
#define CTX_B CCT_SIGNAL(3, 42)
#define READS 3000000

static struct shim_block block;
static int stop, split_writer;

static void *writer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        for (int i = 0; i < 1000; i++) {
            uint64_t fn = i % 2 ? FN_B : FN_A, ctx = i % 2 ? CTX_B : CTX_A;
            if (split_writer) { /* the old way: two stores */
                __atomic_store_n(&block.tag[SHIM_SLOT_METHOD], fn, __ATOMIC_RELAXED);
                __atomic_store_n(&block.tag[SHIM_SLOT_CCT], ctx, __ATOMIC_RELAXED);
            } else {
                signal_block_store_pair(&block, SHIM_SLOT_METHOD, fn, ctx);
            }
        }
    return NULL;
}

/* Pairs read that are neither state, over READS reads while the writer runs. */
static long torn_pairs(int split)
{
    pthread_t t;
    long torn = 0;
    split_writer = split;
    signal_block_store_pair(&block, SHIM_SLOT_METHOD, FN_A, CTX_A);
    __atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
    assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
    for (long i = 0; i < READS; i++) {
        uint64_t fn, ctx;
        if (split) {
            fn = __atomic_load_n(&block.tag[SHIM_SLOT_METHOD], __ATOMIC_RELAXED);
            ctx = __atomic_load_n(&block.tag[SHIM_SLOT_CCT], __ATOMIC_RELAXED);
        } else {
            signal_block_load_pair(&block, SHIM_SLOT_METHOD, &fn, &ctx);
        }
        torn += !((fn == FN_A && ctx == CTX_A) || (fn == FN_B && ctx == CTX_B));
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    return torn;
}

static void the_pair_is_read_together(void **state)
{
    (void)state;
    if (!SIGNAL_BLOCK_PAIR_ATOMIC) {
        print_message("skipped: under ThreadSanitizer a pair is two atomic words\n");
        skip();
    }
    long control = torn_pairs(1);
    print_message("two 8-byte stores and loads: %ld of %d pairs torn\n", control, READS);
    assert_int_equal(torn_pairs(0), 0);
}

/* The pair sits in slots 2k and 2k + 1 of the block: the store writes exactly those two
 * words, whichever of the two slots it is given, and the load reads them. */
static void the_pair_is_two_neighbouring_slots(void **state)
{
    (void)state;
    static struct shim_block b;
    for (unsigned i = 0; i < SHIM_TAG_SLOTS; i++)
        b.tag[i] = 1000 + i;
    signal_block_store_pair(&b, 9, 7, 8); /* slot 9 names the pair (8, 9) too */
    for (unsigned i = 0; i < SHIM_TAG_SLOTS; i++)
        assert_int_equal(b.tag[i], i == 8 ? 7 : i == 9 ? 8 : 1000 + i);
    uint64_t x, y;
    signal_block_load_pair(&b, 10, &x, &y);
    assert_int_equal(x, 1010);
    assert_int_equal(y, 1011);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_pair_is_read_together),
        cmocka_unit_test(the_pair_is_two_neighbouring_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
