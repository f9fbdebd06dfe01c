/*
 * dte.h -- double-time error correction (SHIM paper, section 4.1).
 *
 * Each sample has a start marker Cs (before the counters) and an end marker Ce (after
 * them). Over one period, CPC = (Ce_n - Ce_n-1) / (Cs_n - Cs_n-1) is 1 exactly when
 * reading the counters took as long in both samples; otherwise the counter values sit
 * at skewed points in time and any rate made from them is suspect. A period is kept
 * when |CPC - 1| <= tolerance (inclusive), tested without a division as
 * |dCe - dCs| <= tolerance * dCs. A zero-length period is never kept.
 *
 * The clock has a resolution: some virtual machines advance the TSC in steps (26 cycles
 * on the development machines). A skew of one step is what two exact measurements of
 * equal windows read when they straddle a step differently, so it says nothing about
 * the measurement; rejecting it would reject periods at random (half of them at
 * 1000-cycle periods there) without making any rate more exact -- a rate over a period
 * P is uncertain by step/P whatever DTE does. So a skew up to `resolution` cycles is
 * always accepted; pass 0 for the paper's rule unchanged.
 */
#ifndef SHIM_OBSERVER_DTE_H
#define SHIM_OBSERVER_DTE_H

#include <stdbool.h>
#include <stdint.h>

static inline bool dte_accept(uint64_t d_start, uint64_t d_end, double tolerance,
                              uint64_t resolution)
{
    if (d_start == 0) return false;
    uint64_t skew = d_end > d_start ? d_end - d_start : d_start - d_end;
    return skew <= resolution || (double)skew <= tolerance * (double)d_start;
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
