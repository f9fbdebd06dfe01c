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
 * not when the block is next taken. Its stack may be unmapped once it has given the block
 * back, so giving it back waits for the observers that walk that stack now (the block's
 * count of walkers) after clearing the bounds that let a new walk start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "signals/path.h"
#include "observer/probe_plan.h"
#include "signals/signal_block.h"
#include "signals/stackwalk.h"

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

struct walked {
    struct shim_block *block;
    int ready, released;
};

static void *give_back_while_walked(void *arg)
{
    struct walked *w = arg;
    struct shim_block *b = signal_block_acquire();
    if (b) {
        signal_block_attach(b);
        __atomic_store_n(&b->reserved[SHIM_BLOCK_STACK_LO], (uint64_t)4096, __ATOMIC_RELEASE);
        __atomic_store_n(&b->reserved[SHIM_BLOCK_STACK_HI], (uint64_t)8192, __ATOMIC_RELEASE);
    }
    w->block = b;
    __atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
    while (b && __atomic_load_n(&b->reserved[SHIM_BLOCK_WALKING], __ATOMIC_ACQUIRE) == 0)
        ; /* until the test, standing in for an observer, walks the stack */
    signal_block_release();
    __atomic_store_n(&w->released, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A walker is counted: the thread's release clears the bounds, then waits for it */
static void release_waits_for_walkers(void **state)
{
    (void)state;
    struct walked w = {0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, give_back_while_walked, &w), 0);
    while (!__atomic_load_n(&w.ready, __ATOMIC_ACQUIRE))
        sched_yield();
    struct shim_block *b = w.block;
    assert_non_null(b);
    __atomic_fetch_add(&b->reserved[SHIM_BLOCK_WALKING], 1, __ATOMIC_SEQ_CST);
    /* the bounds go first: no new walk starts on the stack */
    while (__atomic_load_n(&b->reserved[SHIM_BLOCK_STACK_HI], __ATOMIC_SEQ_CST) != 0 ||
           __atomic_load_n(&b->reserved[SHIM_BLOCK_STACK_LO], __ATOMIC_SEQ_CST) != 0)
        sched_yield();
    /* and the thread does not go on while the walk is under way: however long it lasts
     * (here 50 ms; a release that did not wait is over in microseconds) */
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    assert_int_equal(__atomic_load_n(&w.released, __ATOMIC_ACQUIRE), 0);
    __atomic_fetch_sub(&b->reserved[SHIM_BLOCK_WALKING], 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    assert_int_equal(w.released, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(released_block_is_left_alone),
        cmocka_unit_test(release_waits_for_walkers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
