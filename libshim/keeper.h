/*
 * keeper.h -- the thread that grows the observers' attribution stores ahead of need.
 *
 * Owned by keeper.c; started and stopped by observers.c.
 */
#ifndef SHIM_LIBSHIM_KEEPER_H
#define SHIM_LIBSHIM_KEEPER_H

#include <pthread.h>
#include <sched.h>

#include "observer/tag_table.h"

#define KEEPER_MAX_TABLES 130 /* a tag and a path table per observer (SHIM_MAX_OBSERVERS) */

struct keeper {
    pthread_t thread;
    struct tag_table *table[KEEPER_MAX_TABLES];
    unsigned n_tables;
    int running;
    int failed; /* a table could not be grown: out of memory */
    /* Held by the keeper while it prepares, and by whoever swaps an observer's tables
     * (a snapshot's cut, observer/observer_cut.h) until the observer has swapped them. */
    pthread_mutex_t lock;
    _Alignas(64) int stop;
    char pad[60];
};

/* Adds a table to keep (before keeper_start). */
void keeper_add(struct keeper *k, struct tag_table *t);

/* Starts the thread on the CPUs of `cpus` (the observer's: its wake-ups then show as
 * interrupted sample periods, counted, rather than taking time from the program).
 * 0, or the pthread_create error. */
int keeper_start(struct keeper *k, const cpu_set_t *cpus);

/* Holds the keeper off (between two of its rounds) until keeper_resume(); valid from
 * keeper_start() on, whether the thread started or not. */
void keeper_pause(struct keeper *k);
void keeper_resume(struct keeper *k);

/* Stops and joins the thread (nothing if it is not running). The observers must have
 * stopped first or be stopped right after: the tables are theirs again. */
void keeper_stop(struct keeper *k);

#endif
