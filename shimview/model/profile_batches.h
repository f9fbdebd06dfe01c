/*
 * profile_batches.h -- reading the time batches of a profile (docs/profile-format.md,
 * `batches` and `detail.batches`): the attributed samples of each batch of the run, and
 * for a tuple with a detail record its samples and each rate's sums per batch, from
 * which shimview's batch-means intervals are formed (intervals.h).
 */
#ifndef SHIMVIEW_PROFILE_BATCHES_H
#define SHIMVIEW_PROFILE_BATCHES_H

#include "shimview/model/profile.h"
#include "shimview/model/reader.h"

/* The top-level `batches` (absent in older profiles: p->has_batches stays 0). Checked
 * against samples: its counts add up to the attributed samples. */
int profile_read_batches(struct reader *r, const json_t *root, struct profile *p);

/* An entry's `detail.batches` from the detail object d, into t->batches (left NULL when
 * absent). The profile's top-level `batches` must have been read. */
int profile_read_entry_batches(struct reader *r, const json_t *d, struct profile_tag *t,
                               const struct profile *p);

/* A copy of b (count batches, nrates rates) with every array its own; NULL out of memory. */
struct profile_batches *profile_batches_copy(const struct profile_batches *b, size_t count,
                                             size_t nrates);
void profile_batches_free(struct profile_batches *b);

#endif /* SHIMVIEW_PROFILE_BATCHES_H */
