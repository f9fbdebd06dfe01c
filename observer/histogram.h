/*
 * histogram.h -- linear histograms of rates, one per (tag tuple, rate).
 *
 * The SHIM paper keeps IPC in 500 buckets over [0, 4); shim makes buckets and range
 * configurable. A histogram is a bare array of buckets + 3 counters so the tag table
 * can keep all of them in one preallocated block: [0, buckets) the buckets, then
 * underflow (below lo, and -inf), overflow (at or above hi, and +inf), and NaN.
 */
#ifndef SHIM_OBSERVER_HISTOGRAM_H
#define SHIM_OBSERVER_HISTOGRAM_H

#include <stdint.h>

struct hist_spec {
    uint32_t buckets;
    double lo, hi;
    double per_unit; /* buckets / (hi - lo), precomputed */
};

#define HIST_UNDERFLOW(spec) ((spec)->buckets)
#define HIST_OVERFLOW(spec)  ((spec)->buckets + 1)
#define HIST_NAN(spec)       ((spec)->buckets + 2)
#define HIST_WORDS(spec)     ((spec)->buckets + 3)

/* Returns 0, or -1 when buckets is 0 or the range is empty or not finite. */
int hist_spec_init(struct hist_spec *s, uint32_t buckets, double lo, double hi);

/* Which counter of the array v belongs in. */
static inline uint32_t hist_slot(const struct hist_spec *s, double v)
{
    if (v != v) return HIST_NAN(s);
    if (!(v >= s->lo)) return HIST_UNDERFLOW(s);
    if (!(v < s->hi)) /* decided on the value, not on a rounded index; also +inf */
        return HIST_OVERFLOW(s);
    uint32_t i = (uint32_t)((v - s->lo) * s->per_unit);
    return i < s->buckets ? i : s->buckets - 1; /* rounding just below hi */
}

static inline void hist_add(const struct hist_spec *s, uint64_t *counts, double v)
{
    counts[hist_slot(s, v)]++;
}

#endif
