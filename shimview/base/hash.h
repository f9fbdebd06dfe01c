/*
 * hash.h -- the hash of a string that shimview's tables use (FNV-1a, folded to a size_t):
 * open-addressed tables of names, where a profile of 10^6 entries has names that differ
 * only in their last digits (glibc's hsearch_r hashes those into long chains).
 */
#ifndef SHIMVIEW_HASH_H
#define SHIMVIEW_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline size_t hash_string(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 32));
}

#endif /* SHIMVIEW_HASH_H */
