/*
 * profile_table.h -- the table file of a large profile (docs/profile-format.md, "Large
 * profiles"; formats/profile_table.proto), read into the profile (profile_table.c).
 */
#ifndef SHIMVIEW_PROFILE_TABLE_H
#define SHIMVIEW_PROFILE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "shimview/model/profile.h"
#include "shimview/model/reader.h"

/* What a table file holds once its entries are in the profile: its trees, until the
 * calling-context reader has taken them (profile_table_tree), then freed. */
struct profile_table;

/* When the profile has `table`: read the file it names (beside the profile), check that it
 * is the one written with it, and add its entries to p->tags, keeping the order by samples.
 * *out is the table (NULL without one), for profile_table_tree(); free it with
 * profile_table_free(). 0, or -1 with the message set. */
int profile_read_table(struct reader *r, const json_t *root, struct profile *p,
                       struct profile_table **out);

/* The tree the table holds for thread index `index`: n rows of parent, function id + 1
 * and site + 1 (0: none). 0, or -1 when the table has none. */
int profile_table_tree(const struct profile_table *t, uint64_t index, size_t *n,
                       const uint64_t **parent, const uint64_t **function, const uint64_t **site);

void profile_table_free(struct profile_table *t);

#endif
