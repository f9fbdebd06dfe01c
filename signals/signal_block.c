/*
 * signal_block.c -- the memory the SHIM_SIGNAL and SHIM_COUNT macros write.
 *
 * Each observed thread has one cache-line-aligned block; the macros reach it through the
 * initial-exec thread-local pointer shim_tls_block, so a signal costs the load of a
 * %fs-relative word and one store. Every thread starts pointing at a shared dummy
 * block, which makes the macros safe before shim_start() and in threads shim does not
 * observe; what is written there is never read (all threads share it, so it cannot
 * say what any one of them is doing): signals written before shim_start() are not seen.
 *
 * Blocks come from a static pool and are never freed: the observer may read a block
 * at any moment, and a thread may keep its pointer past shim_stop(), so a block must
 * stay valid memory for the life of the process. This file depends on nothing but
 * the public header.
 */
#include "signal_block.h"

#include <string.h>

#define SIGNAL_BLOCK_POOL 64

struct shim_block shim_dummy_block;

__thread struct shim_block *shim_tls_block __attribute__((tls_model("initial-exec"))) =
    &shim_dummy_block;

static struct shim_block pool[SIGNAL_BLOCK_POOL];
static unsigned pool_used;

struct shim_block *signal_block_acquire(void)
{
    /* A thread that already owns a pool block keeps it. */
    struct shim_block *mine = shim_tls_block;
    if (mine >= pool && mine < pool + SIGNAL_BLOCK_POOL) return mine;
    unsigned i = __atomic_fetch_add(&pool_used, 1, __ATOMIC_RELAXED);
    if (i >= SIGNAL_BLOCK_POOL) return NULL;
    return &pool[i];
}

void signal_block_attach(struct shim_block *b)
{
    __atomic_store_n(&shim_tls_block, b, __ATOMIC_RELEASE);
}

void signal_block_detach(void)
{
    shim_tls_block = &shim_dummy_block;
}
