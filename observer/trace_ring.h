/*
 * trace_ring.h -- the ring through which the observer hands every sample period to the
 * trace writer (docs/trace-format.md): one producer (the observer), one consumer (the
 * writer thread), fixed-size records of 64-bit words, a power-of-two capacity, no lock.
 *
 * The observer never waits: when the ring is full it drops the record and counts it.
 * The producer publishes a record by a release store of `head` after writing it; the
 * consumer frees space by a release store of `tail` after copying records out. Each
 * index has its own cache line, so the two sides do not write the same line.
 */
#ifndef SHIM_OBSERVER_TRACE_RING_H
#define SHIM_OBSERVER_TRACE_RING_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct trace_ring {
    _Alignas(64) uint64_t head;    /* records published: written by the observer only */
    _Alignas(64) uint64_t tail;    /* records consumed: written by the writer only */
    _Alignas(64) uint64_t dropped; /* records the observer could not place: its own */
    uint64_t mask;                 /* capacity - 1, in records */
    unsigned words;                /* per record */
    uint64_t *slots;               /* capacity * words */
};

/* A ring of about `bytes` (rounded down to a power of two of records, at least 64);
 * 0, or -1 out of memory. Its memory is touched here, not in the observer's loop. */
static inline int trace_ring_init(struct trace_ring *r, unsigned words, size_t bytes)
{
    uint64_t cap = 64;
    memset(r, 0, sizeof *r);
    while (cap * 2 * words * sizeof(uint64_t) <= bytes)
        cap *= 2;
    r->slots = calloc(cap * words, sizeof *r->slots);
    if (!r->slots) return -1;
    memset(r->slots, 0, cap * words * sizeof *r->slots);
    r->mask = cap - 1;
    r->words = words;
    return 0;
}

static inline void trace_ring_free(struct trace_ring *r)
{
    free(r->slots);
    r->slots = NULL;
}

/* The producer: the slot for the next record, or NULL when the ring is full (counted as
 * dropped). Publish it with trace_ring_push() once written. */
static inline uint64_t *trace_ring_slot(struct trace_ring *r)
{
    uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    if (r->head - tail > r->mask) {
        r->dropped++;
        return NULL;
    }
    return r->slots + (r->head & r->mask) * r->words;
}

static inline void trace_ring_push(struct trace_ring *r)
{
    __atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
}

/* The consumer: copy up to `max` records into out; returns how many. */
static inline uint64_t trace_ring_pop(struct trace_ring *r, uint64_t *out, uint64_t max)
{
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), tail = r->tail, n = 0;
    while (tail + n < head && n < max) {
        memcpy(out + n * r->words, r->slots + ((tail + n) & r->mask) * r->words,
               r->words * sizeof *out);
        n++;
    }
    __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
    return n;
}

#endif
