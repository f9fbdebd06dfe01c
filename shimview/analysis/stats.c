/*
 * stats.c -- means, standard deviations and confidence intervals from stored sums.
 *
 * Variances come from the textbook identity (sumsq - sum^2/n) / (n - 1). It loses
 * precision when the mean is large against the spread, but the profile stores only the
 * sums, and the rates shim measures (events per cycle) are small numbers where this is
 * harmless; a negative result of rounding is clamped to 0. The ratio's variance is that
 * of a - R*b, which is small when a follows b closely: it is formed from the three
 * (co)variances and clamped the same way.
 *
 * Across runs (`shimview merge`) the values are few and all at hand, so the mean and
 * spread are kept with Welford's update instead, and the interval uses Student's t: with
 * three runs the normal 1.96 would claim an interval less than half as wide as it is.
 */
#include "shimview/analysis/stats.h"

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

double stats_diff_ci95(double ci_a, double ci_b)
{
    return isnan(ci_a) || isnan(ci_b) ? NAN : hypot(ci_a, ci_b);
}

int stats_ci_decimals(double ci)
{
    if (!isfinite(ci) || ci <= 0) return -1;
    int decimals = 1 - (int)floor(log10(ci));
    return decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
}

int stats_excludes_zero(double value, double ci)
{
    return !isnan(value) && !isnan(ci) && fabs(value) > ci;
}

double stats_t95(uint64_t df)
{
    static const double t[31] = {NAN,   12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                                 2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                                 2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                                 2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    return df <= 30 ? t[df] : STATS_Z95;
}

void stats_running_add(struct stats_running *r, double v)
{
    double delta = v - r->mean;
    r->n++;
    r->mean += delta / (double)r->n;
    r->m2 += delta * (v - r->mean);
}

double stats_running_sd(const struct stats_running *r)
{
    if (r->n < 2) return NAN;
    double var = r->m2 / (double)(r->n - 1);
    return var > 0 ? sqrt(var) : 0;
}

double stats_running_ci95(const struct stats_running *r)
{
    if (r->n < 2) return NAN;
    return stats_t95(r->n - 1) * stats_running_sd(r) / sqrt((double)r->n);
}
