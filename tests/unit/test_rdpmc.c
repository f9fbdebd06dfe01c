/*
 * test_rdpmc.c -- specifies the observer's hardware-counter read (observer/probe_plan.h)
 * against synthetic perf mmap pages and recorded counter values, so it runs on machines
 * without a PMU: the seqlock retry, the index and cap_user_rdpmc rules, sign extension
 * from pmc_width, the kernel's offset, and deltas across wrap-around at the counter's
 * width (observer/dte.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "observer/dte.h"
#include "observer/probe_plan.h"

/* A recorded counter: the raw values rdpmc returns, one per call; optionally the page's
 * seqlock is moved during the first read, as a concurrent kernel update would. */
struct recording {
    const uint64_t *values;
    unsigned n, calls;
    unsigned last_counter;
    struct perf_event_mmap_page *bump_lock_of;
};

static uint64_t replay(unsigned counter, void *ctx)
{
    struct recording *r = ctx;
    r->last_counter = counter;
    uint64_t v = r->values[r->calls < r->n ? r->calls : r->n - 1];
    if (r->calls++ == 0 && r->bump_lock_of) {
        r->bump_lock_of->lock++;         /* the kernel updated the page meanwhile */
        r->bump_lock_of->offset = -1000; /* ... and the offset with it */
    }
    return v;
}

/* A read that must take the rdpmc path: its count. */
static uint64_t rdpmc_count(const struct perf_event_mmap_page *p, pmc_reader reader, void *ctx)
{
    uint64_t count = 0;
    assert_true(probe_hw_rdpmc(p, reader, ctx, &count));
    return count;
}

static struct perf_event_mmap_page page_of(uint32_t index, int64_t offset, uint16_t width,
                                           int rdpmc_allowed)
{
    struct perf_event_mmap_page p;
    memset(&p, 0, sizeof p);
    p.index = index;
    p.offset = offset;
    p.pmc_width = width;
    p.cap_user_rdpmc = rdpmc_allowed ? 1 : 0;
    p.lock = 2;
    return p;
}

static void offset_plus_counter(void **state)
{
    (void)state;
    struct perf_event_mmap_page p = page_of(3, 1000, 48, 1);
    uint64_t v[] = {234};
    struct recording r = {v, 1, 0, 0, NULL};
    assert_int_equal(rdpmc_count(&p, replay, &r), 1234);
    assert_int_equal(r.last_counter, 2); /* rdpmc's ECX is index - 1 */
}

/* The kernel biases the offset negative and the hardware counter counts up from a
 * value that, read as 48 bits, is negative: sign extension makes the sum right. */
static void sign_extension_from_48_bits(void **state)
{
    (void)state;
    struct perf_event_mmap_page p = page_of(1, 5000, 48, 1);
    uint64_t v[] = {0xffffffffffffull}; /* -1 in 48 bits */
    struct recording r = {v, 1, 0, 0, NULL};
    assert_int_equal(rdpmc_count(&p, replay, &r), 4999);
    uint64_t w[] = {0x800000000000ull}; /* the most negative 48-bit value */
    struct recording r2 = {w, 1, 0, 0, NULL};
    p.offset = (int64_t)1 << 50;
    assert_int_equal(rdpmc_count(&p, replay, &r2), ((uint64_t)1 << 50) - (1ull << 47));
}

static void sign_extend_widths(void **state)
{
    (void)state;
    assert_int_equal(pmc_sign_extend(0x7fffffffffffull, 48), 0x7fffffffffffull);
    assert_int_equal(pmc_sign_extend(0x800000000000ull, 48), 0xffff800000000000ull);
    assert_int_equal(pmc_sign_extend(0xffffffffull, 32), UINT64_MAX);
    assert_int_equal(pmc_sign_extend(0x12345678ull, 32), 0x12345678ull);
    assert_int_equal(pmc_sign_extend(0xdeadbeefcafef00dull, 64), 0xdeadbeefcafef00dull);
    assert_int_equal(pmc_sign_extend(0xdeadbeefull, 0), 0xdeadbeefull); /* no UB at 0 */
    assert_int_equal(pmc_sign_extend(0x1ull, 1), UINT64_MAX);           /* 1 bit: -1 */
}

/* No rdpmc (not allowed, or the event is not on a counter): the protocol says read()
 * instead, and the counter is never read. */
static void without_rdpmc_read_instead(void **state)
{
    (void)state;
    uint64_t v[] = {777}, count;
    struct perf_event_mmap_page p = page_of(2, 4242, 48, 0);
    struct recording r = {v, 1, 0, 0, NULL};
    assert_false(probe_hw_rdpmc(&p, replay, &r, &count));
    assert_int_equal(r.calls, 0);
    p = page_of(0, 4343, 48, 1); /* index 0: not scheduled on a counter */
    assert_false(probe_hw_rdpmc(&p, replay, &r, &count));
    assert_int_equal(r.calls, 0);
}

/* The observer's read: rdpmc where the page allows it, else the fd's read(), whose
 * first word (with the enabled and running times after it) is the count. A pipe stands
 * in for the perf fd. */
static void observer_read_falls_back_to_read(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    uint64_t record[3] = {123456789, 1000, 1000};
    struct perf_event_mmap_page p = page_of(0, 5, 48, 1); /* not on a counter */
    uint64_t last = 0;
    struct probe_hw h = {.page = &p, .fd = fds[0], .last = &last};
    assert_int_equal(write(fds[1], record, sizeof record), (ssize_t)sizeof record);
    assert_int_equal(probe_hw_read(&h), 123456789);
    p.cap_user_rdpmc = 0; /* rdpmc not allowed */
    p.index = 3;
    record[0] = 987654321;
    assert_int_equal(write(fds[1], record, sizeof record), (ssize_t)sizeof record);
    assert_int_equal(probe_hw_read(&h), 987654321);
    close(fds[1]); /* nothing to read: the last count, so the period's delta is 0 -- a 0
                    * would make it near 2^64 */
    assert_int_equal(probe_hw_read(&h), 987654321);
    assert_int_equal(counter_delta(probe_hw_read(&h), 987654321, counter_mask(64)), 0);
    close(fds[0]);
    uint64_t none = 0;
    struct probe_hw never = {.page = &p, .fd = -1, .last = &none}; /* before any count: 0 */
    assert_int_equal(probe_hw_read(&never), 0);
}

/* A count read with rdpmc, then the event off its counter (index 0) and read() failing:
 * the read gives the count rdpmc gave last, so the period's delta is 0 -- a 0 would make
 * it near 2^64. */
static void failed_read_after_rdpmc_keeps_the_last_count(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[1]); /* read() finds nothing */
    struct perf_event_mmap_page p = page_of(3, 1000, 48, 1);
    uint64_t v[] = {234};
    struct recording r = {v, 1, 0, 0, NULL};
    uint64_t last = 0;
    struct probe_hw h = {.page = &p, .fd = fds[0], .last = &last};
    assert_int_equal(probe_hw_read_with(&h, replay, &r), 1234);
    p.index = 0; /* descheduled from its counter */
    assert_int_equal(probe_hw_read_with(&h, replay, &r), 1234);
    assert_int_equal(counter_delta(probe_hw_read_with(&h, replay, &r), 1234, counter_mask(64)), 0);
    close(fds[0]);
}

/* Core-minus-own: the observed thread's delta is the core-wide delta minus the
 * observer's own; reads a few cycles apart may put the own count above the core count
 * in a period the observed thread counted nothing, which is zero, not a wrapped value. */
static void core_minus_own_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(core_minus_own(1000, 300), 700);
    assert_int_equal(core_minus_own(300, 300), 0);
    assert_int_equal(core_minus_own(298, 300), 0);
    /* across a wrap of the 48-bit counters, each delta first, then the difference */
    uint64_t mask = counter_mask(48);
    uint64_t core = counter_delta(0x100, 0xffffffffff00ull, mask); /* 0x200 */
    uint64_t own = counter_delta(0x80, 0xffffffffffc0ull, mask);   /* 0xc0 */
    assert_int_equal(core_minus_own(core, own), 0x140);
}

/* A kernel update during the read moves the seqlock: the read is retried and uses the
 * page as it is after the update. */
static void seqlock_retry(void **state)
{
    (void)state;
    struct perf_event_mmap_page p = page_of(1, 1000, 48, 1);
    uint64_t v[] = {50, 1060};
    struct recording r = {v, 2, 0, 0, &p};
    assert_int_equal(rdpmc_count(&p, replay, &r), 60); /* -1000 + 1060 */
    assert_int_equal(r.calls, 2);
}

/* Two reads straddling the counter's wrap at 48 bits: the delta at that width is the
 * events counted between them. */
static void delta_across_hardware_wrap(void **state)
{
    (void)state;
    uint64_t before = 0xfffffffffff0ull, after = 0x10ull; /* raw 48-bit values */
    uint64_t mask = counter_mask(48);
    assert_int_equal(counter_delta(after, before, mask), 0x20);
    /* and through the mmap protocol with a fixed offset */
    struct perf_event_mmap_page p = page_of(1, 0, 48, 1);
    uint64_t v1[] = {before}, v2[] = {after};
    struct recording r1 = {v1, 1, 0, 0, NULL}, r2 = {v2, 1, 0, 0, NULL};
    uint64_t c1 = rdpmc_count(&p, replay, &r1), c2 = rdpmc_count(&p, replay, &r2);
    assert_int_equal(counter_delta(c2, c1, mask), 0x20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offset_plus_counter),
        cmocka_unit_test(sign_extension_from_48_bits),
        cmocka_unit_test(sign_extend_widths),
        cmocka_unit_test(without_rdpmc_read_instead),
        cmocka_unit_test(seqlock_retry),
        cmocka_unit_test(delta_across_hardware_wrap),
        cmocka_unit_test(observer_read_falls_back_to_read),
        cmocka_unit_test(failed_read_after_rdpmc_keeps_the_last_count),
        cmocka_unit_test(core_minus_own_arithmetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
