/*
 * cct.h -- the calling-context tree behind -finstrument-functions (see cct.c).
 *
 * A program compiled with -finstrument-functions (gcc or clang; clang's
 * -finstrument-functions-after-inlining is the cheaper mode) and linked with libshim
 * calls the two hooks below on entry to and exit from each instrumented function. They
 * keep, per thread, a calling-context tree (Ammons, Ball and Larus, PLDI 1997) in an
 * append-only arena, and publish two reserved tag slots of the thread's signal block:
 *
 *     slot 8 (SHIM_SLOT_METHOD)  the address of the function executing now (0: none)
 *     slot 9 (SHIM_SLOT_CCT)     CCT_SIGNAL(thread index, node id) of the current context
 *
 * Readers (the coordinator, tests) see each thread's tree through the functions below:
 * nodes [0, count) of an arena are complete and never change (but for the owner's
 * private chain field), at any moment, from any thread. Nothing here is part of the public header;
 * only the hooks are exported.
 */
#ifndef SHIM_SIGNALS_CCT_H
#define SHIM_SIGNALS_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "shim.h"

#define SHIM_SLOT_METHOD 8 /* the function executing now */
#define SHIM_SLOT_CCT    9 /* the calling context: thread index << 32 | node id */

#define CCT_NODE_ROOT     0u /* no function: the thread outside every instrumented call */
#define CCT_NODE_OVERFLOW 1u /* every context a full arena had no room for, counted */
#define CCT_NODE_FIRST    2u /* the first node that names a function */

#define CCT_SIGNAL(thread, node) (((uint64_t)(thread) << 32) | (uint32_t)(node))
#define CCT_SIGNAL_THREAD(v)     ((uint32_t)((uint64_t)(v) >> 32))
#define CCT_SIGNAL_NODE(v)       ((uint32_t)(v))

/* One calling context: the chain of calls from the thread's root to fn, entered from
 * call_site, with recursion folded (a call to a function already on the chain is that
 * ancestor's node again), so a chain names each function at most once. The same callee
 * from two call sites is two nodes; an indirect call is a call like any other, named by
 * its call site. The root and the overflow node have fn == 0 and call_site == 0. */
struct cct_node {
    uint64_t fn;        /* function address, as passed to __cyg_profile_func_enter */
    uint64_t call_site; /* return address into the caller (the instruction after the call) */
    uint32_t parent;    /* parent id, always smaller than this node's; the root's is 0 */
    uint32_t depth;     /* calls from the root (root 0, the overflow node 1) */
    uint32_t chain;     /* private to the owning thread: the child index's bucket chain */
    uint32_t spare;
};

/* One thread's tree. Opaque; never freed while the process lives. When its thread exits,
 * the nodes are copied into a compact store and the thread's arena is unmapped (cct.c,
 * "a thread's exit"): a node array pointer taken from cct_arena_nodes() stays valid
 * while the thread lives, and between cct_read_begin() and cct_read_end(). */
struct cct_arena;

/* The hooks the compiler calls. Exported from libshim; compiled without instrumentation
 * and without a call to anything instrumented or to malloc. */
SHIM_API void __cyg_profile_func_enter(void *fn, void *call_site);
SHIM_API void __cyg_profile_func_exit(void *fn, void *call_site);

/* From now on (on: 1) the hooks store one pair into slots 10 and 11 for the observer's
 * stack walk (signals/stackwalk.h, "the hooks' pair": where the thread is, and a frame
 * address), instead of keeping the tree and slots 8 and 9; 0 goes back to the tree.
 * SHIM_HOOKS=frames, for programs built with frame pointers (cct.c, "the frame signal
 * instead of the tree"). */
void cct_use_frames(int on);

/* The calling thread's signal block is now b (attached, or the dummy block when
 * detached): the frame signal's hooks store into it from now on, or into words of the
 * thread's own for the dummy block (signal_block.c calls this wherever the block
 * changes). */
void cct_frames_block(const struct shim_block *b);

/* Nonzero once any thread has run a hook: the program is instrumented. */
int cct_active(void);

/* Stores the calling thread's current method and context into slots 8 and 9 of its
 * signal block as it is now. The hooks write nothing while the thread points at the
 * shared dummy block (shim is not observing it), but keep the tree; whoever attaches a
 * real block calls this right after, so the slots are right before the next call. */
void cct_republish(void);

/* The calling thread's context and method as the hooks last set them (what slots 9
 * and 8 hold when a real block is attached); 0 and 0 before its first hook. */
uint64_t cct_current(void);
uint64_t cct_current_method(void);

/* ---- readers: any thread, at any moment ---- */

/* Number of thread indices handed out so far; arenas are numbered 0 .. count-1. */
uint32_t cct_arena_count(void);

/* The arena with that thread index; NULL while its thread is still creating it, or
 * beyond cct_arena_count(). */
const struct cct_arena *cct_arena_at(uint32_t index);

/* The calling thread's arena; NULL before its first hook (or when it has none). */
const struct cct_arena *cct_arena_self(void);

uint32_t cct_arena_index(const struct cct_arena *a); /* the thread index in slot 9 */
int32_t cct_arena_tid(const struct cct_arena *a);    /* kernel thread id of its thread */
uint32_t cct_arena_capacity(const struct cct_arena *a);

/* Published nodes (an acquire load): nodes [0, count) are complete and, but for the
 * owner's chain field, immutable. A context id a reader took from slot 9 of the same
 * thread before this call is below it (the hooks publish a node before storing its id,
 * and x86-64 keeps stores in order). */
uint32_t cct_arena_node_count(const struct cct_arena *a);

/* The node array; index it below cct_arena_node_count(). Valid while the arena's thread
 * lives and, for a reader that might run while it exits, between cct_read_begin() and
 * cct_read_end(); take it again after. */
const struct cct_node *cct_arena_nodes(const struct cct_arena *a);

/* Memory each node costs when used: the node and its share of the child index. */
size_t cct_arena_bytes_per_node(const struct cct_arena *a);

/* A reader that may read the node arrays of threads that are exiting brackets its
 * reading with these (they nest, and cost an atomic add each): inside, no node array is
 * unmapped. */
void cct_read_begin(void);
void cct_read_end(void);

/* Nonzero once the arena's thread has exited and its arena was given back (the tree
 * was moved to the compact store). */
int cct_arena_released(const struct cct_arena *a);

/* Function entries that landed in the overflow node because the arena was full: each
 * call that would have made a new node, and every call made beneath it. */
uint64_t cct_arena_overflow(const struct cct_arena *a);

/* ---- for tests ---- */

/* Arenas created after this call hold at most `nodes` nodes (counting the root and the
 * overflow node; at least 4), `frames` shadow-stack frames (at least 16) and a return-
 * slot cache of `slot_cache` entries (rounded down to a power of 2; 1 makes nearly every
 * entry search the stack); 0 keeps the default (2^21 nodes, 2^19 frames, 1024 entries). */
void cct_set_test_limits(uint32_t nodes, uint32_t frames, uint32_t slot_cache);

#endif
