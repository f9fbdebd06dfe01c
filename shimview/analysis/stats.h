/*
 * stats.h -- the few statistics shimview reports, from the sums a profile stores.
 *
 * A tag entry keeps, per rate, sums rather than the samples: sum and sumsq of the
 * per-period rates (for their mean), and the five sums of a ratio estimator (for the
 * rate over all periods together). So the statistics are the ones sums allow: means,
 * sample standard deviations, Student-t 95% intervals with the degrees of freedom the
 * sums have, the delta-method interval of a ratio, Wilson's score interval of a
 * proportion; for comparing profiles, the interval of a difference from the two sides'
 * intervals; and the formatting of an estimate to the precision its interval has.
 * These intervals treat the values they are given as independent; intervals.h applies
 * them to the time batches of a run, which are (docs/statistics.md).
 *
 * Every function is total: where a value is undefined (n too small) it returns NAN, and
 * callers print that as a dash. Nothing here knows about the profile structs.
 */
#ifndef SHIMVIEW_STATS_H
#define SHIMVIEW_STATS_H

#include <stddef.h>
#include <stdint.h>

/* sum / n; NAN when n is 0. */
double stats_mean(uint64_t n, double sum);

/* Sample standard deviation (n - 1 in the denominator) from sum and sum of squares;
 * NAN when n < 2. Rounding can make the variance slightly negative: it is clamped to 0. */
double stats_sd(uint64_t n, double sum, double sumsq);

/* Half-width of the 95% interval of the mean: t(n - 1) * sd / sqrt(n); NAN when n < 2. */
double stats_ci95(uint64_t n, double sum, double sumsq);

/* The standard error of the ratio estimate R = sum_a / sum_b from n pairs (a, b), by the
 * delta method: se^2 = (s_aa - 2 R s_ab + R^2 s_bb) / (n * mean_b^2), with s_xy the
 * sample (co)variances from the sums. NAN when n < 2 or sum_b <= 0. */
double stats_ratio_se(double n, double sum_a, double sum_b, double sum_aa, double sum_bb,
                      double sum_ab);

/* Half-width of the 95% interval of that ratio: t(n - 1) * se. */
double stats_ratio_ci95(uint64_t n, double sum_a, double sum_b, double sum_aa, double sum_bb,
                        double sum_ab);

/* Wilson's score interval (95%) of a proportion k/n, into *lo and *hi: it stays inside
 * [0, 1] and keeps its coverage for small k, where k/n +- 1.96 sqrt(p(1-p)/n) would go
 * below 0 (3 events in 200: 0.015 +- 0.017). k and n need not be whole (an effective
 * size, n divided by a design effect). Both NAN when n <= 0. */
void stats_wilson95(double k, double n, double *lo, double *hi);

/* Expected relative error of a count estimated from k samples: 1/sqrt(k) (ProfileMe);
 * NAN when k is 0. */
double stats_relative_error(uint64_t k);

/* The part of `part` in `whole` as a fraction; NAN when whole is 0. */
double stats_fraction(uint64_t part, uint64_t whole);

/* Half-width of the 95% interval of the difference of two independent estimates, from
 * their own 95% half-widths: sqrt(ci_a^2 + ci_b^2). NAN when either is NAN. */
double stats_diff_ci95(double ci_a, double ci_b);

/* The 95% interval of b - a from each estimate's own 95% interval [lo, hi], which may be
 * asymmetric (Wilson's): Zou and Donner's MOVER, the form of Newcombe's interval of a
 * difference of proportions; with symmetric intervals it is the difference +-
 * sqrt(h_a^2 + h_b^2). *lo and *hi NAN when any bound is. */
void stats_diff_interval95(double a, double a_lo, double a_hi, double b, double b_lo, double b_hi,
                           double *lo, double *hi);

/* The decimal places that print an estimate to the precision its 95% half-width ci
 * supports (two significant digits of ci), at most 6; -1 when ci is not a positive
 * number, which says nothing of precision. */
int stats_ci_decimals(double ci);

/* Does the interval value ± ci exclude 0? 0 when either is NAN. */
int stats_excludes_zero(double value, double ci);

/* Student's t for a two-sided 95% interval with df degrees of freedom (GSL's quantile,
 * any df > 0, not only whole ones: 2.021 at 40, 1.984 at 100); NAN when df <= 0. */
double stats_t95(double df);

/* An estimate and the "± ci" that goes with it, each into a buffer of len bytes, to the
 * precision the interval supports: ci to two significant digits and the value to the
 * same place. Small values (below 10^-3 but not 0) are written in scientific notation
 * with one exponent for both ("3.22e-07", "± 0.11e-07"), so no nonzero number prints as
 * 0.000000. Without an interval (ci NAN, or 0 or below 10^-9 of the value: rounding),
 * the value to four significant digits and "± -" or "± 0". */
void stats_format_estimate(double value, double ci, char *v, char *c, size_t len);
#define STATS_PLUS_MINUS "\xc2\xb1 " /* "± ", which starts stats_format_estimate's c */

/* The two halves of an asymmetric interval around `value` ("+up/-down"), each into a
 * buffer of len bytes without a sign, in one notation and to one decimal place: the one
 * that gives the narrower half two significant digits, scientific when the larger of the
 * value and the halves is below 10^-3 (one exponent for both). */
void stats_format_halves(double value, double up, double down, char *u, char *w, size_t len);

/* Whether a number as printed is zero ("0", "-0.000", "0.00e-05"): a rounded zero
 * carries no sign. */
int stats_printed_zero(const char *s);

/* A value without an interval to four significant digits, scientific when small. */
const char *stats_format_value(double v, char *buf, size_t len);

/* A fraction as a percentage with two decimals, "<0.01%" when it is above 0 but would
 * print as 0.00%, "-" for NAN. */
const char *stats_format_share(double frac, char *buf, size_t len);

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

/* An estimate pooled over runs (`merge`, `compare --runs`): each run's numerator a and
 * denominator b (a share's samples and attributed samples, a rate's sum_a and sum_b), in
 * ab[2i], ab[2i + 1], which the caller provides with room for every run; their sums; and
 * the spread of the per-run values a / b. The estimate is sum a / sum b (each run weighted
 * by its b); its interval takes the runs as the independent units. */
struct stats_pooled {
    uint64_t n; /* runs */
    double sum_a, sum_b;
    double *ab;
    struct stats_running each;
};

void stats_pooled_add(struct stats_pooled *p, double a, double b);

/* The upper end of the 95% interval of a rate that saw no event in sum_b (its interval
 * goes from 0): the rate at which a Poisson count shows none 5% of the time, -ln 0.05
 * (about 3: the "rule of three") events of `scale` each (what one event adds to the
 * rate's numerator), times the design effect deff. */
double stats_zero_rate_hi(double scale, double deff, double sum_b);
/* sum a / sum b; NAN without runs. */
double stats_pooled_value(const struct stats_pooled *p);
/* Half-width of the 95% interval across runs: t(n - 1) times the ratio estimator's
 * standard error sqrt(n / (n - 1) * sum (a - R b)^2) / sum b, from the residuals
 * themselves (runs that agree give exactly 0); NAN with fewer than 2 runs. */
double stats_pooled_ci95(const struct stats_pooled *p);

#endif /* SHIMVIEW_STATS_H */
