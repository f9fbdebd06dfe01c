/*
 * test_hw_readings.c -- specifies how the observer loop uses hardware readings
 * (observer/observer.c, probe_plan.h) with recorded counters in place of a PMU, so it
 * runs on any machine:
 *  - core-minus-own: a core-wide reading (the program's count plus the observer's own)
 *    minus the observer's own reading gives the program's count, the same rate the
 *    program's software counter gives;
 *  - slow readings: read every slow_period cycles only, rated over spans that lie within
 *    one tag, so a phase's slow rate matches its fast rate and phases never mix;
 *  - a reading skew between the core-wide and the own reading, which makes single
 *    periods' differences negative, cancels in the rate instead of biasing it upwards.
 * The "program" (this thread) alternates a counting phase (tag 1) and an idle one
 * (tag 2). Checked: relations between rates of the same run, never durations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <time.h>

#include "observer/observer.h"
#include "observer_thread.h"
#include "test_registry.h"

#define RUN_NS   (120 * 1000000L)
#define PHASE_NS (6 * 1000000L)
#define OWN_STEP 1000 /* what the observer "counts itself" per read */

static const uint64_t thread_word = 77;
/* The program's words: tag slot 0 and counter slot 0 of thread 77's block. */
static struct test_program program;
#define counter_word (program.block[0].counter[0])
#define tag_word     (program.block[0].tag[0])
static uint64_t core_reads, own_reads, slow_reads;
static uint64_t own_skew; /* added to every other own reading: a skew of the two reads */

/* The core-wide count: the program's events plus the observer's own, which grow by
 * OWN_STEP per sample. */
static uint64_t read_core(const struct probe_hw *h)
{
    (void)h;
    return __atomic_load_n(&counter_word, __ATOMIC_RELAXED) + OWN_STEP * ++core_reads;
}

static uint64_t read_own(const struct probe_hw *h)
{
    (void)h;
    ++own_reads;
    return OWN_STEP * own_reads + (own_reads % 2 ? own_skew : 0);
}

/* A slow counter: the program's events, as another thread's counter read with read(). */
static uint64_t read_slow(const struct probe_hw *h)
{
    (void)h;
    slow_reads++;
    return __atomic_load_n(&counter_word, __ATOMIC_RELAXED);
}

static void play_program(void)
{
    double end = now_ns() + (double)RUN_NS;
    for (unsigned phase = 0; now_ns() < end; phase++) {
        __atomic_store_n(&tag_word, 1 + phase % 2, __ATOMIC_RELAXED);
        double until = now_ns() + (double)PHASE_NS;
        if (phase % 2 == 0) {
            while (now_ns() < until)
                for (int i = 0; i < 1000; i++)
                    __atomic_store_n(&counter_word,
                                     __atomic_load_n(&counter_word, __ATOMIC_RELAXED) + 1,
                                     __ATOMIC_RELAXED);
        } else {
            nanosleep(&(struct timespec){.tv_nsec = PHASE_NS}, NULL);
        }
    }
}

enum { RATE_CORE, RATE_SLOW, RATE_SW, N_RATES };

static void run(struct observer *o)
{
    struct probe_plan plan = {0};
    plan.n_hw = 3;
    plan.hw[0] = (struct probe_hw){.read = read_core, .own = 1};
    plan.hw[1] = (struct probe_hw){.read = read_own};
    plan.hw[2] = (struct probe_hw){.read = read_slow, .slow = 1};
    plan.registry = test_program_init(&program, thread_word, 0);
    plan.n_sw = 1;
    plan.sw[0].slot = 0;
    for (unsigned i = 0; i < 4; i++)
        plan.mask[i] = ~(uint64_t)0;
    plan.n_rates = N_RATES;
    plan.rate[RATE_CORE] = (struct probe_rate){0, PROBE_RATE_PER_TSC, 1.0};
    plan.rate[RATE_SLOW] = (struct probe_rate){2, PROBE_RATE_PER_TSC, 1.0};
    plan.rate[RATE_SW] = (struct probe_rate){3, PROBE_RATE_PER_TSC, 1.0};
    plan.n_tags = 1;
    plan.tag_slot[0] = 0;
    plan.thread_word = &thread_word;
    struct observer_params params = {
        .period = 1000,
        .jitter = 0.5,
        .dte_tolerance = 0.01,
        .dte_off = 1,
        .max_tags = 16,
        .max_period = observer_default_max_period(1000, 0.5),
        .seed = 99,
        .slow_period = 100000,
    };
    assert_int_equal(hist_spec_init(&params.hist, 100, 0, 4), 0);
    assert_int_equal(observer_init(o, &plan, &params), 0);
    struct observer_thread_run th;
    assert_int_equal(observer_thread_start(&th, o), 0);
    play_program();
    observer_request_stop(o);
    assert_int_equal(observer_thread_join(&th), 0);
}

static const struct tag_entry *entry_of(const struct observer *o, uint64_t tag)
{
    for (uint32_t i = 0; i < o->tags.n_entries; i++) {
        const uint64_t *k = tag_table_key(&o->tags, i);
        if (k[0] == thread_word && k[1] == tag) return tag_table_entry(&o->tags, i);
    }
    return NULL;
}

static double ratio(const struct rate_sums *s)
{
    return s->sum_b > 0 ? s->sum_a / s->sum_b : NAN;
}

static struct observer o, skewed; /* large: not on the stack */

static int setup(void **state)
{
    (void)state;
    run(&o);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    observer_free(&o);
    return 0;
}

/* Core minus own is the program's rate: the same as its software counter's, and nothing
 * in the idle phase, though the core-wide reading grew by OWN_STEP every sample. */
static void core_minus_own_is_the_programs_rate(void **state)
{
    (void)state;
    const struct tag_entry *busy = entry_of(&o, 1), *idle = entry_of(&o, 2);
    assert_non_null(busy);
    assert_non_null(idle);
    assert_int_equal(core_reads, own_reads);
    if (!ran_side_by_side(&o, 0.05)) skip();
    double core = ratio(&busy->sums[RATE_CORE]), sw = ratio(&busy->sums[RATE_SW]);
    assert_true(sw > 0);
    assert_true(fabs(core / sw - 1.0) < 0.05);
    /* without the subtraction the idle phase would read OWN_STEP per period */
    assert_true(ratio(&idle->sums[RATE_CORE]) < 0.05 * core);
}

/* The own reading alternately SKEW ahead and on time: the core-minus-own difference of a
 * period is then -SKEW or +SKEW off the program's count. In the idle phase that gives
 * -SKEW, +SKEW, ... : the sums must keep the signs, so they cancel and the idle rate is
 * about 0, where flooring each period at 0 read SKEW / 2 per period (0.2 per cycle at
 * these periods of about 1000 cycles). The per-period rates (histogram) stay floored. */
static void core_minus_own_keeps_signed_differences(void **state)
{
    (void)state;
    enum { SKEW = 400 };
    own_skew = SKEW;
    run(&skewed);
    own_skew = 0;
    const struct tag_entry *busy = NULL, *idle = NULL;
    for (uint32_t i = 0; i < skewed.tags.n_entries; i++) {
        const uint64_t *k = tag_table_key(&skewed.tags, i);
        if (k[1] == 1) busy = tag_table_entry(&skewed.tags, i);
        if (k[1] == 2) idle = tag_table_entry(&skewed.tags, i);
    }
    assert_non_null(idle);
    assert_non_null(busy);
    const struct rate_sums *s = &idle->sums[RATE_CORE];
    double per_period = s->sum_a / (double)s->periods;
    assert_true(s->periods > 100);
    /* alternate signs over the kept periods: what is left is at most a few periods' SKEW */
    assert_true(fabs(per_period) < 0.05 * SKEW);
    const struct tag_detail *d = tag_entry_detail(&skewed.tags, idle);
    if (d) assert_int_equal(d->hist[HIST_UNDERFLOW(&skewed.tags.hist)], 0); /* floored */
    double core = ratio(&busy->sums[RATE_CORE]), sw = ratio(&busy->sums[RATE_SW]);
    int side_by_side = ran_side_by_side(&skewed, 0.05);
    observer_free(&skewed);
    if (side_by_side) /* the busy phase's rate, only when the two threads ran at once */
        assert_true(fabs(core / sw - 1.0) < 0.05);
}

/* Slow counters are read only every slow_period cycles, and their rates come from spans
 * within one phase: the counting phase's slow rate is its fast rate, the idle phase's is
 * nothing, and spans across a phase change are counted but rated for nobody. */
static void slow_readings_rate_within_one_tag(void **state)
{
    (void)state;
    const struct tag_entry *busy = entry_of(&o, 1), *idle = entry_of(&o, 2);
    assert_true(slow_reads > 0);
    assert_true(slow_reads < o.totals.total / 10); /* not every sample */
    assert_true(o.totals.slow_spans > 0);
    assert_true(o.totals.slow_attributed > 0);
    assert_true(o.totals.slow_attributed < o.totals.slow_spans); /* phase changes */
    uint64_t spans = 0;
    for (uint32_t i = 0; i <= o.tags.n_entries; i++)
        spans += tag_table_at(&o.tags, i)->sums[RATE_SLOW].periods;
    assert_int_equal(spans, o.totals.slow_attributed);
    if (!ran_side_by_side(&o, 0.05)) skip();
    double slow = ratio(&busy->sums[RATE_SLOW]), sw = ratio(&busy->sums[RATE_SW]);
    assert_true(busy->sums[RATE_SLOW].periods > 0);
    /* within 10%: preemptions of the observer leave periods out of the fast rate that
     * spans keep (typically the two agree within 1%) */
    assert_true(fabs(slow / sw - 1.0) < 0.10);
    assert_true(idle->sums[RATE_SLOW].periods > 0);
    assert_true(ratio(&idle->sums[RATE_SLOW]) == 0.0);
    /* fast rates never take a slow reading's periods, and the reverse */
    assert_true(busy->sums[RATE_SW].periods > busy->sums[RATE_SLOW].periods * 10);
}

/* A plan the observer refuses: a slow reading before a fast one, or an own reading that
 * is not a fast reading after its core reading. */
static void plans_refused(void **state)
{
    (void)state;
    static struct observer bad;
    struct probe_plan plan = {0};
    struct observer_params params = {.max_tags = 4};
    assert_int_equal(hist_spec_init(&params.hist, 10, 0, 1), 0);
    plan.n_hw = 2;
    plan.hw[0] = (struct probe_hw){.read = read_slow, .slow = 1};
    plan.hw[1] = (struct probe_hw){.read = read_own};
    assert_int_equal(observer_init(&bad, &plan, &params), -1);
    plan.hw[0] = (struct probe_hw){.read = read_core, .own = 1};
    plan.hw[1] = (struct probe_hw){.read = read_slow, .slow = 1};
    assert_int_equal(observer_init(&bad, &plan, &params), -1);
    plan.hw[0] = (struct probe_hw){.read = read_core};
    plan.hw[1] = (struct probe_hw){.read = read_own, .own = 1}; /* itself */
    assert_int_equal(observer_init(&bad, &plan, &params), -1);
    plan.n_rates = 1;
    plan.hw[1] = (struct probe_hw){.read = read_own};
    plan.rate[0] = (struct probe_rate){5, PROBE_RATE_PER_TSC, 1.0}; /* no such reading */
    assert_int_equal(observer_init(&bad, &plan, &params), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(core_minus_own_is_the_programs_rate),
        cmocka_unit_test(slow_readings_rate_within_one_tag),
        cmocka_unit_test(core_minus_own_keeps_signed_differences),
        cmocka_unit_test(plans_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
