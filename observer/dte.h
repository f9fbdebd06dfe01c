/*
 * dte.h -- double-time error correction (SHIM paper, section 4.1).
 *
 * Each sample has a start marker Cs (before the counters) and an end marker Ce (after
 * them). Over one period, CPC = (Ce_n - Ce_n-1) / (Cs_n - Cs_n-1) is 1 exactly when
 * reading the counters took as long in both samples; otherwise the counter values sit
 * at skewed points in time and any rate made from them is suspect. A period is kept
 * when |CPC - 1| <= tolerance (inclusive), tested without a division as
 * |dCe - dCs| <= tolerance * dCs. A zero-length period is never kept.
 */
#ifndef SHIM_OBSERVER_DTE_H
#define SHIM_OBSERVER_DTE_H

#include <stdbool.h>
#include <stdint.h>

static inline bool dte_accept(uint64_t d_start, uint64_t d_end, double tolerance)
{
    if (d_start == 0) return false;
    uint64_t skew = d_end > d_start ? d_end - d_start : d_start - d_end;
    return (double)skew <= tolerance * (double)d_start;
}

/* Counters wrap at their width (perf's pmc_width; 64 for software counters): the delta
 * is taken modulo 2^width. */
static inline uint64_t counter_mask(unsigned width)
{
    return width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
}

static inline uint64_t counter_delta(uint64_t now, uint64_t before, uint64_t mask)
{
    return (now - before) & mask;
}

#endif
