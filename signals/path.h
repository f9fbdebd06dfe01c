/*
 * path.h -- what code built with the compiler pass (signals/pass/) writes, and how the
 * observer reads it (see path.c and docs/compiler-pass.md).
 *
 * The pass stores, inline, with no call into the runtime:
 *
 *   slot 10 (SHIM_SLOT_LOOP)   the function executing now and the loop executing now
 *                              in it, as shim_loop_stored(function address, loop
 *                              number) (below), at its entry and after every call it makes
 *                              returns, and (the loop signal) on every edge into a
 *                              loop, every back edge, every loop exit (loop number 0:
 *                              in no loop; without the loop signal always 0);
 *
 * and not slot 8: where code built with the pass runs, the observer takes a sample's
 * function (slot 8, SHIM_SLOT_METHOD, the value the -finstrument-functions hooks store)
 * from the loop word, SHIM_LOOP_FN(shim_loop_canonical(slot 10)) when that is not 0, so
 * that each call costs one store where it cost two (docs/compiler-pass.md). Hooks that run in such
 * a program store the loop word too (signals/cct.c); and, for Ball-Larus path profiling, appends
 * each acyclic path the thread completes (at a loop back edge or a return) to the thread's path
 * ring. The ring is not in the signal block: it is a per-thread array reached through the
 * initial-exec thread-local pointer shim_tls_path_ring, which targets a shared dummy ring until the
 * thread is observed. Appending path r of function f is, in this order:
 *
 *     t = ring->head + 1;  ring->head = t;          (relaxed)
 *     e = &ring->entry[t & (SHIM_PATH_RING - 1)];
 *     e->fn = f; e->path = r; e->seq = t;           (release stores: kept in order)
 *
 * The observer reads ring->head and the method signal with each sample: a sample that
 * read head s and function f was taken while the first path of f completed after s was
 * executing (paths are intraprocedural: the paths of functions f calls complete before
 * f's own, and are passed over). It finds that path later, once the thread has
 * completed it, by path_ring_resolve() below on s + 1, s + 2, ...
 */
#ifndef SHIM_SIGNALS_PATH_H
#define SHIM_SIGNALS_PATH_H

#include <stdint.h>

#include "shim.h"

#define SHIM_SLOT_LOOP 10 /* the loop executing now: shim_loop_stored(fn, loop), below */

/* A loop signal: the function's run-time address (below 2^48 on x86-64) and its loop
 * number in the function's side table (1, 2, ...; 0: outside every loop), as the
 * observer keeps it and profiles and traces carry it: SHIM_LOOP_SIGNAL(fn, loop). */
#define SHIM_LOOP_SHIFT            48
#define SHIM_LOOP_SIGNAL(fn, loop) ((uint64_t)(fn) | ((uint64_t)(loop) << SHIM_LOOP_SHIFT))
#define SHIM_LOOP_FN(v)            ((uint64_t)(v) & ((UINT64_C(1) << SHIM_LOOP_SHIFT) - 1))
#define SHIM_LOOP_NUMBER(v)        ((unsigned)((uint64_t)(v) >> SHIM_LOOP_SHIFT))

/* The word in slot 10 is cheaper to write in another form. The pass aligns every function
 * it instruments to SHIM_LOOP_SHORT bytes and stores, for loops below SHIM_LOOP_SHORT,
 * the address fn + loop: one RIP-relative `lea`, which the compiler makes again where it
 * is needed instead of keeping a 64-bit constant in a register or a stack slot; for the
 * others, SHIM_LOOP_SIGNAL(fn, loop) (loop numbers up to SHIM_LOOP_MAX). Hooks, whose
 * functions need not be aligned, store SHIM_LOOP_EXACT(fn): the function, outside every
 * loop; so does the pass, with SHIM_LOOP_SIGNAL for every loop, for a function whose
 * address is not where its aligned code starts (prefix data or nops before the symbol,
 * a control-flow-integrity jump table's entry). The observer turns the word into SHIM_LOOP_SIGNAL
 * form as it reads it (shim_loop_canonical), once: nothing after the read sees the stored forms. */
#define SHIM_LOOP_SHORT     16u
#define SHIM_LOOP_MAX       0xfffeu
#define SHIM_LOOP_NONE      0xffffu /* in the top 16 bits: the function exactly, no loop */
#define SHIM_LOOP_EXACT(fn) ((fn) ? SHIM_LOOP_SIGNAL(fn, SHIM_LOOP_NONE) : 0)

/* The stored word as it reads: SHIM_LOOP_SIGNAL(fn, loop). */
__attribute__((no_instrument_function)) static inline uint64_t shim_loop_canonical(uint64_t w)
{
    uint64_t hi = w >> SHIM_LOOP_SHIFT;
    if (hi == SHIM_LOOP_NONE) return SHIM_LOOP_FN(w);
    if (hi) return w;
    return SHIM_LOOP_SIGNAL(w & ~(uint64_t)(SHIM_LOOP_SHORT - 1), w & (SHIM_LOOP_SHORT - 1));
}

/* The word the pass stores for loop `loop` of function `fn` (aligned to SHIM_LOOP_SHORT). */
__attribute__((no_instrument_function)) static inline uint64_t shim_loop_stored(uint64_t fn,
                                                                                unsigned loop)
{
    return loop < SHIM_LOOP_SHORT ? fn + loop : SHIM_LOOP_SIGNAL(fn, loop);
}

#define SHIM_PATH_RING 2048 /* entries per thread: a power of two */

struct shim_path_entry {
    uint64_t seq;  /* the completion number of this path, written last */
    uint64_t fn;   /* run-time address of the function */
    uint64_t path; /* its Ball-Larus path number, in [0, number of paths) */
    uint64_t spare;
};

struct shim_path_ring {
    uint64_t head; /* completion number of the last path appended; 0: none yet */
    uint64_t pad[15];
    struct shim_path_entry entry[SHIM_PATH_RING];
} __attribute__((aligned(128)));

/* The calling thread's ring: the shared dummy ring until path_ring_attach(). Exported
 * for the code the pass generates. */
SHIM_API extern __thread struct shim_path_ring *shim_tls_path_ring
    __attribute__((tls_model("initial-exec")));

extern struct shim_path_ring shim_dummy_path_ring;

/* Point the calling thread's ring at the ring of its signal block b, made zeroed (and
 * never freed) when the block has none: 0, or -1 when no memory is left (the thread
 * keeps the dummy ring). */
int path_ring_attach(struct shim_block *b);
void path_ring_detach(void);

enum path_resolution {
    PATH_PENDING = 0,     /* path `seq` has not completed yet: ask again later */
    PATH_RESOLVED = 1,    /* *fn and *path name it */
    PATH_OVERWRITTEN = 2, /* the ring wrapped before it was read: unknown */
};

/* Which path completed as number `seq` (> 0). Safe against the owning thread appending
 * at the same time: the head is stored before an entry's fields and the entry's seq
 * after them (x86-64 keeps stores in order), so an entry whose seq matches, read
 * before a head that has not yet come round to the slot again, was not being
 * rewritten while it was read. */
static inline enum path_resolution path_ring_resolve(const struct shim_path_ring *r, uint64_t seq,
                                                     uint64_t *fn, uint64_t *path)
{
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    if (head < seq) return PATH_PENDING;
    if (head - seq >= SHIM_PATH_RING) return PATH_OVERWRITTEN;
    const struct shim_path_entry *e = &r->entry[seq & (SHIM_PATH_RING - 1)];
    uint64_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
    if (s != seq) return s < seq ? PATH_PENDING : PATH_OVERWRITTEN;
    *fn = __atomic_load_n(&e->fn, __ATOMIC_ACQUIRE);
    *path = __atomic_load_n(&e->path, __ATOMIC_ACQUIRE);
    head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    return head - seq < SHIM_PATH_RING ? PATH_RESOLVED : PATH_OVERWRITTEN;
}

#endif
