/*
 * test_registry.h -- the program's words, as the unit tests that run a real observer
 * give them: a signal-block registry of the test's own (signals/signal_block.h), in
 * which each thread id the test plays owns a block, and the test keeps every block's
 * words equal, so that whichever thread the thread word names, the observer reads what
 * the test wrote.
 */
#ifndef SHIM_TESTS_TEST_REGISTRY_H
#define SHIM_TESTS_TEST_REGISTRY_H

#include <string.h>

#include "signals/signal_block.h"

#define TEST_THREADS 2

struct test_program {
    struct shim_block block[TEST_THREADS];
    uint64_t owner[TEST_THREADS];
    uint32_t used;
    struct signal_registry registry;
};

/* Blocks owned by the thread ids given (0: no more). */
static inline const struct signal_registry *test_program_init(struct test_program *t, uint64_t tid0,
                                                              uint64_t tid1)
{
    memset(t, 0, sizeof *t);
    t->owner[0] = tid0;
    t->owner[1] = tid1;
    t->used = tid1 ? 2 : 1;
    t->registry = (struct signal_registry){t->block, t->owner, &t->used};
    return &t->registry;
}

static inline void test_set_tag(struct test_program *t, unsigned slot, uint64_t v)
{
    for (unsigned i = 0; i < t->used; i++)
        __atomic_store_n(&t->block[i].tag[slot], v, __ATOMIC_RELAXED);
}

static inline void test_set_counter(struct test_program *t, unsigned slot, uint64_t v)
{
    for (unsigned i = 0; i < t->used; i++)
        __atomic_store_n(&t->block[i].counter[slot], v, __ATOMIC_RELAXED);
}

static inline uint64_t test_counter(const struct test_program *t, unsigned slot)
{
    return __atomic_load_n(&t->block[0].counter[slot], __ATOMIC_RELAXED);
}

#endif
