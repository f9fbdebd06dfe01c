/*
 * loghist.h -- geometric histograms for quantities that span decades: sample periods,
 * gaps between kept samples, CPC.
 *
 * A bucket index comes straight from the bits of the IEEE double: the exponent picks the
 * power of two, the top `sub_bits` of the mantissa pick one of 2^sub_bits equal slices
 * of it. No log(), no division, no loop: a few integer operations, cheap enough for the
 * observer's loop. Bucket edges are 2^e * (1 + k/2^sub_bits), exact in binary.
 *
 * Each bucket also remembers its value while every value that landed in it was the same
 * one: TSC readings are integers that often step by tens of cycles, and a CPC is exactly
 * 1 whenever the two windows read alike, so a quantile that falls in such a bucket is
 * that value exactly, not the bucket's geometric midpoint (a CPC median of 1.008 where
 * every value was 1).
 */
#ifndef SHIM_OBSERVER_LOGHIST_H
#define SHIM_OBSERVER_LOGHIST_H

#include <stdint.h>
#include <string.h>

struct loghist {
    int sub_bits;         /* slices per power of two: 2^sub_bits */
    int exp_min, exp_max; /* covers [2^exp_min, 2^exp_max) */
    uint32_t nbuckets;    /* (exp_max - exp_min) << sub_bits */
    uint64_t underflow;   /* values below 2^exp_min, zero and negatives included */
    uint64_t overflow;    /* values at or above 2^exp_max, NaN and infinity included */
    uint64_t count;       /* every value added */
    double sum, min, max; /* exact, over finite values */
    uint64_t *bucket;     /* nbuckets counters, owned */
    double *sole;         /* per bucket: its one value while all were equal, -1 once two
                           * differed, 0 while empty; owned */
};

/* Allocates the buckets; returns 0 or -1 (out of memory). */
int loghist_init(struct loghist *h, int sub_bits, int exp_min, int exp_max);
void loghist_free(struct loghist *h);
void loghist_reset(struct loghist *h);
/* Adds src's values to dst (made by loghist_init with the same parameters). */
void loghist_merge(struct loghist *dst, const struct loghist *src);

/* Index of the bucket holding v, or -1 below the range, or nbuckets above it. */
static inline int64_t loghist_index(const struct loghist *h, double v)
{
    uint64_t bits;
    if (v != v) /* NaN, whatever its sign bit */
        return h->nbuckets;
    memcpy(&bits, &v, sizeof bits);
    if ((int64_t)bits <= 0) /* negative, -0.0 and +0.0 */
        return -1;
    int64_t e = (int64_t)(bits >> 52) - 1023 - h->exp_min; /* inf: huge e */
    if (e < 0) return -1;
    if (e >= (int64_t)(h->exp_max - h->exp_min)) return h->nbuckets;
    return (e << h->sub_bits) | (int64_t)((bits >> (52 - h->sub_bits)) & ((1u << h->sub_bits) - 1));
}

static inline void loghist_add(struct loghist *h, double v)
{
    int64_t i = loghist_index(h, v);
    h->count++;
    if (i < 0)
        h->underflow++;
    else if (i >= (int64_t)h->nbuckets)
        h->overflow++;
    else {
        double *s = &h->sole[i];
        *s = h->bucket[i]++ == 0 || *s == v ? v : -1.0;
    }
    if (v == v && v - v == 0) { /* finite */
        h->sum += v;
        if (v < h->min) h->min = v;
        if (v > h->max) h->max = v;
    }
}

/* Lower edge of bucket i; the upper edge is loghist_lower(h, i + 1). */
double loghist_lower(const struct loghist *h, uint32_t i);

/* Value at quantile q in [0,1]: the value of the bucket holding that rank when every
 * value in it was the same, else its geometric midpoint; the exact minimum or maximum
 * when the rank is among the values below or above the range; NaN when empty. *exact
 * (when not NULL): 1 when the value is one that was added, 0 for a midpoint. */
double loghist_quantile_exact(const struct loghist *h, double q, int *exact);
static inline double loghist_quantile(const struct loghist *h, double q)
{
    return loghist_quantile_exact(h, q, NULL);
}

#endif
