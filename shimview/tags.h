/*
 * tags.h -- a profile's tag entries as reports and plots show them: named, sorted by
 * samples (see tags.c).
 */
#ifndef SHIMVIEW_TAGS_H
#define SHIMVIEW_TAGS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct named_tag {
    const struct profile_tag *tag;
    char *name; /* names joined by '/', or "slot=value" where a value has no name */
};

/* The entries sorted by samples (file order among equals), each named; with `other`
 * appended when with_other is set and it has samples. NULL if memory ran out. */
struct named_tag *named_tags(const struct profile *p, int with_other, size_t *n);
void named_tags_free(struct named_tag *t, size_t n);

/* A tag entry's name, allocated: "other", "(untagged)", or the slots' value names. */
char *tag_entry_name(const struct profile *p, const struct profile_tag *t);

/* v with thousands separators: 1234567 -> "1,234,567". */
const char *fmt_count(uint64_t v, char *buf, size_t len);

#endif
