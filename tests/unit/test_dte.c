/*
 * test_dte.c -- specifies double-time error correction and counter wrap-around
 * (observer/dte.h).
 *
 * dte_accept keeps a period when |dCe - dCs| <= tolerance * dCs: the edge is inclusive,
 * one TSC tick beyond it is rejected, in both directions (end markers further apart or
 * closer together than start markers), and a zero-length period is never kept.
 * counter_mask/counter_delta take deltas modulo 2^width, so a counter that wrapped
 * between two samples still gives the true (small) delta.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "observer/dte.h"

/* ---- dte_accept ---- */

static void dte_edge_at_100_ticks(void **state)
{
    (void)state;
    assert_true(dte_accept(100, 100, 0.01, 0));
    assert_true(dte_accept(100, 101, 0.01, 0));  /* +1%: exactly the tolerance, kept */
    assert_true(dte_accept(100, 99, 0.01, 0));   /* -1%: exactly the tolerance, kept */
    assert_false(dte_accept(100, 102, 0.01, 0)); /* one tick beyond */
    assert_false(dte_accept(100, 98, 0.01, 0));
}

static void dte_edge_at_1000_ticks(void **state)
{
    (void)state;
    assert_true(dte_accept(1000, 1010, 0.01, 0));
    assert_false(dte_accept(1000, 1011, 0.01, 0));
    assert_true(dte_accept(1000, 990, 0.01, 0));
    assert_false(dte_accept(1000, 989, 0.01, 0));
}

static void dte_edge_with_other_tolerances(void **state)
{
    (void)state;
    /* 5% of 2000 is 100 ticks */
    assert_true(dte_accept(2000, 2100, 0.05, 0));
    assert_false(dte_accept(2000, 2101, 0.05, 0));
    assert_true(dte_accept(2000, 1900, 0.05, 0));
    assert_false(dte_accept(2000, 1899, 0.05, 0));
}

static void dte_zero_length_period_rejected(void **state)
{
    (void)state;
    assert_false(dte_accept(0, 0, 0.01, 0));
    assert_false(dte_accept(0, 5, 0.01, 0));
    assert_false(dte_accept(0, 0, 1.0, 0));
    assert_false(dte_accept(0, 0, 0.0, 0));
}

static void dte_tolerance_zero_accepts_only_equal(void **state)
{
    (void)state;
    assert_true(dte_accept(1, 1, 0.0, 0));
    assert_true(dte_accept(1000, 1000, 0.0, 0));
    assert_false(dte_accept(1000, 1001, 0.0, 0));
    assert_false(dte_accept(1000, 999, 0.0, 0));
    assert_true(dte_accept(UINT64_MAX, UINT64_MAX, 0.0, 0));
}

static void dte_tolerance_one_is_wide(void **state)
{
    (void)state;
    /* |CPC - 1| <= 1: anything from an end span of 0 to twice the start span */
    assert_true(dte_accept(100, 0, 1.0, 0));
    assert_true(dte_accept(100, 1, 1.0, 0));
    assert_true(dte_accept(100, 200, 1.0, 0));
    assert_false(dte_accept(100, 201, 1.0, 0));
    assert_true(dte_accept(1, 2, 1.0, 0));
    assert_false(dte_accept(1, 3, 1.0, 0));
}

static void dte_large_spans(void **state)
{
    (void)state;
    uint64_t big = (uint64_t)1 << 40; /* exact in a double, and so is 1% of it rounded */
    assert_true(dte_accept(big, big + big / 128, 0.01, 0));
    assert_false(dte_accept(big, big + big / 64, 0.01, 0));
    assert_true(dte_accept(big, big - big / 128, 0.01, 0));
    assert_false(dte_accept(big, big - big / 64, 0.01, 0));
}

/* ---- counter_mask ---- */

/* A skew up to the clock's resolution (the TSC step) is always accepted: it is what
 * two equal windows read when they straddle a step differently. Beyond it, the
 * tolerance rules as before, edges inclusive. */
static void dte_resolution_accepts_one_step(void **state)
{
    (void)state;
    assert_true(dte_accept(1000, 1026, 0.01, 26)); /* 2.6% but one step */
    assert_true(dte_accept(1000, 974, 0.01, 26));
    assert_false(dte_accept(1000, 1027, 0.01, 26)); /* beyond the step and the tolerance */
    assert_false(dte_accept(1000, 1052, 0.01, 26)); /* two steps */
    assert_true(dte_accept(5000, 5050, 0.01, 26));  /* the tolerance is wider: it rules */
    assert_false(dte_accept(5000, 5051, 0.01, 26));
    assert_false(dte_accept(0, 0, 0.01, 26)); /* zero-length still refused */
}

static void mask_widths(void **state)
{
    (void)state;
    assert_int_equal(counter_mask(1), 0x1);
    assert_int_equal(counter_mask(31), 0x7fffffffull);
    assert_int_equal(counter_mask(32), 0xffffffffull);
    assert_int_equal(counter_mask(48), 0xffffffffffffull);
    assert_int_equal(counter_mask(63), 0x7fffffffffffffffull);
    assert_int_equal(counter_mask(64), UINT64_MAX);
}

/* ---- counter_delta ---- */

static void delta_without_wrap(void **state)
{
    (void)state;
    assert_int_equal(counter_delta(1000, 400, counter_mask(64)), 600);
    assert_int_equal(counter_delta(1000, 400, counter_mask(48)), 600);
    assert_int_equal(counter_delta(1000, 400, counter_mask(32)), 600);
}

static void delta_of_equal_values_is_zero(void **state)
{
    (void)state;
    assert_int_equal(counter_delta(0, 0, counter_mask(64)), 0);
    assert_int_equal(counter_delta(12345, 12345, counter_mask(48)), 0);
    assert_int_equal(counter_delta(UINT64_MAX, UINT64_MAX, counter_mask(64)), 0);
    assert_int_equal(counter_delta(0xffffffffull, 0xffffffffull, counter_mask(32)), 0);
}

static void delta_wraps_at_48_bits(void **state)
{
    (void)state;
    uint64_t top = (uint64_t)1 << 48;
    assert_int_equal(counter_delta(10, top - 5, counter_mask(48)), 15);
    assert_int_equal(counter_delta(0, top - 1, counter_mask(48)), 1);
    /* perf sign-extends a 48-bit counter: the value before the wrap may arrive with the
     * upper 16 bits set; the masked delta is the same */
    assert_int_equal(counter_delta(10, UINT64_MAX - 4, counter_mask(48)), 15);
}

static void delta_wraps_at_64_bits(void **state)
{
    (void)state;
    assert_int_equal(counter_delta(10, UINT64_MAX - 4, counter_mask(64)), 15);
    assert_int_equal(counter_delta(0, UINT64_MAX, counter_mask(64)), 1);
}

static void delta_wraps_at_32_bits(void **state)
{
    (void)state;
    assert_int_equal(counter_delta(10, 0xffffffffull - 4, counter_mask(32)), 15);
    assert_int_equal(counter_delta(0, 0xffffffffull, counter_mask(32)), 1);
    /* bits above the width are ignored */
    assert_int_equal(counter_delta(0x500000010ull, 0x3fffffffbull, counter_mask(32)), 21);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dte_edge_at_100_ticks),
        cmocka_unit_test(dte_resolution_accepts_one_step),
        cmocka_unit_test(dte_edge_at_1000_ticks),
        cmocka_unit_test(dte_edge_with_other_tolerances),
        cmocka_unit_test(dte_zero_length_period_rejected),
        cmocka_unit_test(dte_tolerance_zero_accepts_only_equal),
        cmocka_unit_test(dte_tolerance_one_is_wide),
        cmocka_unit_test(dte_large_spans),
        cmocka_unit_test(mask_widths),
        cmocka_unit_test(delta_without_wrap),
        cmocka_unit_test(delta_of_equal_values_is_zero),
        cmocka_unit_test(delta_wraps_at_48_bits),
        cmocka_unit_test(delta_wraps_at_64_bits),
        cmocka_unit_test(delta_wraps_at_32_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
