/*
 * between.h -- what happened between two profiles of one run: a snapshot and a later
 * snapshot, or the final profile (SHIM_SNAPSHOT, docs/long-running.md). See between.c.
 */
#ifndef SHIMVIEW_BETWEEN_H
#define SHIMVIEW_BETWEEN_H

#include "shimview/model/profile.h"

#include <stddef.h>

/* Turn `after` into the profile of the interval between `before` and it: every count of
 * every tag entry (and `other`), of `samples` and of each rate's sums becomes after's
 * minus before's, the shares and rates are formed again from them, and `run` covers the
 * interval (start_unix_ns at before's end, duration_ns and tsc_cycles the difference).
 * The rate distributions and the period histograms cannot be taken apart: the entries
 * lose theirs (has_dist 0) and the histograms stay the whole run's. Entries are matched
 * by thread and values, a calling context by its path of functions (stack walks number
 * contexts anew in each profile). Both must be profiles of one run (the same program,
 * pid and start) with after no earlier than before. 0, or -1 with why ("B is not a later
 * profile of A's run: ...") in why; after is then partly changed and must be freed. */
int interval_subtract(struct profile *after, const struct profile *before, char *why,
                      size_t whylen);

/* Whether before and after are profiles of one run, after no earlier: 0, or -1 with why. */
int interval_same_run(const struct profile *after, const struct profile *before, char *why,
                      size_t whylen);

#endif /* SHIMVIEW_BETWEEN_H */
