/*
 * snapshot.h -- SHIM_SNAPSHOT: the profile of the run so far, written every few seconds
 * while the program runs (see snapshot.c).
 *
 * Owned by snapshot.c; lifecycle.c starts and stops it, observers.c folds what it
 * gathered back into the observers at the stop. What the profile's `snapshot` member
 * says is in the run (struct run_snapshot_info, internal.h), for the profile writer.
 */
#ifndef SHIM_LIBSHIM_SNAPSHOT_H
#define SHIM_LIBSHIM_SNAPSHOT_H

struct shim_run;

/* With SHIM_SNAPSHOT set, start the thread that writes the snapshots (r->snapshot); the
 * observers and the keeper are running. What cannot be had (memory, the thread) is said
 * once, and the run goes on without snapshots. */
void snapshot_start(struct shim_run *r);

/* At the stop, before the observers stop: no snapshot after this one returns (one under
 * way is finished and written). */
void snapshot_stop(struct shim_run *r);

/* At the stop, once every observer and the keeper have stopped, before their tables are
 * combined: each observer's tables, which hold only the periods since the last snapshot,
 * become its whole run's again, so the final profile is what it would have been without
 * snapshots. */
void snapshot_fold(struct shim_run *r);

/* After the final profile: releases everything (nothing without snapshots). */
void snapshot_free(struct shim_run *r);

#endif
