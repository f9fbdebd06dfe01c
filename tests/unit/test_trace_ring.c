/*
 * test_trace_ring.c -- specifies the trace ring (observer/trace_ring.h): one producer and
 * one consumer on two threads pass every record through intact and in order; a full ring
 * drops records and counts them, never overwrites one the consumer has not taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>

#include "observer/trace_ring.h"

#define WORDS 5

static void sizes(void **state)
{
    (void)state;
    struct trace_ring r;
    assert_int_equal(trace_ring_init(&r, WORDS, 1 << 20), 0);
    uint64_t cap = r.mask + 1;
    assert_int_equal(cap & r.mask, 0); /* a power of two */
    assert_true(cap * WORDS * 8 <= 1 << 20);
    assert_true(cap * 2 * WORDS * 8 > 1 << 20);
    trace_ring_free(&r);
    assert_int_equal(trace_ring_init(&r, WORDS, 10), 0); /* at least 64 records */
    assert_int_equal(r.mask + 1, 64);
    trace_ring_free(&r);
}

static void full_ring_drops_and_counts(void **state)
{
    (void)state;
    struct trace_ring r;
    uint64_t out[64 * WORDS];
    assert_int_equal(trace_ring_init(&r, WORDS, 0), 0);
    for (uint64_t i = 0; i < 100; i++) {
        uint64_t *slot = trace_ring_slot(&r);
        if (!slot) continue;
        for (unsigned w = 0; w < WORDS; w++)
            slot[w] = i * 10 + w;
        trace_ring_push(&r);
    }
    assert_int_equal(r.dropped, 36);
    assert_int_equal(trace_ring_pop(&r, out, 64), 64);
    for (uint64_t i = 0; i < 64; i++) /* the first 64, untouched by the dropped ones */
        assert_int_equal(out[i * WORDS + 4], i * 10 + 4);
    assert_int_equal(trace_ring_pop(&r, out, 64), 0);
    trace_ring_free(&r);
}

#define N_RECORDS 2000000
static int produced; /* set by the producer when it has offered every record */

static void *produce(void *arg)
{
    struct trace_ring *r = arg;
    for (uint64_t i = 0; i < N_RECORDS; i++) {
        uint64_t *slot = trace_ring_slot(r);
        if (!slot) continue;
        for (unsigned w = 0; w < WORDS; w++)
            slot[w] = i ^ ((uint64_t)w << 56);
        trace_ring_push(r);
    }
    __atomic_store_n(&produced, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Across threads: every record the consumer gets is whole and later than the last. */
static void two_threads(void **state)
{
    (void)state;
    static struct trace_ring r;
    static uint64_t out[256 * WORDS];
    assert_int_equal(trace_ring_init(&r, WORDS, 4096 * WORDS * 8), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, produce, &r), 0);
    uint64_t got = 0, last = 0;
    int first = 1;
    for (int done = 0; !done;) {
        done = __atomic_load_n(&produced, __ATOMIC_ACQUIRE); /* then one more pass */
        uint64_t n = trace_ring_pop(&r, out, 256);
        if (n == 256) done = 0;
        for (uint64_t k = 0; k < n; k++) {
            uint64_t i = out[k * WORDS];
            for (unsigned w = 1; w < WORDS; w++)
                assert_int_equal(out[k * WORDS + w], i ^ ((uint64_t)w << 56));
            assert_true(first || i > last);
            first = 0;
            last = i;
        }
        got += n;
    }
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(got + r.dropped, N_RECORDS);
    trace_ring_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(full_ring_drops_and_counts),
        cmocka_unit_test(two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
