/*
 * profile_pass.h -- the loader's part for what the compiler pass adds to a profile
 * (profile_pass.c): each function's side table, the top-level `paths`, and the tag
 * entries tied to the functions and loops their slots 8 and 10 name; and the reading of
 * one entry, which profile.c does for the tag entries and lends to the paths'.
 */
#ifndef SHIMVIEW_PROFILE_PASS_H
#define SHIMVIEW_PROFILE_PASS_H

#include "shimview/model/profile.h"
#include "shimview/model/keys.h"
#include "shimview/model/reader.h"

/* The reserved slots the pass writes (signals/path.h): the function, the loop; a loop
 * signal is the function's address | loop number << PROFILE_LOOP_SHIFT. */
#define PROFILE_SLOT_FUNCTION 8
#define PROFILE_SLOT_LOOP     10
#define PROFILE_LOOP_SHIFT    48

/* ---- profile_pass.c ---- */

/* Read and check `functions[].pass` and `paths` of root into p, after `functions` (and
 * `cct`, if any) were read, with the functions indexed by id and by address; then tie
 * every tag entry to the function and the loop its slots 8 and 10 name. 0, or -1 with
 * the message set. */
int profile_read_pass(struct reader *r, const json_t *root, struct profile *p,
                      const struct key_ref *fn_by_id, const struct key_ref *fn_by_address);

/* Free what profile_read_pass allocated (also after it failed half-way). */
void profile_pass_free(struct profile *p);

/* ---- profile.c ---- */

/* One entry of `paths.entries` (is_other 0) or `paths.other` (1) read as a tag entry is,
 * with the tuple [function address, path number]; and freeing an entry. */
int profile_read_entry(struct reader *r, const json_t *v, struct profile_tag *t,
                       const struct profile *p, int is_other);
void profile_free_entry(struct profile_tag *t, size_t nrates);

#endif /* SHIMVIEW_PROFILE_PASS_H */
