/*
 * alloc_signal.h -- the allocation signal: jemalloc's per-thread count of bytes allocated
 * as a software counter of the observed thread (alloc_signal.c).
 */
#ifndef SHIM_LIBSHIM_ALLOC_SIGNAL_H
#define SHIM_LIBSHIM_ALLOC_SIGNAL_H

#include <stddef.h>
#include <stdint.h>

#include "libshim/internal.h"
#include "signals/signal_block.h"

enum { ALLOC_ABSENT = -1, ALLOC_UNREADABLE = -2 };

/* The calling thread's jemalloc word of bytes allocated: an aligned 64-bit word in the
 * thread's own storage, valid while the thread lives. Returns 0; ALLOC_ABSENT when the
 * program's malloc is not jemalloc's; ALLOC_UNREADABLE when jemalloc has no such
 * counter. Both failures say why in why. */
int alloc_signal_thread_word(const uint64_t **word, char *why, size_t len);

/* Where the program runs on jemalloc and SHIM_ALLOC allows it, publish the observed
 * thread's word in its block b and append the counter `allocated` with its rate `alloc`,
 * in bytes per 1000 TSC cycles, to the plan and the run. Must run on the observed
 * thread: the word is that thread's own. Returns 0, also when nothing was added (under
 * SHIM_ALLOC=on, one line says why), or SHIM_EINVAL when SHIM_STRICT made that fatal. */
int alloc_signal_plan(struct shim_run *r, struct shim_block *b, struct probe_plan *p);

/* A thread that joins the run (shim_thread_attach) publishes its own word in its block b,
 * when the run reads the allocation signal. */
void alloc_signal_attach(const struct shim_run *r, struct shim_block *b);

#endif
