/*
 * cct.c -- the calling-context runtime behind -finstrument-functions.
 *
 * The compiler calls __cyg_profile_func_enter(fn, call_site) at the start of every
 * instrumented function and __cyg_profile_func_exit(fn, call_site) at its end. From
 * those calls each thread builds a calling-context tree (CCT, Ammons, Ball and Larus,
 * PLDI 1997, section 4) and keeps two tag slots of its signal block current: slot 8 the
 * function executing now, slot 9 the node of its calling context. The observer reads
 * the slots like any other tag; the tree itself is read once, by the profile writer.
 *
 * The tree. A node is one call chain: (parent, fn, call_site). A call from the current
 * node `cur` to fn at call_site finds, in this order: cur itself if cur's function is fn
 * (direct recursion: one compare); the answer the call cache kept for (cur, fn,
 * call_site) (call_cached(): 256 entries, direct-mapped by caller and site, on lines the
 * hooks keep hot; a tree lookup misses the cache lines more than anything else the
 * hooks do); the existing child (cur, fn, call_site) in a per-thread hash index; an
 * ancestor of cur whose function is fn (recursion folds onto
 * the nearest one, so no chain holds a function twice and the depth is bounded by the
 * number of functions); else a new node. The ancestor walk follows parent links and
 * runs only when the index misses, which is once per new node or on a recursive call,
 * where it stops after the length of the recursion cycle. (A table of the functions on
 * the stack could skip the walk for a new node, but would cost an update on every entry
 * and exit to save a walk made once per node.) Call sites are kept apart; an indirect
 * call is a call with a call site like any other.
 *
 * The arena. Each thread mmaps one MAP_NORESERVE region on its first hook: the owner's
 * header (its caches), its shadow stack, the child index and room for 2^21 nodes of 32
 * bytes; pages are touched only as they fill. What readers see of the tree (count,
 * capacity, thread index and id, overflow count, where the nodes are: struct cct_arena)
 * lies apart, in a static array by thread index, never freed. The index is a table of
 * 32-bit bucket heads that starts at 1024 buckets and moves to one twice the size when
 * the nodes outnumber its buckets (index_grow()), so it stays as small as the tree; the
 * tables of every size lie one after the other, 8 bytes per node of capacity in all.
 * Node 0 is the root (no function), node 1 the overflow node: when the arena is full,
 * every further new context, and everything called beneath it, is node 1, counted. A
 * node is written completely before a release store of the arena's count publishes it,
 * and is never written again but for its bucket chain field, which only the owner reads
 * (and rewrites when the index grows), so any thread may read nodes [0, count) at any
 * moment. The index and the shadow stack are private to the owner. When the thread exits
 * (a thread-specific key's destructor, thread_end()) its tree is final: the nodes it used
 * are copied, one tree after the other, into shared chunks (the kept trees), and the
 * whole arena is unmapped (about 96 MiB of address space and 24 KiB resident per thread
 * given back; 32 bytes a node kept), unless a reader inside cct_read_begin() may hold the
 * old node array, which then stays mapped. A thread that ends the process with exit()
 * keeps its whole arena. A global array, filled with an atomic counter and release stores,
 * lists the trees by thread index (the high half of slot 9); an index is never reused, so
 * a context id in a sample names the same tree for ever.
 *
 * The shadow stack. Each entry pushes a frame (marker, fn, call_site, node); each exit
 * pops it and restores slots 8 and 9 from the frame below. A frame can also be left
 * without an exit hook: longjmp, a C++ exception unwinding code whose exit hooks the
 * compiler did not put in cleanups (g++ does, clang++ does not), a signal handler that
 * siglongjmps out. The marker makes such frames recognisable: it is the address of the
 * function's return-address slot, a word equal to call_site within CCT_MARKER_WORDS
 * words above the hook's canonical frame address (the function's stack pointer; that
 * address itself when no word matches, a lower bound of the slot), chosen and cached as
 * marker_scan() says. A live ancestor's slot lies strictly above the new function's; a
 * frame that has been left has its slot at or below it.
 *   - Entry pops the frames whose marker is below the new marker, and a frame with the
 *     same marker unless it has the same call site, another function and the same stack
 *     pointer: an instrumented function inlined into its caller calls the hooks with the
 *     caller's return address from the caller's frame, and nests inside it. So the first
 *     instrumented call after a jump is a child of the function that caught it, before
 *     anything is published.
 *   - Exit pops the frames whose marker lies below the hook's frame (they were left,
 *     since the exiting function's own stack pointer is above them), then the exiting
 *     function's frame if the top is one of fn. So a jump is also repaired by the exit
 *     of the function that caught it.
 *   - Until then, the slots still describe the frame that jumped.
 *   - Limits: a function that lowered its stack pointer (alloca, a variable-length array)
 *     between a call that was jumped out of and its next call or its exit can leave the
 *     jumped-over frames in place until its own exit; an instrumented function inlined
 *     after such a lowering is taken for a new call, and its caller for a left frame,
 *     until the caller returns; the first run of a function right after a jump can keep
 *     the left frames (see marker_scan) until the caller returns or calls a function
 *     that has run before.
 *
 * Signals. A handler running on the thread's stack nests below the interrupted frames
 * like a call (its call site is the signal trampoline). The hooks are written to be
 * interrupted at any instruction by a handler that runs them too: the frame is written,
 * then the depth advanced, then the frame written again (a handler that ran in between
 * may have used the same slot); a call cache entry is withdrawn while it is written and
 * left withdrawn if a handler pushed meanwhile (call_remember()), and a lookup in it is
 * not trusted if one pushed while it read (call_cached()); every other step is a single
 * store; node creation
 * and the first-hook set-up run with signals blocked (two system calls per new node),
 * so two creations never interleave and a handler that never returns cannot leave half
 * a node. A handler on an alternate signal stack (sigaltstack) has markers unrelated to
 * the interrupted ones: when a frame would be popped, or the new marker is more than
 * CCT_STACK_GAP below the top one, the hook asks the kernel whether it runs on the
 * alternate stack; if it does and the top frame does not, the handler nests as a call
 * and the frames it pushes are dropped as soon as a hook runs off that stack again (it
 * returned, or jumped out). Not recognised: a handler on an alternate stack less than
 * CCT_STACK_GAP above the thread's frames that starts while no instrumented function is
 * live and jumps out; its frames stay beneath the thread's later contexts.
 *
 * Cost. Each hook has a fast path that calls nothing (the general code is reached by a
 * last call), so it saves few registers: entry when a frame is on top and nothing unusual is going
 * on (a->fast_limit), the marker is the top frame's (a function inlined into it, by its call site
 * and stack pointer) or the slot cache gives it, above the top's, and the context is direct
 * recursion or in the call cache; exit when
 * the top frame is the exiting function's and the only one to pop. Everything else
 * (first calls, new contexts, left frames, signal stacks, a full shadow stack) goes
 * through enter_slow(), enter_resolve() and exit_slow(), which do what the file says
 * above. When the thread points at the shared dummy block (shim is not observing it)
 * the hooks keep the tree and the shadow stack but store nothing into the block, so
 * threads do not fight over the dummy's cache line; cct_republish() writes the slots
 * when a real block is attached (cct_frames_block() for the frame signal, whose hooks
 * write words of the thread's own meanwhile). Nothing here allocates with malloc or calls anything
 * instrumented; this file is compiled with -fno-instrument-functions. x86-64 only: the
 * hook's frame address is the address above its return address.
 */
#include "signals/cct.h"
#include "signals/stackwalk.h"
#include "signals/path.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "signals/signal_block.h"

#define NO_HOOK __attribute__((no_instrument_function))
#define HOT_INLINE                                                                                 \
    static inline __attribute__((always_inline, no_instrument_function, no_sanitize_address))
#define COLD static __attribute__((noinline, cold, no_instrument_function))
/* The marker search reads the instrumented function's frame, redzones included: in the
 * hooks and in enter_slow(), where frame_marker() runs. */
#define HOOK SHIM_API __attribute__((no_instrument_function, no_sanitize_address))
#define COLD_READS_FRAMES                                                                          \
    static __attribute__((noinline, cold, no_instrument_function, no_sanitize_address))

#define CCT_DEFAULT_NODES  (1u << 21)
#define CCT_DEFAULT_FRAMES (1u << 19)
#define CCT_MIN_NODES      4u
#define CCT_MIN_FRAMES     16u
#define CCT_MAX_THREADS    65536u
#define CCT_MARKER_WORDS   64
#define CCT_SLOT_NONE      0xffffu /* no return slot found within CCT_MARKER_WORDS */
#define CCT_SLOT_CACHE     1024u   /* entries of the return-slot cache */
#define CCT_STACK_GAP      ((uintptr_t)1 << 20)
#define CCT_INDEX_MIN_BITS 10u /* the child index starts with 1024 buckets */
#define CCT_NO_NODE        UINT32_MAX
#define CCT_CALL_CACHE     256u /* entries of the call cache */
#define DEPTH(word)        ((uint32_t)(word))
#define DEPTH_PUSH         ((uint64_t)1 << 32)

_Static_assert(sizeof(struct cct_node) == 32, "a node is 32 bytes, two per cache line");

/* One live (or not yet recognised as left) instrumented call. */
struct cct_frame {
    uintptr_t marker;   /* address of the function's return-address slot (or a lower bound) */
    uint64_t fn;        /* the function, for slot 8 */
    uint64_t call_site; /* as the hook received it */
    uint32_t node;      /* its context, for slot 9 */
    uint32_t sp_offset; /* marker - the hook's frame address: where the function's stack
                           pointer stood below its return slot when it was entered */
};

/* A call the tree answered lately (see call_cached()): direct-mapped by caller and site. */
struct cct_call {
    uint64_t site, fn;
    uint32_t parent; /* CCT_NO_NODE: empty, or being written */
    uint32_t node;
};

/* What readers see of a thread's tree: an entry of cct_trees, never freed, so that a
 * reader may keep the pointer for ever. Written only by the owner (nodes also by
 * thread_end(), when it moves them). */
struct cct_arena {
    uint32_t count; /* published nodes; release store by the owner, acquire by readers */
    uint32_t capacity;
    uint32_t index;
    int32_t tid;
    uint64_t overflow; /* relaxed atomic */
    struct cct_node *nodes;
    uint32_t index_min_bits, index_max_bits; /* the child index's sizes, for bytes_per_node */
    uint32_t released; /* 1 once the thread has exited and its arena was given back
                          (relaxed atomic) */
};

/* The owner's state, at the start of the arena's mapping: private to the thread (and its
 * signal handlers), unmapped when it exits. */
struct cct_owner {
    struct cct_arena *tree; /* what readers see: cct_trees[index] */
    struct cct_node *nodes; /* the node array in this mapping */
    uint32_t index;         /* tree->index, for slot 9 */
    uint32_t capacity;      /* tree->capacity */
    size_t map_bytes;

    /* On their own cache line. */
    _Alignas(64) uint64_t depth; /* frames in use (the low half) and entries pushed (the
                                    high half, see call_cached()); atomic: the owner's
                                    handlers read it */
    uint32_t frame_cap;
    uint32_t fast_limit; /* frame_cap - 1, or 0 to keep the hooks off their fast paths
                            (fast_update()) */
    uint32_t lost;       /* entries not pushed because the shadow stack was full */
    uint32_t alt_switch; /* 1 + index of the frame a handler on the alternate stack
                            pushed first; 0 when none is live */
    uint32_t index_bits; /* log2 of the child index's bucket count now; atomic: the
                            owner's handlers may grow it */
    uint32_t index_min_bits, index_max_bits;
    uint32_t slot_mask; /* slot cache entries in use - 1 */
    uint32_t *buckets;  /* the child index's tables, smallest first (see index_table()) */
    uintptr_t alt_lo, alt_hi;
    uint64_t slot_cache[CCT_SLOT_CACHE]; /* see frame_marker() */
    struct cct_call calls[CCT_CALL_CACHE];
};

/* The arena's shadow stack starts on the page after its header. */
#define CCT_HEAD_BYTES (((sizeof(struct cct_owner) + 4095) / 4096) * 4096)
#define FRAMES(a)      ((struct cct_frame *)((char *)(a) + CCT_HEAD_BYTES))

/* The calling thread's arena, and whether creating it failed (then the hooks do
 * nothing on this thread rather than retry an mmap per call). */
static __thread struct cct_owner *cct_self __attribute__((tls_model("initial-exec")));
static __thread int cct_failed __attribute__((tls_model("initial-exec")));

static struct cct_arena *cct_arenas[CCT_MAX_THREADS];
static struct cct_arena cct_trees[CCT_MAX_THREADS]; /* touched only as threads come */
static uint32_t cct_arenas_used;
static int cct_seen;
static uint32_t cct_limit_nodes, cct_limit_frames, cct_limit_slots;

/* ---- small helpers ---- */

#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* The hook's canonical frame address: the caller's stack pointer before it called the
 * hook (x86-64: the address above the hook's return address). */
#define HOOK_CFA() ((uintptr_t)__builtin_dwarf_cfa())

/* The function's return slot, as a word offset above the hook's frame address cfa (the
 * function's stack pointer), or CCT_SLOT_NONE when no word within CCT_MARKER_WORDS holds
 * call_site. Copies of call_site also lie below the slot: stale data in the function's
 * uninitialised locals, such as a register an earlier callee from the same site saved.
 * Below the top frame's slot (live stack, the caller's frame included, when the top
 * frame is the caller) the highest copy is taken; the top frame's slot itself is not,
 * since a live caller called from the same site holds call_site there too (recursion).
 * Past it (the top frame was left, there is none, or it lies on another stack, more
 * than CCT_STACK_GAP away) the first copy is taken and nothing above it is read, so the
 * search never runs off the top of a stack. Memory alone cannot tell a function's stale
 * locals from a left frame: the first run of a function right after a jump, from the
 * site the jumped-out function was called from, may take the left frames for live ones.
 * So only what was found below the top frame's slot, or at it for a function inlined into
 * the frame on top, is cached (per hook return address,
 * which fixes the frame layout; a direct-mapped cache of 64-bit words, (ra << 16) |
 * offset, so that a handler never reads half an entry), and later runs find it with one
 * compare. The words read may be a caller's locals that other threads write: only
 * compared, and left out of the race detector. */
COLD __attribute__((no_sanitize_address, no_sanitize_thread)) uintptr_t
marker_scan(const struct cct_owner *a, uint64_t *entry, uintptr_t cfa, uintptr_t ra,
            uint64_t call_site)
{
    const uintptr_t *w = (const uintptr_t *)cfa;
    uint32_t d = DEPTH(__atomic_load_n(&a->depth, __ATOMIC_RELAXED));
    uintptr_t top = d > 0 ? FRAMES(a)[d - 1].marker : 0;
    int live_top = top > cfa && top - cfa <= CCT_STACK_GAP;
    if (!live_top) top = cfa; /* none, or another stack */
    unsigned off = CCT_SLOT_NONE, i;
    for (i = 0; i < CCT_MARKER_WORDS && (uintptr_t)&w[i] < top; i++)
        if (w[i] == call_site) off = i;
    if (off == CCT_SLOT_NONE && i < CCT_MARKER_WORDS) {
        for (; i < CCT_MARKER_WORDS; i++)
            if (w[i] == call_site) {
                /* exactly the top frame's slot: a function inlined into the frame on top,
                 * whose hooks gcc still calls, sharing its frame and return address;
                 * as fixed for this ra as a slot below it, so cached too. Past the top:
                 * not cached. */
                if (live_top && (uintptr_t)&w[i] == top)
                    __atomic_store_n(entry, (uint64_t)ra << 16 | i, __ATOMIC_RELAXED);
                return (uintptr_t)&w[i];
            }
        /* no word within reach holds call_site (a frame larger than the search, or a
         * call site no return slot holds): as fixed for this ra as a slot, so cached (the
         * hook's frame then stands for it, a lower bound of the slot) */
        __atomic_store_n(entry, (uint64_t)ra << 16 | CCT_SLOT_NONE, __ATOMIC_RELAXED);
        return cfa;
    }
    __atomic_store_n(entry, (uint64_t)ra << 16 | off, __ATOMIC_RELAXED);
    return off == CCT_SLOT_NONE ? cfa : (uintptr_t)&w[off];
}

HOT_INLINE uint64_t *slot_entry(struct cct_owner *a, uintptr_t ra)
{
    return &a->slot_cache[(ra ^ ra >> 10) & a->slot_mask];
}

/* The marker the slot cache gives for the function that called the hook from ra with its
 * stack pointer at cfa: one load and one compare when the cached slot holds call_site;
 * 0 when the cache does not say. */
HOT_INLINE uintptr_t slot_cached(struct cct_owner *a, uintptr_t cfa, uintptr_t ra,
                                 uint64_t call_site)
{
    uint64_t v = __atomic_load_n(slot_entry(a, ra), __ATOMIC_RELAXED);
    if (v >> 16 != ra) return 0;
    unsigned off = v & 0xffff;
    if (off == CCT_SLOT_NONE) return cfa;
    const uintptr_t *w = (const uintptr_t *)cfa;
    return w[off] == call_site ? (uintptr_t)&w[off] : 0;
}

/* The marker of the function that called the hook from ra with its stack pointer at cfa
 * (see the file comment): the slot cache's, else the stack's. */
HOT_INLINE uintptr_t frame_marker(struct cct_owner *a, uintptr_t cfa, uintptr_t ra,
                                  uint64_t call_site)
{
    uintptr_t m = slot_cached(a, cfa, ra, call_site);
    return m ? m : marker_scan(a, slot_entry(a, ra), cfa, ra, call_site);
}

HOT_INLINE int in_range(uintptr_t x, uintptr_t lo, uintptr_t hi)
{
    return x >= lo && x < hi;
}

/* Whether a frame on the shadow stack was left before function fn was entered from
 * call_site with marker m and stack pointer offset off (see the file comment). */
HOT_INLINE int frame_is_left(const struct cct_frame *f, uintptr_t m, uint32_t off, uint64_t fn,
                             uint64_t site)
{
    if (f->marker != m) return f->marker < m;
    return f->call_site != site || f->fn == fn || f->sp_offset != off;
}

/* Sets the depth to d, keeping the count of pushes in word, the depth word as this hook
 * read it; returns the new word. */
HOT_INLINE uint64_t set_depth(struct cct_owner *a, uint64_t word, uint32_t d)
{
    word = (word & ~(uint64_t)UINT32_MAX) | d;
    __atomic_store_n(&a->depth, word, __ATOMIC_RELAXED);
    SIGNAL_FENCE();
    return word;
}

/* Whether the hooks may take their fast paths: no handler on the alternate stack is live
 * and no call went unrecorded. Kept in a->fast_limit, which those paths compare the
 * depth against; set again wherever alt_switch or lost changes. */
HOT_INLINE void fast_update(struct cct_owner *a)
{
    a->fast_limit = a->alt_switch == 0 && a->lost == 0 ? a->frame_cap - 1 : 0;
}

/* The call cache's entry for a call from cur at site. */
HOT_INLINE struct cct_call *call_entry(struct cct_owner *a, uint32_t cur, uint64_t site)
{
    return &a->calls[(uint32_t)(site ^ site >> 9 ^ cur * 0x9e3779b1u) & (CCT_CALL_CACHE - 1)];
}

/* The context of a call from cur to fn at site as the call cache holds it, or CCT_NO_NODE.
 * A handler that ran while the entry was read may have left a mixture of two: it entered
 * a function too, so the depth word no longer equals word, as this hook read it. */
HOT_INLINE uint32_t call_cached(struct cct_owner *a, uint64_t word, uint32_t cur, uint64_t fn,
                                uint64_t site)
{
    const struct cct_call *c = call_entry(a, cur, site);
    uint32_t node = c->node;
    if (c->parent != cur || c->fn != fn || c->site != site) return CCT_NO_NODE;
    SIGNAL_FENCE();
    if (__atomic_load_n(&a->depth, __ATOMIC_RELAXED) != word) return CCT_NO_NODE;
    return node;
}

/* Puts a resolved call into the cache, where word is the depth word as this hook read it.
 * The parent is withdrawn first and put back last, so a handler interrupting the writing
 * never takes half an entry for a whole one. A handler that wrote the same entry in the
 * meantime pushed too, which moved the word on: then the entry may hold some of its
 * fields and some of these (and the handler's parent put back), so it is withdrawn, also
 * when the handler came between the check and the parent's return. Not the overflow node: it is
 * counted on every entry. */
HOT_INLINE void call_remember(struct cct_owner *a, uint64_t word, uint32_t cur, uint64_t fn,
                              uint64_t site, uint32_t node)
{
    if (node == CCT_NODE_OVERFLOW) return;
    struct cct_call *c = call_entry(a, cur, site);
    __atomic_store_n(&c->parent, CCT_NO_NODE, __ATOMIC_RELAXED);
    SIGNAL_FENCE();
    c->site = site;
    c->fn = fn;
    c->node = node;
    SIGNAL_FENCE();
    if (__atomic_load_n(&a->depth, __ATOMIC_RELAXED) == word) {
        __atomic_store_n(&c->parent, cur, __ATOMIC_RELAXED);
        SIGNAL_FENCE();
        if (__atomic_load_n(&a->depth, __ATOMIC_RELAXED) == word) return;
    }
    __atomic_store_n(&c->parent, CCT_NO_NODE, __ATOMIC_RELAXED);
}

/* Slots 8 and 9 together, in one 16-byte store (signal_block_store_pair): the observer
 * reads them with one load, so it never pairs the function with another's context.
 * The loop word (slot 10) is cleared first: where code built with the pass runs too,
 * the observer takes the function from slot 8 while the loop word is 0, and it reads
 * the pair before the loop word, so it sees the pair it goes with (never a function of
 * the pass's with the hooks' new context, or the reverse). Elsewhere nothing reads slot
 * 10; one store to the pair's cache line costs less than asking whether to make it. */
HOT_INLINE void publish(const struct cct_owner *a, uint64_t fn, uint32_t node)
{
    struct shim_block *b = shim_tls_block;
    if (b == &shim_dummy_block) return;
    __atomic_store_n(&b->tag[SHIM_SLOT_LOOP], 0, __ATOMIC_RELAXED);
    SIGNAL_FENCE();
    signal_block_store_pair(b, SHIM_SLOT_METHOD, fn, CCT_SIGNAL(a->index, node));
}

/* Slots 8 and 9 from the top of a shadow stack of depth d. */
HOT_INLINE void publish_top(const struct cct_owner *a, uint32_t d)
{
    if (d == 0)
        publish(a, 0, CCT_NODE_ROOT);
    else
        publish(a, FRAMES(a)[d - 1].fn, FRAMES(a)[d - 1].node);
}

/* The child index's table of 2^bits buckets, each the head of a chain of nodes (0, the
 * root, ends a chain). The tables of every size from 2^index_min_bits up lie one after
 * the other, so the one of 2^bits buckets starts 2^bits - 2^index_min_bits buckets in. */
HOT_INLINE uint32_t *index_table(const struct cct_owner *a, uint32_t bits)
{
    return a->buckets + ((1u << bits) - (1u << a->index_min_bits));
}

HOT_INLINE uint32_t child_bucket(uint32_t bits, uint32_t parent, uint64_t fn, uint64_t site)
{
    uint64_t k = fn ^ (site << 21 | site >> 43) ^ ((uint64_t)parent << 32 | parent);
    return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* The node (parent, fn, site) in the chain from `head`, or 0. */
HOT_INLINE uint32_t chain_find(const struct cct_node *nodes, uint32_t head, uint32_t parent,
                               uint64_t fn, uint64_t site)
{
    uint32_t id = head;
    while (id != 0 &&
           !(nodes[id].parent == parent && nodes[id].fn == fn && nodes[id].call_site == site))
        id = nodes[id].chain;
    return id;
}

static NO_HOOK void block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

static NO_HOOK void restore_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* ---- the arena ---- */

static NO_HOOK uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 16;
    while (p < n && p < (1u << 31))
        p <<= 1;
    return p;
}

static NO_HOOK size_t page_round(size_t n)
{
    return (n + 4095) & ~(size_t)4095;
}

/* Maps and initialises an arena of `nodes` nodes and `frames` frames; NULL when the
 * mapping fails. */
static NO_HOOK struct cct_owner *arena_map(uint32_t nodes, uint32_t frames, uint32_t slots)
{
    uint32_t max_bits = (uint32_t)__builtin_ctz(pow2_at_least(nodes));
    uint32_t min_bits = max_bits < CCT_INDEX_MIN_BITS ? max_bits : CCT_INDEX_MIN_BITS;
    size_t head = CCT_HEAD_BYTES;
    size_t fbytes = page_round((size_t)frames * sizeof(struct cct_frame));
    size_t bbytes =
        page_round((((size_t)2 << max_bits) - ((size_t)1 << min_bits)) * sizeof(uint32_t));
    size_t nbytes = page_round((size_t)nodes * sizeof(struct cct_node));
    size_t total = head + fbytes + bbytes + nbytes;
    char *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return NULL;
    struct cct_owner *a = (struct cct_owner *)p;
    a->map_bytes = total;
    a->capacity = nodes;
    a->frame_cap = frames;
    fast_update(a);
    a->buckets = (uint32_t *)(p + head + fbytes);
    a->nodes = (struct cct_node *)(p + head + fbytes + bbytes);
    a->index_bits = a->index_min_bits = min_bits;
    a->index_max_bits = max_bits;
    a->slot_mask = slots - 1;
    /* The mapping is zeroed: the root is {0}; the overflow node hangs under it. */
    a->nodes[CCT_NODE_OVERFLOW].depth = 1;
    return a;
}

static pthread_once_t cct_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t cct_exit_key;
static int cct_key_failed;

static NO_HOOK void thread_end(void *unused);

static NO_HOOK void make_exit_key(void)
{
    cct_key_failed = pthread_key_create(&cct_exit_key, thread_end) != 0;
}

/* The key is made when libshim is loaded, so that it is among the process's first (glibc
 * keeps the values of the first 32 keys in the thread itself: setting one then allocates
 * nothing, and the hooks never call malloc). */
__attribute__((constructor)) static NO_HOOK void make_exit_key_early(void)
{
    pthread_once(&cct_key_once, make_exit_key);
}

/* Asks for thread_end() at the calling thread's exit (a thread-specific key's
 * destructor; not run for a thread that ends the process by exit()). */
static NO_HOOK void end_at_exit(void)
{
    pthread_once(&cct_key_once, make_exit_key);
    if (!cct_key_failed) pthread_setspecific(cct_exit_key, &cct_exit_key);
}

/* The calling thread's first hook: map its arena and list it. Signals are blocked, so a
 * handler running hooks cannot see half an arena or make a second one. */
COLD struct cct_owner *thread_start(void)
{
    if (cct_failed) return NULL;
    sigset_t old;
    block_signals(&old);
    struct cct_owner *a = cct_self;
    if (a != NULL) goto out;
    __atomic_store_n(&cct_seen, 1, __ATOMIC_RELAXED);
    uint32_t nodes = __atomic_load_n(&cct_limit_nodes, __ATOMIC_RELAXED);
    uint32_t frames = __atomic_load_n(&cct_limit_frames, __ATOMIC_RELAXED);
    uint32_t slots = __atomic_load_n(&cct_limit_slots, __ATOMIC_RELAXED);
    if (nodes == 0) nodes = CCT_DEFAULT_NODES;
    if (frames == 0) frames = CCT_DEFAULT_FRAMES;
    if (slots == 0) slots = CCT_SLOT_CACHE;
    /* Where address space is scarce (a strict overcommit policy counts even
     * MAP_NORESERVE), a smaller tree is better than none. */
    while ((a = arena_map(nodes, frames, slots)) == NULL && nodes / 4 >= 4096) {
        nodes /= 4;
        if (frames / 4 >= 4096) frames /= 4;
    }
    if (a == NULL) {
        cct_failed = 1;
        goto out;
    }
    uint32_t index = __atomic_fetch_add(&cct_arenas_used, 1, __ATOMIC_RELAXED);
    if (index >= CCT_MAX_THREADS) {
        munmap(a, a->map_bytes);
        a = NULL;
        cct_failed = 1;
        goto out;
    }
    struct cct_arena *t = a->tree = &cct_trees[index];
    a->index = t->index = index;
    t->tid = (int32_t)syscall(SYS_gettid);
    t->capacity = a->capacity;
    t->nodes = a->nodes;
    t->index_min_bits = a->index_min_bits;
    t->index_max_bits = a->index_max_bits;
    t->count = CCT_NODE_FIRST;
    __atomic_store_n(&cct_arenas[index], t, __ATOMIC_RELEASE);
    cct_self = a;
    end_at_exit();
out:
    restore_signals(&old);
    return a;
}

/* Moves the child index to the table twice the size once it holds more nodes than
 * buckets. Every chain link, old and new, points to a smaller id, so a lookup this
 * interrupted (in the owner's code, under a handler) still ends; it may miss, and a
 * creation checks again. */
static NO_HOOK void index_grow(struct cct_owner *a)
{
    uint32_t bits = a->index_bits;
    if (a->tree->count <= (1u << bits) || bits >= a->index_max_bits) return;
    bits++;
    uint32_t *table = index_table(a, bits);
    struct cct_node *nodes = a->nodes;
    for (uint32_t id = CCT_NODE_FIRST; id < a->tree->count; id++) {
        uint32_t b = child_bucket(bits, nodes[id].parent, nodes[id].fn, nodes[id].call_site);
        nodes[id].chain = table[b];
        table[b] = id;
    }
    __atomic_store_n(&a->index_bits, bits, __ATOMIC_RELAXED);
}

/* Appends the node (parent, fn, site) and indexes it; the overflow node when the arena is
 * full. With signals blocked: a handler interrupting a creation would pick the same slot,
 * or grow the index. */
COLD uint32_t node_create(struct cct_owner *a, uint32_t parent, uint64_t fn, uint64_t site)
{
    struct cct_node *nodes = a->nodes;
    uint32_t id = CCT_NODE_OVERFLOW;
    sigset_t old;
    if (a->tree->count < a->capacity) {
        block_signals(&old);
        /* A handler that ran between the lookup and here may have made it already, or
         * moved the index. */
        uint32_t *table = index_table(a, a->index_bits);
        uint32_t b = child_bucket(a->index_bits, parent, fn, site);
        id = chain_find(nodes, table[b], parent, fn, site);
        if (id == 0) {
            id = a->tree->count;
            if (id < a->capacity) {
                struct cct_node *n = &nodes[id];
                n->fn = fn;
                n->call_site = site;
                n->parent = parent;
                n->depth = nodes[parent].depth + 1;
                n->chain = table[b];
                __atomic_store_n(&a->tree->count, id + 1, __ATOMIC_RELEASE);
                table[b] = id;
                index_grow(a);
            } else {
                id = CCT_NODE_OVERFLOW;
            }
        }
        restore_signals(&old);
    }
    if (id == CCT_NODE_OVERFLOW) __atomic_fetch_add(&a->tree->overflow, 1, __ATOMIC_RELAXED);
    return id;
}

/* The context of a call from node cur to fn at site (see the file comment). */
HOT_INLINE uint32_t node_resolve(struct cct_owner *a, uint32_t cur, uint64_t fn, uint64_t site)
{
    const struct cct_node *nodes = a->nodes;
    if (nodes[cur].fn == fn) return cur;
    if (cur == CCT_NODE_OVERFLOW) {
        __atomic_fetch_add(&a->tree->overflow, 1, __ATOMIC_RELAXED);
        return CCT_NODE_OVERFLOW;
    }
    uint32_t bits = __atomic_load_n(&a->index_bits, __ATOMIC_RELAXED);
    uint32_t id =
        chain_find(nodes, index_table(a, bits)[child_bucket(bits, cur, fn, site)], cur, fn, site);
    if (id != 0) return id;
    for (id = nodes[cur].parent; id != CCT_NODE_ROOT; id = nodes[id].parent)
        if (nodes[id].fn == fn) return id;
    return node_create(a, cur, fn, site);
}

/* ---- stack switches and left frames (the rare paths) ---- */

/* A hook at position pos (marker or frame address) while a handler's frames on the
 * alternate stack are recorded: they are gone if the handler returned (the switch frame
 * was popped) or if pos is off that stack (it jumped out). Returns the depth to keep. */
HOT_INLINE uint32_t alt_check(struct cct_owner *a, uintptr_t pos, uint32_t d)
{
    uint32_t sw = a->alt_switch;
    if (d >= sw && in_range(pos, a->alt_lo, a->alt_hi)) return d;
    a->alt_switch = 0;
    if (d >= sw) d = sw - 1;
    return d;
}

/* Entry with marker m found the top frame at or below m, or far above it: pops the frames
 * that were left, or records that a handler on the alternate signal stack began. */
COLD uint32_t entry_unwind(struct cct_owner *a, uint32_t d, uintptr_t m, uint32_t off, uint64_t fn,
                           uint64_t site)
{
    const struct cct_frame *f = FRAMES(a);
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
        uintptr_t lo = (uintptr_t)ss.ss_sp, hi = lo + ss.ss_size;
        int here = in_range(m, lo, hi), top_there = in_range(f[d - 1].marker, lo, hi);
        if ((ss.ss_flags & SS_ONSTACK) && here && !top_there && a->alt_switch == 0) {
            a->alt_switch = d + 1;
            a->alt_lo = lo;
            a->alt_hi = hi;
            return d;
        }
        if (!here && top_there)
            while (d > 0 && in_range(f[d - 1].marker, lo, hi))
                d--;
    }
    uint32_t floor = a->alt_switch ? a->alt_switch - 1 : 0;
    while (d > floor && frame_is_left(&f[d - 1], m, off, fn, site))
        d--;
    if (a->alt_switch > d) a->alt_switch = 0;
    return d;
}

/* ---- the hooks ---- */

/* Pushes the frame of a call at depth d, where word is the depth word as this hook read
 * it, or as it set it, and publishes it. Written, then counted, then written again: a
 * handler that ran before the count may have pushed its own frame into this slot; one
 * that runs after sees this one. The count of pushes in the word's high half moves on
 * (call_cached()). */
HOT_INLINE void push(struct cct_owner *a, uint64_t word, uint32_t d, const struct cct_frame *frame)
{
    struct cct_frame *f = &FRAMES(a)[d];
    *f = *frame;
    SIGNAL_FENCE();
    __atomic_store_n(&a->depth, word + DEPTH_PUSH + 1, __ATOMIC_RELAXED); /* DEPTH(word) == d */
    SIGNAL_FENCE();
    *f = *frame;
    SIGNAL_FENCE();
    publish(a, frame->fn, frame->node);
}

/* Whether fn, entered from site with its stack pointer at cfa, was inlined into the
 * function of the frame on top: gcc calls the hooks of an inlined copy with its caller's
 * return address, from its caller's frame. Its marker is then the top frame's (which
 * marker_scan() might place elsewhere when the top's is only a lower bound), and its
 * frame nests (frame_is_left()). Both entry paths ask this first, so they agree. */
HOT_INLINE int inlined_into(const struct cct_frame *top, uint64_t fn, uint64_t site, uintptr_t cfa)
{
    return top->call_site == site && top->marker - top->sp_offset == cfa && top->fn != fn;
}

/* An entry whose marker is known, for the context neither direct recursion nor the call
 * cache gave: the tree's answer, remembered, and the frame pushed. */
COLD void enter_resolve(struct cct_owner *a, uint64_t word, uint64_t fn, uint64_t site, uintptr_t m,
                        uint32_t off)
{
    uint32_t d = DEPTH(word), cur = d > 0 ? FRAMES(a)[d - 1].node : CCT_NODE_ROOT;
    uint32_t node = node_resolve(a, cur, fn, site);
    call_remember(a, word, cur, fn, site, node);
    struct cct_frame frame = {
        .marker = m, .fn = fn, .call_site = site, .node = node, .sp_offset = off};
    push(a, word, d, &frame);
}

/* Entry in every case the hook's fast path leaves to it: the first hook of the thread, a
 * marker the slot cache does not give, the first frame, frames left behind, another
 * stack, a full shadow stack. */
COLD_READS_FRAMES void enter_slow(struct cct_owner *a, uint64_t fn, uint64_t site, uintptr_t cfa,
                                  uintptr_t ra)
{
    if (a == NULL && (a = thread_start()) == NULL) return;
    uint64_t word = __atomic_load_n(&a->depth, __ATOMIC_RELAXED);
    uint32_t d = DEPTH(word);
    uintptr_t m = d > 0 && inlined_into(&FRAMES(a)[d - 1], fn, site, cfa)
                      ? FRAMES(a)[d - 1].marker
                      : frame_marker(a, cfa, ra, site);
    uint32_t off = (uint32_t)(m - cfa);
    if (a->alt_switch != 0) d = alt_check(a, m, d);
    if (d > 0) {
        const struct cct_frame *top = &FRAMES(a)[d - 1];
        if (frame_is_left(top, m, off, fn, site) || top->marker - m > CCT_STACK_GAP)
            d = entry_unwind(a, d, m, off, fn, site);
    }
    if (d != DEPTH(word)) {
        word = set_depth(a, word, d);
        a->lost = 0; /* the unrecorded frames were deeper than the ones left */
    }
    if (d >= a->frame_cap) {
        /* Deeper than the shadow stack: the context stays the deepest recorded one. */
        a->lost++;
        fast_update(a);
        publish(a, fn, FRAMES(a)[d - 1].node);
        return;
    }
    fast_update(a);
    enter_resolve(a, word, fn, site, m, off);
}

/* The fast path calls nothing but, last, enter_resolve() or enter_slow(), so it saves few
 * registers. */
/* ---- the frame signal instead of the tree (SHIM_HOOKS=frames) ----
 *
 * For a program built with -finstrument-functions and frame pointers, the hooks can do
 * what the compiler pass's frame signal does (signals/stackwalk.h): publish where the
 * thread is, and leave the calling context to the observer's stack walk. They store one
 * pair each, with one 16-byte store, and nothing else: no stack, no test (the pair's
 * form, and what the observer and the profile writer make of it, is in stackwalk.h, "the
 * hooks' pair"). The pair goes to slots 10 and 11 of the thread's signal block while it
 * is attached, else to words of the thread's own (cct_fwords), so that threads shim does
 * not observe do not all write the dummy block's line. */

static int cct_frames_on;
static __thread uint64_t *cct_fwords __attribute__((tls_model("initial-exec")));
static __thread uint64_t cct_fscratch[2] __attribute__((tls_model("initial-exec"), aligned(16)));

void cct_use_frames(int on)
{
    __atomic_store_n(&cct_frames_on, on, __ATOMIC_RELAXED);
}

void cct_frames_block(const struct shim_block *b)
{
    uint64_t *w = b == &shim_dummy_block ? cct_fscratch : (uint64_t *)&b->tag[SHIM_SLOT_LOOP];
    __atomic_store_n(&cct_fwords, w, __ATOMIC_RELAXED);
    SIGNAL_FENCE();
}

_Static_assert(SHIM_SLOT_FRAME == SHIM_SLOT_LOOP + 1 && SHIM_SLOT_LOOP % 2 == 0,
               "the frame signal's words are one aligned pair");

/* A thread's first pair: where to publish it, from the block it points at. */
COLD void frames_first(uint64_t word, uint64_t frame)
{
    cct_frames_block(shim_tls_block);
    signal_words_store_pair(cct_fwords, word, frame);
}

HOT_INLINE void frames_publish(uint64_t word, uint64_t frame)
{
    uint64_t *w = cct_fwords;
    if (__builtin_expect(w == NULL, 0)) {
        frames_first(word, frame);
        return;
    }
    signal_words_store_pair(w, word, frame);
}

/* The tree's entry: the hook's, whose frame address and return address it is given. */
static __attribute__((noinline, no_instrument_function, no_sanitize_address)) void
tree_enter(uint64_t fn, uint64_t site, uintptr_t cfa, uintptr_t ra)
{
    struct cct_owner *a = cct_self;
    if (__builtin_expect(a == NULL, 0)) goto slow;
    /* A frame on top (1 <= d < frame_cap) and nothing unusual going on. */
    uint64_t word = __atomic_load_n(&a->depth, __ATOMIC_RELAXED);
    uint32_t d = DEPTH(word);
    if (__builtin_expect(d - 1 >= a->fast_limit, 0)) goto slow;
    const struct cct_frame *top = &FRAMES(a)[d - 1];
    uintptr_t m;
    uint32_t off;
    if (inlined_into(top, fn, site, cfa)) {
        m = top->marker;
        off = top->sp_offset;
    } else {
        /* The marker, when the slot cache has it, and the top frame's return slot above
         * it within the same stack, or the same one, holding a caller this function was
         * inlined into. */
        if ((m = slot_cached(a, cfa, ra, site)) == 0) goto slow;
        off = (uint32_t)(m - cfa);
        if (!(top->marker - m - 1 < CCT_STACK_GAP ||
              (top->marker == m && !frame_is_left(top, m, off, fn, site))))
            goto slow;
    }
    uint32_t cur = top->node, node;
    if (top->fn == fn && cur != CCT_NODE_OVERFLOW) {
        node = cur; /* direct recursion */
    } else if ((node = call_cached(a, word, cur, fn, site)) == CCT_NO_NODE) {
        enter_resolve(a, word, fn, site, m, off);
        return;
    }
    struct cct_frame frame = {
        .marker = m, .fn = fn, .call_site = site, .node = node, .sp_offset = off};
    push(a, word, d, &frame);
    return;
slow:
    enter_slow(a, fn, site, cfa, ra);
}

/* The hooks choose between the tree and the frame signal, and go on to the tree's code
 * with a jump: the frame signal's path saves no registers, and is laid out straight
 * (the tree's path, several times as long, is the one that takes a branch). */
HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    if (__builtin_expect(__atomic_load_n(&cct_frames_on, __ATOMIC_RELAXED), 1)) {
        frames_publish(SHIM_HOOKS_WORD(this_fn, SHIM_HOOKS_TAG(call_site)),
                       *(const uint64_t *)__builtin_frame_address(0) | SHIM_FRAME_HOOKS);
        return;
    }
    tree_enter((uintptr_t)this_fn, (uintptr_t)call_site, HOOK_CFA(),
               (uintptr_t)__builtin_return_address(0));
}

/* Exit in every case the hook's fast path leaves to it; `tail` where the hook was
 * called with a jump (cfa is then the function's own return slot). */
COLD void exit_slow(struct cct_owner *a, uint64_t word, uint64_t fn, uintptr_t cfa, int tail)
{
    uint32_t d = DEPTH(word);
    if (a->alt_switch != 0) d = alt_check(a, cfa, d);
    const struct cct_frame *f = FRAMES(a);
    if (a->lost != 0 && d == a->frame_cap && f[d - 1].marker >= cfa) {
        /* A call that was never pushed returns, to the deepest recorded frame or to
         * another unrecorded one, whose function is not known: name the recorded one. */
        a->lost--;
        fast_update(a);
        publish_top(a, d);
        return;
    }
    /* Frames whose return slot lies below this function's stack pointer were left. Called
     * with a jump, the function's own frame is among them where its marker is only a
     * lower bound (sp_offset 0: no return slot was found near the entry's stack
     * pointer, a large frame): then it is not popped twice (a recursive caller's). */
    uint32_t floor = a->alt_switch ? a->alt_switch - 1 : 0;
    int own = 0;
    while (d > floor && f[d - 1].marker < cfa) {
        own = tail && f[d - 1].fn == fn && f[d - 1].sp_offset == 0;
        d--;
    }
    if (!own && d > 0 && f[d - 1].fn == fn) d--;
    set_depth(a, word, d);
    if (a->alt_switch > d) a->alt_switch = 0;
    if (a->lost != 0 && d < a->frame_cap) a->lost = 0;
    fast_update(a);
    publish_top(a, d);
}

/* gcc calls the exit hook of a function returning void with a jump, once the function's
 * frame is gone: the hook then returns to the function's call site, the one it was
 * passed, its own return slot is the function's (CFA - 8: for the tree, not a frame left
 * below the function's) and the function's frame was the word below it (CFA - 16, where
 * its prologue pushed the frame pointer); otherwise the function's frame is the frame
 * pointer the hook's caller left. */
HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    uintptr_t ra = (uintptr_t)__builtin_return_address(0);
    int tail = ra == (uintptr_t)call_site;
    if (__builtin_expect(__atomic_load_n(&cct_frames_on, __ATOMIC_RELAXED), 1)) {
        frames_publish(SHIM_HOOKS_WORD(ra, SHIM_HOOKS_TAG((uintptr_t)this_fn ^ -(uintptr_t)tail)),
                       *(const uint64_t *)__builtin_frame_address(0) | SHIM_FRAME_HOOKS |
                           SHIM_FRAME_EXIT);
        return;
    }
    struct cct_owner *a = cct_self;
    if (a == NULL) return;
    uint64_t fn = (uintptr_t)this_fn;
    uintptr_t cfa = HOOK_CFA() - (tail ? 8 : 0);
    uint64_t word = __atomic_load_n(&a->depth, __ATOMIC_RELAXED);
    uint32_t d = DEPTH(word);
    /* The fast path: the top frame is this function's, and the only one exit_slow() would
     * pop: its marker is at or above this hook's frame, or (a lower bound of a slot that
     * was not found) below it, then with the frame under it, of another function, above. */
    const struct cct_frame *top;
    if (__builtin_expect(d - 1 < a->fast_limit, 1) && (top = &FRAMES(a)[d - 1])->fn == fn &&
        (top->marker >= cfa || (d >= 2 && top[-1].marker >= cfa && top[-1].fn != fn))) {
        __atomic_store_n(&a->depth, word - 1, __ATOMIC_RELAXED);
        SIGNAL_FENCE();
        publish_top(a, d - 1);
        return;
    }
    exit_slow(a, word, fn, cfa, tail);
}

/* ---- a thread's exit ---- */

/* The kept trees: the nodes of exited threads, copied one after the other into chunks
 * of CCT_KEPT_CHUNK bytes (mapped top-down, one after the other, so the kernel merges
 * them into few mappings); a larger tree gets a mapping of its own. Taken under a spin
 * lock with signals blocked, held for a bump of the pointer or an mmap. */
#define CCT_KEPT_CHUNK ((size_t)1 << 20)
static char *cct_kept_cur, *cct_kept_end;
static int cct_kept_lock;

/* Readers inside cct_read_begin() .. cct_read_end(): while there are any, an exiting
 * thread leaves its old node array mapped (see thread_end()). */
static uint32_t cct_readers;

static NO_HOOK void *kept_alloc(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (bytes > CCT_KEPT_CHUNK / 4) {
        void *p = mmap(NULL, page_round(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    while (__atomic_exchange_n(&cct_kept_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
    char *r = NULL;
    if (cct_kept_cur == NULL || (size_t)(cct_kept_end - cct_kept_cur) < bytes) {
        void *p =
            mmap(NULL, CCT_KEPT_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            cct_kept_cur = p;
            cct_kept_end = cct_kept_cur + CCT_KEPT_CHUNK;
        }
    }
    if (cct_kept_cur != NULL && (size_t)(cct_kept_end - cct_kept_cur) >= bytes) {
        r = cct_kept_cur;
        cct_kept_cur += bytes;
    }
    __atomic_store_n(&cct_kept_lock, 0, __ATOMIC_RELEASE);
    return r;
}

/* In the child of fork(), only the thread that forked runs: no other thread holds the
 * lock or reads. */
static NO_HOOK void kept_after_fork(void)
{
    cct_kept_lock = 0;
    cct_readers = 0;
}

__attribute__((constructor)) static NO_HOOK void kept_at_fork(void)
{
    pthread_atfork(NULL, NULL, kept_after_fork);
}

void cct_read_begin(void)
{
    __atomic_fetch_add(&cct_readers, 1, __ATOMIC_SEQ_CST);
}

void cct_read_end(void)
{
    __atomic_fetch_sub(&cct_readers, 1, __ATOMIC_SEQ_CST);
}

/* The destructor of the exit key: the thread is exiting, and its tree is final. Its
 * nodes [0, count) are copied into the kept trees and the tree's node pointer moved
 * there, then the whole arena is unmapped (the owner's header with its caches, the
 * shadow stack, the child index, the nodes), and the frame signal's stack too. A reader
 * that may hold the old node pointer is inside cct_read_begin() (the counter is read
 * after the pointer is moved, and the reader reads the pointer after counting itself,
 * both sequentially consistent, so one of the two sees the other): then the old nodes
 * used stay mapped where they were, and only the rest is unmapped; so they do when no
 * room can be mapped for the copy. Hooks this thread runs later (instrumented code in a
 * later destructor) record nothing. With signals blocked: a handler must not run a hook
 * on what is being unmapped. */
static NO_HOOK void thread_end(void *unused)
{
    (void)unused;
    sigset_t old;
    block_signals(&old);
    struct cct_owner *a = cct_self;
    cct_self = NULL;
    cct_failed = 1;
    SIGNAL_FENCE();
    if (a != NULL) {
        struct cct_arena *t = a->tree;
        size_t bytes = (size_t)t->count * sizeof(struct cct_node);
        struct cct_node *copy = kept_alloc(bytes);
        int all = 0;
        if (copy != NULL) {
            __builtin_memcpy(copy, a->nodes, bytes);
            __atomic_store_n(&t->nodes, copy, __ATOMIC_SEQ_CST);
            all = __atomic_load_n(&cct_readers, __ATOMIC_SEQ_CST) == 0;
        }
        __atomic_store_n(&t->released, 1, __ATOMIC_RELAXED);
        char *base = (char *)a, *end = base + a->map_bytes, *keep = (char *)a->nodes;
        char *keep_end = keep + page_round(bytes);
        if (all) {
            munmap(base, a->map_bytes);
        } else {
            munmap(base, (size_t)(keep - base));
            if (keep_end < end) munmap(keep_end, (size_t)(end - keep_end));
        }
    }
    restore_signals(&old);
}

/* ---- the calling thread ---- */

int cct_active(void)
{
    return __atomic_load_n(&cct_seen, __ATOMIC_RELAXED);
}

void cct_republish(void)
{
    const struct cct_owner *a = cct_self;
    if (a != NULL) publish_top(a, DEPTH(__atomic_load_n(&a->depth, __ATOMIC_RELAXED)));
}

uint64_t cct_current(void)
{
    const struct cct_owner *a = cct_self;
    if (a == NULL) return 0;
    uint32_t d = DEPTH(__atomic_load_n(&a->depth, __ATOMIC_RELAXED));
    return CCT_SIGNAL(a->index, d > 0 ? FRAMES(a)[d - 1].node : CCT_NODE_ROOT);
}

uint64_t cct_current_method(void)
{
    const struct cct_owner *a = cct_self;
    if (a == NULL) return 0;
    uint32_t d = DEPTH(__atomic_load_n(&a->depth, __ATOMIC_RELAXED));
    return d > 0 ? FRAMES(a)[d - 1].fn : 0;
}

/* ---- readers ---- */

uint32_t cct_arena_count(void)
{
    uint32_t n = __atomic_load_n(&cct_arenas_used, __ATOMIC_ACQUIRE);
    return n < CCT_MAX_THREADS ? n : CCT_MAX_THREADS;
}

const struct cct_arena *cct_arena_at(uint32_t index)
{
    if (index >= CCT_MAX_THREADS) return NULL;
    return __atomic_load_n(&cct_arenas[index], __ATOMIC_ACQUIRE);
}

const struct cct_arena *cct_arena_self(void)
{
    const struct cct_owner *a = cct_self;
    return a != NULL ? a->tree : NULL;
}

int cct_arena_released(const struct cct_arena *a)
{
    return (int)__atomic_load_n(&a->released, __ATOMIC_RELAXED);
}

uint32_t cct_arena_index(const struct cct_arena *a)
{
    return a->index;
}
int32_t cct_arena_tid(const struct cct_arena *a)
{
    return a->tid;
}
uint32_t cct_arena_capacity(const struct cct_arena *a)
{
    return a->capacity;
}
const struct cct_node *cct_arena_nodes(const struct cct_arena *a)
{
    return __atomic_load_n(&a->nodes, __ATOMIC_SEQ_CST);
}

uint32_t cct_arena_node_count(const struct cct_arena *a)
{
    return __atomic_load_n(&a->count, __ATOMIC_ACQUIRE);
}

size_t cct_arena_bytes_per_node(const struct cct_arena *a)
{
    size_t buckets = ((size_t)2 << a->index_max_bits) - ((size_t)1 << a->index_min_bits);
    return sizeof(struct cct_node) + (buckets * sizeof(uint32_t) + a->capacity - 1) / a->capacity;
}

uint64_t cct_arena_overflow(const struct cct_arena *a)
{
    return __atomic_load_n(&a->overflow, __ATOMIC_RELAXED);
}

void cct_set_test_limits(uint32_t nodes, uint32_t frames, uint32_t slot_cache)
{
    if (nodes != 0 && nodes < CCT_MIN_NODES) nodes = CCT_MIN_NODES;
    if (frames != 0 && frames < CCT_MIN_FRAMES) frames = CCT_MIN_FRAMES;
    uint32_t slots = 0;
    if (slot_cache != 0)
        for (slots = 1; slots * 2 <= slot_cache && slots < CCT_SLOT_CACHE; slots *= 2)
            ;
    __atomic_store_n(&cct_limit_nodes, nodes, __ATOMIC_RELAXED);
    __atomic_store_n(&cct_limit_frames, frames, __ATOMIC_RELAXED);
    __atomic_store_n(&cct_limit_slots, slots, __ATOMIC_RELAXED);
}
