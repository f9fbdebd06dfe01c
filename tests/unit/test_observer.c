/*
 * test_observer.c -- specifies the observer loop's bookkeeping (observer/observer.{h,c})
 * by running the real loop on a thread for a few tens of milliseconds while this thread
 * plays the observed program: it counts in a software counter, flips a tag word and,
 * in one test, changes the thread word.
 *
 * What is checked are the invariants every profile states (docs/profile-format.md):
 * kept + discarded == rated, rated + thread_changes + interrupted == total, the entries'
 * samples add up to total - interrupted (`other` included), the period histogram holds
 * every period, and rates exist only for kept periods. Nothing is pinned: with one CPU
 * the two threads take turns (this thread sleeps briefly after each change so that the
 * observer sees it, and the observer's preempted periods count as interrupted), with two
 * they run side by side; the invariants hold either way. No timing is asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "observer/dte.h"
#include "observer/observer.h"
#include "observer_thread.h"
#include "test_registry.h"

#define RUN_NS (50 * 1000000L) /* how long the observed side runs */

/* The "program": written by this thread, read by the observer. */
/* The program's tag slot 0 and counter slot 0, in a block of each thread id it plays. */
static struct test_program program;
static uint64_t thread_word;
static const uint64_t constant_thread = 4242;

struct run_options {
    int dte_off;
    uint32_t max_tags;
    unsigned n_tag_values; /* the tag cycles through 1..n */
    int toggle_thread;     /* thread_word alternates between two values */
    uint64_t period;
    uint64_t counter_start; /* where the software counter starts */
    unsigned width;         /* the counter's width (0: 64) */
    uint64_t breath_every;  /* TSC cycles between the observer's breaths (0: none) */
};

static void store(uint64_t *w, uint64_t v)
{
    __atomic_store_n(w, v, __ATOMIC_RELAXED);
}

/* Plays the program for RUN_NS: each step changes the tag (and the thread word), counts
 * a little, then sleeps briefly, so that the observer gets a CPU while the new values
 * stand even when it shares one with this thread (or with anything else running). */
static void play_program(const struct run_options *opt)
{
    double end = now_ns() + (double)RUN_NS;
    uint64_t step = 0;
    while (now_ns() < end) {
        test_set_tag(&program, 0, 1 + step % opt->n_tag_values);
        if (opt->toggle_thread) store(&thread_word, step % 2 ? 7001 : 7002);
        for (int i = 0; i < 2000; i++)
            test_set_counter(&program, 0, test_counter(&program, 0) + 1);
        nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
        step++;
    }
}

static void run_observer_limited(struct observer *o, const struct run_options *opt,
                                 uint64_t max_period)
{
    struct probe_plan plan = {0};
    plan.registry = opt->toggle_thread ? test_program_init(&program, 7001, 7002)
                                       : test_program_init(&program, constant_thread, 0);
    test_set_counter(&program, 0, opt->counter_start);
    test_set_tag(&program, 0, 1);
    store(&thread_word, 7001);
    plan.n_sw = 1;
    plan.sw[0].slot = 0;
    plan.mask[0] = counter_mask(opt->width ? opt->width : 64);
    plan.n_rates = 1;
    plan.rate[0] = (struct probe_rate){.num = 0, .den = PROBE_RATE_PER_TSC, .scale = 1.0};
    plan.n_tags = 1;
    plan.tag_slot[0] = 0;
    plan.thread_word = opt->toggle_thread ? &thread_word : &constant_thread;

    struct observer_params params = {
        .period = opt->period,
        .jitter = 0.5,
        .dte_tolerance = 0.01,
        .dte_off = opt->dte_off,
        .max_tags = opt->max_tags,
        .max_detail = 16,
        .max_period = max_period,
        .seed = 12345,
        .breath_every = opt->breath_every,
        .breath_ns = OBSERVER_BREATH_NS,
    };
    assert_int_equal(hist_spec_init(&params.hist, 500, 0, 4), 0);
    assert_int_equal(observer_init(o, &plan, &params), 0);

    struct observer_thread_run th;
    assert_int_equal(observer_thread_start(&th, o), 0);
    play_program(opt);
    observer_request_stop(o);
    assert_int_equal(observer_thread_join(&th), 0);
}

static void run_observer(struct observer *o, const struct run_options *opt)
{
    run_observer_limited(o, opt, observer_default_max_period(opt->period, 0.5));
}

static uint64_t hist_total(const struct tag_table *t, const struct tag_detail *d, unsigned r)
{
    uint64_t n = 0;
    for (uint32_t w = 0; w < HIST_WORDS(&t->hist); w++)
        n += d->hist[(size_t)r * HIST_WORDS(&t->hist) + w];
    return n;
}

/* The invariants of every run. */
static void check_invariants(const struct observer *o)
{
    const struct observer_totals *tot = &o->totals;
    const struct tag_table *t = &o->tags;
    assert_true(tot->total > 0);
    assert_true(tot->total > tot->interrupted);
    assert_int_equal(tot->kept + tot->discarded, tot->rated);
    assert_int_equal(tot->rated + tot->thread_changes + tot->straddled + tot->interrupted,
                     tot->total);
    assert_true(o->first_tsc < o->last_tsc);
    assert_true(o->cpu_seconds > 0);

    uint64_t samples = 0, kept = 0, cycles = 0, straddled = 0;
    for (uint32_t i = 0; i <= t->n_entries; i++) { /* `other` included */
        const struct tag_entry *e = tag_table_at(t, i);
        const struct tag_detail *d = tag_entry_detail(t, e);
        samples += e->samples;
        kept += e->kept;
        cycles += e->cycles;
        straddled += e->straddled;
        assert_true(e->kept + e->straddled <= e->samples);
        /* every kept period is in the sums; the rates of periods DTE discarded are not */
        assert_int_equal(e->sums[0].periods, e->kept);
        if (e->kept) assert_true(isfinite(e->sums[0].sum_a) && e->sums[0].sum_b > 0);
        if (!d) continue;
        /* a detail record holds the periods after it was given: every one of this run
         * has a positive length and a finite rate */
        assert_true(d->since <= e->samples);
        assert_true(d->dist[0].n <= e->kept);
        assert_int_equal(hist_total(t, d, 0), d->dist[0].n);
        if (d->dist[0].n > 0) {
            assert_true(isfinite(d->dist[0].sum));
            assert_true(d->dist[0].min >= 0 && d->dist[0].min <= d->dist[0].max);
        }
    }
    assert_int_equal(samples, tot->total - tot->interrupted);
    assert_int_equal(kept, tot->kept);
    assert_int_equal(straddled, tot->straddled);
    assert_int_equal(tag_table_other(t)->samples, tot->other);
    assert_int_equal(t->other_why[TAG_OTHER_FULL] + t->other_why[TAG_OTHER_BEHIND], tot->other);
    /* the periods tile the run: the attributed ones cover at most last - first marker,
     * and all of it when none was interrupted */
    assert_true(cycles <= o->last_tsc - o->first_tsc);
    if (tot->interrupted == 0) assert_int_equal(cycles, o->last_tsc - o->first_tsc);

    assert_int_equal(o->period.count, tot->total);
    assert_int_equal(o->cpc.count, tot->rated);
    assert_true(o->gap.count <= tot->kept);
    if (tot->kept > 0) assert_int_equal(o->gap.count, tot->kept - 1);
}

/* The entry whose key is (thread, tag), or NULL. */
static const struct tag_entry *find_entry(const struct observer *o, uint64_t thread, uint64_t tag)
{
    for (uint32_t i = 0; i < o->tags.n_entries; i++) {
        const uint64_t *k = tag_table_key(&o->tags, i);
        if (k[0] == thread && k[1] == tag) return tag_table_entry(&o->tags, i);
    }
    return NULL;
}

static void two_tags_one_counter(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {.max_tags = 1024, .n_tag_values = 2, .period = 1000};
    run_observer(&o, &opt);
    check_invariants(&o);
    assert_int_equal(o.totals.thread_changes, 0);
    assert_int_equal(o.totals.other, 0);
    assert_int_equal(o.tags.n_entries, 2);
    const struct tag_entry *e1 = find_entry(&o, constant_thread, 1);
    const struct tag_entry *e2 = find_entry(&o, constant_thread, 2);
    assert_non_null(e1);
    assert_non_null(e2);
    assert_true(e1->samples > 0);
    assert_true(e2->samples > 0);
    assert_int_equal(e1->samples + e2->samples, o.totals.total - o.totals.interrupted);
    observer_free(&o);
}

static void fastest_period(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {.max_tags = 1024, .n_tag_values = 2, .period = 0};
    run_observer(&o, &opt);
    check_invariants(&o);
    observer_free(&o);
}

static void dte_off_keeps_every_rated_period(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {.dte_off = 1, .max_tags = 1024, .n_tag_values = 2, .period = 1000};
    run_observer(&o, &opt);
    check_invariants(&o);
    assert_int_equal(o.totals.kept, o.totals.rated);
    assert_int_equal(o.totals.discarded, 0);
    assert_int_equal(o.cpc.count, o.totals.rated); /* CPC is still recorded */
    observer_free(&o);
}

static void full_table_counts_other(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {.max_tags = 1, .n_tag_values = 3, .period = 1000};
    run_observer(&o, &opt);
    check_invariants(&o);
    assert_int_equal(o.tags.n_entries, 1);
    const struct tag_entry *other = tag_table_other(&o.tags);
    assert_true(other->samples > 0);
    assert_int_equal(o.totals.other, other->samples);
    assert_int_equal(tag_table_entry(&o.tags, 0)->samples + other->samples,
                     o.totals.total - o.totals.interrupted);
    /* the store was at its limit: that is the reason given for every one of them */
    assert_int_equal(o.tags.other_why[TAG_OTHER_FULL], other->samples);
    observer_free(&o);
}

static void thread_word_changes_are_not_rated(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {
        .max_tags = 1024, .n_tag_values = 2, .toggle_thread = 1, .period = 1000};
    /* no period limit: on one CPU the thread word changes only while the observer is
     * preempted, in periods it would otherwise count as interrupted */
    run_observer_limited(&o, &opt, UINT64_MAX);
    check_invariants(&o);
    assert_true(o.totals.thread_changes > 0);
    /* the thread word is part of the key: every entry names one of the two threads */
    for (uint32_t i = 0; i < o.tags.n_entries; i++) {
        uint64_t th = tag_table_key(&o.tags, i)[0];
        assert_true(th == 7001 || th == 7002);
    }
    observer_free(&o);
}

/* A period longer than max_period is counted (total, period histogram) but attributed
 * to no tag: with a limit of one cycle, every period is. */
static void long_periods_are_interrupted(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {.max_tags = 1024, .n_tag_values = 2, .period = 1000};
    run_observer_limited(&o, &opt, 1);
    assert_true(o.totals.total > 0);
    assert_int_equal(o.totals.interrupted, o.totals.total);
    assert_int_equal(o.totals.rated + o.totals.thread_changes, 0);
    assert_int_equal(o.totals.kept + o.totals.discarded + o.totals.other, 0);
    assert_int_equal(o.period.count, o.totals.total);
    assert_int_equal(o.cpc.count, 0);
    for (uint32_t i = 0; i <= o.tags.n_entries; i++)
        assert_int_equal(tag_table_at(&o.tags, i)->samples, 0);
    observer_free(&o);
}

/* The observer steps off its CPU now and then (a kernel task waiting for that CPU runs;
 * without it a program reaping a child stalled for minutes on two CPUs): each breath is
 * inside a period that counts as interrupted, and the books still balance. Without
 * breaths it never sleeps. */
static void breaths_are_interrupted_periods(void **state)
{
    (void)state;
    static struct observer o;
    struct run_options opt = {.max_tags = 1024, .n_tag_values = 2, .period = 1000};
    opt.breath_every = 200000;
    run_observer(&o, &opt);
    check_invariants(&o);
    assert_true(o.breaths > 0);
    assert_true(o.totals.interrupted + 1 >= o.breaths); /* the last may end the run */
    observer_free(&o);
    opt.breath_every = 0;
    run_observer(&o, &opt);
    check_invariants(&o);
    assert_int_equal(o.breaths, 0);
    observer_free(&o);
}

/* A counter that wraps at its width during the run: every kept period's rate stays a
 * small non-negative number (a wrong delta would be near 2^width), and the counts add
 * up to no more than the program added. */
static void check_wrap(unsigned width)
{
    struct observer o;
    uint64_t top = width >= 64 ? UINT64_MAX : ((uint64_t)1 << width) - 1;
    struct run_options opt = {.max_tags = 8,
                              .n_tag_values = 2,
                              .period = 2000,
                              .counter_start = top - 3000,
                              .width = width};
    run_observer(&o, &opt);
    check_invariants(&o);
    double counted = 0;
    for (uint32_t i = 0; i <= o.tags.n_entries; i++) {
        const struct tag_entry *e = tag_table_at(&o.tags, i);
        const struct tag_detail *d = tag_entry_detail(&o.tags, e);
        counted += e->sums[0].sum_a;
        if (!d || !d->dist[0].n) continue;
        assert_true(d->dist[0].min >= 0);
        assert_true(d->dist[0].max < 100); /* increments per TSC cycle */
    }
    uint64_t added = test_counter(&program, 0) - opt.counter_start;
    assert_true(added > 3000); /* the program went past the wrap */
    assert_true(counted <= (double)added);
    assert_true(counted > 3000); /* and the observer saw it doing so */
    observer_free(&o);
}

static void counter_wraps_at_64_bits(void **state)
{
    (void)state;
    check_wrap(64);
}

/* A 32-bit counter (as a perf counter of that width would be): the program's word keeps
 * counting past 2^32, the observer masks the delta to 32 bits. */
static void counter_wraps_at_32_bits(void **state)
{
    (void)state;
    check_wrap(32);
}

static void default_max_period(void **state)
{
    (void)state;
    assert_int_equal(observer_default_max_period(0, 0.5), 20000);
    assert_int_equal(observer_default_max_period(1000, 0.5), 20000);
    assert_int_equal(observer_default_max_period(10000, 0.5), 60000);
    assert_int_equal(observer_default_max_period(10000, 0), 40000);
    assert_int_equal(observer_default_max_period(100000, 1), 800000);
}

static void init_rejects_oversized_plans(void **state)
{
    (void)state;
    static struct observer o;
    struct observer_params params = {.max_tags = 16};
    assert_int_equal(hist_spec_init(&params.hist, 10, 0, 1), 0);
    struct probe_plan plan = {0};
    assert_int_equal(observer_init(&o, &plan, &params), -1); /* nowhere to read from */
    plan.registry = test_program_init(&program, constant_thread, 0);
    plan.n_sw = PROBE_MAX_COUNTERS + 1;
    assert_int_equal(observer_init(&o, &plan, &params), -1);
    plan.n_sw = 0;
    plan.n_rates = PROBE_MAX_RATES + 1;
    assert_int_equal(observer_init(&o, &plan, &params), -1);
    plan.n_rates = 0;
    plan.n_tags = SHIM_TAG_SLOTS + 1;
    assert_int_equal(observer_init(&o, &plan, &params), -1);
    plan.n_tags = 0;
    params.max_tags = 0;
    assert_int_equal(observer_init(&o, &plan, &params), -1);
    params.max_tags = 16;
    assert_int_equal(observer_init(&o, &plan, &params), 0);
    assert_non_null(o.plan.thread_word); /* no thread word: a constant one is read */
    observer_free(&o);
}

/* Several observers: their tables are added into the first's after they stop, and a
 * tuple of another observer's that finds the first's table full goes to its `other`.
 * Those samples are `other` samples like any: samples.other (totals.other) counts them,
 * so it equals the `other` entry's samples and other_why's full + behind. */
static void merge_counts_what_finds_the_table_full_as_other(void **state)
{
    (void)state;
    static struct observer dst, src;
    struct probe_plan plan = {0};
    plan.registry = test_program_init(&program, constant_thread, 0);
    plan.n_tags = 1;
    plan.tag_slot[0] = 0;
    struct observer_params params = {.max_tags = 2, .max_detail = 4, .max_period = 20000};
    assert_int_equal(hist_spec_init(&params.hist, 10, 0, 1), 0);
    assert_int_equal(observer_init(&dst, &plan, &params), 0);
    assert_int_equal(observer_init(&src, &plan, &params), 0);
    for (uint64_t v = 1; v <= 2; v++) { /* dst is full: tags 1 and 2 */
        uint64_t key[2] = {constant_thread, v};
        tag_table_insert(&dst.tags, key)->samples = 10;
        dst.totals.total += 10;
    }
    for (uint64_t v = 2; v <= 3; v++) { /* src: tag 2, which dst has, and tag 3 */
        uint64_t key[2] = {constant_thread, v};
        tag_table_insert(&src.tags, key)->samples = 100 * v;
        src.totals.total += 100 * v;
    }
    observer_merge(&dst, &src);
    uint64_t why = dst.tags.other_why[TAG_OTHER_FULL] + dst.tags.other_why[TAG_OTHER_BEHIND];
    assert_int_equal(tag_table_other(&dst.tags)->samples, 300);
    assert_int_equal(why, 300);
    assert_int_equal(dst.totals.other, 300);
    uint64_t sum = 0;
    for (uint32_t i = 0; i <= dst.tags.n_entries; i++)
        sum += tag_table_at(&dst.tags, i)->samples;
    assert_int_equal(sum, dst.totals.total - dst.totals.interrupted);
    observer_free(&dst);
    observer_free(&src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_tags_one_counter),
        cmocka_unit_test(fastest_period),
        cmocka_unit_test(dte_off_keeps_every_rated_period),
        cmocka_unit_test(full_table_counts_other),
        cmocka_unit_test(thread_word_changes_are_not_rated),
        cmocka_unit_test(long_periods_are_interrupted),
        cmocka_unit_test(breaths_are_interrupted_periods),
        cmocka_unit_test(counter_wraps_at_64_bits),
        cmocka_unit_test(counter_wraps_at_32_bits),
        cmocka_unit_test(default_max_period),
        cmocka_unit_test(init_rejects_oversized_plans),
        cmocka_unit_test(merge_counts_what_finds_the_table_full_as_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
