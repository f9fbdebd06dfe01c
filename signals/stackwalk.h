/*
 * stackwalk.h -- the frame signal of code built with the compiler pass, and how the
 * observer turns it into a calling context (docs/calling-contexts.md).
 *
 * The pass keeps frame pointers in every function it instruments and stores, inline,
 * at entry and after every call returns, beside the loop word (slot 10, which names the
 * function):
 *
 *   slot 11 (SHIM_SLOT_FRAME)  the function's frame address: where its caller's frame
 *                              pointer is saved, with the return address into the
 *                              caller one word above it.
 *
 * Nothing else happens per call. The observer reads the frame word and its function
 * (below, "read together"), follows the chain of saved frame pointers through the thread's stack
 * (only inside the bounds the thread registered in its block, each frame strictly above the one
 * before), collecting the return addresses; it reads both words again after the innermost frame and
 * keeps the chain only if the thread is still in that frame, deeper, or back in a frame it read
 * (chain_steady, observer/chain_store.h; otherwise the context is lost and the function read first
 * kept). The method and the return addresses are the calling context,
 * call sites kept apart; the observer stores each distinct chain once (observer/chain_store.h) and
 * puts its number in the tuple where slot 9 would be. The profile writer turns chains into
 * calling-context trees (libshim/walk_profile.c).
 *
 * Read together. The walk needs the frame and the function it is the frame of as one
 * state: a walk that paired the callee's function with its caller's frame would put the
 * callee under its caller's caller, a context that never ran. So the frame (slot 11)
 * sits beside the loop word (slot 10), which names its function (shim_loop_stored(fn,
 * L), path.h; the pass stores fn there with the frame when the loop signal is off), and the
 * observer reads the two with one 16-byte load (signal_block_load_pair), taking the walk's function
 * from the loop word: it sees the words as they were at one moment. The program still writes them
 * with two stores, in an order that makes the moment between them harmless: entering a function,
 * the frame before the loop word; after a call returns, the loop word before the frame. Between the
 * two the block holds the caller's function with the callee's frame, the chain [caller; a return
 * address into the caller; the caller's own return address,
 * ...]: the caller calling itself once more, which the trees fold back into the caller's
 * node, so the sample keeps the caller's true context. Stores of the loop word alone,
 * inside a function, change only its loop number. The tuple's function (slot 8) and
 * loop word are the walk's: the ones read with the frame.
 *
 * A thread's stack must stay mapped while the observer reads it: an observer adds one
 * to the block's count of walkers (SHIM_BLOCK_WALKING) before it reads the bounds and
 * takes it back after the walk; a thread that gives its block back clears the bounds
 * first and then waits for the count to be 0 (signal_block_release()).
 */
#ifndef SHIM_SIGNALS_STACKWALK_H
#define SHIM_SIGNALS_STACKWALK_H

#include <stdint.h>

#include "shim.h"

#define SHIM_SLOT_FRAME 11 /* the frame address of the function executing now */

/* The low three bits of the frame word (frame addresses are 8-aligned: the hooks publish
 * no other frame, and the walk takes none): 0 from the pass, which instruments functions
 * after inlining. gcc's -finstrument-functions hooks call the hooks of inlined functions
 * too (SHIM_HOOKS=frames, cct.c), so a thread goes in and out of them within one frame:
 * bit 0 (SHIM_FRAME_INLINED) says the function runs inlined into the function whose
 * frame it is, and bits 1 and 2 then hold a hash of that frame's return address (the
 * call site the hooks were passed: shim_frame_mark). The walk keeps the frame's chain for
 * a function that changed under it when a marked read's hash is the one of the return
 * address it read: the frame is still the same call's (a sibling call at the same
 * address, from another call site, is told apart 3 times in 4). */
#define SHIM_FRAME_INLINED 1ull
#define SHIM_FRAME_BITS    7ull

/* The low bits of the frame word of a function inlined into the one called from `site`. */
__attribute__((no_instrument_function)) static inline uint64_t shim_frame_mark(uint64_t site)
{
    return SHIM_FRAME_INLINED | ((site ^ site >> 3 ^ site >> 7) & 3) << 1;
}

/* Words of a block's `reserved` array the walk uses (signal_block.h has 0 and 1). */
#define SHIM_BLOCK_STACK_LO 2 /* the owner's stack: [lo, hi); 0, 0 while none is known */
#define SHIM_BLOCK_STACK_HI 3
#define SHIM_BLOCK_WALKING  4 /* how many observers read the owner's stack now */

/* A context value from a walk, as the observer puts it in the tuple (slot 9's place):
 * the chain's number with the top bit set, told apart from a hooks' node (thread index
 * << 32 | node, whose top bit is never set), which a sample of a thread that published
 * no frame keeps. */
#define STACKWALK_CHAIN_BIT   (UINT64_C(1) << 63)
#define STACKWALK_CHAIN(id)   (STACKWALK_CHAIN_BIT | (uint64_t)(id))
#define STACKWALK_IS_CHAIN(v) (((v)&STACKWALK_CHAIN_BIT) != 0)
#define STACKWALK_CHAIN_ID(v) ((uint32_t)(v))

/* The deepest chain kept (after folding recursion), and the most frames one walk reads:
 * a walk that reaches either keeps the innermost frames and says the chain was cut. */
#define STACKWALK_MAX_DEPTH 192
#define STACKWALK_MAX_READ  4096

/* Recursion cycles of up to this many frames fold as they are read (chain_walk()). */
#define STACKWALK_FOLD_CYCLE 4

/* The name of the section the pass leaves in each object whose code stores the frame
 * signal: libshim looks for it to know that it should walk. */
#define STACKWALK_SECTION "shim_contexts"

#endif
