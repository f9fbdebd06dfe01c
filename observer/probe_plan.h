/*
 * probe_plan.h -- what the observer reads, in what order, and how it turns readings
 * into rates. The coordinator fills a plan before the observer starts; the observer
 * never changes it.
 *
 * Counters come in two lists: hardware counters (perf events) and software counters
 * (words in the program's signal block). Both land in one array of readings, hardware
 * first, so rates name counters by index whatever their kind. Fast hardware counters are
 * read inside the DTE window, each after a serialising rdtscp (SHIM paper, Figure 2),
 * with rdpmc through their mmap page, or with read() where the kernel does not allow
 * rdpmc. Slow hardware counters (another thread's counters, a memory controller's),
 * whose read() costs microseconds and may interrupt another CPU, come after the fast
 * ones and are read only every `slow_period` cycles, after the window, each followed by
 * an rdtscp of its own; software counters likewise (observer.c says why). Tags and the
 * thread word are read after the end marker: any value inside the period names it
 * correctly, so they need no ordering; but two slots the program writes together (2k and
 * 2k + 1, such as the hooks' function and context) are read together, with one 16-byte
 * load (signal_block_load_pair).
 */
#ifndef SHIM_OBSERVER_PROBE_PLAN_H
#define SHIM_OBSERVER_PROBE_PLAN_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "signals/path.h"
#include "shim.h"
#include "signals/signal_block.h"

#define PROBE_MAX_COUNTERS 16
#define PROBE_MAX_RATES    16
#define PROBE_RATE_PER_TSC (-1)

struct probe_hw;
/* Reads a counter with a system call (or, in tests, from a recording). */
typedef uint64_t (*probe_hw_reader)(const struct probe_hw *h);

/* A hardware counter: a perf event opened for this purpose. */
struct probe_hw {
    const struct perf_event_mmap_page *page; /* read with rdpmc when `read` is NULL */
    probe_hw_reader read;                    /* else this, e.g. probe_hw_read_fd */
    int fd;
    void *ctx; /* for `read` */
    int slow;  /* read every slow_period cycles only; slow counters come last */
    /* Core-minus-own: when nonzero, the reading of the observer's own count of the same
     * event (an index, never 0, since own readings come after the core-wide ones). The
     * observed thread's delta is this delta minus that one. */
    unsigned own;
    /* Where the observer keeps the last count it read (its own word, outside the plan,
     * which a snapshot copies while the observer runs; observer_init points it there):
     * what a failed read() returns instead of 0, whose delta from a real count would be
     * near 2^64 (probe_hw_read_fd). Never NULL when read. */
    uint64_t *last;
};

/* A software counter of the running thread's block: a counter slot, or (slot
 * PROBE_SW_RESERVED(i)) the word its block's reserved word i points to (e.g.
 * SHIM_BLOCK_ALLOCATED). */
#define PROBE_SW_RESERVED(i) (-1 - (int)(i))
struct probe_sw {
    int slot;
};

/* rate = delta(counter num) * scale / delta(den), den a counter index or the TSC. */
struct probe_rate {
    int num;
    int den; /* PROBE_RATE_PER_TSC: the period between start markers */
    double scale;
};

/* One rate bucketed by another (the SHIM paper's Fig. 14b: memory requests per 100
 * cycles for each IPC bucket): for each kept period, the bucket of rate x's value
 * collects rate y's a and b. Slot 0 takes x below lo, slot buckets + 1 x at or above hi,
 * slot 1 + i the i-th of `buckets` equal buckets over [lo, hi). buckets 0: off. */
struct probe_by {
    unsigned y, x, buckets;
    double lo, hi;
};

struct probe_plan {
    unsigned n_hw, n_sw; /* readings: [0, n_hw) hardware, [n_hw, n_hw + n_sw) software */
    struct probe_hw hw[PROBE_MAX_COUNTERS];
    struct probe_sw sw[PROBE_MAX_COUNTERS];
    uint64_t mask[PROBE_MAX_COUNTERS]; /* wrap-around mask per reading */
    unsigned n_rates;
    struct probe_rate rate[PROBE_MAX_RATES];
    /* Which thread the observed CPU runs: its kernel thread id (or any constant). */
    const volatile uint64_t *thread_word;
    /* Where the program's words are: the block of the thread the thread word names, in
     * this registry (signals/signal_block.h). Tags are read from its slots tag_slot[i],
     * software counters as sw[i] says, and, with `paths`, the head of its path ring. */
    const struct signal_registry *registry;
    unsigned n_tags;
    unsigned tag_slot[SHIM_TAG_SLOTS];
    int paths; /* read each thread's path ring (signals/path.h) */
    /* 1 + the index among the tags of the method signal (slot 8), which says whose path a
     * sample belongs to; 0: not read (a sample's path is then the next one completed) */
    unsigned method_tag;
    /* 1 + the index among the tags of the context slot (9) when the context comes from a
     * walk of the thread's stack (signals/stackwalk.h): the tuple holds the chain's
     * number there instead of the slot's word; 0: the slot is read like any tag. Needs
     * method_tag. */
    unsigned walk_tag;
    /* With method_tag: code built with the compiler pass runs, which stores its function
     * in the loop word (slot 10) and not in slot 8 (signals/path.h): the sample's
     * function is SHIM_LOOP_FN of slot 10 when that is not 0, slot 8 otherwise. */
    int method_from_loop;
    /* With `paths`: the functions that append paths (their table numbers some), sorted,
     * n_pathed of them. A period in any other function (one whose table numbers none
     * because an indirect branch made the pass fall back, one built without the pass,
     * e.g. with the -finstrument-functions hooks), or in none yet (0), is not held back
     * for a path that never comes (path_totals.pathless). NULL: every period waits. */
    const uint64_t *pathed;
    unsigned n_pathed;
    struct probe_by by;
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
 * the page's seqlock moves; when the kernel allows rdpmc (cap_user_rdpmc) and the event
 * is on a counter (index != 0), read the hardware counter, sign-extend it from pmc_width
 * and add the kernel's offset: 1 and the count. Otherwise 0: the count must come from
 * read() (the offset alone is only the count as of the event's last update). */
static inline int probe_hw_rdpmc(const struct perf_event_mmap_page *page, pmc_reader read_pmc,
                                 void *ctx, uint64_t *count)
{
    const volatile struct perf_event_mmap_page *pc = page;
    uint32_t seq, idx;
    int ok;
    do {
        seq = pc->lock;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        idx = pc->index;
        ok = pc->cap_user_rdpmc && idx;
        *count = (uint64_t)pc->offset;
        if (ok) *count += pmc_sign_extend(read_pmc(idx - 1, ctx), pc->pmc_width);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    } while (pc->lock != seq);
    return ok;
}

static inline uint64_t rdpmc_reader(unsigned counter, void *ctx)
{
    (void)ctx;
    return __builtin_ia32_rdpmc((int)counter);
}

/* read() of a perf event opened with PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING (the count
 * comes first). When nothing could be read, the last count read (0 before any): the
 * period then sees no events and the next one sees them, so sums over periods stay right,
 * where a 0 would give a delta near 2^64. A system call: for another thread's event the
 * kernel may interrupt that thread's CPU to bring the count up to date. Keeps the count
 * in *h->last. */
uint64_t probe_hw_read_fd(const struct probe_hw *h);

/* The observer's read of a counter with `read_pmc` for rdpmc (a parameter for the
 * tests). A count rdpmc gave is kept in *h->last too: the event may later leave its
 * counter (index 0) while a read() fails, which must then give that count, not 0. */
static inline uint64_t probe_hw_read_with(const struct probe_hw *h, pmc_reader read_pmc, void *ctx)
{
    uint64_t count;
    if (h->read) return h->read(h);
    if (probe_hw_rdpmc(h->page, read_pmc, ctx, &count)) {
        *h->last = count;
        return count;
    }
    return probe_hw_read_fd(h);
}

static inline uint64_t probe_hw_read(const struct probe_hw *h)
{
    return probe_hw_read_with(h, rdpmc_reader, NULL);
}

/* The observed thread's share of a core-wide delta: what the core counted minus what the
 * observer counted itself. The two are read a few cycles apart, so in a period where the
 * observed thread counted (almost) nothing the difference can come out below zero: that
 * is zero events, not a huge unsigned number. */
static inline uint64_t core_minus_own(uint64_t core, uint64_t own)
{
    return core > own ? core - own : 0;
}

/* The same difference kept signed, for sums over periods: a reading skew that makes one
 * period's difference negative makes a neighbour's larger, and the two cancel only if
 * neither is floored. */
static inline double core_minus_own_signed(uint64_t core, uint64_t own)
{
    return core >= own ? (double)(core - own) : -(double)(own - core);
}

/* One kept period into the slots of one rate by another (struct probe_by): x chose the
 * slot, y's a and b are added. A slot is decided on the value, as hist_slot does: x at
 * or above hi is the last slot, and an index that rounds up to `buckets` just below hi
 * stays in the last bucket. by holds (count, sum_a, sum_b) per slot. */
static inline void probe_by_add(const struct probe_by *by, double *slots, double x, double ya,
                                double yb)
{
    unsigned slot;
    if (x < by->lo) {
        slot = 0;
    } else if (!(x < by->hi)) {
        slot = by->buckets + 1;
    } else {
        double at = (x - by->lo) / (by->hi - by->lo) * by->buckets;
        unsigned i = at < (double)by->buckets ? (unsigned)at : by->buckets - 1;
        slot = 1 + i;
    }
    double *c = slots + (size_t)slot * 3;
    c[0] += 1, c[1] += ya, c[2] += yb;
}

/* A software counter of thread block b (NULL: a thread without one reads 0). */
static inline uint64_t probe_sw_read_block(const struct probe_sw *s, const struct shim_block *b)
{
    if (!b) return 0;
    if (s->slot >= 0) return __atomic_load_n(&b->counter[s->slot], __ATOMIC_RELAXED);
    const uint64_t *w =
        (const uint64_t *)(uintptr_t)__atomic_load_n(&b->reserved[-1 - s->slot], __ATOMIC_RELAXED);
    return w ? __atomic_load_n(w, __ATOMIC_RELAXED) : 0;
}

#endif
