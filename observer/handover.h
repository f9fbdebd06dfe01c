/*
 * handover.h -- how a thread that may allocate gives the observer something new, and
 * takes back what it replaced, without the observer ever allocating, locking or making a
 * system call.
 *
 * The observer's loop may not allocate (observer/README.md), yet some of what it uses
 * must change while it runs: the attribution store's index grows (tag_table.h), and a
 * snapshot of the profile so far (libshim/snapshot.c) swaps the store for an empty one.
 * Both go the same way:
 *
 *  1. another thread prepares the new thing (allocated and touched) and offers it
 *     (handover_offer: a release store of one pointer);
 *  2. the observer, at a batch boundary, finds it (handover_take: one acquire load, and
 *     a compare-and-swap only when there is something), puts it in place, and hands
 *     back what it replaced (handover_return: release stores);
 *  3. the other thread takes that back (handover_reclaim) and frees or reads it.
 *
 * One thing at a time: nothing is offered while the observer is putting the last offer in
 * place (the offer's word then says HANDOVER_TAKEN), nor until what it replaced was
 * reclaimed, so what the offering thread writes along with an offer (an index's size)
 * is never written while the observer reads it. The offering thread may withdraw an
 * offer the observer has not taken (handover_withdraw), for an observer that stopped
 * before its next batch boundary: a compare-and-swap on both sides decides who has it,
 * never both. Everything the offering thread wrote before the offer is visible to the
 * observer after the take, and everything the observer wrote before the return is
 * visible to the other thread after the reclaim.
 */
#ifndef SHIM_OBSERVER_HANDOVER_H
#define SHIM_OBSERVER_HANDOVER_H

#include <stddef.h>

struct handover {
    void *next; /* offered (NULL: nothing; HANDOVER_TAKEN: the observer is putting it in
                   place and has not yet handed back what it replaces) */
    void *back; /* what the observer replaced, not yet reclaimed (NULL: nothing) */
};

#define HANDOVER_TAKEN ((void *)1)

/* The offering thread: whether nothing is under way (no offer, nothing to reclaim, the
 * observer busy with neither), so that an offer now would be accepted. */
static inline int handover_idle(const struct handover *h)
{
    return !__atomic_load_n(&h->next, __ATOMIC_ACQUIRE) &&
           !__atomic_load_n(&h->back, __ATOMIC_ACQUIRE);
}

/* The offering thread: 0, or -1 while something is under way (handover_idle). */
static inline int handover_offer(struct handover *h, void *p)
{
    if (!handover_idle(h)) return -1;
    __atomic_store_n(&h->next, p, __ATOMIC_RELEASE);
    return 0;
}

/* Whether an offer waits, not yet taken: for the observer, whether to take it; for the
 * offering thread, whether it can still withdraw it. */
static inline int handover_pending(const struct handover *h)
{
    void *p = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
    return p && p != HANDOVER_TAKEN;
}

/* The offering thread takes its offer back: the offer, or NULL when the observer took it
 * first (what it replaced then comes back through handover_reclaim). */
static inline void *handover_withdraw(struct handover *h)
{
    void *p = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
    if (!p || p == HANDOVER_TAKEN) return NULL;
    return __atomic_compare_exchange_n(&h->next, &p, NULL, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
               ? p
               : NULL;
}

/* The offering thread: what the observer handed back, or NULL (nothing yet). */
static inline void *handover_reclaim(struct handover *h)
{
    void *p = __atomic_load_n(&h->back, __ATOMIC_ACQUIRE);
    if (p) __atomic_store_n(&h->back, NULL, __ATOMIC_RELEASE);
    return p;
}

/* The observer: the offer, now its own until handover_return(), or NULL (nothing
 * offered, or what the last one replaced not yet reclaimed). The common case, nothing
 * offered, is one load. */
static inline void *handover_take(struct handover *h)
{
    void *p = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
    if (!p || p == HANDOVER_TAKEN || __atomic_load_n(&h->back, __ATOMIC_ACQUIRE)) return NULL;
    return __atomic_compare_exchange_n(&h->next, &p, HANDOVER_TAKEN, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE)
               ? p
               : NULL;
}

/* The observer: hands back what the offer replaced (not NULL); the hand-over is idle
 * again once the offering thread reclaims it. */
static inline void handover_return(struct handover *h, void *old)
{
    __atomic_store_n(&h->back, old, __ATOMIC_RELEASE);
    __atomic_store_n(&h->next, NULL, __ATOMIC_RELEASE);
}

#endif
