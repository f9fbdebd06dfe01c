/*
 * test_signal_block.c -- specifies what a thread leaves behind when it gives its signal
 * block back (signals/signal_block.c): at exit, or by shim_thread_detach().
 *
 * The block goes to the next thread that asks for it, with its path ring (the ring
 * belongs to the block), so the thread that gave it back must no longer write either:
 * its tag pointer and its path-ring pointer go back to the dummies, or code that still
 * runs in it (a later thread-exit destructor built with the pass) would append to the
 * ring of the block's next owner, two writers on one ring. And the word through which
 * the observer reads the thread's jemalloc count points into that thread's thread-local
 * storage, which is freed with the thread: it is cleared when the block is given back,
 * not when the block is next taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>

#include "signals/path.h"
#include "observer/probe_plan.h"
#include "signals/signal_block.h"

struct seen {
    struct shim_block *block;
    int ring_attached, block_after, ring_after;
    uint64_t allocated_after, read_after;
};

static __thread uint64_t allocated_bytes = 4096; /* stands in for jemalloc's per-thread count */

static void *give_back(void *arg)
{
    struct seen *s = arg;
    struct shim_block *b = signal_block_acquire();
    if (!b) return NULL;
    s->block = b;
    signal_block_attach(b);
    s->ring_attached = path_ring_attach(b) == 0 && shim_tls_path_ring != &shim_dummy_path_ring;
    __atomic_store_n(&b->reserved[SHIM_BLOCK_ALLOCATED], (uint64_t)(uintptr_t)&allocated_bytes,
                     __ATOMIC_RELEASE);
    signal_block_release();
    s->block_after = shim_tls_block == &shim_dummy_block;
    s->ring_after = shim_tls_path_ring == &shim_dummy_path_ring;
    s->allocated_after = __atomic_load_n(&b->reserved[SHIM_BLOCK_ALLOCATED], __ATOMIC_ACQUIRE);
    struct probe_sw sw = {.slot = PROBE_SW_RESERVED(SHIM_BLOCK_ALLOCATED)};
    s->read_after = probe_sw_read_block(&sw, b);
    return NULL;
}

static void released_block_is_left_alone(void **state)
{
    (void)state;
    struct seen s = {0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, give_back, &s), 0);
    pthread_join(t, NULL);
    assert_non_null(s.block);
    assert_true(s.ring_attached);
    assert_true(s.block_after);             /* signals go to the dummy block */
    assert_true(s.ring_after);              /* paths go to the dummy ring, not the block's */
    assert_int_equal(s.allocated_after, 0); /* nothing points into its storage */
    assert_int_equal(s.read_after, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(released_block_is_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
