/*
 * tags.h -- a profile's tag entries as reports and plots show them: named, sorted by
 * samples (see tags.c).
 */
#ifndef SHIMVIEW_TAGS_H
#define SHIMVIEW_TAGS_H

#include <stddef.h>
#include <stdint.h>

#include "shimview/model/profile.h"
#include "shimview/model/profile_threads.h"

/* What an unnamed value 0 of a tag slot reads as: every thread's slots hold 0 until it
 * signals (a program that signals 0 on purpose names it with shim_name_tag). */
#define TAG_VALUE_UNSET "(before the first signal)"

struct named_tag {
    const struct profile_tag *tag;
    char *name;              /* names joined by '/', or "slot=value" where a value has no name */
    enum thread_group group; /* tag_thread_group's */
};

/* The entries sorted by samples (file order among equals), each named; those of other
 * processes, then idle, after the program's (profile_threads.h); with `other` appended
 * when with_other is set and it has samples. NULL if memory ran out. */
struct named_tag *named_tags(const struct profile *p, int with_other, size_t *n);
/* The same without `other` and not ranked: the entries in file order within each group, for
 * a caller that orders them itself (a large profile has 10^6). */
struct named_tag *named_tags_unranked(const struct profile *p, size_t *n);
void named_tags_free(struct named_tag *t, size_t n);

/* A tag entry's name, allocated: "other", "(untagged)", the slots' value names, or for
 * an entry of another thread than the program's, "(other processes)" or "(idle)". */
char *tag_entry_name(const struct profile *p, const struct profile_tag *t);

/* Value i of entry t named as its reserved slot says (a function, a calling context, a
 * loop), allocated; NULL when slot i is none of those, names nothing, or memory ran
 * out. */
char *tag_value_name(const struct profile *p, const struct profile_tag *t, size_t i);

#endif
