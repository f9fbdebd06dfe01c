/*
 * observer_cut.h -- a cut: the observer ends one interval of its run and begins the next
 * at a batch boundary, without stopping, so that another thread can write the profile of
 * the run so far (libshim/snapshot.c).
 *
 * The store is too large to copy at a batch boundary, so it is swapped: a cut record
 * comes to the observer through its `cut` handover (observer/handover.h) holding empty
 * tables of the observer's shape, prepared by another thread; the observer exchanges its
 * tag (and path) table with them, so that it goes on into empty tables and the record
 * goes back holding every period attributed since the last cut. The rest of the
 * observer's state is small and cumulative (the totals, the three log histograms, the
 * counts of the chain store), and is copied into the record as it stands at the cut. So
 * every period is in exactly one interval's tables, and the totals copied at a cut count
 * exactly the periods in the tables of that cut and of the cuts before.
 *
 * The chain store is not swapped: the chains found so far keep their numbers and never
 * change, so the record carries only its counts and how many chains there are; the
 * arrays stay the observer's, and a reader may read the chains below that number while
 * the observer adds others.
 *
 * Whoever swaps tables must not run while the keeper grows them (libshim/keeper.c): the
 * offering thread holds the keeper off from the offer until the record comes back.
 */
#ifndef SHIM_OBSERVER_OBSERVER_CUT_H
#define SHIM_OBSERVER_OBSERVER_CUT_H

#include "observer/observer.h"

struct observer_cut {
    struct tag_table tags, paths; /* empty when offered; the interval's when handed back */
    struct observer_totals totals;
    struct path_totals path_totals;
    struct loghist period, gap, cpc; /* since the start */
    struct chain_store chains;       /* the observer's store at the cut: its counts and n,
                                        its arrays (not owned) */
    uint64_t first_tsc, last_tsc;    /* the run's first sample, and the cut's */
};

/* A record for observer o, its tables empty and of o's shape (read only from fields that
 * do not change once o is initialised). 0, or -1 out of memory (nothing left to free). */
int observer_cut_init(struct observer_cut *c, const struct observer *o);

/* Empty tables again, for the next cut, after the last interval's were released with
 * observer_cut_release_tables. 0, or -1 out of memory. */
int observer_cut_refill(struct observer_cut *c, const struct observer *o);

/* An empty table of t's shape (its limit, its detail records, its `by` slots). 0, or -1
 * out of memory. */
int observer_cut_table_like(struct tag_table *fresh, const struct tag_table *t);

/* Frees the record's tables (not the chain store's arrays, which are the observer's). */
void observer_cut_release_tables(struct observer_cut *c);
void observer_cut_free(struct observer_cut *c);

/* The observer, at a batch boundary whose first sample started at tsc: takes a record
 * offered through o->cut, swaps, and hands it back. */
void observer_cut_take(struct observer *o, uint64_t tsc);

#endif
