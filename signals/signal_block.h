/*
 * signal_block.h -- where the program's signals live, one block per thread, and the
 * registry that tells the observer which block a thread id owns (see signal_block.c).
 */
#ifndef SHIM_SIGNALS_SIGNAL_BLOCK_H
#define SHIM_SIGNALS_SIGNAL_BLOCK_H

#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "shim.h"

#define SIGNAL_BLOCK_POOL 256 /* threads observed at once */

/* Words of a block's `reserved` array that shim itself uses. */
#define SHIM_BLOCK_PATH_RING 0 /* the owner's path ring (struct shim_path_ring *), or 0 */
#define SHIM_BLOCK_ALLOCATED 1 /* where the owner's allocated-bytes total is (uint64_t *), or 0 */

extern struct shim_block shim_dummy_block;

/* Every block there is, and the kernel thread id that owns each now (0: free), as the
 * thread word shows it (signal_block_set_id). The
 * observer reads both at any moment: pool[i] belongs to owner[i] while owner[i] holds a
 * thread id. `used` is how many blocks were ever handed out. */
struct signal_registry {
    struct shim_block *pool;
    const uint64_t *owner;
    const uint32_t *used;
};
extern const struct signal_registry signal_registry;

/* The calling thread's block: the one it owns, else a free one (its tags and counters
 * zeroed, then made its own); NULL when all SIGNAL_BLOCK_POOL blocks are owned. */
struct shim_block *signal_block_acquire(void);

/* The calling thread's block is found under `seen` from now on instead of its gettid():
 * the id the thread word shows for it (BPF's, in the initial PID namespace). */
void signal_block_set_id(uint64_t seen);

/* Point the calling thread's macros at b. */
void signal_block_attach(struct shim_block *b);

/* Point the calling thread's macros back at the dummy block; its block stays its own. */
void signal_block_detach(void);

/* Give the calling thread's block back (it runs at thread exit too): its owner becomes
 * 0 and the block may go to the next thread that asks. Its memory stays, so an observer
 * or a stale pointer still reads valid memory. */
void signal_block_release(void);

/* In a child after fork(): no observer came along, so none is walking any stack (a walk
 * under way in the parent left its count in the child's copy); the forking thread keeps
 * its block under its new thread id, the other threads' blocks are free, and the
 * registry's lock is made anew. */
void signal_block_after_fork_child(void);

/*
 * Two tag slots that must be read together: slot 2k and slot 2k + 1 (an aligned 16 bytes
 * of a block, itself 128-byte aligned) written by one 16-byte store and read by one
 * 16-byte load, so a reader never pairs one slot's new value with the other's old one.
 * Two 8-byte stores cannot promise that: a reader that fetches the line between them (or
 * while the writer is interrupted between them) sees the first new and the second old,
 * as the calling-context hooks' function (slot 8) with the caller's context (slot 9)
 * did for 0.055% of an interpreter's samples. Aligned 16-byte SSE loads and stores are
 * single-copy atomic on x86-64 processors with AVX (Intel's SDM, "guaranteed atomic
 * operations"; AMD's APM, "access atomicity"); the store is one movdqa, no dearer than
 * the two movs it replaces. Both are written as the instruction itself (an asm
 * statement): an intrinsic's load or store is an ordinary access to the compiler, which
 * may split it into two 8-byte ones when only the halves are used (gcc 12 did, in the
 * test's read loop: 435 of 3,000,000 pairs torn). Under ThreadSanitizer, which knows no 16-byte
 * atomics and would take the pair for a data race, they are two relaxed atomic words again
 * (SIGNAL_BLOCK_PAIR_ATOMIC is then 0).
 */
#if defined(__SANITIZE_THREAD__)
#define SIGNAL_BLOCK_PAIR_ATOMIC 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIGNAL_BLOCK_PAIR_ATOMIC 0
#endif
#endif
#ifndef SIGNAL_BLOCK_PAIR_ATOMIC
#define SIGNAL_BLOCK_PAIR_ATOMIC 1
#endif

/* What reads or writes a pair calls no hook (code built with -finstrument-functions
 * includes this file too) and is always inline. */
#define SIGNAL_PAIR_FN static inline __attribute__((always_inline, no_instrument_function))

/* Stores the pair at w (its first word, 16-byte aligned) with one 16-byte store. */
SIGNAL_PAIR_FN void signal_words_store_pair(uint64_t *w, uint64_t first, uint64_t second)
{
#if SIGNAL_BLOCK_PAIR_ATOMIC
    __m128i v = _mm_set_epi64x((long long)second, (long long)first);
    __asm__ volatile("movdqa %1, %0" : "=m"(*(__m128i *)(void *)w) : "x"(v));
#else
    __atomic_store_n(&w[0], first, __ATOMIC_RELAXED);
    __atomic_store_n(&w[1], second, __ATOMIC_RELAXED);
#endif
}

SIGNAL_PAIR_FN void signal_block_store_pair(struct shim_block *b, unsigned slot, uint64_t first,
                                            uint64_t second)
{
    signal_words_store_pair(&b->tag[slot & ~1u], first, second);
}

SIGNAL_PAIR_FN void signal_block_load_pair(const struct shim_block *b, unsigned slot,
                                           uint64_t *first, uint64_t *second)
{
    const uint64_t *w = &b->tag[slot & ~1u];
#if SIGNAL_BLOCK_PAIR_ATOMIC
    __m128i v;
    __asm__ volatile("movdqa %1, %0" : "=x"(v) : "m"(*(const __m128i *)(const void *)w));
    *first = (uint64_t)_mm_cvtsi128_si64(v);
    *second = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
#else
    *first = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
    *second = __atomic_load_n(&w[1], __ATOMIC_RELAXED);
#endif
}

/* The block thread `tid` owns, or NULL. A scan of the registry: the observer caches
 * the answer and checks owner[] on each use. */
static inline struct shim_block *signal_block_find(const struct signal_registry *r, uint64_t tid,
                                                   unsigned *index)
{
    uint32_t n = __atomic_load_n(r->used, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < SIGNAL_BLOCK_POOL; i++)
        if (tid && __atomic_load_n(&r->owner[i], __ATOMIC_ACQUIRE) == tid) {
            *index = i;
            return &r->pool[i];
        }
    return NULL;
}

#endif
