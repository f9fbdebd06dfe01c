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
 * spread are kept with Welford's update instead. Every interval uses Student's t with the
 * degrees of freedom its standard error has (GSL's quantile): with three runs, or three
 * batches, the normal 1.96 would claim an interval less than half as wide as it is.
 * Proportions get Wilson's score interval, which stays in [0, 1] for small counts.
 */
#include "shimview/analysis/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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
    return stats_t95((double)n - 1) * stats_sd(n, sum, sumsq) / sqrt((double)n);
}

double stats_ratio_se(double n, double sum_a, double sum_b, double sum_aa, double sum_bb,
                      double sum_ab)
{
    if (!(n >= 2) || !(sum_b > 0)) return NAN;
    double ratio = sum_a / sum_b, mean_b = sum_b / n;
    double s_aa = (sum_aa - sum_a * sum_a / n) / (n - 1);
    double s_bb = (sum_bb - sum_b * sum_b / n) / (n - 1);
    double s_ab = (sum_ab - sum_a * sum_b / n) / (n - 1);
    double var = (s_aa - 2 * ratio * s_ab + ratio * ratio * s_bb) / (n * mean_b * mean_b);
    return var > 0 ? sqrt(var) : 0;
}

double stats_ratio_ci95(uint64_t n, double sum_a, double sum_b, double sum_aa, double sum_bb,
                        double sum_ab)
{
    double se = stats_ratio_se((double)n, sum_a, sum_b, sum_aa, sum_bb, sum_ab);
    return isnan(se) ? NAN : stats_t95((double)n - 1) * se;
}

void stats_wilson95(double k, double n, double *lo, double *hi)
{
    if (!(n > 0) || !(k >= 0)) {
        *lo = *hi = NAN;
        return;
    }
    double z = stats_t95(INFINITY), z2 = z * z, p = k > n ? 1 : k / n;
    double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z / (1 + z2 / n) * sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    *lo = k == 0 ? 0 : fmax(0, centre - half);
    *hi = k >= n ? 1 : fmin(1, centre + half);
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

void stats_diff_interval95(double a, double a_lo, double a_hi, double b, double b_lo, double b_hi,
                           double *lo, double *hi)
{
    double d = b - a;
    if (isnan(d) || isnan(a_lo) || isnan(a_hi) || isnan(b_lo) || isnan(b_hi)) {
        *lo = *hi = NAN;
        return;
    }
    *lo = d - hypot(b - b_lo, a_hi - a);
    *hi = d + hypot(b_hi - b, a - a_lo);
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

double stats_t95(double df)
{
    if (!(df > 0)) return NAN;
    if (isinf(df)) return gsl_cdf_ugaussian_Pinv(0.975);
    return gsl_cdf_tdist_Pinv(0.975, df);
}

/* The decimal places that give ci two significant digits, between 0 and max. */
static int two_digits(double ci, int max)
{
    int d = 1 - (int)floor(log10(ci));
    return d < 0 ? 0 : d > max ? max : d;
}

double stats_zero_rate_hi(double scale, double deff, double sum_b)
{
    return -log(0.05) * (scale > 0 ? scale : 1) * deff / sum_b;
}

int stats_printed_zero(const char *s)
{
    if (*s == '-' || *s == '+') s++;
    int digit = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s >= '1' && *s <= '9') return 0;
        if (*s == '0')
            digit = 1;
        else if (*s != '.')
            return 0;
    }
    return digit;
}

/* A value rounded to zero loses its minus sign: "-0.0000" says nothing "0.0000" does not. */
static void unsign_zero(char *v)
{
    if (v[0] == '-' && stats_printed_zero(v)) memmove(v, v + 1, strlen(v));
}

void stats_format_halves(double value, double up, double down, char *u, char *w, size_t len)
{
    double narrow = up > 0 && down > 0 ? fmin(up, down) : fmax(up, down);
    double mag = fmax(fabs(value), fmax(up, down));
    if (!(narrow > 0) || !isfinite(mag)) {
        snprintf(u, len, "%.2g", up);
        snprintf(w, len, "%.2g", down);
        return;
    }
    if (mag >= 1e-3) {
        int d = two_digits(narrow, 9);
        snprintf(u, len, "%.*f", d, up);
        snprintf(w, len, "%.*f", d, down);
        return;
    }
    int e = (int)floor(log10(mag));
    double unit = pow(10, e);
    int d = two_digits(narrow / unit, 6);
    snprintf(u, len, "%.*fe%+03d", d, up / unit, e);
    snprintf(w, len, "%.*fe%+03d", d, down / unit, e);
}

void stats_format_estimate(double value, double ci, char *v, char *c, size_t len)
{
    if (ci > 0 && ci < 1e-9 * fabs(value)) ci = 0; /* rounding's, not an interval */
    int has_ci = isfinite(ci) && ci > 0;
    if (!isfinite(value) || fabs(value) >= 1e9 || (has_ci && ci >= 1e9)) {
        snprintf(v, len, "%.4g", value);
        snprintf(c, len,
                 has_ci      ? STATS_PLUS_MINUS "%.2g"
                 : isnan(ci) ? STATS_PLUS_MINUS "-"
                             : STATS_PLUS_MINUS "0",
                 ci);
        return;
    }
    if (!has_ci) {
        stats_format_value(value, v, len);
        snprintf(c, len, isnan(ci) || ci < 0 ? STATS_PLUS_MINUS "-" : STATS_PLUS_MINUS "0");
        return;
    }
    double mag = fmax(fabs(value), ci); /* a value far inside its interval: the interval's */
    if (mag >= 1e-3) {
        int d = two_digits(ci, 9);
        snprintf(v, len, "%.*f", value == 0 ? 0 : d, value); /* no event: exactly 0 */
        unsign_zero(v);
        snprintf(c, len, STATS_PLUS_MINUS "%.*f", d, ci);
        return;
    }
    int e = (int)floor(log10(mag)); /* one exponent for both, the value's */
    double unit = pow(10, e);
    int d = two_digits(ci / unit, 6);
    if (value == 0)
        snprintf(v, len, "0");
    else
        snprintf(v, len, "%.*fe%+03d", d, value / unit, e);
    unsign_zero(v);
    snprintf(c, len, STATS_PLUS_MINUS "%.*fe%+03d", d, ci / unit, e);
}

const char *stats_format_value(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.4g", v);
    return buf;
}

const char *stats_format_share(double frac, char *buf, size_t len)
{
    if (isnan(frac))
        snprintf(buf, len, "-");
    else if (frac > 0 && frac < 0.00005)
        snprintf(buf, len, "<0.01%%");
    else if (frac < 1 && frac >= 0.99995) /* not all: "100.00%" would say it is */
        snprintf(buf, len, ">99.99%%");
    else
        snprintf(buf, len, "%.2f%%", 100 * frac);
    return buf;
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
    return stats_t95((double)(r->n - 1)) * stats_running_sd(r) / sqrt((double)r->n);
}

void stats_pooled_add(struct stats_pooled *p, double a, double b)
{
    p->ab[2 * p->n] = a;
    p->ab[2 * p->n + 1] = b;
    p->n++;
    p->sum_a += a, p->sum_b += b;
    stats_running_add(&p->each, a / b);
}

double stats_pooled_value(const struct stats_pooled *p)
{
    return p->n && p->sum_b > 0 ? p->sum_a / p->sum_b : NAN;
}

double stats_pooled_ci95(const struct stats_pooled *p)
{
    if (p->n < 2 || !(p->sum_b > 0)) return NAN;
    double ratio = p->sum_a / p->sum_b, ss = 0, n = (double)p->n;
    for (size_t i = 0; i < p->n; i++) {
        double e = p->ab[2 * i] - ratio * p->ab[2 * i + 1];
        ss += e * e;
    }
    return stats_t95(n - 1) * sqrt(n / (n - 1) * ss) / p->sum_b;
}
