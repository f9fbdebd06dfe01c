/*
 * chain_store.h -- the calling contexts the observer's stack walks found, each stored
 * once, numbered in the order first seen (see chain_store.c).
 *
 * A chain is the function executing now followed by the return addresses from its
 * frame outwards (signals/stackwalk.h). Its number goes into the tag tuple where the
 * context slot's value would be, so the tag table keys on it like on any tag value.
 * Numbers 0 and 1 are fixed: no context (the thread published no frame), and lost (the
 * store was full, or the thread left the frames while they were read; both counted). All
 * memory is allocated and touched by chain_store_init(): the observer loop never
 * allocates.
 */
#ifndef SHIM_OBSERVER_CHAIN_STORE_H
#define SHIM_OBSERVER_CHAIN_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "signals/stackwalk.h"

#define CHAIN_NONE  0u /* no frame published: the thread's root */
#define CHAIN_LOST  1u /* not kept: the store was full, or the frames were left */
#define CHAIN_FIRST 2u

/* What a stored chain holds (chain_store_intern's `cut`): all the frames; the innermost
 * STACKWALK_MAX_DEPTH, the walk cut there; or, after a hooks' exit whose walk was lost
 * (signals/stackwalk.h), the word read and the first return address alone, for the writer
 * to name the sample's function (the sample's context is lost). */
#define CHAIN_WHOLE     0
#define CHAIN_CUT       1
#define CHAIN_LEAF_ONLY 2

/* Default room: chains, and words for all of them (a chain of depth d takes d + 1). */
#define CHAIN_STORE_CHAINS (1u << 18)
#define CHAIN_STORE_WORDS  (1u << 22)

struct chain_store {
    uint64_t *words;     /* chain i is words[start[i] .. start[i] + len[i]) */
    uint32_t *start;     /* per chain */
    uint16_t *len;       /* per chain: words (the function and its return addresses) */
    uint8_t *cut;        /* per chain: CHAIN_WHOLE, CHAIN_CUT or CHAIN_LEAF_ONLY */
    uint64_t *hash;      /* per chain */
    uint32_t *index;     /* open addressing: chain numbers, 0 empty */
    uint32_t index_mask; /* index entries - 1 */
    uint32_t n, cap;     /* chains in use (numbers below n), room */
    uint32_t used, room; /* words in use, room */
    size_t bytes;        /* memory held */
    /* What the walks found (the observer's counts; chain_store_merge adds them). */
    uint64_t walks;     /* samples whose thread published a frame */
    uint64_t unsteady;  /* of those, chains that changed while read twice: lost */
    uint64_t full;      /* of those, samples whose new chain found no room: lost */
    uint64_t cut_walks; /* of those, walks that reached STACKWALK_MAX_DEPTH */
    uint64_t no_stack;  /* of those, samples of a thread whose stack bounds were unknown
                           (or being withdrawn): lost */
};

/* Allocates and touches room for `chains` chains of `words` words in all (0, 0: the
 * defaults above). 0, or -1 when memory runs out. */
int chain_store_init(struct chain_store *s, uint32_t chains, uint32_t words);
void chain_store_free(struct chain_store *s);

/* The number of the chain of function fn and return addresses ret[0 .. nret), of kind
 * `cut` (above), added if new; CHAIN_LOST when it is new and there is no room. No
 * allocation, no system call. */
uint32_t chain_store_intern(struct chain_store *s, uint64_t fn, const uint64_t *ret, unsigned nret,
                            int cut);

static inline const uint64_t *chain_store_chain(const struct chain_store *s, uint32_t id,
                                                unsigned *n)
{
    *n = s->len[id];
    return s->words + s->start[id];
}

/* Adds src's chains to dst; map[i] (src->n entries, malloc'd, for the caller to free)
 * is the number of src's chain i in dst. NULL when memory runs out. */
uint32_t *chain_store_merge(struct chain_store *dst, const struct chain_store *src);

/* Reads the thread's stack from frame address `fp`: the return addresses of the chain
 * of saved frame pointers, innermost first, into out->ret, staying inside [lo, hi) with
 * each frame above the one before (the walk ends at the outermost frame, or where code
 * without frame pointers left something else in the register). Recursion is folded as
 * it is read: when the last 1 to STACKWALK_FOLD_CYCLE return addresses repeat the ones
 * just before them (a function calling itself, or a cycle of a few calling each other,
 * from the same call sites), the repeat is dropped, so a recursion of any depth is one
 * chain, as the writer's trees fold it (walk_profile.c). At most STACKWALK_MAX_READ frames
 * are read; out->cut is 1 when the kept chain reached STACKWALK_MAX_DEPTH or the reads
 * ran out (the outermost frames are then missing). Frames the program has not written
 * since the last walk are in the observer's cache already: reading them again costs the
 * program nothing. */
struct chain_walk_frames {
    uint64_t ret[STACKWALK_MAX_DEPTH];
    unsigned n;
    int cut;
    uint64_t want, want2; /* in: frame addresses to look for among the frames read, 0: none */
    int found;            /* out: the walk read the frame `want` or `want2` */
};
unsigned chain_walk(uint64_t fp, uint64_t lo, uint64_t hi, struct chain_walk_frames *out);

/* The innermost frame alone: its saved frame pointer and return address, when fp is a
 * frame inside [lo, hi) (1), else 0. The observer reads it, checks that the thread is
 * still there, then walks the rest with chain_walk_on(). */
int chain_frame(uint64_t fp, uint64_t lo, uint64_t hi, uint64_t *next, uint64_t *ret);

/* chain_walk() from the frame `next` that frame `fp` saved, after its return address
 * `ret`, which becomes out->ret[0]; out->found says whether out->want or want2 was among the
 * frames read from `next` outward. */
unsigned chain_walk_on(uint64_t fp, uint64_t next, uint64_t ret, uint64_t hi,
                       struct chain_walk_frames *out);

/* Whether the frames a walk read are the chain of the pair it read first: function fn
 * with frame fp, the frame word's low bits `mark` and, for the hooks' entries, the call
 * site's 16 bits `tag` (signals/stackwalk.h), when reading the pair again after the
 * innermost frame gave fn2, fp2, mark2, tag2, and `found` says whether the walk read
 * fp2's frame. So they are when the thread is still in the frame with the same function;
 * in it with another, where one of the two reads is a hooks' exit (SHIM_FRAME_EXIT: the
 * frame is the leaving function's, or the one it ran inlined into, and the first return
 * address read is the caller's either way) or both are hooks' entries from the same call
 * site (a function inlined there, entered or left: the frame is still the same call's);
 * deeper (in a callee: the frame was not left; after an exit, whose frame is one that
 * returned, the caller's next call takes the same frame address where the caller's stack
 * pointer is the same at both calls, as with frame pointers it is); or back in a frame
 * the walk read (a caller). Not otherwise: the same frame with
 * another function is a sibling call from the same caller, whose return address may be the one
 * read. */
static inline int chain_steady(uint64_t fn, uint64_t fp, uint64_t mark, unsigned tag, uint64_t fn2,
                               uint64_t fp2, uint64_t mark2, unsigned tag2, int found)
{
    if (fp2 == fp)
        return fn2 == fn || ((mark | mark2) & SHIM_FRAME_EXIT) != 0 ||
               ((mark & mark2 & SHIM_FRAME_HOOKS) && tag == tag2);
    return (fp2 && fp2 < fp) || found;
}

#endif
