/*
 * value_names.h -- what each (slot, value) of a trace record is called, from the
 * profile's tag entries (see value_names.c).
 */
#ifndef SHIMVIEW_VALUE_NAMES_H
#define SHIMVIEW_VALUE_NAMES_H

#include "shimview/model/profile.h"

#include <stddef.h>
#include <stdint.h>

/* What each (slot, value) is called, from the profile's tag entries. */
struct value_name {
    uint64_t value;
    const char *name;
};

struct value_names {
    const struct profile *p;
    size_t *n;                   /* per slot */
    struct value_name **by_slot; /* per slot, sorted by value */
    char **owned;                /* names made here (functions, contexts, loops), to free */
    size_t nowned, cap_owned;
};

/* 0, or -1 if memory ran out. */
int value_names_init(struct value_names *vn, const struct profile *p);
void value_names_free(struct value_names *vn);

/* The name of value in slot: its name from the profile, else as tag_value_label(). */
const char *value_names_get(const struct value_names *vn, size_t slot, uint64_t value, char *buf,
                            size_t len);

/* A frame or slice name: name when there is one, else "slotname=value" (0:
 * TAG_VALUE_UNSET, tags.h), in buf. */
const char *tag_value_label(const char *slot_name, const char *name, uint64_t value, char *buf,
                            size_t len);

#endif /* SHIMVIEW_VALUE_NAMES_H */
