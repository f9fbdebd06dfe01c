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

/* The kernel's self-monitoring protocol (perf_event_open(2), "mmap layout"): retry while
 * the page's seqlock moves; rdpmc the hardware counter when the kernel allows it and
 * sign-extend it from pmc_width; add the kernel's offset. */
static inline uint64_t probe_hw_read(const struct probe_hw *h)
{
    const volatile struct perf_event_mmap_page *pc = h->page;
    uint32_t seq, idx;
    uint64_t count;
    do {
        seq = pc->lock;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        idx = pc->index;
        count = (uint64_t)pc->offset;
        if (pc->cap_user_rdpmc && idx) {
            unsigned width = pc->pmc_width;
            uint64_t pmc = __builtin_ia32_rdpmc((int)(idx - 1));
            count += (uint64_t)((int64_t)(pmc << (64 - width)) >> (64 - width));
        }
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } while (pc->lock != seq);
    return count;
}

static inline uint64_t probe_sw_read(const struct probe_sw *s)
{
    return __atomic_load_n(s->word, __ATOMIC_RELAXED);
}

#endif
