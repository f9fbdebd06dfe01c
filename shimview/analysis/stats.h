/*
 * stats.h -- the few statistics shimview reports, from the sums a profile stores.
 *
 * A tag entry keeps, per rate, sums rather than the samples: sum and sumsq of the
 * per-period rates (for their mean), and the five sums of a ratio estimator (for the
 * rate over all periods together). So the statistics are the ones sums allow: means,
 * sample standard deviations, normal-approximation 95% confidence intervals, and the
 * delta-method interval of a ratio; and, for comparing profiles, the interval of a
 * difference and Student-t intervals across runs. Consecutive samples are
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

/* Half-width of the 95% interval of the difference of two independent estimates, from
 * their own 95% half-widths: sqrt(ci_a^2 + ci_b^2) (normal approximation, so it serves a
 * difference of two shares as well as of two ratio estimates). NAN when either is NAN. */
double stats_diff_ci95(double ci_a, double ci_b);

/* The decimal places that print an estimate to the precision its 95% half-width ci
 * supports (two significant digits of ci), at most 6; -1 when ci is not a positive
 * number, which says nothing of precision. */
int stats_ci_decimals(double ci);

/* Does the interval value ± ci exclude 0? 0 when either is NAN. */
int stats_excludes_zero(double value, double ci);

/* Student's t for a two-sided 95% interval with df degrees of freedom: exact to three
 * decimals up to 30, then the normal 1.96; NAN when df is 0. */
double stats_t95(uint64_t df);

/* A mean and variance kept up to date one value at a time (Welford's method): the
 * spread of equal values comes out exactly 0, as sums of squares cannot promise. */
struct stats_running {
    uint64_t n;
    double mean, m2; /* m2: the sum of squared deviations from the mean */
};

void stats_running_add(struct stats_running *r, double v);
/* The sample standard deviation; NAN when n < 2. */
double stats_running_sd(const struct stats_running *r);
/* Half-width of the 95% interval of the mean, with Student's t for n - 1 degrees of
 * freedom (the values are few: runs, not samples); NAN when n < 2. */
double stats_running_ci95(const struct stats_running *r);

#endif /* SHIMVIEW_STATS_H */
