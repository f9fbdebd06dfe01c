"""stats_ref.py -- reference statistics the shimview tests recompute figures with.

Written from the formulas of docs/statistics.md, independently of shimview's C code:
Student's t quantile (bisection on the t distribution's CDF, integrated with Simpson's
rule), Wilson's score interval, MOVER's interval of a difference, the delta-method
standard error of a ratio of sums, and the batch-means standard error of a share or rate
from a profile's time batches.
"""
import math


def t_cdf(x, df):
    """P(T <= x) for x >= 0, by Simpson's rule on the density from 0 to x."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda t: c * (1 + t * t / df) ** (-(df + 1) / 2)
    n = 2000
    h = x / n
    s = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, n))
    return 0.5 + s * h / 3


def t95(df):
    """the two-sided 95% quantile of Student's t with df degrees of freedom"""
    if df > 1e6:
        return 1.959963984540054
    lo, hi = 1.9, 13.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < 0.975:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def wilson95(k, n):
    """Wilson's score interval of k/n (k, n need not be whole)"""
    z = 1.959963984540054
    p = min(1.0, k / n)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return lo, hi


def mover(a, alo, ahi, b, blo, bhi):
    """the 95% interval of b - a from each side's interval (Zou and Donner)"""
    d = b - a
    return d - math.hypot(b - blo, ahi - a), d + math.hypot(bhi - b, a - alo)


def ratio_se(n, sa, sb, saa, sbb, sab):
    """delta-method standard error of sa / sb from n pairs, given the five sums"""
    r, bbar = sa / sb, sb / n
    cov = lambda xy, x, y: (xy - x * y / n) / (n - 1)
    var = (cov(saa, sa, sa) - 2 * r * cov(sab, sa, sb) + r * r * cov(sbb, sb, sb)) / (n * bbar * bbar)
    return math.sqrt(max(var, 0))


def batch_se(x, y, nb, total):
    """batch-means standard error of sum(x)/sum(y) for a run of nb batches of which x, y
    are the covered ones, total the run's whole denominator; and its degrees of freedom
    (nan where fewer than two batches have a denominator; a share with none of its samples
    in the batches is the caller's to refuse).
    Pairs are added together while the residuals' lag-1 autocorrelation exceeds
    2/sqrt(batches) and 8 or more batches would remain."""
    x, y = list(map(float, x)), list(map(float, y))
    c = len(x)
    if sum(1 for v in y if v > 0) < 2 or not total > 0:
        return math.nan, 0  # one batch says nothing of the spread: the caller falls back
    ratio, scale = sum(x) / sum(y), nb / c
    while True:
        e = [a - ratio * b for a, b in zip(x, y)]
        ss = sum(v * v for v in e)
        lag = sum(e[j] * e[j - 1] for j in range(1, len(e)))
        n = len(e)
        if n < 16 or ss <= 0 or lag / ss <= 2 / math.sqrt(n):
            break
        m = n // 2
        nx = [x[2 * j] + x[2 * j + 1] for j in range(m)]
        ny = [y[2 * j] + y[2 * j + 1] for j in range(m)]
        if n % 2:
            nx[-1] += x[-1]
            ny[-1] += y[-1]
        x, y = nx, ny
    n = len(x)
    return math.sqrt(ss / (n - 1) * n * scale) / total, n - 1


def zero_rate_hi(sum_b, scale=1.0, deff=1.0):
    """The upper end of a rate's interval where no kept period saw an event: the rate at
    which a Poisson count shows none in sum_b 5% of the time (-ln 0.05 events, each
    adding the rate's scale to sum_a), times the design effect; the lower end is 0."""
    return -math.log(0.05) * scale * deff / sum_b
