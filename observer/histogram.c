/*
 * histogram.c -- validation of a linear histogram's shape (see histogram.h).
 */
#include "observer/histogram.h"

#include <math.h>

int hist_spec_init(struct hist_spec *s, uint32_t buckets, double lo, double hi)
{
    if (buckets == 0 || !isfinite(lo) || !isfinite(hi) || !(hi > lo)) return -1;
    s->buckets = buckets;
    s->lo = lo;
    s->hi = hi;
    s->per_unit = (double)buckets / (hi - lo);
    if (!isfinite(hi - lo) || !isfinite(s->per_unit) || !(s->per_unit > 0)) return -1;
    return 0;
}
