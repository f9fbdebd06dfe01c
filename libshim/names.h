/*
 * names.h -- names for tag slots, tag values and counters (see names.c).
 */
#ifndef SHIM_LIBSHIM_NAMES_H
#define SHIM_LIBSHIM_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Hold the lock while reading names (the program may add names at any moment). */
void names_lock(void);
void names_unlock(void);

/* Under the lock: */
uint32_t names_tag_slots_named(void);     /* mask of tag slots with a slot or value name */
uint32_t names_counters_named(void);      /* mask of named counter slots */
const char *names_slot(unsigned slot);    /* NULL when unnamed */
const char *names_counter(unsigned slot); /* NULL when unnamed */
const char *names_tag(unsigned slot, uint64_t value); /* NULL when unnamed */
/* The named tag values, in order of slot and value: how many, and the i-th. */
size_t names_tag_count(void);
const char *names_tag_at(size_t i, unsigned *slot, uint64_t *value);

/* In a forked child: the parent's lock state is meaningless. */
void names_after_fork_child(void);

#endif
