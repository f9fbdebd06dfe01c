/*
 * intervals.h -- the 95% intervals shimview prints for a tuple's share and rates, and
 * which kind each one is (docs/statistics.md says what each kind assumes).
 *
 * Consecutive samples of a run are nearly the same: a program stays in a tuple for many
 * samples, so an interval that treats the samples as independent is many times too
 * narrow (22 to 33 times for the planted-phase demo). A profile with time batches
 * (`batches`, `detail.batches`) says how a tuple's samples and rate sums spread over
 * equal spans of the run; those spans are long against the correlation, so the spread
 * between them gives intervals that hold (batch means). Each figure gets one of:
 *
 *  - INTERVAL_BATCHES: batch means: the ratio estimator's standard error from the
 *    tuple's batches after its record was given, for the whole run, with Student's t of
 *    (batches - 1) degrees of freedom. Neighbouring batches that are still correlated
 *    (lag-1 autocorrelation above 2/sqrt(batches)) are added together first, down to 8.
 *  - INTERVAL_SCALED: the tuple has no batches of its own (no detail record, or an
 *    aggregate of several tuples such as a function's inclusive samples): the
 *    independent-sample interval (Wilson's for a share, the delta method's for a rate)
 *    widened by the profile's design effect, the median over the tuples that have
 *    batches of (batch-means variance / independent variance). An estimate, marked `~`.
 *  - INTERVAL_INDEPENDENT: a profile without time batches (older ones): the
 *    independent-sample interval alone, a lower bound on the uncertainty, marked `!`.
 *  - INTERVAL_RUNS: across runs (`merge`), from the spread between the runs.
 *  - INTERVAL_NONE: too little to say (no samples, one batch, one kept period).
 */
#ifndef SHIMVIEW_INTERVALS_H
#define SHIMVIEW_INTERVALS_H

#include "shimview/model/profile.h"

#include <stddef.h>
#include <stdint.h>

struct stats_pooled; /* shimview/analysis/stats.h */

enum interval_basis {
    INTERVAL_NONE,
    INTERVAL_BATCHES,
    INTERVAL_RUNS,
    INTERVAL_SCALED,
    INTERVAL_INDEPENDENT,
};

/* An estimate and its 95% interval [lo, hi] (NAN without one), which need not be
 * symmetric (Wilson's is not); df: the degrees of freedom of its standard error. */
struct interval {
    double value, lo, hi, df;
    enum interval_basis basis;
};

/* The share of attributed samples of tag entry t (of profile p, or of a folded view of
 * it): batch means when t has batches, else Wilson's interval on the samples divided by
 * the design effect (the samples themselves when the profile has no batches). */
struct interval interval_share(const struct profile *p, const struct profile_tag *t);

/* The share k / attributed of something that has no batches of its own (a sum over
 * tuples, or a tag absent from a profile: k = 0). */
struct interval interval_share_count(const struct profile *p, uint64_t k);

/* Rate r of tag entry t, sum_a / sum_b over its kept periods: batch means when t has
 * batches, else the delta method's interval over its periods widened by the design
 * effect. value NAN without kept periods. */
struct interval interval_rate(const struct profile *p, const struct profile_tag *t, size_t r);

/* The same for sums over several tuples (n kept periods and the five sums). */
struct interval interval_rate_sums(const struct profile *p, size_t r, uint64_t n, double sum_a,
                                   double sum_b, double sum_aa, double sum_bb, double sum_ab);

/* An estimate pooled over runs (merge, compare --runs: stats_pooled) with its interval
 * across them (INTERVAL_RUNS, runs - 1 degrees of freedom; none with fewer than two
 * runs); a share's stops at 0. */
struct interval interval_runs(const struct stats_pooled *p, int share);

/* The same for a rate, `scale` what one event adds to its numerator: where no run saw an
 * event, the runs agree on 0, which is no interval; it goes from 0 up to the rule of
 * three's bound over every run's cycles (stats_zero_rate_hi). */
struct interval interval_runs_rate(const struct stats_pooled *p, double scale);

/* The larger distance from the value to a bound (NAN without an interval). */
double interval_half(const struct interval *iv);

/* Whether the interval is one-sided from 0: a rate without events (0, up to a bound). */
int interval_from_zero(const struct interval *iv);

/* `value` and its interval as stats_format_estimate() writes them ("± h"), or, for an
 * interval from 0, "up to h": the text every view prints for a rate. */
void interval_format(const struct interval *iv, double value, char *v, char *c, size_t len);

/* The interval of b - a, and its basis: the weaker of the two (MOVER, stats.h). */
struct interval interval_diff(const struct interval *a, const struct interval *b);

/* Whether the interval excludes 0. */
int interval_excludes_zero(const struct interval *iv);

/* The mark a printed interval of this basis carries: "" (batches, runs), "~" (scaled),
 * "!" (independent). */
const char *interval_mark(enum interval_basis b);

/* One word for CSV columns: "batches", "runs", "scaled", "independent", "" for none. */
const char *interval_basis_name(enum interval_basis b);

/* The profile's design effects (profile.h, deff_*), from its tuples with batches; called
 * once the profile is read. 0, or -1 out of memory. */
int intervals_prepare(struct profile *p);

/* profile_load (model/profile.h), then intervals_prepare: a profile ready for every view.
 * NULL with the message in err, as profile_load. */
struct profile *profile_open(const char *path, char *err, size_t errlen);

/* One line saying what the intervals of profile p are, for a legend: which kinds occur
 * and what their marks mean. Into buf (len bytes). */
const char *intervals_legend(const struct profile *p, char *buf, size_t len);

#endif /* SHIMVIEW_INTERVALS_H */
