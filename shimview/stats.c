/*
 * stats.c -- means, standard deviations and confidence intervals from stored sums.
 *
 * Variances come from the textbook identity (sumsq - sum^2/n) / (n - 1). It loses
 * precision when the mean is large against the spread, but the profile stores only the
 * sums, and the rates shim measures (events per cycle) are small numbers where this is
 * harmless; a negative result of rounding is clamped to 0. The ratio's variance is that
 * of a - R*b, which is small when a follows b closely: it is formed from the three
 * (co)variances and clamped the same way.
 */
#include "stats.h"

#include <math.h>

double stats_mean(uint64_t n, double sum)
{
    return n ? sum / (double)n : NAN;
}

double stats_sd(uint64_t n, double sum, double sumsq)
{
    if (n < 2) return NAN;
    double dn = (double)n;
    double var = (sumsq - sum * sum / dn) / (dn - 1);
    return var > 0 ? sqrt(var) : 0;
}

double stats_ci95(uint64_t n, double sum, double sumsq)
{
    if (n < 2) return NAN;
    return STATS_Z95 * stats_sd(n, sum, sumsq) / sqrt((double)n);
}

double stats_ratio_ci95(uint64_t n, double sum_a, double sum_b, double sum_aa, double sum_bb,
                        double sum_ab)
{
    if (n < 2 || !(sum_b > 0)) return NAN;
    double dn = (double)n, ratio = sum_a / sum_b, mean_b = sum_b / dn;
    double s_aa = (sum_aa - sum_a * sum_a / dn) / (dn - 1);
    double s_bb = (sum_bb - sum_b * sum_b / dn) / (dn - 1);
    double s_ab = (sum_ab - sum_a * sum_b / dn) / (dn - 1);
    double var = (s_aa - 2 * ratio * s_ab + ratio * ratio * s_bb) / (dn * mean_b * mean_b);
    return STATS_Z95 * (var > 0 ? sqrt(var) : 0);
}

double stats_share_ci95(uint64_t k, uint64_t n)
{
    if (n == 0) return NAN;
    double p = (double)k / (double)n;
    return STATS_Z95 * sqrt(p * (1 - p) / (double)n);
}

double stats_relative_error(uint64_t k)
{
    return k ? 1 / sqrt((double)k) : NAN;
}

double stats_fraction(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : NAN;
}
