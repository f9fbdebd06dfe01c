/*
 * profile_cct.h -- the loader's part for the calling-context members (profile_cct.c):
 * called by profile.c once the tag entries are read, since it ties each entry to the
 * function and the context its reserved slots name.
 */
#ifndef SHIMVIEW_PROFILE_CCT_H
#define SHIMVIEW_PROFILE_CCT_H

#include "shimview/model/profile.h"
#include "shimview/model/profile_table.h"
#include "shimview/model/reader.h"

/* Read and check `modules`, `functions` and `cct` of root into p (each optional), then
 * set every tag entry's function and context; the threads whose `nodes` is null take
 * their trees from table (profile_table.h). 0, or -1 with the message set. */
int profile_read_cct(struct reader *r, const json_t *root, struct profile *p,
                     const struct profile_table *table);

/* Free what profile_read_cct allocated (also after it failed half-way). */
void profile_cct_free(struct profile *p);

#endif /* SHIMVIEW_PROFILE_CCT_H */
