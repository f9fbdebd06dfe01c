/*
 * signal_block.h -- where the program's signals live (see signal_block.c).
 */
#ifndef SHIM_SIGNALS_SIGNAL_BLOCK_H
#define SHIM_SIGNALS_SIGNAL_BLOCK_H

#include "shim.h"

extern struct shim_block shim_dummy_block;

/* A block for the calling thread, taken from a static pool (never freed, so a stale
 * pointer can never reach unmapped memory); NULL when the pool is exhausted. */
struct shim_block *signal_block_acquire(void);

/* Point the calling thread's macros at b. */
void signal_block_attach(struct shim_block *b);

/* Point the calling thread's macros back at the dummy block. */
void signal_block_detach(void);

#endif
