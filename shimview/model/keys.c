/*
 * keys.c -- the profile's lookups: a sorted array of (key, index) built once and
 * searched by bisection, so a profile with many threads, functions or tag entries loads
 * in n log n. Every part of the reader that ties one member to another by a number
 * (profile_cct.c, profile_pass.c, profile_threads.c) uses these.
 */
#include "shimview/model/keys.h"

#include <stdlib.h>
#include <string.h>

static int by_key(const void *a, const void *b)
{
    const struct key_ref *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

struct key_ref *key_index(const void *base, size_t n, size_t size, size_t offset)
{
    struct key_ref *k = malloc((n ? n : 1) * sizeof *k);
    if (!k) return NULL;
    for (size_t i = 0; i < n; i++) {
        memcpy(&k[i].key, (const char *)base + i * size + offset, sizeof k[i].key);
        k[i].i = i;
    }
    qsort(k, n, sizeof *k, by_key);
    return k;
}

long key_find(const struct key_ref *k, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && k[lo].key == key ? (long)k[lo].i : -1;
}
