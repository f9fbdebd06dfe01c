/*
 * intervals.c -- batch-means intervals from a profile's time batches, and the fallbacks
 * for what has none (see intervals.h; docs/statistics.md for the assumptions).
 *
 * The estimators are ratios: a share is sum(k_j) / sum(N_j) over batches j (a tuple's
 * samples over all attributed samples), a rate sum(A_j) / sum(B_j) (counts over cycles of
 * its kept periods). Treating the batches as the independent units, the standard error
 * of a ratio R = X / Y over nb batches is sqrt(nb * S^2) / Y with S^2 the variance of the
 * residuals e_j = x_j - R y_j (the linearised ratio estimator, as for cluster samples).
 * A tuple's batches are known only after its detail record was given (batch `first`,
 * partial unless the record describes every sample): S^2 comes from the batches after
 * it, and applies to the whole run. Residuals that are still correlated from one batch
 * to the next mean the batches are too short for the program's phases: pairs are then
 * added together, as the observer does when the run outgrows its batches, while the
 * lag-1 autocorrelation exceeds 2/sqrt(batches) and 8 batches or more would remain.
 */
#include "shimview/analysis/intervals.h"
#include "shimview/analysis/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_FOLDED   8  /* batches left after folding, at least */
#define MIN_FOR_DEFF 8  /* covered batches a tuple needs to say what a design effect is */
#define MIN_SAMPLES  64 /* and samples */

static const struct interval none = {NAN, NAN, NAN, NAN, INTERVAL_NONE};

/* The standard error of sum(x) / sum(y) for a run of nb batches whose c covered ones are
 * x[0..c), y[0..c) (overwritten), the run's whole denominator being total; *df its
 * degrees of freedom. NAN when it cannot be formed. */
static double batch_se(double *x, double *y, size_t c, size_t nb, double total, double *df)
{
    double sx = 0, sy = 0;
    size_t seen = 0; /* batches with a denominator */
    for (size_t j = 0; j < c; j++)
        sx += x[j], sy += y[j], seen += y[j] > 0;
    /* A single batch to vary says nothing of the spread */
    if (seen < 2 || !(sy > 0) || !(total > 0)) return NAN;
    double ratio = sx / sy, scale = (double)nb / (double)c, ss, lag;
    size_t n = c;
    for (;;) {
        ss = lag = 0;
        for (size_t j = 0; j < n; j++) {
            double e = x[j] - ratio * y[j];
            ss += e * e;
            if (j > 0) lag += e * (x[j - 1] - ratio * y[j - 1]);
        }
        if (n < 2 * MIN_FOLDED || !(ss > 0) || lag / ss <= 2 / sqrt((double)n)) break;
        size_t m = n / 2;
        for (size_t j = 0; j < m; j++) {
            x[j] = x[2 * j] + x[2 * j + 1];
            y[j] = y[2 * j] + y[2 * j + 1];
        }
        if (n % 2) x[m - 1] += x[n - 1], y[m - 1] += y[n - 1];
        n = m;
    }
    *df = (double)(n - 1);
    double s2 = ss / (double)(n - 1);
    return sqrt(s2 * (double)n * scale) / total;
}

/* The batches that describe t: from `first` when its record covers every sample, else
 * after it. Returns how many, their index of the first in *from. */
static size_t covered(const struct profile *p, const struct profile_tag *t, size_t *from)
{
    size_t f = (size_t)t->batches->first + (t->detail_since > 0);
    *from = f;
    return f < p->batches.count ? p->batches.count - f : 0;
}

/* Batch-means se of t's share (df in *df); NAN without. */
static double share_batch_se(const struct profile *p, const struct profile_tag *t, double *df)
{
    size_t from, c = covered(p, t, &from);
    double *x = malloc((c + 1) * sizeof *x), *y = malloc((c + 1) * sizeof *y), se = NAN, k = 0;
    if (x && y) {
        for (size_t j = 0; j < c; j++) {
            x[j] = (double)t->batches->samples[from + j];
            y[j] = (double)p->batches.samples[from + j];
            k += x[j];
        }
        double attributed = (double)(p->samples.total - p->samples.interrupted);
        /* none of its samples in the batches its record covers (all came before it):
         * those batches say nothing of its spread */
        if (k > 0) se = batch_se(x, y, c, p->batches.count, attributed, df);
    }
    free(x);
    free(y);
    return se;
}

/* Batch-means se of t's rate r; NAN without. */
static double rate_batch_se(const struct profile *p, const struct profile_tag *t, size_t r,
                            double *df)
{
    size_t from, c = covered(p, t, &from), count = p->batches.count;
    double *x = malloc((c + 1) * sizeof *x), *y = malloc((c + 1) * sizeof *y), se = NAN;
    if (x && y) {
        memcpy(x, t->batches->a + r * count + from, c * sizeof *x);
        memcpy(y, t->batches->b + r * count + from, c * sizeof *y);
        se = batch_se(x, y, c, count, t->rates[r].sum_b, df);
    }
    free(x);
    free(y);
    return se;
}

static uint64_t attributed(const struct profile *p)
{
    return p->samples.total - p->samples.interrupted;
}

struct interval interval_share_count(const struct profile *p, uint64_t k)
{
    uint64_t n = attributed(p);
    if (n == 0) return none;
    double deff = p->deff_tuples ? p->deff_share : 1;
    struct interval iv = {(double)k / (double)n, NAN, NAN, (double)n / deff - 1,
                          p->deff_tuples ? INTERVAL_SCALED : INTERVAL_INDEPENDENT};
    stats_wilson95((double)k / deff, (double)n / deff, &iv.lo, &iv.hi);
    return iv;
}

struct interval interval_share(const struct profile *p, const struct profile_tag *t)
{
    uint64_t n = attributed(p);
    if (n == 0) return none;
    /* A rare tuple's share gets Wilson's interval (scaled by the profile's design
     * effect), which stays inside [0, 1] as a symmetric one cannot */
    double df, se = t->batches && t->samples >= MIN_SAMPLES ? share_batch_se(p, t, &df) : NAN;
    if (isnan(se)) return interval_share_count(p, t->samples);
    double v = (double)t->samples / (double)n, h = stats_t95(df) * se;
    return (struct interval){v, fmax(0, v - h), fmin(1, v + h), df, INTERVAL_BATCHES};
}

/* No event in any kept period (every numerator 0): the rate is 0, and its interval goes
 * from 0 up to the rate at which a Poisson count would show no event in sum_b 5% of the
 * time (-ln 0.05, about 3 events: the "rule of three"; an event adds the rate's scale to
 * sum_a), scaled by the design effect like the intervals of counts -- not the width 0 the
 * periods' spread would give. */
static struct interval zero_rate(const struct profile *p, size_t r, uint64_t n, double sum_b)
{
    double deff = p->deff_tuples && p->deff_rate ? p->deff_rate[r] : 1;
    double scale = r < p->nrates ? p->rates[r].scale : 1;
    return (struct interval){0, 0, stats_zero_rate_hi(scale, deff, sum_b),
                             fmax(1, (double)n / deff - 1),
                             p->deff_tuples ? INTERVAL_SCALED : INTERVAL_INDEPENDENT};
}

struct interval interval_rate_sums(const struct profile *p, size_t r, uint64_t n, double sum_a,
                                   double sum_b, double sum_aa, double sum_bb, double sum_ab)
{
    if (n == 0 || !(sum_b > 0)) return none;
    if (sum_a == 0 && sum_aa == 0) return zero_rate(p, r, n, sum_b);
    struct interval iv = {sum_a / sum_b, NAN, NAN, NAN, INTERVAL_NONE};
    double se = stats_ratio_se((double)n, sum_a, sum_b, sum_aa, sum_bb, sum_ab);
    if (isnan(se)) return iv;
    double deff = p->deff_tuples && p->deff_rate ? p->deff_rate[r] : 1;
    iv.basis = p->deff_tuples ? INTERVAL_SCALED : INTERVAL_INDEPENDENT;
    iv.df = fmax(1, (double)n / deff - 1);
    double h = stats_t95(iv.df) * se * sqrt(deff);
    iv.lo = iv.value - h;
    iv.hi = iv.value + h;
    return iv;
}

struct interval interval_rate(const struct profile *p, const struct profile_tag *t, size_t r)
{
    const struct profile_rate_stats *s = &t->rates[r];
    uint64_t n = s->periods ? s->periods : s->n;
    if (n == 0 || !s->has_stats || !(s->sum_b > 0)) return none;
    if (s->sum_a == 0 && s->sum_aa == 0 && s->rate == 0) return zero_rate(p, r, n, s->sum_b);
    double df, se = t->batches ? rate_batch_se(p, t, r, &df) : NAN;
    if (isnan(se)) {
        struct interval iv =
            interval_rate_sums(p, r, n, s->sum_a, s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab);
        if (isfinite(s->rate)) { /* centred on the rate the profile wrote */
            iv.lo += s->rate - iv.value;
            iv.hi += s->rate - iv.value;
            iv.value = s->rate;
        }
        return iv;
    }
    double v = isfinite(s->rate) ? s->rate : s->sum_a / s->sum_b, h = stats_t95(df) * se;
    return (struct interval){v, v - h, v + h, df, INTERVAL_BATCHES};
}

struct interval interval_runs(const struct stats_pooled *p, int share)
{
    double v = stats_pooled_value(p), h = stats_pooled_ci95(p);
    struct interval iv = {v, v - h, v + h, (double)p->n - 1, INTERVAL_RUNS};
    if (isnan(h)) iv.lo = iv.hi = NAN, iv.basis = INTERVAL_NONE;
    if (share && iv.lo < 0) iv.lo = 0;
    return iv;
}

struct interval interval_runs_rate(const struct stats_pooled *p, double scale)
{
    struct interval iv = interval_runs(p, 0);
    if (iv.value == 0 && !isnan(iv.hi)) iv.hi = stats_zero_rate_hi(scale, 1, p->sum_b);
    return iv;
}

double interval_half(const struct interval *iv)
{
    if (isnan(iv->lo) || isnan(iv->hi)) return NAN;
    return fmax(iv->value - iv->lo, iv->hi - iv->value);
}

int interval_from_zero(const struct interval *iv)
{
    return iv->value == 0 && iv->lo == 0 && iv->hi > 0;
}

void interval_format(const struct interval *iv, double value, char *v, char *c, size_t len)
{
    stats_format_estimate(value, interval_half(iv), v, c, len);
    size_t pm = strlen(STATS_PLUS_MINUS);
    if (value == 0 && interval_from_zero(iv) && strncmp(c, STATS_PLUS_MINUS, pm) == 0) {
        char h[64];
        snprintf(h, sizeof h, "%s", c + pm);
        snprintf(c, len, "up to %s", h);
    }
}

struct interval interval_diff(const struct interval *a, const struct interval *b)
{
    struct interval d = {b->value - a->value, NAN, NAN, NAN, INTERVAL_NONE};
    stats_diff_interval95(a->value, a->lo, a->hi, b->value, b->lo, b->hi, &d.lo, &d.hi);
    if (!isnan(d.lo)) d.basis = a->basis > b->basis ? a->basis : b->basis;
    return d;
}

int interval_excludes_zero(const struct interval *iv)
{
    return !isnan(iv->lo) && !isnan(iv->hi) && (iv->lo > 0 || iv->hi < 0);
}

const char *interval_mark(enum interval_basis b)
{
    return b == INTERVAL_SCALED ? "~" : b == INTERVAL_INDEPENDENT ? "!" : "";
}

const char *interval_basis_name(enum interval_basis b)
{
    static const char *const names[] = {"", "batches", "runs", "scaled", "independent"};
    return names[b];
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n), at least 1 (a design effect below 1 would make an interval
 * narrower than independent samples give); NAN when n is 0. */
static double median_at_least_1(double *v, size_t n)
{
    if (n == 0) return NAN;
    qsort(v, n, sizeof *v, by_value);
    double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return m > 1 ? m : 1;
}

/* Whether t can say what a design effect is: batches enough, samples enough. */
static int informs_deff(const struct profile *p, const struct profile_tag *t)
{
    size_t from;
    return t->batches && t->samples >= MIN_SAMPLES && covered(p, t, &from) >= MIN_FOR_DEFF;
}

int intervals_prepare(struct profile *p)
{
    p->deff_tuples = 0;
    if (!p->has_batches || attributed(p) == 0) return 0;
    size_t n = p->ntags, ns = 0, *nr = calloc(p->nrates + 1, sizeof *nr);
    double *share = malloc((n + 1) * sizeof *share),
           *rate = malloc((n * p->nrates + 1) * sizeof *rate);
    p->deff_rate = calloc(p->nrates + 1, sizeof *p->deff_rate);
    if (!nr || !share || !rate || !p->deff_rate) {
        free(nr), free(share), free(rate);
        return -1;
    }
    double total = (double)attributed(p);
    for (size_t i = 0; i < n; i++) {
        const struct profile_tag *t = &p->tags[i];
        if (!informs_deff(p, t)) continue;
        double df, q = (double)t->samples / total, se = share_batch_se(p, t, &df);
        double iid = q * (1 - q) / total;
        if (!isnan(se) && iid > 0) share[ns++] = se * se / iid;
        for (size_t r = 0; r < p->nrates; r++) {
            const struct profile_rate_stats *s = &t->rates[r];
            if (!s->has_stats || !(s->sum_b > 0)) continue;
            double rse = rate_batch_se(p, t, r, &df);
            double ise = stats_ratio_se((double)(s->periods ? s->periods : s->n), s->sum_a,
                                        s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab);
            if (!isnan(rse) && ise > 0) rate[r * n + nr[r]++] = rse * rse / (ise * ise);
        }
    }
    p->deff_tuples = ns;
    p->deff_share = median_at_least_1(share, ns);
    for (size_t r = 0; r < p->nrates; r++) /* no tuple to say: the share's */
        p->deff_rate[r] = nr[r] ? median_at_least_1(rate + r * n, nr[r]) : p->deff_share;
    free(nr), free(share), free(rate);
    return 0;
}

struct profile *profile_open(const char *path, char *err, size_t errlen)
{
    struct profile *p = profile_load(path, err, errlen);
    if (p && intervals_prepare(p)) {
        snprintf(err, errlen, "%s: out of memory", p->file);
        profile_free(p);
        return NULL;
    }
    return p;
}

const char *intervals_legend(const struct profile *p, char *buf, size_t len)
{
    if (!p->has_batches) {
        snprintf(buf, len,
                 "± 95%% CI (!): this profile has no time batches, so the intervals treat "
                 "consecutive samples as independent: read them as lower bounds");
        return buf;
    }
    int n = snprintf(buf, len,
                     "± 95%% CI: batch means over the run's %zu time batches of %.3g cycles "
                     "(Student's t)",
                     p->batches.count, (double)p->batches.cycles);
    if (n < 0 || (size_t)n >= len) return buf;
    if (p->deff_tuples)
        snprintf(buf + n, len - (size_t)n,
                 "; ~: no batches of its own: the independent interval widened by the design "
                 "effect of the %zu tuples with batches (share x%.3g)",
                 p->deff_tuples, p->deff_share);
    else
        snprintf(buf + n, len - (size_t)n,
                 "; !: no batches of its own and no tuple to measure the correlation on: "
                 "an independent interval, a lower bound");
    return buf;
}
