/*
 * probe_plan.h -- what the observer reads, in what order, and how it turns readings
 * into rates. The coordinator fills a plan before the observer starts; the observer
 * never changes it.
 *
 * Counters come in two lists, read in this order after the start marker, each after a
 * serialising rdtscp (SHIM paper, Figure 2): hardware counters (perf events read with
 * rdpmc through their mmap page) and software counters (words in the program's signal
 * block). Both land in one array of readings, hardware first, so rates name counters by
 * index whatever their kind. Tags and the thread word are read after the end marker:
 * any value inside the period names it correctly, so they need no ordering.
 */
#ifndef SHIM_OBSERVER_PROBE_PLAN_H
#define SHIM_OBSERVER_PROBE_PLAN_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "shim.h"

#define PROBE_MAX_COUNTERS 16
#define PROBE_MAX_RATES    16
#define PROBE_RATE_PER_TSC (-1)

/* A hardware counter: the perf mmap page of an event opened for this purpose. */
struct probe_hw {
    const struct perf_event_mmap_page *page;
    uint64_t mask; /* counter_mask(pmc_width) */
};

struct probe_sw {
    const uint64_t *word; /* a counter word of a signal block */
};

/* rate = delta(counter num) * scale / delta(den), den a counter index or the TSC. */
struct probe_rate {
    int num;
    int den; /* PROBE_RATE_PER_TSC: the period between start markers */
    double scale;
};

struct probe_plan {
    unsigned n_hw, n_sw; /* readings: [0, n_hw) hardware, [n_hw, n_hw + n_sw) software */
    struct probe_hw hw[PROBE_MAX_COUNTERS];
    struct probe_sw sw[PROBE_MAX_COUNTERS];
    uint64_t mask[PROBE_MAX_COUNTERS]; /* wrap-around mask per reading */
    unsigned n_rates;
    struct probe_rate rate[PROBE_MAX_RATES];
    unsigned n_tags;
    const uint64_t *tag[SHIM_TAG_SLOTS];
    const uint64_t *thread_word; /* which thread the observed CPU runs */
};

static inline unsigned probe_readings(const struct probe_plan *p)
{
    return p->n_hw + p->n_sw;
}

/* A counter value read as `width` bits (perf's pmc_width), sign-extended to 64 bits:
 * the kernel's offset is biased so that offset + sign-extended raw value is the count.
 * A width of 0 or 64 and more leaves the value as it is. */
static inline uint64_t pmc_sign_extend(uint64_t pmc, unsigned width)
{
    if (width == 0 || width >= 64) return pmc;
    return (uint64_t)((int64_t)(pmc << (64 - width)) >> (64 - width));
}

/* Reads hardware counter `counter` (rdpmc's ECX); a parameter so that tests can replay
 * recorded values against synthetic mmap pages. */
typedef uint64_t (*pmc_reader)(unsigned counter, void *ctx);

/* The kernel's self-monitoring protocol (perf_event_open(2), "mmap layout"): retry while
 * the page's seqlock moves; read the hardware counter when the kernel allows it
 * (cap_user_rdpmc, and index != 0 while the event is on a counter), sign-extend it from
 * pmc_width and add the kernel's offset. Without rdpmc the offset alone is returned,
 * which is only the count as of the event's last update: the caller must not rate it. */
static inline uint64_t probe_hw_read_using(const struct perf_event_mmap_page *page,
                                           pmc_reader read_pmc, void *ctx)
{
    const volatile struct perf_event_mmap_page *pc = page;
    uint32_t seq, idx;
    uint64_t count;
    do {
        seq = pc->lock;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        idx = pc->index;
        count = (uint64_t)pc->offset;
        if (pc->cap_user_rdpmc && idx)
            count += pmc_sign_extend(read_pmc(idx - 1, ctx), pc->pmc_width);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } while (pc->lock != seq);
    return count;
}

static inline uint64_t rdpmc_reader(unsigned counter, void *ctx)
{
    (void)ctx;
    return __builtin_ia32_rdpmc((int)counter);
}

static inline uint64_t probe_hw_read(const struct probe_hw *h)
{
    return probe_hw_read_using(h->page, rdpmc_reader, NULL);
}

static inline uint64_t probe_sw_read(const struct probe_sw *s)
{
    return __atomic_load_n(s->word, __ATOMIC_RELAXED);
}

#endif
