/*
 * observer.c -- the observer loop of the SHIM paper's Figure 2, with DTE, rates and
 * aggregation done online.
 *
 * Each iteration takes one sample: a start marker (rdtscp), each counter after its own
 * rdtscp, an end marker, the thread word; then it turns the period since the previous
 * sample into rates and adds them to the entry of the tags read at the end of the
 * previous iteration (those tags were read inside this period), and reads the tags for
 * the next period. All state the loop touches was allocated by observer_init(); it makes
 * no call that can block, allocate or enter the kernel, so the only work between two
 * samples is arithmetic on a few cache lines of its own.
 *
 * Throttling (a target period) spins on rdtsc with a pause hint until a randomised
 * wait has passed since the last start marker: uniform jitter around the target breaks
 * any lock-step with periodic behaviour of the program (SHIM paper 4.2, DCPI).
 */
#include "observer.h"

#include <emmintrin.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "dte.h"
#include "tsc.h"

struct sample {
    uint64_t cs, ce, thread;
    uint64_t c[PROBE_MAX_COUNTERS];
};

static const uint64_t no_thread_word;

int observer_init(struct observer *o, const struct probe_plan *plan,
                  const struct observer_params *params)
{
    memset(o, 0, sizeof *o);
    o->plan = *plan;
    o->params = *params;
    if (!o->plan.thread_word) o->plan.thread_word = &no_thread_word;
    if (probe_readings(plan) > PROBE_MAX_COUNTERS || plan->n_rates > PROBE_MAX_RATES ||
        plan->n_tags > SHIM_TAG_SLOTS)
        return -1;
    if (tag_table_init(&o->tags, 1 + plan->n_tags, plan->n_rates, params->max_tags,
                       &params->hist) != 0)
        return -1;
    if (loghist_init(&o->period, 5, 0, 40) || loghist_init(&o->gap, 5, 0, 40) ||
        loghist_init(&o->gap_sink, 5, 0, 40) || loghist_init(&o->cpc, 6, -8, 12)) {
        observer_free(o);
        return -1;
    }
    return 0;
}

uint64_t observer_default_max_period(uint64_t period, double jitter)
{
    double limit = 4.0 * (double)period * (1.0 + jitter);
    return limit > 20000.0 ? (uint64_t)limit : 20000;
}

void observer_free(struct observer *o)
{
    tag_table_free(&o->tags);
    loghist_free(&o->period);
    loghist_free(&o->gap);
    loghist_free(&o->gap_sink);
    loghist_free(&o->cpc);
}

void observer_request_stop(struct observer *o)
{
    __atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
}

/* Bring the software counters' lines into this core's cache before the start marker.
 * A line the program has just written must come from the other core's cache, which
 * takes far longer than a hit; inside the timed window that extra time is skew, and DTE
 * would discard exactly the periods in which a counter moved -- biasing every software
 * rate towards zero. Loaded here, the timed reads below hit unless the program writes
 * in the few cycles between. */
static inline void warm_software_counters(const struct probe_plan *p)
{
    for (unsigned i = 0; i < p->n_sw; i++)
        (void)probe_sw_read(&p->sw[i]);
}

static inline void take_sample(const struct probe_plan *p, struct sample *s)
{
    warm_software_counters(p);
    s->cs = tsc_marker();
    for (unsigned i = 0; i < p->n_hw; i++) {
        tsc_marker();
        s->c[i] = probe_hw_read(&p->hw[i]);
    }
    for (unsigned i = 0; i < p->n_sw; i++) {
        tsc_marker();
        s->c[p->n_hw + i] = probe_sw_read(&p->sw[i]);
    }
    s->ce = tsc_marker();
    s->thread = __atomic_load_n(p->thread_word, __ATOMIC_RELAXED);
}

static inline void read_tags(const struct probe_plan *p, uint64_t thread, uint64_t *key)
{
    key[0] = thread;
    for (unsigned i = 0; i < p->n_tags; i++)
        key[1 + i] = __atomic_load_n(p->tag[i], __ATOMIC_RELAXED);
}

/* Rates of one kept period into its entry; per_cycle is 1 / d_start. */
static inline void record_rates(struct observer *o, struct tag_entry *e, const struct sample *prev,
                                const struct sample *cur, uint64_t d_start, double per_cycle)
{
    const struct probe_plan *p = &o->plan;
    const struct hist_spec *spec = &o->tags.hist;
    uint64_t d[PROBE_MAX_COUNTERS];
    for (unsigned i = 0; i < probe_readings(p); i++)
        d[i] = counter_delta(cur->c[i], prev->c[i], p->mask[i]);
    for (unsigned r = 0; r < p->n_rates; r++) {
        const struct probe_rate *pr = &p->rate[r];
        double a = (double)d[pr->num] * pr->scale, b, v;
        if (pr->den == PROBE_RATE_PER_TSC)
            b = (double)d_start, v = a * per_cycle; /* no division in the common case */
        else
            b = (double)d[pr->den], v = a / b;
        hist_add(spec, e->hist + (size_t)r * HIST_WORDS(spec), v);
        if (v - v == 0) /* finite: NaN and inf are counted by the histogram only */
            rate_stats_add(&e->stats[r], a, b, v);
    }
}

/* One period [prev, cur] attributed to the tags in key.
 *
 * At fast sampling DTE keeps about half the periods, as good as at random, so a branch
 * on its verdict would be mispredicted half the time, right on the observer's critical
 * path. The verdict instead selects where the rates and the gap go: the tag's entry and
 * the gap histogram, or a sink entry and histogram nobody reads. */
static inline void record_period(struct observer *o, const struct sample *prev,
                                 const struct sample *cur, const uint64_t *key, uint64_t *last_kept)
{
    uint64_t d_start = cur->cs - prev->cs, d_end = cur->ce - prev->ce;
    o->totals.total++;
    loghist_add(&o->period, (double)d_start);
    if (d_start > o->params.max_period) { /* rare: the observer was interrupted */
        o->totals.interrupted++;
        return;
    }
    struct tag_entry *e = tag_table_lookup(&o->tags, key);
    o->totals.other += tag_table_is_other(&o->tags, e);
    e->samples++;
    e->cycles += d_start;
    if (cur->thread != prev->thread) { /* rare: no rate across threads */
        o->totals.thread_changes++;
        return;
    }
    o->totals.rated++;
    double per_cycle = 1.0 / (double)d_start;
    loghist_add(&o->cpc, (double)d_end * per_cycle);
    int keep = o->params.dte_off | dte_accept(d_start, d_end, o->params.dte_tolerance);
    o->totals.kept += (uint64_t)keep;
    e->kept += (uint64_t)keep;
    record_rates(o, keep ? e : tag_table_sink(&o->tags), prev, cur, d_start, per_cycle);
    loghist_add(keep && *last_kept ? &o->gap : &o->gap_sink, (double)(cur->cs - *last_kept));
    *last_kept = keep ? cur->cs : *last_kept;
}

static inline uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Spin until a randomised wait has passed since `since` (a start marker). */
static inline void throttle(const struct observer *o, uint64_t since, uint64_t *rng)
{
    if (o->params.period == 0) return;
    uint64_t lo = (uint64_t)((double)o->params.period * (1.0 - o->params.jitter));
    uint64_t span = (uint64_t)((double)o->params.period * 2.0 * o->params.jitter) + 1;
    uint64_t wait = lo + (uint64_t)(((unsigned __int128)(next_random(rng) >> 32) * span) >> 32);
    while (tsc_now() - since < wait)
        _mm_pause();
}

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void observer_run(struct observer *o)
{
    const struct probe_plan *p = &o->plan;
    struct sample a, b, *prev = &a, *cur = &b, *t;
    uint64_t key[1 + SHIM_TAG_SLOTS], last_kept = 0;
    uint64_t rng = o->params.seed | 1;
    double cpu0 = thread_cpu_seconds();

    take_sample(p, prev);
    read_tags(p, prev->thread, key);
    o->first_tsc = prev->cs;
    while (!__atomic_load_n(&o->stop, __ATOMIC_RELAXED)) {
        throttle(o, prev->cs, &rng);
        take_sample(p, cur);
        record_period(o, prev, cur, key, &last_kept);
        read_tags(p, cur->thread, key);
        t = prev, prev = cur, cur = t;
    }
    o->totals.discarded = o->totals.rated - o->totals.kept;
    o->last_tsc = prev->cs;
    o->cpu_seconds = thread_cpu_seconds() - cpu0;
}
