/*
 * chain_store.c -- each distinct calling context a stack walk found, stored once.
 *
 * Chains are kept end to end in one word array, with their start, length, hash and
 * whether the walk was cut per chain number; an open-addressing index of chain numbers
 * (at most half full) finds a chain by its hash, then compares the words. Everything
 * is allocated with mmap(MAP_POPULATE) at init, so the observer's interning touches
 * only memory that is already there. A full store answers CHAIN_LOST and counts it,
 * never allocates: the default room (2^18 chains, 2^22 words, 38 MiB) is more than the
 * contexts of the call-dense programs bench/ runs (docs/calling-contexts.md).
 */
#include "observer/chain_store.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *map(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static size_t sizes(uint32_t chains, uint32_t words, size_t part[6])
{
    part[0] = (size_t)words * sizeof(uint64_t);
    part[1] = (size_t)chains * sizeof(uint32_t);
    part[2] = (size_t)chains * sizeof(uint16_t);
    part[3] = (size_t)chains;
    part[4] = (size_t)chains * sizeof(uint64_t);
    part[5] = (size_t)chains * 2 * sizeof(uint32_t);
    size_t total = 0;
    for (int i = 0; i < 6; i++) {
        part[i] = (part[i] + 63) & ~(size_t)63;
        total += part[i];
    }
    return total;
}

int chain_store_init(struct chain_store *s, uint32_t chains, uint32_t words)
{
    memset(s, 0, sizeof *s);
    if (!chains) chains = CHAIN_STORE_CHAINS;
    if (!words) words = CHAIN_STORE_WORDS;
    uint32_t pow = 4;
    while (pow < chains && pow < (1u << 30))
        pow <<= 1;
    chains = pow;
    size_t part[6], total = sizes(chains, words, part);
    char *m = map(total);
    if (!m) return -1;
    s->words = (uint64_t *)m;
    s->start = (uint32_t *)(m += part[0]);
    s->len = (uint16_t *)(m += part[1]);
    s->cut = (uint8_t *)(m += part[2]);
    s->hash = (uint64_t *)(m += part[3]);
    s->index = (uint32_t *)(m += part[4]);
    s->index_mask = 2 * chains - 1;
    s->cap = chains;
    s->room = words;
    s->n = CHAIN_FIRST; /* 0 and 1 are fixed and hold no words */
    s->bytes = total;
    return 0;
}

void chain_store_free(struct chain_store *s)
{
    if (s->words) munmap(s->words, s->bytes);
    memset(s, 0, sizeof *s);
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

uint32_t chain_store_intern(struct chain_store *s, uint64_t fn, const uint64_t *ret, unsigned nret,
                            int cut)
{
    unsigned n = nret + 1;
    uint64_t h = mix(0x9e3779b97f4a7c15ull ^ n ^ ((uint64_t)cut << 40), fn);
    for (unsigned i = 0; i < nret; i++)
        h = mix(h, ret[i]);
    h |= 1; /* never 0 */
    for (uint32_t i = (uint32_t)h & s->index_mask;; i = (i + 1) & s->index_mask) {
        uint32_t id = s->index[i];
        if (!id) {
            if (s->n == s->cap || s->room - s->used < n || n > UINT16_MAX) {
                s->full++;
                return CHAIN_LOST;
            }
            id = s->n++;
            s->start[id] = s->used;
            s->len[id] = (uint16_t)n;
            s->cut[id] = (uint8_t)cut;
            s->hash[id] = h;
            s->words[s->used] = fn;
            memcpy(s->words + s->used + 1, ret, nret * sizeof *ret);
            s->used += n;
            s->index[i] = id;
            return id;
        }
        const uint64_t *w = s->words + s->start[id];
        if (s->hash[id] == h && s->len[id] == n && s->cut[id] == cut && w[0] == fn &&
            !memcmp(w + 1, ret, nret * sizeof *ret))
            return id;
    }
}

uint32_t *chain_store_merge(struct chain_store *dst, const struct chain_store *src)
{
    uint32_t *map = malloc((src->n ? src->n : 1) * sizeof *map);
    if (!map) return NULL;
    map[CHAIN_NONE] = CHAIN_NONE;
    if (src->n > CHAIN_LOST) map[CHAIN_LOST] = CHAIN_LOST;
    uint64_t full = dst->full;
    for (uint32_t i = CHAIN_FIRST; i < src->n; i++) {
        unsigned n;
        const uint64_t *c = chain_store_chain(src, i, &n);
        map[i] = chain_store_intern(dst, c[0], c + 1, n - 1, src->cut[i]);
    }
    dst->full = full + src->full; /* the caller adds the samples of chains that found no
                                     room here (observer_merge) */
    dst->no_stack += src->no_stack;
    dst->walks += src->walks;
    dst->unsteady += src->unsteady;
    dst->cut_walks += src->cut_walks;
    return map;
}

/* Whether the last p return addresses repeat the p before them. */
static inline int repeats(const uint64_t *r, unsigned n, unsigned p)
{
    if (n < 2 * p) return 0;
    for (unsigned i = 0; i < p; i++)
        if (r[n - 1 - i] != r[n - 1 - p - i]) return 0;
    return 1;
}

/* The program writes its frames with plain stores while this reads them: the reads
 * are volatile, and neither sanitizer looks at them (ASan would take the program's
 * stack redzones for a bug of ours, TSan the program's stores for a race with us). */
__attribute__((noinline, no_sanitize("address", "thread"))) int
chain_frame(uint64_t fp, uint64_t lo, uint64_t hi, uint64_t *next, uint64_t *ret)
{
    if (!(fp >= lo && fp <= hi - 16 && !(fp & 7))) return 0;
    const volatile uint64_t *f = (const volatile uint64_t *)(uintptr_t)fp;
    *next = f[0];
    *ret = f[1];
    return 1;
}

static unsigned walk_from(uint64_t fp, uint64_t lo, uint64_t hi, struct chain_walk_frames *out,
                          unsigned n);

unsigned chain_walk(uint64_t fp, uint64_t lo, uint64_t hi, struct chain_walk_frames *out)
{
    return walk_from(fp, lo, hi, out, 0);
}

unsigned chain_walk_on(uint64_t fp, uint64_t next, uint64_t ret, uint64_t hi,
                       struct chain_walk_frames *out)
{
    out->cut = 0;
    out->found = 0;
    if (!ret) return out->n = 0;
    out->ret[0] = ret;
    if (next <= fp) return out->n = 1;
    return walk_from(next, fp + 16, hi, out, 1);
}

__attribute__((noinline, no_sanitize("address", "thread"))) static unsigned
walk_from(uint64_t fp, uint64_t lo, uint64_t hi, struct chain_walk_frames *out, unsigned n)
{
    out->cut = 0;
    out->found = 0;
    for (unsigned read = 0; fp >= lo && fp <= hi - 16 && !(fp & 7); read++) {
        if (n == STACKWALK_MAX_DEPTH || read == STACKWALK_MAX_READ) {
            out->cut = 1;
            break;
        }
        if (fp == out->want || fp == out->want2) out->found = 1;
        const volatile uint64_t *f = (const volatile uint64_t *)(uintptr_t)fp;
        uint64_t next = f[0], ret = f[1];
        if (!ret) break;
        out->ret[n++] = ret;
        for (unsigned p = 1; p <= STACKWALK_FOLD_CYCLE; p++)
            if (repeats(out->ret, n, p)) {
                n -= p;
                break;
            }
        if (next <= fp) break;
        fp = next;
    }
    out->n = n;
    return n;
}
