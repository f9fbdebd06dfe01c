/*
 * loghist.c -- allocation and read-out of geometric histograms (see loghist.h; the hot
 * path, loghist_add, is inline there).
 */
#include "observer/loghist.h"

#include <math.h>
#include <stdlib.h>

int loghist_init(struct loghist *h, int sub_bits, int exp_min, int exp_max)
{
    memset(h, 0, sizeof *h);
    h->sub_bits = sub_bits;
    h->exp_min = exp_min;
    h->exp_max = exp_max;
    h->nbuckets = (uint32_t)(exp_max - exp_min) << sub_bits;
    h->bucket = calloc(h->nbuckets, sizeof *h->bucket);
    h->sole = calloc(h->nbuckets, sizeof *h->sole);
    if (!h->bucket || !h->sole) {
        loghist_free(h);
        return -1;
    }
    loghist_reset(h);
    return 0;
}

void loghist_reset(struct loghist *h)
{
    memset(h->bucket, 0, h->nbuckets * sizeof *h->bucket);
    memset(h->sole, 0, h->nbuckets * sizeof *h->sole);
    h->underflow = h->overflow = h->count = 0;
    h->sum = 0;
    h->min = INFINITY;
    h->max = -INFINITY;
}

void loghist_free(struct loghist *h)
{
    free(h->bucket);
    free(h->sole);
    h->bucket = NULL;
    h->sole = NULL;
}

double loghist_lower(const struct loghist *h, uint32_t i)
{
    int e = h->exp_min + (int)(i >> h->sub_bits);
    double frac = 1.0 + (double)(i & ((1u << h->sub_bits) - 1)) / (double)(1u << h->sub_bits);
    return ldexp(frac, e);
}

double loghist_quantile_exact(const struct loghist *h, double q, int *exact)
{
    int dummy;
    uint64_t inrange = h->count - h->underflow - h->overflow;
    if (!exact) exact = &dummy;
    *exact = 1;
    if (h->count == 0) return NAN;
    /* rank counted over all values; under/overflow sit at the ends */
    double rank = q * (double)(h->count - 1);
    double seen = (double)h->underflow;
    if (rank < seen) return h->min;
    for (uint32_t i = 0; i < h->nbuckets && inrange; i++) {
        seen += (double)h->bucket[i];
        if (rank >= seen) continue;
        if (h->sole[i] > 0) return h->sole[i];
        *exact = 0;
        return sqrt(loghist_lower(h, i) * loghist_lower(h, i + 1));
    }
    return h->max;
}

void loghist_merge(struct loghist *dst, const struct loghist *src)
{
    for (uint32_t i = 0; i < dst->nbuckets && i < src->nbuckets; i++) {
        if (!src->bucket[i]) continue;
        dst->sole[i] = !dst->bucket[i] || dst->sole[i] == src->sole[i] ? src->sole[i] : -1.0;
        dst->bucket[i] += src->bucket[i];
    }
    dst->underflow += src->underflow;
    dst->overflow += src->overflow;
    dst->count += src->count;
    dst->sum += src->sum;
    dst->min = src->min < dst->min ? src->min : dst->min;
    dst->max = src->max > dst->max ? src->max : dst->max;
}