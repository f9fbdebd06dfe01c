/*
 * test_tag_table.c -- specifies the observer's tag table (observer/tag_table.{h,c}).
 *
 * One entry per distinct key (thread word + tag values), found again for an equal key;
 * keys are stored and readable; a fixed capacity after which every new key goes to the
 * counted `other` entry while the keys already in keep their own entries; a one-entry
 * lookup cache that never lets a new key hide behind `other`; rate statistics and
 * per-rate histograms that start empty and never share memory between entries or rates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>

#include "tag_table.h"

static struct hist_spec default_hist(void)
{
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 500, 0, 4), 0);
    return s;
}

static void init_rejects_zero_capacity(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 0, &h), -1);
    assert_int_equal(tag_table_init(&t, 0, 1, 4, &h), -1); /* a key has at least a thread */
    assert_int_equal(tag_table_init(&t, 2, 1, 4, &h), 0);
    assert_int_equal(t.n_entries, 0);
    assert_int_equal(t.max_entries, 4);
    assert_true(t.bytes > 0);
    tag_table_free(&t);
}

static void init_without_rates(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 0, 8, &h), 0);
    uint64_t k[1] = {7};
    struct tag_entry *e = tag_table_insert(&t, k);
    assert_non_null(e);
    assert_false(tag_table_is_other(&t, e));
    tag_table_free(&t);
}

static void insert_equal_and_different_keys(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 3, 1, 16, &h), 0);
    uint64_t a[3] = {100, 1, 2}, a2[3] = {100, 1, 2}, b[3] = {100, 2, 1}, c[3] = {101, 1, 2};
    struct tag_entry *ea = tag_table_insert(&t, a);
    struct tag_entry *eb = tag_table_insert(&t, b);
    struct tag_entry *ec = tag_table_insert(&t, c);
    assert_ptr_equal(tag_table_insert(&t, a2), ea);
    assert_ptr_equal(tag_table_lookup(&t, a2), ea);
    assert_ptr_not_equal(ea, eb);
    assert_ptr_not_equal(ea, ec);
    assert_ptr_not_equal(eb, ec);
    assert_ptr_equal(tag_table_insert(&t, b), eb);
    assert_ptr_equal(tag_table_lookup(&t, c), ec);
    assert_int_equal(t.n_entries, 3);
    tag_table_free(&t);
}

static void keys_are_stored(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 8, &h), 0);
    uint64_t k[2];
    for (uint64_t i = 0; i < 5; i++) {
        k[0] = 1000 + i, k[1] = i * i;
        struct tag_entry *e = tag_table_insert(&t, k);
        assert_ptr_equal(e, &t.entry[i]); /* entries are numbered in order of arrival */
    }
    k[0] = 0, k[1] = 0; /* the caller's buffer is reused: the table must hold a copy */
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(tag_table_key(&t, i)[0], 1000 + i);
        assert_int_equal(tag_table_key(&t, i)[1], (uint64_t)i * i);
    }
    tag_table_free(&t);
}

static void full_table_sends_new_keys_to_other(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 4, &h), 0);
    uint64_t keys[6][2] = {{1, 10}, {1, 11}, {2, 10}, {2, 11}, {3, 10}, {3, 11}};
    struct tag_entry *e[6];
    for (int i = 0; i < 6; i++)
        e[i] = tag_table_insert(&t, keys[i]);
    for (int i = 0; i < 4; i++)
        assert_false(tag_table_is_other(&t, e[i]));
    assert_true(tag_table_is_other(&t, e[4]));
    assert_true(tag_table_is_other(&t, e[5]));
    assert_ptr_equal(e[4], tag_table_other(&t));
    assert_int_equal(t.n_entries, 4);
    /* the keys already in still find their own entries, by insert and by lookup */
    for (int i = 0; i < 4; i++) {
        assert_ptr_equal(tag_table_insert(&t, keys[i]), e[i]);
        assert_ptr_equal(tag_table_lookup(&t, keys[i]), e[i]);
    }
    for (int i = 0; i < 100; i++) {
        uint64_t k[2] = {50 + (uint64_t)i, 7};
        assert_true(tag_table_is_other(&t, tag_table_insert(&t, k)));
    }
    assert_int_equal(t.n_entries, 4);
    tag_table_free(&t);
}

static void cache_never_returns_other_for_a_new_key(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 2, &h), 0);
    uint64_t a[2] = {1, 1}, b[2] = {1, 2}, c[2] = {1, 3}, d[2] = {1, 4};
    struct tag_entry *ea = tag_table_lookup(&t, a);
    struct tag_entry *eb = tag_table_lookup(&t, b);
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, c)));
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, d)));
    /* after a miss that landed in `other`, an existing key must still find its entry */
    assert_ptr_equal(tag_table_lookup(&t, a), ea);
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, c)));
    assert_ptr_equal(tag_table_lookup(&t, b), eb);
    assert_ptr_equal(tag_table_lookup(&t, b), eb); /* a cache hit */
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, c)));
    tag_table_free(&t);
}

static void cache_follows_the_last_key(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 8, &h), 0);
    uint64_t k[2] = {9, 1};
    struct tag_entry *e1 = tag_table_lookup(&t, k);
    k[1] = 2; /* the same buffer, another key: the cache must compare contents */
    struct tag_entry *e2 = tag_table_lookup(&t, k);
    assert_ptr_not_equal(e1, e2);
    k[1] = 1;
    assert_ptr_equal(tag_table_lookup(&t, k), e1);
    assert_int_equal(t.n_entries, 2);
    tag_table_free(&t);
}

static void n_entries_stops_at_max(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 1, 100, &h), 0);
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t k[1] = {i * 0x10000};
        struct tag_entry *e = tag_table_lookup(&t, k);
        assert_int_equal(tag_table_is_other(&t, e), i >= 100);
    }
    assert_int_equal(t.n_entries, 100);
    for (uint64_t i = 0; i < 100; i++) {
        uint64_t k[1] = {i * 0x10000};
        assert_ptr_equal(tag_table_lookup(&t, k), &t.entry[i]);
    }
    tag_table_free(&t);
}

static void entries_start_empty(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 3, 4, &h), 0);
    for (uint32_t i = 0; i <= t.max_entries; i++) { /* `other` included */
        struct tag_entry *e = &t.entry[i];
        assert_int_equal(e->samples, 0);
        assert_int_equal(e->cycles, 0);
        assert_int_equal(e->kept, 0);
        for (unsigned r = 0; r < 3; r++) {
            assert_int_equal(e->stats[r].n, 0);
            assert_true(isinf(e->stats[r].min) && e->stats[r].min > 0);
            assert_true(isinf(e->stats[r].max) && e->stats[r].max < 0);
            assert_true(e->stats[r].sum == 0 && e->stats[r].sum_ab == 0);
            for (uint32_t w = 0; w < HIST_WORDS(&h); w++)
                assert_int_equal(e->hist[r * HIST_WORDS(&h) + w], 0);
        }
    }
    tag_table_free(&t);
}

static void rate_stats_bookkeeping(void **state)
{
    (void)state;
    struct rate_stats s = {.min = INFINITY, .max = -INFINITY};
    rate_stats_add(&s, 2.0, 4.0, 0.5);
    rate_stats_add(&s, 3.0, 2.0, 1.5);
    rate_stats_add(&s, 0.0, 8.0, 0.0);
    assert_int_equal(s.n, 3);
    assert_true(s.sum == 2.0);
    assert_true(s.sumsq == 0.25 + 2.25);
    assert_true(s.min == 0.0);
    assert_true(s.max == 1.5);
    assert_true(s.sum_a == 5.0);
    assert_true(s.sum_b == 14.0);
    assert_true(s.sum_aa == 4.0 + 9.0);
    assert_true(s.sum_bb == 16.0 + 4.0 + 64.0);
    assert_true(s.sum_ab == 8.0 + 6.0);
}

static void rate_stats_single_value_sets_min_and_max(void **state)
{
    (void)state;
    struct rate_stats s = {.min = INFINITY, .max = -INFINITY};
    rate_stats_add(&s, 7.0, 2.0, 3.5);
    assert_true(s.min == 3.5 && s.max == 3.5);
    rate_stats_add(&s, -1.0, 1.0, -1.0);
    assert_true(s.min == -1.0 && s.max == 3.5);
}

static void histograms_do_not_overlap(void **state)
{
    (void)state;
    struct hist_spec h;
    assert_int_equal(hist_spec_init(&h, 10, 0, 1), 0);
    struct tag_table t;
    enum { RATES = 3, CAP = 3 };
    assert_int_equal(tag_table_init(&t, 1, RATES, CAP, &h), 0);
    uint32_t words = HIST_WORDS(&h);
    /* mark every word of every (entry, rate) histogram with its own value, `other`
     * included, through the entry's own pointer; then check none was overwritten */
    for (uint32_t i = 0; i <= CAP; i++)
        for (uint32_t r = 0; r < RATES; r++)
            for (uint32_t w = 0; w < words; w++)
                t.entry[i].hist[r * words + w] = 1 + (i * RATES + r) * words + w;
    for (uint32_t i = 0; i <= CAP; i++)
        for (uint32_t r = 0; r < RATES; r++)
            for (uint32_t w = 0; w < words; w++)
                assert_int_equal(t.entry[i].hist[r * words + w], 1 + (i * RATES + r) * words + w);
    tag_table_free(&t);
}

static void hist_add_touches_one_entry_and_rate(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    enum { RATES = 2 };
    assert_int_equal(tag_table_init(&t, 1, RATES, 4, &h), 0);
    uint64_t k[1] = {42};
    struct tag_entry *e = tag_table_insert(&t, k);
    hist_add(&h, e->hist + 1 * HIST_WORDS(&h), 1.0);   /* rate 1, bucket 125 */
    hist_add(&h, e->hist + 1 * HIST_WORDS(&h), NAN);   /* rate 1, nan */
    hist_add(&h, e->hist + 1 * HIST_WORDS(&h), 100.0); /* rate 1, overflow */
    rate_stats_add(&e->stats[1], 1.0, 1.0, 1.0);
    for (uint32_t i = 0; i <= t.max_entries; i++) {
        for (unsigned r = 0; r < RATES; r++) {
            uint64_t total = 0;
            for (uint32_t w = 0; w < HIST_WORDS(&h); w++)
                total += t.entry[i].hist[r * HIST_WORDS(&h) + w];
            int touched = &t.entry[i] == e && r == 1;
            assert_int_equal(total, touched ? 3 : 0);
            assert_int_equal(t.entry[i].stats[r].n, touched ? 1 : 0);
        }
    }
    assert_int_equal(e->hist[1 * HIST_WORDS(&h) + 125], 1);
    assert_int_equal(e->hist[1 * HIST_WORDS(&h) + HIST_NAN(&h)], 1);
    assert_int_equal(e->hist[1 * HIST_WORDS(&h) + HIST_OVERFLOW(&h)], 1);
    tag_table_free(&t);
}

/* Two observers' tables into one: equal keys add up (samples, cycles, kept, rate sums,
 * histograms), other keys come along, what finds the table full goes to `other`. */
static void merge_adds_equal_keys_and_brings_the_rest(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table a, b;
    assert_int_equal(tag_table_init(&a, 2, 1, 2, &h), 0);
    assert_int_equal(tag_table_init(&b, 2, 1, 4, &h), 0);
    uint64_t k1[2] = {7, 1}, k2[2] = {7, 2}, k3[2] = {8, 1};
    struct tag_entry *e = tag_table_insert(&a, k1);
    e->samples = 3, e->cycles = 300, e->kept = 2;
    rate_stats_add(&e->stats[0], 1.0, 2.0, 0.5);
    hist_add(&h, e->hist, 0.5);
    e = tag_table_insert(&b, k1);
    e->samples = 5, e->cycles = 500, e->kept = 5;
    rate_stats_add(&e->stats[0], 3.0, 2.0, 1.5);
    hist_add(&h, e->hist, 1.5);
    tag_table_insert(&b, k2)->samples = 4;
    tag_table_insert(&b, k3)->samples = 6; /* a's third key: a is full */
    tag_table_other(&b)->samples = 1;
    tag_table_merge(&a, &b);
    assert_int_equal(a.n_entries, 2);
    e = tag_table_insert(&a, k1);
    assert_int_equal(e->samples, 8);
    assert_int_equal(e->cycles, 800);
    assert_int_equal(e->kept, 7);
    assert_int_equal(e->stats[0].periods, 2);
    assert_true(e->stats[0].sum_a == 4.0 && e->stats[0].sum_b == 4.0);
    assert_true(e->stats[0].min == 0.5 && e->stats[0].max == 1.5);
    assert_int_equal(e->hist[hist_slot(&h, 0.5)] + e->hist[hist_slot(&h, 1.5)], 2);
    assert_int_equal(tag_table_insert(&a, k2)->samples, 4);
    assert_int_equal(tag_table_other(&a)->samples, 6 + 1);
    tag_table_free(&a);
    tag_table_free(&b);
}

static void free_twice_is_harmless(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 1, 4, &h), 0);
    tag_table_free(&t);
    tag_table_free(&t); /* free zeroes the table */
    assert_null(t.entry);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_rejects_zero_capacity),
        cmocka_unit_test(merge_adds_equal_keys_and_brings_the_rest),
        cmocka_unit_test(init_without_rates),
        cmocka_unit_test(insert_equal_and_different_keys),
        cmocka_unit_test(keys_are_stored),
        cmocka_unit_test(full_table_sends_new_keys_to_other),
        cmocka_unit_test(cache_never_returns_other_for_a_new_key),
        cmocka_unit_test(cache_follows_the_last_key),
        cmocka_unit_test(n_entries_stops_at_max),
        cmocka_unit_test(entries_start_empty),
        cmocka_unit_test(rate_stats_bookkeeping),
        cmocka_unit_test(rate_stats_single_value_sets_min_and_max),
        cmocka_unit_test(histograms_do_not_overlap),
        cmocka_unit_test(hist_add_touches_one_entry_and_rate),
        cmocka_unit_test(free_twice_is_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
