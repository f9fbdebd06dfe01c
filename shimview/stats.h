/*
 * stats.h -- the few statistics shimview reports, from the sums a profile stores.
 *
 * A tag entry keeps, per rate, sums rather than the samples: sum and sumsq of the
 * per-period rates (for their mean), and the five sums of a ratio estimator (for the
 * rate over all periods together). So the statistics are the ones sums allow: means,
 * sample standard deviations, normal-approximation 95% confidence intervals, and the
 * delta-method interval of a ratio. Consecutive samples are
 * correlated, so the interval is a lower bound on the uncertainty (docs/profile-format.md).
 *
 * Every function is total: where a value is undefined (n too small) it returns NAN, and
 * callers print that as a dash. Nothing here knows about the profile structs.
 */
#ifndef SHIMVIEW_STATS_H
#define SHIMVIEW_STATS_H

#include <stdint.h>

/* z for a two-sided 95% interval under the normal approximation. */
#define STATS_Z95 1.96

/* sum / n; NAN when n is 0. */
double stats_mean(uint64_t n, double sum);

/* Sample standard deviation (n - 1 in the denominator) from sum and sum of squares;
 * NAN when n < 2. Rounding can make the variance slightly negative: it is clamped to 0. */
double stats_sd(uint64_t n, double sum, double sumsq);

/* Half-width of the 95% interval of the mean: 1.96 * sd / sqrt(n); NAN when n < 2. */
double stats_ci95(uint64_t n, double sum, double sumsq);

/* Half-width of the 95% interval of the ratio estimate R = sum_a / sum_b from n pairs
 * (a, b), by the delta method: se^2 = (s_aa - 2 R s_ab + R^2 s_bb) / (n * mean_b^2), with
 * s_xy the sample (co)variances from the sums. NAN when n < 2 or sum_b <= 0. */
double stats_ratio_ci95(uint64_t n, double sum_a, double sum_b, double sum_aa, double sum_bb,
                        double sum_ab);

/* Half-width of the 95% interval of a share k/n estimated from n samples (normal
 * approximation of the binomial); NAN when n is 0. */
double stats_share_ci95(uint64_t k, uint64_t n);

/* Expected relative error of a count estimated from k samples: 1/sqrt(k) (ProfileMe);
 * NAN when k is 0. */
double stats_relative_error(uint64_t k);

/* The part of `part` in `whole` as a fraction; NAN when whole is 0. */
double stats_fraction(uint64_t part, uint64_t whole);

#endif /* SHIMVIEW_STATS_H */
