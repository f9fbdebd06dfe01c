/*
 * keys.h -- sorted indexes of (key, position) searched by bisection, for the profile's
 * lookups by id, address or thread (see keys.c).
 */
#ifndef SHIMVIEW_KEYS_H
#define SHIMVIEW_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* A sorted index: element i's key, for lookups by bisection. */
struct key_ref {
    uint64_t key;
    size_t i;
};

/* The n elements of size `size` at base, keyed by the uint64_t at `offset` in each,
 * sorted by key (then position). NULL if memory ran out. */
struct key_ref *key_index(const void *base, size_t n, size_t size, size_t offset);

/* The position of the first element with key, or -1. */
long key_find(const struct key_ref *k, size_t n, uint64_t key);

#endif /* SHIMVIEW_KEYS_H */
