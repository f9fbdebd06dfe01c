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

/* The low four bits of the frame word (a frame address is 16-aligned at a call, where the
 * pass and the hooks take it): 0 from the pass; the hooks' marks (below) otherwise. */
#define SHIM_FRAME_BITS 15ull

/* The hooks' pair (SHIM_HOOKS=frames, cct.c). gcc's -finstrument-functions hooks run
 * 200 million times a second in an interpreter, and any test they make costs it a third
 * of the empty hooks' time (bench/realprog/hook_floor.sh), so they test nothing and keep
 * nothing: each stores one pair with one 16-byte store, and the observer does the rest.
 * Bit 3 of the frame word (SHIM_FRAME_HOOKS; frames are 16-aligned at a call) says the
 * pair is theirs, and the loop word then holds an address with 16 bits beside it
 * (SHIM_HOOKS_WORD):
 *
 *   entering a function    the function, the low 16 bits of the call site the compiler
 *                          passed; the function's frame. The observer keeps the frame
 *                          only where the return address above it has those 16 bits:
 *                          code built without frame pointers leaves anything in the
 *                          register, and its samples keep their function with no chain.
 *   leaving it (bit 0 too: the hook's return address (an address in the code that called
 *    SHIM_FRAME_EXIT)      the exit hook), the low 16 bits of the leaving function
 *                          (complemented where gcc called the exit hook with a jump, the
 *                          function's frame already gone); the frame register as the
 *                          hook found it.
 *
 * Which function the thread is in after an exit is decided when the profile is written,
 * from the symbols (libshim/walk_profile.c): the function holding the hook's return
 * address is the one that left when its low 16 bits are the ones stored (the thread is
 * then in the function the first return address of the walk lies in: the call site,
 * above the leaving function's frame), and otherwise the one the thread goes on in (gcc
 * calls the hooks of a function inlined into another too: its exit hook is called from
 * the other's code, with the other's frame; a hook called with a jump returns straight
 * to the caller, whose frame the register holds again). The observer passes the stored
 * word on as the sample's function in STACKWALK_EXIT form, and the chain it walks from
 * the frame with it (lost or not: the writer needs the first return address). */
#define SHIM_FRAME_HOOKS           8ull
#define SHIM_FRAME_EXIT            1ull
#define SHIM_HOOKS_TAG(x)          ((uint64_t)(x)&0xffffu)
#define SHIM_HOOKS_WORD(addr, tag) ((uint64_t)(addr) | (uint64_t)(tag) << 48)

/* A sample's function after a hooks' exit (above), as the observer keeps it until the
 * profile is written: the hook's return address (below 2^47, the user half of x86-64's
 * address space) and the 16 bits stored with it, marked by the top bit. */
#define STACKWALK_EXIT_BIT        (UINT64_C(1) << 63)
#define STACKWALK_EXIT(addr, tag) (STACKWALK_EXIT_BIT | (uint64_t)(tag) << 47 | (uint64_t)(addr))
#define STACKWALK_IS_EXIT(v)      (((v)&STACKWALK_EXIT_BIT) != 0)
#define STACKWALK_EXIT_ADDR(v)    ((v) & ((UINT64_C(1) << 47) - 1))
#define STACKWALK_EXIT_TAG(v)     ((unsigned)((v) >> 47) & 0xffffu)

/* A chain's first word after a hooks' entry: the function, marked (bit 62, the top bit
 * clear), so that the writer gives a function gcc inlined its host: the function the
 * direct call before the frame's return address called, where that is another. */
#define STACKWALK_ENTRY_BIT (UINT64_C(1) << 62)

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
