/*
 * test_histogram.c -- specifies the linear rate histogram (observer/histogram.{h,c}) and
 * the geometric log histogram (observer/loghist.{h,c}).
 *
 * Linear: bucket i holds lo + i*w <= v < lo + (i+1)*w, w = (hi - lo)/buckets; values
 * below lo and -inf go to underflow, values at or above hi and +inf to overflow, NaN to
 * its own counter (docs/profile-format.md). A histogram whose shape is meaningless
 * (no buckets, empty or non-finite range) is refused.
 *
 * Log: bucket edges are 2^e * (1 + k/2^sub_bits), exact in binary; zero, negatives and
 * values below 2^exp_min underflow; values at or above 2^exp_max, NaN and infinities
 * overflow. count counts every value, sum/min/max only finite ones; quantiles come from
 * the buckets (geometric midpoint) and are NaN for an empty histogram.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "observer/histogram.h"
#include "observer/loghist.h"
#include "observer/probe_plan.h"

/* ---- hist_spec_init ---- */

static void spec_rejects_bad_shapes(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 0, 0, 4), -1);
    assert_int_equal(hist_spec_init(&s, 500, 4, 4), -1);
    assert_int_equal(hist_spec_init(&s, 500, 4, 0), -1);
    assert_int_equal(hist_spec_init(&s, 500, NAN, 4), -1);
    assert_int_equal(hist_spec_init(&s, 500, 0, NAN), -1);
    assert_int_equal(hist_spec_init(&s, 500, -INFINITY, 4), -1);
    assert_int_equal(hist_spec_init(&s, 500, 0, INFINITY), -1);
    assert_int_equal(hist_spec_init(&s, 500, -INFINITY, INFINITY), -1);
}

static void spec_accepts_good_shapes(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 500, 0, 4), 0);
    assert_int_equal(s.buckets, 500);
    assert_true(s.lo == 0.0 && s.hi == 4.0);
    assert_true(s.per_unit == 125.0);
    assert_int_equal(HIST_UNDERFLOW(&s), 500);
    assert_int_equal(HIST_OVERFLOW(&s), 501);
    assert_int_equal(HIST_NAN(&s), 502);
    assert_int_equal(HIST_WORDS(&s), 503);
    assert_int_equal(hist_spec_init(&s, 1, 0, 1e-3), 0);
    assert_int_equal(hist_spec_init(&s, 10, -1, 1), 0);
}

/* A range whose width (hi - lo) is not a finite double makes every bucket width
 * meaningless (per_unit becomes 0 and every value lands in bucket 0 or overflow). */
static void spec_rejects_range_wider_than_a_double(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 10, -1e308, 1e308), -1);
}

/* ---- hist_slot ---- */

static void slot_range_edges(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 500, 0, 4), 0);
    assert_int_equal(hist_slot(&s, 0.0), 0);
    assert_int_equal(hist_slot(&s, -0.0), 0);
    assert_int_equal(hist_slot(&s, nextafter(0.0, -1.0)), HIST_UNDERFLOW(&s));
    assert_int_equal(hist_slot(&s, 4.0), HIST_OVERFLOW(&s));
    assert_int_equal(hist_slot(&s, nextafter(4.0, 0.0)), 499);
    assert_int_equal(hist_slot(&s, 1e300), HIST_OVERFLOW(&s));
}

static void slot_bucket_boundaries(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 500, 0, 4), 0);
    assert_int_equal(hist_slot(&s, 0.008), 1);
    assert_int_equal(hist_slot(&s, 0.0079999), 0);
    assert_int_equal(hist_slot(&s, 1.0), 125);
    assert_int_equal(hist_slot(&s, nextafter(1.0, 0.0)), 124);
    assert_int_equal(hist_slot(&s, 2.0), 250);
    assert_int_equal(hist_slot(&s, 3.996), 499);
}

static void slot_special_values(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 500, 0, 4), 0);
    assert_int_equal(hist_slot(&s, NAN), HIST_NAN(&s));
    assert_int_equal(hist_slot(&s, -NAN), HIST_NAN(&s));
    assert_int_equal(hist_slot(&s, INFINITY), HIST_OVERFLOW(&s));
    assert_int_equal(hist_slot(&s, -INFINITY), HIST_UNDERFLOW(&s));
    assert_int_equal(hist_slot(&s, -1.0), HIST_UNDERFLOW(&s));
    assert_int_equal(hist_slot(&s, -1e300), HIST_UNDERFLOW(&s));
}

static void slot_negative_range(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 8, -4, 4), 0);
    assert_int_equal(hist_slot(&s, -4.0), 0);
    assert_int_equal(hist_slot(&s, -3.5), 0);
    assert_int_equal(hist_slot(&s, -3.0), 1);
    assert_int_equal(hist_slot(&s, 0.0), 4);
    assert_int_equal(hist_slot(&s, 3.999), 7);
    assert_int_equal(hist_slot(&s, nextafter(-4.0, -5.0)), HIST_UNDERFLOW(&s));
}

/* "values at or above hi in overflow": hi itself is overflow and a value strictly below
 * hi is not, whatever the range. The index (v - lo) * per_unit is rounded twice, so
 * comparing it with `buckets` is not the same as comparing v with hi: with [-1, 1) the
 * largest double below 1 lands on index 10 (overflow), and with [0.1, 0.3) hi itself
 * lands on index 6.99.. (bucket 6). */
static void slot_hi_edge_in_any_range(void **state)
{
    (void)state;
    static const double shapes[][3] = {
        {500, 0, 4}, {3, 0, 1}, {1000, -3, 5}, {7, 0.1, 0.3}, {10, -1, 1},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct hist_spec s;
        double lo = shapes[i][1], hi = shapes[i][2], below = nextafter(hi, -INFINITY);
        assert_int_equal(hist_spec_init(&s, (uint32_t)shapes[i][0], lo, hi), 0);
        if (hist_slot(&s, hi) != HIST_OVERFLOW(&s)) {
            print_error("[%g, %g) x %u: hi=%.17g -> slot %u, expected overflow %u\n", lo, hi,
                        s.buckets, hi, hist_slot(&s, hi), HIST_OVERFLOW(&s));
            wrong++;
        }
        if (hist_slot(&s, below) != s.buckets - 1) {
            print_error("[%g, %g) x %u: %.17g -> slot %u, expected last bucket %u\n", lo, hi,
                        s.buckets, below, hist_slot(&s, below), s.buckets - 1);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
}

static void add_counts_in_slots(void **state)
{
    (void)state;
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 4, 0, 4), 0);
    uint64_t counts[4 + 3] = {0};
    hist_add(&s, counts, 0.5);
    hist_add(&s, counts, 0.7);
    hist_add(&s, counts, 3.5);
    hist_add(&s, counts, -1);
    hist_add(&s, counts, 9);
    hist_add(&s, counts, INFINITY);
    hist_add(&s, counts, NAN);
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 0);
    assert_int_equal(counts[2], 0);
    assert_int_equal(counts[3], 1);
    assert_int_equal(counts[HIST_UNDERFLOW(&s)], 1);
    assert_int_equal(counts[HIST_OVERFLOW(&s)], 2);
    assert_int_equal(counts[HIST_NAN(&s)], 1);
}

/* ---- loghist ---- */

static int setup_loghist(void **state)
{
    static struct loghist h;
    if (loghist_init(&h, 5, 0, 40) != 0) return -1;
    *state = &h;
    return 0;
}

static int teardown_loghist(void **state)
{
    loghist_free(*state);
    return 0;
}

static void loghist_shape(void **state)
{
    struct loghist *h = *state;
    assert_int_equal(h->nbuckets, 40 << 5);
    assert_int_equal(h->count, 0);
    assert_true(isinf(h->min) && h->min > 0);
    assert_true(isinf(h->max) && h->max < 0);
}

static void loghist_index_below_range(void **state)
{
    struct loghist *h = *state;
    assert_int_equal(loghist_index(h, 0.0), -1);
    assert_int_equal(loghist_index(h, -0.0), -1);
    assert_int_equal(loghist_index(h, -5.0), -1);
    assert_int_equal(loghist_index(h, -INFINITY), -1);
    assert_int_equal(loghist_index(h, 4.9e-324), -1); /* smallest subnormal */
    assert_int_equal(loghist_index(h, 2.2250738585072009e-308), -1);
    assert_int_equal(loghist_index(h, 0.5), -1);
    assert_int_equal(loghist_index(h, nextafter(1.0, 0.0)), -1);
}

static void loghist_index_above_range(void **state)
{
    struct loghist *h = *state;
    assert_int_equal(loghist_index(h, INFINITY), h->nbuckets);
    assert_int_equal(loghist_index(h, NAN), h->nbuckets);
    assert_int_equal(loghist_index(h, ldexp(1.0, 40)), h->nbuckets);
    assert_int_equal(loghist_index(h, 1e300), h->nbuckets);
    assert_int_equal(loghist_index(h, nextafter(ldexp(1.0, 40), 0.0)), h->nbuckets - 1);
}

/* NaN overflows whatever its sign bit: x86 arithmetic (0.0/0.0, inf - inf) produces the
 * "default NaN", which has the sign bit set. */
static void loghist_index_negative_nan_overflows(void **state)
{
    struct loghist *h = *state;
    volatile double zero = 0.0;
    double computed_nan = zero / zero;
    assert_true(isnan(computed_nan));
    assert_int_equal(loghist_index(h, -NAN), h->nbuckets);
    assert_int_equal(loghist_index(h, computed_nan), h->nbuckets);
}

static void loghist_index_powers_of_two(void **state)
{
    struct loghist *h = *state;
    assert_int_equal(loghist_index(h, 1.0), 0);
    assert_int_equal(loghist_index(h, 2.0), 32);
    assert_int_equal(loghist_index(h, 1024.0), 10 * 32);
    assert_int_equal(loghist_index(h, ldexp(1.0, 39)), 39 * 32);
    /* just below a power of two: the last slice of the power below */
    assert_int_equal(loghist_index(h, nextafter(2.0, 0.0)), 31);
    assert_int_equal(loghist_index(h, nextafter(1024.0, 0.0)), 10 * 32 - 1);
    assert_int_equal(loghist_index(h, 1023.0), 9 * 32 + 31);
}

static void loghist_index_slices(void **state)
{
    struct loghist *h = *state;
    /* 100 = 64 * 1.5625 = 64 * (1 + 18/32): exactly the lower edge of slice 18 */
    assert_int_equal(loghist_index(h, 100.0), 6 * 32 + 18);
    assert_int_equal(loghist_index(h, nextafter(100.0, 0.0)), 6 * 32 + 17);
    assert_int_equal(loghist_index(h, 101.9), 6 * 32 + 18);
    assert_int_equal(loghist_index(h, 102.0), 6 * 32 + 19);
}

static void loghist_lower_edges_exact(void **state)
{
    struct loghist *h = *state;
    assert_true(loghist_lower(h, 0) == 1.0);
    assert_true(loghist_lower(h, 1) == 1.0 + 1.0 / 32);
    assert_true(loghist_lower(h, 31) == 1.0 + 31.0 / 32);
    assert_true(loghist_lower(h, 32) == 2.0);
    assert_true(loghist_lower(h, 6 * 32 + 18) == 100.0);
    assert_true(loghist_lower(h, 6 * 32 + 19) == 102.0);
    for (uint32_t i = 0; i < h->nbuckets; i++) {
        int e = (int)(i / 32), k = (int)(i % 32);
        double lo = ldexp(1.0 + k / 32.0, e);
        assert_true(loghist_lower(h, i) == lo);
        /* the lower edge is in its own bucket, the value just below it in the previous */
        assert_int_equal(loghist_index(h, lo), i);
        if (i > 0) assert_int_equal(loghist_index(h, nextafter(lo, 0.0)), i - 1);
    }
    assert_true(loghist_lower(h, h->nbuckets) == ldexp(1.0, 40));
}

static void loghist_negative_exponents(void **state)
{
    (void)state;
    struct loghist h;
    assert_int_equal(loghist_init(&h, 6, -8, 12), 0);
    assert_int_equal(h.nbuckets, 20 << 6);
    assert_int_equal(loghist_index(&h, ldexp(1.0, -8)), 0);
    assert_int_equal(loghist_index(&h, nextafter(ldexp(1.0, -8), 0.0)), -1);
    assert_int_equal(loghist_index(&h, 1.0), 8 * 64);
    assert_true(loghist_lower(&h, 8 * 64) == 1.0);
    assert_true(loghist_lower(&h, 0) == ldexp(1.0, -8));
    assert_true(loghist_lower(&h, 8 * 64 + 1) == 1.0 + 1.0 / 64);
    assert_int_equal(loghist_index(&h, ldexp(1.0, 12)), h.nbuckets);
    loghist_free(&h);
}

static void loghist_bookkeeping(void **state)
{
    struct loghist *h = *state;
    loghist_add(h, 100.0);
    loghist_add(h, 3.0);
    loghist_add(h, 0.0);      /* underflow, finite */
    loghist_add(h, -2.0);     /* underflow, finite */
    loghist_add(h, 1e20);     /* overflow, finite */
    loghist_add(h, INFINITY); /* overflow, not in sum/min/max */
    loghist_add(h, NAN);      /* overflow, not in sum/min/max */
    assert_int_equal(h->count, 7);
    assert_int_equal(h->underflow, 2);
    assert_int_equal(h->overflow, 3);
    assert_int_equal(h->bucket[loghist_index(h, 100.0)], 1);
    assert_int_equal(h->bucket[loghist_index(h, 3.0)], 1);
    uint64_t in = 0;
    for (uint32_t i = 0; i < h->nbuckets; i++)
        in += h->bucket[i];
    assert_int_equal(in, 2);
    assert_true(h->min == -2.0);
    assert_true(h->max == 1e20);
    assert_true(h->sum == 100.0 + 3.0 - 2.0 + 1e20);

    loghist_reset(h);
    assert_int_equal(h->count, 0);
    assert_int_equal(h->underflow, 0);
    assert_int_equal(h->overflow, 0);
    assert_true(h->sum == 0.0);
    assert_true(isinf(h->min) && isinf(h->max));
    assert_int_equal(h->bucket[loghist_index(h, 100.0)], 0);
}

static void loghist_empty_quantile_is_nan(void **state)
{
    struct loghist *h = *state;
    assert_true(isnan(loghist_quantile(h, 0.5)));
    assert_true(isnan(loghist_quantile(h, 0.0)));
    assert_true(isnan(loghist_quantile(h, 1.0)));
}

static void loghist_quantiles_of_two_clusters(void **state)
{
    struct loghist *h = *state;
    for (int i = 0; i < 1000; i++)
        loghist_add(h, 100.0);
    for (int i = 0; i < 1000; i++)
        loghist_add(h, 1000.0);
    double width100 = 100.0 / 32, width1000 = 512.0 / 32; /* slice width at 64.., 512.. */
    double med = loghist_quantile(h, 0.5);
    assert_true(fabs(med - 100.0) <= width100 || fabs(med - 1000.0) <= width1000);
    double p10 = loghist_quantile(h, 0.1), p90 = loghist_quantile(h, 0.9);
    assert_true(p10 >= 100.0 && p10 < 102.0);  /* inside 100's bucket [100, 102) */
    assert_true(p90 >= 992.0 && p90 < 1008.0); /* inside 1000's bucket [992, 1008) */
    assert_true(loghist_quantile(h, 0.0) == p10);
    assert_true(loghist_quantile(h, 1.0) == p90);
    assert_true(h->min == 100.0 && h->max == 1000.0);
    assert_true(h->sum == 1100000.0);
}

static void loghist_quantile_in_underflow_and_overflow(void **state)
{
    struct loghist *h = *state;
    loghist_add(h, 0.25); /* underflow */
    loghist_add(h, 10.0);
    loghist_add(h, 1e15);                          /* overflow */
    assert_true(loghist_quantile(h, 0.0) == 0.25); /* the exact minimum */
    assert_true(loghist_quantile(h, 1.0) == 1e15); /* the exact maximum */
    double mid = loghist_quantile(h, 0.5);
    assert_true(mid >= 10.0 && mid < 10.0 + 8.0 / 32);
}

/* A quantile in a bucket where every value was the same is that value, exactly: a CPC
 * of exactly 1 (its bucket is [1, 1 + 1/64)) has median 1, not the bucket's midpoint
 * 1.0078. A bucket that saw two values (1000 and 1005 cycles, both in [992, 1008))
 * gives its midpoint, and says it is one. Merging keeps both. */
static void loghist_quantile_of_a_bucket_of_one_value_is_exact(void **state)
{
    (void)state;
    struct loghist cpc, other, period;
    int exact;
    assert_int_equal(loghist_init(&cpc, 6, -8, 12), 0);
    assert_int_equal(loghist_init(&other, 6, -8, 12), 0);
    assert_int_equal(loghist_init(&period, 5, 0, 40), 0);
    for (int i = 0; i < 100; i++)
        loghist_add(&cpc, 1.0);
    loghist_add(&cpc, 0.9);
    assert_true(loghist_quantile_exact(&cpc, 0.5, &exact) == 1.0);
    assert_int_equal(exact, 1);
    for (int i = 0; i < 70; i++)
        loghist_add(&period, i % 2 ? 1000.0 : 1005.0); /* one bucket, two values */
    double m = loghist_quantile_exact(&period, 0.5, &exact);
    assert_int_equal(exact, 0);
    assert_true(m > 992 && m < 1008 && m != 1000.0 && m != 1005.0);
    loghist_add(&other, 1.0);
    loghist_add(&other, 1.01); /* same bucket as 1.0, another value */
    loghist_merge(&cpc, &other);
    loghist_quantile_exact(&cpc, 0.5, &exact);
    assert_int_equal(exact, 0);
    loghist_free(&cpc);
    loghist_free(&other);
    loghist_free(&period);
}

/* One rate by another (probe_by_add) picks its slot the same way: the largest value below
 * hi is in the last bucket (slot `buckets`), not in the slot past hi, where an index
 * computed as (x - lo) / (hi - lo) * buckets and compared with `buckets` put it for
 * [-1, 1) in 10 buckets (the index rounds up to 10); hi itself is past hi, lo the first
 * bucket. */
static void by_slot_hi_edge_in_any_range(void **state)
{
    (void)state;
    static const double shapes[][3] = {
        {500, 0, 4}, {3, 0, 1}, {1000, -3, 5}, {7, 0.1, 0.3}, {10, -1, 1}, {2, -0.987, -0.469},
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct probe_by by = {
            .buckets = (unsigned)shapes[i][0], .lo = shapes[i][1], .hi = shapes[i][2]};
        double slots[3 * 1002] = {0}, below = nextafter(by.hi, -INFINITY);
        probe_by_add(&by, slots, below, 1, 2);
        probe_by_add(&by, slots, by.hi, 10, 20);
        probe_by_add(&by, slots, by.lo, 100, 200);
        double *last = slots + 3 * by.buckets, *past = slots + 3 * (by.buckets + 1),
               *first = slots + 3;
        if (last[0] != 1 || last[1] != 1 || last[2] != 2) {
            print_error("[%g, %g) x %u: %.17g not in the last bucket\n", by.lo, by.hi, by.buckets,
                        below);
            wrong++;
        }
        if (past[0] != 1 || past[1] != 10 || first[0] != 1 || first[2] != 200) {
            print_error("[%g, %g) x %u: hi or lo in the wrong slot\n", by.lo, by.hi, by.buckets);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_rejects_bad_shapes),
        cmocka_unit_test(spec_accepts_good_shapes),
        cmocka_unit_test(spec_rejects_range_wider_than_a_double),
        cmocka_unit_test(slot_range_edges),
        cmocka_unit_test(slot_bucket_boundaries),
        cmocka_unit_test(slot_special_values),
        cmocka_unit_test(slot_negative_range),
        cmocka_unit_test(slot_hi_edge_in_any_range),
        cmocka_unit_test(by_slot_hi_edge_in_any_range),
        cmocka_unit_test(loghist_quantile_of_a_bucket_of_one_value_is_exact),
        cmocka_unit_test(add_counts_in_slots),
        cmocka_unit_test_setup_teardown(loghist_shape, setup_loghist, teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_index_below_range, setup_loghist, teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_index_above_range, setup_loghist, teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_index_negative_nan_overflows, setup_loghist,
                                        teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_index_powers_of_two, setup_loghist,
                                        teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_index_slices, setup_loghist, teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_lower_edges_exact, setup_loghist, teardown_loghist),
        cmocka_unit_test(loghist_negative_exponents),
        cmocka_unit_test_setup_teardown(loghist_bookkeeping, setup_loghist, teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_empty_quantile_is_nan, setup_loghist,
                                        teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_quantiles_of_two_clusters, setup_loghist,
                                        teardown_loghist),
        cmocka_unit_test_setup_teardown(loghist_quantile_in_underflow_and_overflow, setup_loghist,
                                        teardown_loghist),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
