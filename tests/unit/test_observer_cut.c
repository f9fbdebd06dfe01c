/*
 * test_observer_cut.c -- specifies the hand-over (observer/handover.h) and the cut
 * (observer/observer_cut.{h,c}) by which snapshots take the observer's tables while it
 * runs.
 *
 * The hand-over's rules on one thread: one offer at a time, taken once, withdrawn only
 * while nobody took it, and what was replaced comes back once. Then the real loop on a
 * thread, while this thread plays a program that goes through many tag values and a
 * third thread cuts every few milliseconds, as libshim/snapshot.c does, adding each
 * interval's tables into a table of its own: every cut's totals count exactly the
 * samples of the tables handed back so far (the entries add up to total - interrupted,
 * their kept periods to kept), totals only grow from cut to cut, and at the end the
 * accumulated tables plus the observer's last ones hold every sample the observer
 * counted. A cut offered to an observer that never takes it is withdrawn. No timing
 * is asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "observer/dte.h"
#include "observer/handover.h"
#include "observer/observer_cut.h"
#include "observer_thread.h"
#include "test_registry.h"

/* The program runs RUN_NS and until the cutter has cut MIN_CUTS times: on a loaded
 * machine the cutting thread may wait long for its turn (MAX_RUN_NS at most). */
#define RUN_NS     (80 * 1000000L)
#define MAX_RUN_NS (60 * 1000000000.0)
#define MIN_CUTS   3
#define TAG_VALUES 200

static struct test_program program;
static const uint64_t thread_id = 4242;

static void handover_rules(void **state)
{
    (void)state;
    struct handover h = {0};
    int a, b, c;
    assert_null(handover_take(&h));
    assert_int_equal(handover_offer(&h, &a), 0);
    assert_int_equal(handover_offer(&h, &b), -1); /* one at a time */
    assert_true(handover_pending(&h));
    assert_ptr_equal(handover_take(&h), &a);
    assert_null(handover_take(&h)); /* taken once */
    assert_false(handover_pending(&h));
    assert_false(handover_idle(&h)); /* being put in place: nothing new may be offered */
    assert_int_equal(handover_offer(&h, &b), -1);
    assert_null(handover_withdraw(&h)); /* taken: nothing to withdraw */
    assert_null(handover_reclaim(&h));
    handover_return(&h, &c);
    assert_int_equal(handover_offer(&h, &b), -1); /* until what it replaced is reclaimed */
    assert_ptr_equal(handover_reclaim(&h), &c);
    assert_null(handover_reclaim(&h));
    assert_true(handover_idle(&h));
    assert_int_equal(handover_offer(&h, &b), 0);
    assert_ptr_equal(handover_withdraw(&h), &b); /* not taken: the offer comes back */
    assert_false(handover_pending(&h));
    assert_null(handover_take(&h));
}

static void init_observer(struct observer *o, uint32_t max_tags)
{
    struct probe_plan plan = {0};
    plan.registry = test_program_init(&program, thread_id, 0);
    test_set_tag(&program, 0, 1);
    plan.n_sw = 1;
    plan.sw[0].slot = 0;
    plan.mask[0] = counter_mask(64);
    plan.n_rates = 1;
    plan.rate[0] = (struct probe_rate){.num = 0, .den = PROBE_RATE_PER_TSC, .scale = 1.0};
    plan.n_tags = 1;
    plan.tag_slot[0] = 0;
    plan.thread_word = &thread_id;
    struct observer_params params = {
        .period = 500,
        .jitter = 0.5,
        .dte_tolerance = 0.01,
        .max_tags = max_tags,
        .max_detail = 16,
        .max_period = observer_default_max_period(500, 0.5),
        .seed = 777,
    };
    assert_int_equal(hist_spec_init(&params.hist, 100, 0, 4), 0);
    assert_int_equal(observer_init(o, &plan, &params), 0);
}

static uint64_t table_samples(const struct tag_table *t, uint64_t *kept)
{
    uint64_t n = 0;
    *kept = 0;
    for (uint32_t i = 0; i <= t->n_entries; i++) {
        n += tag_table_at(t, i)->samples;
        *kept += tag_table_at(t, i)->kept;
    }
    return n;
}

/* The cutting thread: cuts until told to stop, folds each interval into acc and checks
 * each cut against what it has folded. */
struct cutter {
    struct observer *o;
    struct tag_table acc;
    int stop;
    unsigned cuts;
    int bad; /* a cut whose totals and tables disagree */
    uint64_t last_total;
};

static void *cut_loop(void *arg)
{
    struct cutter *c = arg;
    struct observer_cut cut;
    const struct timespec nap = {0, 20000}, gap = {0, 3000000};
    if (observer_cut_init(&cut, c->o) != 0) {
        c->bad = 1;
        return NULL;
    }
    while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
        if (handover_offer(&c->o->cut, &cut) != 0) {
            c->bad = 1;
            break;
        }
        struct observer_cut *back;
        while (!(back = handover_reclaim(&c->o->cut)))
            nanosleep(&nap, NULL);
        tag_table_merge(&c->acc, &cut.tags);
        uint64_t kept, samples = table_samples(&c->acc, &kept);
        if (back != &cut || samples != cut.totals.total - cut.totals.interrupted ||
            kept != cut.totals.kept || cut.totals.total < c->last_total ||
            cut.totals.kept + cut.totals.discarded != cut.totals.rated)
            c->bad = 1;
        c->last_total = cut.totals.total;
        __atomic_store_n(&c->cuts, c->cuts + 1, __ATOMIC_RELEASE);
        observer_cut_release_tables(&cut);
        if (observer_cut_refill(&cut, c->o) != 0) {
            c->bad = 1;
            break;
        }
        nanosleep(&gap, NULL);
    }
    observer_cut_free(&cut);
    return NULL;
}

static void cuts_while_running_lose_nothing(void **state)
{
    (void)state;
    static struct observer o;
    struct cutter c = {.o = &o};
    init_observer(&o, 1u << 20);
    assert_int_equal(observer_cut_table_like(&c.acc, &o.tags), 0);
    struct observer_thread_run th;
    pthread_t cutter;
    assert_int_equal(observer_thread_start(&th, &o), 0);
    assert_int_equal(pthread_create(&cutter, NULL, cut_loop, &c), 0);
    double start = now_ns(), end = start + (double)RUN_NS;
    for (uint64_t step = 0;
         now_ns() < end ||
         (__atomic_load_n(&c.cuts, __ATOMIC_ACQUIRE) < MIN_CUTS && now_ns() < start + MAX_RUN_NS);
         step++) {
        test_set_tag(&program, 0, 1 + step % TAG_VALUES);
        for (int i = 0; i < 500; i++)
            test_set_counter(&program, 0, test_counter(&program, 0) + 1);
        if (step % 64 == 0) nanosleep(&(struct timespec){.tv_nsec = 10000}, NULL);
    }
    __atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(cutter, NULL), 0);
    observer_request_stop(&o);
    assert_int_equal(observer_thread_join(&th), 0);
    assert_false(c.bad);
    assert_true(c.cuts >= MIN_CUTS);
    /* the last interval, as snapshot_fold() adds it at the stop */
    tag_table_merge(&c.acc, &o.tags);
    uint64_t kept, samples = table_samples(&c.acc, &kept);
    assert_int_equal(samples, o.totals.total - o.totals.interrupted);
    assert_int_equal(kept, o.totals.kept);
    assert_true(c.acc.n_entries > 1);
    tag_table_free(&c.acc);
    observer_free(&o);
}

static void offer_to_a_stopped_observer_is_withdrawn(void **state)
{
    (void)state;
    static struct observer o;
    struct observer_cut cut;
    init_observer(&o, 1024);
    assert_int_equal(observer_cut_init(&cut, &o), 0);
    assert_int_equal(handover_offer(&o.cut, &cut), 0);
    observer_request_stop(&o); /* it never ran: nobody takes the offer */
    assert_ptr_equal(handover_withdraw(&o.cut), &cut);
    assert_null(handover_reclaim(&o.cut));
    observer_cut_free(&cut);
    observer_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handover_rules),
        cmocka_unit_test(cuts_while_running_lose_nothing),
        cmocka_unit_test(offer_to_a_stopped_observer_is_withdrawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
