/*
 * observer.c -- the observer loop of the SHIM paper's Figure 2, with DTE, rates and
 * aggregation done online.
 *
 * Each iteration takes one sample (take_sample: markers, counters, thread word, tags)
 * into a small batch; each pair of consecutive samples is a period, attributed to the
 * tags read inside it (right after the first sample's counters), DTE-checked, turned
 * into rates and added to the tag table (record_period). All state the loop touches was
 * allocated by observer_init(); it makes no call that can block, allocate or enter the
 * kernel, so the only work between two samples is arithmetic on memory of its own. The
 * one exception is its breath, 20 times a second after an aggregation: a sleep of 50 us
 * that leaves its CPU to anything the kernel has waiting for it (observer_run).
 *
 * Throttling (a target period) spins on rdtsc with a pause hint until a randomised
 * wait has passed since the last start marker: uniform jitter around the target breaks
 * any lock-step with periodic behaviour of the program (SHIM paper 4.2, DCPI).
 * observer/README.md records the measurements behind each choice made here.
 */
#include "observer/observer.h"

#include <emmintrin.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "signals/cct.h"
#include "observer/dte.h"
#include "observer/observer_cut.h"
#include "observer/tsc.h"

/* One sample as read is a run of `stride` words: the start and end markers, whether the
 * slow counters were read, the counter readings, a timestamp per counter read after the
 * window (slow hardware, then software), then the thread word and the tags, which
 * together are the key of the tag table, the block they were read from, and (with
 * paths) the head of that block's path ring and the ring. */
enum { SAMPLE_CS = 0, SAMPLE_CE = 1, SAMPLE_DUE = 2, SAMPLE_C = 3 };

/* Words of a period waiting for its path: flags, next completion number, two samples. */
#define PENDING_WORDS(o) (2 + 2 * (size_t)(o)->stride)

static inline uint64_t *sample_at(const struct observer *o, unsigned i)
{
    return o->batch + (size_t)i * o->stride;
}

static const uint64_t no_thread_word;

uint64_t probe_hw_read_fd(const struct probe_hw *h)
{
    uint64_t v[3]; /* count, time enabled, time running */
    if (read(h->fd, v, sizeof v) != (ssize_t)sizeof v) return *h->last;
    *h->last = v[0];
    return v[0];
}

int observer_init(struct observer *o, const struct probe_plan *plan,
                  const struct observer_params *params)
{
    memset(o, 0, sizeof *o);
    o->plan = *plan;
    for (unsigned i = 0; i < PROBE_MAX_COUNTERS; i++) /* its own words, outside the plan */
        o->plan.hw[i].last = &o->hw_last[i];
    o->params = *params;
    if (!o->plan.thread_word) o->plan.thread_word = &no_thread_word;
    if (!plan->registry || probe_readings(plan) > PROBE_MAX_COUNTERS ||
        plan->n_rates > PROBE_MAX_RATES || plan->n_tags > SHIM_TAG_SLOTS ||
        plan->method_tag > plan->n_tags || plan->walk_tag > plan->n_tags ||
        (plan->method_from_loop && !plan->method_tag) ||
        (plan->walk_tag && (!plan->method_tag || plan->walk_tag == plan->method_tag)))
        return -1;
    /* fast hardware counters first, then the slow ones; an own count is a fast reading */
    while (o->n_fast < plan->n_hw && !plan->hw[o->n_fast].slow)
        o->n_fast++;
    for (unsigned i = 0; i < plan->n_hw; i++)
        if ((i >= o->n_fast && !plan->hw[i].slow) ||
            (plan->hw[i].own && (plan->hw[i].own >= o->n_fast || plan->hw[i].own == i)))
            return -1;
    for (unsigned r = 0; r < plan->n_rates; r++) {
        const struct probe_rate *pr = &plan->rate[r];
        unsigned n = probe_readings(plan);
        if ((unsigned)pr->num >= n || (pr->den != PROBE_RATE_PER_TSC && (unsigned)pr->den >= n))
            return -1;
        o->rate_slow[r] = (pr->num >= (int)o->n_fast && pr->num < (int)plan->n_hw) ||
                          (pr->den >= (int)o->n_fast && pr->den < (int)plan->n_hw);
    }
    const struct probe_by *by = &plan->by;
    if (by->buckets && (by->x >= plan->n_rates || by->y >= plan->n_rates || o->rate_slow[by->x] ||
                        o->rate_slow[by->y] || !(by->lo < by->hi) || by->buckets > 100000))
        return -1;
    if (tag_table_init(&o->tags, 1 + plan->n_tags, plan->n_rates, params->max_tags,
                       params->max_detail, &params->hist) != 0)
        return -1;
    o->tags.batch_origin = params->batch_origin;
    if (by->buckets && tag_table_add_by(&o->tags, by->buckets + 2) != 0) {
        tag_table_free(&o->tags);
        return -1;
    }
    for (unsigned i = 0; i + 1 < plan->n_tags; i++)
        o->tag_pair[i] =
            plan->tag_slot[i] % 2 == 0 && plan->tag_slot[i + 1] == plan->tag_slot[i] + 1;
    o->loop_tag = 0;
    for (unsigned i = 0; i < plan->n_tags; i++)
        if (plan->tag_slot[i] == SHIM_SLOT_LOOP) o->loop_tag = i + 1;
    o->method_pair = plan->method_tag && o->tag_pair[plan->method_tag - 1] &&
                     plan->tag_slot[plan->method_tag - 1] == SHIM_SLOT_METHOD;
    o->breath_every = params->breath_every ? params->breath_every : UINT64_MAX;
    /* [CS, CE, DUE, readings..., a timestamp per late reading, thread, tags...] */
    unsigned late = probe_readings(plan) - o->n_fast;
    o->key_offset = SAMPLE_C + probe_readings(plan) + late;
    o->stride = o->key_offset + 1 + plan->n_tags;
    o->block_offset = o->stride++; /* which block the counters came from (0: none) */
    if (plan->paths) {             /* the ring's head and the ring, after the key */
        o->path_offset = o->stride;
        o->stride += 2;
        o->pending = calloc((size_t)OBSERVER_PENDING * PENDING_WORDS(o), sizeof *o->pending);
        if (!o->pending || tag_table_init(&o->paths, 3, plan->n_rates, params->max_tags,
                                          params->max_detail, &params->hist) != 0) {
            observer_free(o);
            return -1;
        }
        o->paths.batch_origin = params->batch_origin;
    }
    for (unsigned i = 0; i < probe_readings(plan); i++)
        o->time_offset[i] =
            i < o->n_fast ? SAMPLE_CS : SAMPLE_C + probe_readings(plan) + (i - o->n_fast);
    if (plan->walk_tag && chain_store_init(&o->chains, 0, 0) != 0) {
        observer_free(o);
        return -1;
    }
    o->batch = calloc((size_t)OBSERVER_BATCH * o->stride, sizeof *o->batch);
    o->span = calloc(o->stride, sizeof *o->span);
    if (!o->batch || !o->span) {
        observer_free(o);
        return -1;
    }
    if (loghist_init(&o->period, 5, 0, 40) || loghist_init(&o->gap, 5, 0, 40) ||
        loghist_init(&o->cpc, 6, -8, 12)) {
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
    free(o->batch);
    free(o->span);
    free(o->pending);
    o->batch = o->span = o->pending = NULL;
    tag_table_free(&o->tags);
    tag_table_free(&o->paths);
    chain_store_free(&o->chains);
    loghist_free(&o->period);
    loghist_free(&o->gap);
    loghist_free(&o->cpc);
}

void observer_request_stop(struct observer *o)
{
    __atomic_store_n(&o->stop, 1, __ATOMIC_RELEASE);
}

/* o->block: the block of thread `tid`, looked up again only when the thread changed or
 * its block changed hands. */
static inline void observer_find_block(struct observer *o, uint64_t tid)
{
    const struct signal_registry *r = o->plan.registry;
    if (tid == o->block_tid &&
        (!o->block || __atomic_load_n(&r->owner[o->block_index], __ATOMIC_ACQUIRE) == tid))
        return;
    o->block_tid = tid;
    o->block = signal_block_find(r, tid, &o->block_index);
}

/*
 * The calling context of the thread that owns block b, from a walk of its stack
 * (signals/stackwalk.h): STACKWALK_CHAIN(the chain's number), with key[method] set to the
 * function the chain starts with; or `hooks`, the context slot's own word, when the
 * thread published no frame (code built with -finstrument-functions keeps its node). The
 * block's count of walkers goes up (a sequentially consistent read-modify-write) before
 * the stack bounds and the frame word are read and down after the walk: a thread that
 * gives its block back clears the bounds first, then waits for the count to be 0, so
 * no walk starts on a stack that may go, and none is still in one. The frame and its
 * function are read together (read_frame), before and after the innermost frame (one
 * cache line the program keeps writing, so the second read comes a cache miss later,
 * when a short function may have returned). The frames read are taken as the sampled
 * function's when the thread is then still in its frame (chain_steady: with the same
 * function; or with another, where one read is a hooks' exit or both are hooks' entries
 * from the same call site), deeper (in a callee), or back in one of the frames the walk
 * read (a caller: the frames from there out are still its, and those between were read
 * before the thread returned through them; after a hooks' exit above the first frame,
 * the caller of the function that left counts too); the same frame with another function
 * otherwise is a sibling call from the same caller, whose return address may be the one
 * read. Otherwise the sample's context is counted as lost (`unsteady`). Not seen: a
 * sibling call made and left within the first read, whose call site the chain then has
 * for the function's (the functions on it are right). A hooks' entry whose frame does not
 * hold its call site's 16 bits is a function without a frame pointer (no chain), or, where
 * the pair changed meanwhile, a frame the thread left (lost). A hooks' exit keeps its
 * word as the sample's function, and its first return address where the walk is lost
 * (CHAIN_LEAF_ONLY), for the writer to name (signals/stackwalk.h). The sample keeps the
 * function read first, whatever happened
 * after: walking again from where the thread had moved gave the sample to the caller, and took most
 * of their samples from short functions (a bias of up to 9 points of the time on an interpreter).
 * The sample's function is the one the walk read with the frame: the method signal the tags read a
 * moment before may already be another's, and so is the loop word, which the walk's replaces.
 * Without a frame: a function whose frame did not check out keeps that function, with no chain;
 * with function 0 too, a thread that publishes frames is outside its instrumented functions
 * (function 0, the context slot's word), unless code built with the pass runs (method_from_loop: a
 * loop word of 0 is then the hooks' tree, whose function the tags read); one that never has (code
 * with the hooks' tree) keeps the function and context the tags read. The frames outside it change
 * only when the thread returns past them, so the rest of the walk is not checked again: checking
 * after the whole walk, several cache misses long, lost a sample in six on a call-dense
 * interpreter, and only those in functions that run long, a bias.
 */
/* The frame word and the function it is the frame of, read together: slots 10 and 11
 * with one 16-byte load (signals/stackwalk.h, "read together"), the function being the
 * loop word's. A frame without a function is a thread between a function and a caller
 * that publishes none (the outermost instrumented call, entered or left): no frame. A
 * pair of the -finstrument-functions hooks (SHIM_FRAME_HOOKS, stackwalk.h "the hooks'
 * pair") gives its function without the 16 bits beside it (`tag`, the call site's), or
 * after an exit the word in STACKWALK_EXIT form, which the profile writer names. Compiler
 * fences keep the reads where they are among the stack's. */
struct frame_read {
    uint64_t fn, loop, fp, mark; /* mark: the frame word's low bits */
    unsigned tag;
};

static inline void read_frame(const struct shim_block *b, struct frame_read *r)
{
    uint64_t w, fp;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    signal_block_load_pair(b, SHIM_SLOT_LOOP, &w, &fp);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->mark = fp & SHIM_FRAME_BITS;
    r->tag = 0;
    if (r->mark & SHIM_FRAME_HOOKS) {
        r->tag = (unsigned)(w >> SHIM_LOOP_SHIFT);
        r->fn = SHIM_LOOP_FN(w);
        if (r->mark & SHIM_FRAME_EXIT) r->fn = STACKWALK_EXIT(STACKWALK_EXIT_ADDR(r->fn), r->tag);
        r->loop = r->fn;
    } else {
        r->loop = shim_loop_canonical(w);
        r->fn = SHIM_LOOP_FN(r->loop);
    }
    r->fp = r->fn ? fp & ~SHIM_FRAME_BITS : 0;
}

static uint64_t walk_context(struct observer *o, struct shim_block *b, uint64_t *method,
                             uint64_t *loop, uint64_t hooks)
{
    struct chain_store *s = &o->chains;
    uint64_t *walkers = &b->reserved[SHIM_BLOCK_WALKING];
    __atomic_fetch_add(walkers, 1, __ATOMIC_SEQ_CST);
    uint64_t hi = __atomic_load_n(&b->reserved[SHIM_BLOCK_STACK_HI], __ATOMIC_SEQ_CST),
             lo = __atomic_load_n(&b->reserved[SHIM_BLOCK_STACK_LO], __ATOMIC_SEQ_CST);
    struct frame_read r, r2;
    read_frame(b, &r);
    uint64_t fp = r.fp, v = hooks, tid = o->block_tid, next = 0, ret = 0;
    uint64_t *seen = &o->frames_tid[o->block_index % SIGNAL_BLOCK_POOL];
    int hooked = (r.mark & SHIM_FRAME_HOOKS) != 0, exit = hooked && (r.mark & SHIM_FRAME_EXIT);
    int framed = fp && lo && hi && chain_frame(fp, lo, hi, &next, &ret), moved = 0;
    /* a hooks' entry whose frame does not hold the call site: code without frame
     * pointers, whose register is anything, when the thread is still there (read again);
     * otherwise it left the frame, which another call took, while it was read */
    if (hooked && !exit && framed && SHIM_HOOKS_TAG(ret) != r.tag) {
        read_frame(b, &r2);
        moved = r2.fn != r.fn || r2.fp != r.fp || r2.tag != r.tag || r2.mark != r.mark;
        if (!moved) fp = 0, framed = 0;
    }
    if (hooked && !fp) v = CHAIN_NONE;
    if (fp) *seen = tid;
    /* without a frame: a function whose frame did not check out, with its function and
     * no chain, or a frames thread outside its functions; where the pass's function comes
     * from the loop word, 0 there is the hooks' tree (method_from_loop), whose function
     * it keeps */
    if (!fp && (hooked || (!o->plan.method_from_loop && (r.fn || *seen == tid)))) {
        *method = r.fn;
        if (loop && hooked) *loop = r.loop;
    }
    if (fp) {
        s->walks++;
        v = STACKWALK_CHAIN(CHAIN_LOST);
        *method = r.fn; /* the function of the sampled moment, whatever the walk finds */
        if (loop) *loop = r.loop;
        struct chain_walk_frames *w = &o->walk;
        if (!lo || !hi) {
            s->no_stack++;
        } else if (moved) {
            s->unsteady++;
        } else {
            read_frame(b, &r2);
            w->want = r2.fp;
            /* a hooks' exit above the frame read first: the thread may be back in the
             * caller of the function that left, whose frame the leaving one saved (it is
             * read only here, where the walk would otherwise have to find the frame the
             * thread is no longer in) */
            uint64_t next2 = 0, ret2;
            if ((r2.mark & SHIM_FRAME_HOOKS) && (r2.mark & SHIM_FRAME_EXIT) && r2.fp > fp)
                chain_frame(r2.fp, lo, hi, &next2, &ret2);
            w->want2 = next2 > r2.fp ? next2 : 0;
            unsigned n = 0;
            if (framed)
                n = chain_walk_on(fp, next, ret, hi, w);
            else
                w->cut = w->found = 0;
            if (chain_steady(r.fn, fp, r.mark, r.tag, r2.fn, r2.fp, r2.mark, r2.tag, w->found)) {
                s->cut_walks += (uint64_t)w->cut;
                uint64_t first = hooked && !exit ? r.fn | STACKWALK_ENTRY_BIT : r.fn;
                v = STACKWALK_CHAIN(chain_store_intern(s, first, w->ret, n, w->cut));
            } else {
                s->unsteady++; /* returned past the frames read: maybe another call's */
                /* after a hooks' exit, the writer names the function from the first
                 * return address: kept, with the context lost */
                if (exit && framed && ret)
                    v = STACKWALK_CHAIN(chain_store_intern(s, r.fn, &ret, 1, CHAIN_LEAF_ONLY));
            }
        }
    }
    __atomic_fetch_sub(walkers, 1, __ATOMIC_RELEASE);
    return v;
}

/*
 * The sample's function from the loop word, where code built with the pass runs
 * (signals/path.h): SHIM_LOOP_FN(slot 10) when that is not 0, the method slot's word
 * otherwise. Where the hooks' tree runs too (the context slot, read with the method slot
 * as a pair, is not 0), the hooks clear the loop word before they store the pair, and
 * the pass stores only the loop word: the pair is read again after the loop word, and
 * the three are read again while the pair changed meanwhile (up to three times; then
 * the last reads are kept), so that a sample does not pair the function of one moment
 * with the context of another.
 */
static inline void method_from_loop(struct observer *o, const struct shim_block *b, uint64_t *key)
{
    unsigned m = o->plan.method_tag;
    uint64_t w =
        o->loop_tag
            ? key[o->loop_tag] /* in SHIM_LOOP_SIGNAL form (take_sample) */
            : shim_loop_canonical(__atomic_load_n(&b->tag[SHIM_SLOT_LOOP], __ATOMIC_RELAXED));
    for (int k = 0; o->method_pair && key[m + 1] && k < 3; k++) {
        uint64_t fn, ctx;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        signal_block_load_pair(b, SHIM_SLOT_METHOD, &fn, &ctx);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (fn == key[m] && ctx == key[m + 1]) break;
        key[m] = fn;
        key[m + 1] = ctx;
        w = shim_loop_canonical(__atomic_load_n(&b->tag[SHIM_SLOT_LOOP], __ATOMIC_RELAXED));
        if (o->loop_tag) key[o->loop_tag] = w;
    }
    if (w) key[m] = SHIM_LOOP_FN(w);
}

/*
 * One sample, as in the SHIM paper's Figure 2, with one change for software counters.
 * Hardware counters are read inside the DTE window: start marker, for each a
 * serialising rdtscp then the read, end marker. Software counters are words the
 * program writes, and how long a read of one takes depends on whether the program
 * just wrote it (the line must then come from the other core's cache): inside the
 * window that delay is skew that DTE would see, so DTE would discard exactly the
 * periods in which a counter moved, and every software rate would read low (measured:
 * by up to half). So each software counter is read after the window and followed by
 * an rdtscp of its own, which waits for the read to complete: that timestamp is the
 * counter's own time base, exact whether the read hit or missed. Slow hardware counters,
 * when their time has come, are read next, the same way: a read of them takes
 * microseconds, and coming after the software reads it lengthens only the period that
 * follows, which record_period treats like an aggregation pause. The thread word comes
 * right after the window (it says whose block the counters, tags and path ring are read
 * from); the tags come last, after every counter, so that a span of the slow counters
 * sees each tag value read inside it (track_span).
 */
static inline void take_sample(struct observer *o, uint64_t *s)
{
    const struct probe_plan *p = &o->plan;
    /* t_late[i]: the timestamp of reading i >= n_fast (the words after the readings) */
    uint64_t *c = s + SAMPLE_C, *t_late = c + probe_readings(p) - o->n_fast,
             *key = s + o->key_offset;
    s[SAMPLE_CS] = tsc_marker();
    for (unsigned i = 0; i < o->n_fast; i++) {
        tsc_marker();
        c[i] = probe_hw_read(&p->hw[i]);
    }
    s[SAMPLE_CE] = tsc_marker();
    key[0] = __atomic_load_n(p->thread_word, __ATOMIC_RELAXED); /* the running thread */
    observer_find_block(o, key[0]);                             /* and its block */
    const struct shim_block *b = o->block;
    for (unsigned i = 0; i < p->n_sw; i++) {
        c[p->n_hw + i] = probe_sw_read_block(&p->sw[i], b);
        t_late[p->n_hw + i] = tsc_marker();
    }
    s[SAMPLE_DUE] = o->n_fast < p->n_hw && s[SAMPLE_CS] - o->slow_last >= o->params.slow_period;
    if (s[SAMPLE_DUE]) {
        o->slow_last = s[SAMPLE_CS];
        for (unsigned i = o->n_fast; i < p->n_hw; i++) {
            c[i] = probe_hw_read(&p->hw[i]);
            t_late[i] = tsc_marker();
        }
    }
    s[o->block_offset] = (uintptr_t)b;
    if (!b)
        memset(key + 1, 0, p->n_tags * sizeof *key);
    else
        for (unsigned i = 0; i < p->n_tags; i++) {
            if (!o->tag_pair[i]) {
                key[1 + i] = __atomic_load_n(&b->tag[p->tag_slot[i]], __ATOMIC_RELAXED);
                continue;
            }
            signal_block_load_pair(b, p->tag_slot[i], &key[1 + i], &key[2 + i]); /* together */
            __atomic_signal_fence(__ATOMIC_SEQ_CST); /* and before the words after it */
            i++;
        }
    if (o->loop_tag && b) key[o->loop_tag] = shim_loop_canonical(key[o->loop_tag]); /* path.h */
    if (p->method_from_loop && b) method_from_loop(o, b, key);
    if (p->walk_tag && b)
        key[p->walk_tag] = walk_context(o, (struct shim_block *)b, &key[p->method_tag],
                                        o->loop_tag ? &key[o->loop_tag] : NULL, key[p->walk_tag]);
    if (!p->paths) return;
    const struct shim_path_ring *ring =
        b ? (const struct shim_path_ring *)(uintptr_t)__atomic_load_n(
                &b->reserved[SHIM_BLOCK_PATH_RING], __ATOMIC_ACQUIRE)
          : NULL;
    s[o->path_offset] = ring ? __atomic_load_n(&ring->head, __ATOMIC_RELAXED) : 0;
    s[o->path_offset + 1] = (uintptr_t)ring;
}

/* Rates of one kept period into its entry: the fast rates (slow = 0) of a period
 * between two samples, or the slow rates (slow = 1) of a span between two reads of the
 * slow counters. A rate per TSC cycle takes its time base from the counter's own
 * timestamp: the start marker for fast hardware counters, the rdtscp right after the read
 * for the others. `traced`: the period's rates also go to its trace record. `clock`: the
 * period's time for the batches (tag_table_clock).
 *
 * A core-wide count minus the observer's own (probe_hw.own) can come out below zero in
 * a period where the observed thread counted (almost) nothing, the two being read a few
 * cycles apart: the sums keep that signed difference, so such skews cancel over the
 * periods instead of adding up to a bias upwards; the per-period figures (the rate in
 * the histogram, distribution and trace, and the counts a bucket of one rate by another
 * adds up) are floored at zero. */
static inline void record_rates(struct observer *o, const struct tag_table *t, struct tag_entry *e,
                                const uint64_t *prev, const uint64_t *cur, int slow, int traced,
                                uint64_t clock)
{
    const struct probe_plan *p = &o->plan;
    const struct hist_spec *spec = &t->hist;
    struct tag_detail *dt = tag_entry_detail(t, e);
    uint64_t d[PROBE_MAX_COUNTERS];
    double sd[PROBE_MAX_COUNTERS];  /* signed: core minus own may be negative */
    double x = NAN, ya = 0, yb = 0; /* for one rate by another */
    for (unsigned i = 0; i < probe_readings(p); i++) {
        d[i] = counter_delta(cur[SAMPLE_C + i], prev[SAMPLE_C + i], p->mask[i]);
        sd[i] = (double)d[i];
    }
    for (unsigned i = 0; i < p->n_hw; i++)
        if (p->hw[i].own) {
            sd[i] = core_minus_own_signed(d[i], d[p->hw[i].own]);
            d[i] = core_minus_own(d[i], d[p->hw[i].own]);
        }
    for (unsigned r = 0; r < p->n_rates; r++) {
        if (o->rate_slow[r] != slow) continue;
        const struct probe_rate *pr = &p->rate[r];
        unsigned at = o->time_offset[pr->num];
        int per_tsc = pr->den == PROBE_RATE_PER_TSC;
        double a = sd[pr->num] * pr->scale;
        double b = per_tsc ? (double)(cur[at] - prev[at]) : sd[pr->den];
        double fa = (double)d[pr->num] * pr->scale, fb = per_tsc ? b : (double)d[pr->den];
        double v = fa / fb;
        if (traced) o->trace_rate[r] = v;
        rate_sums_add(&e->sums[r], a, b);
        if (dt) {
            hist_add(spec, dt->hist + (size_t)r * HIST_WORDS(spec), v);
            rate_dist_add(&dt->dist[r], v);
            tag_detail_batch_rate(dt, t->n_rates, r, clock, a, b);
        }
        if (r == p->by.x) x = v;
        if (r == p->by.y) ya = fa, yb = fb; /* a bucket of periods, like the histogram */
    }
    if (dt && dt->by && !slow && x == x) /* x is not NaN */
        probe_by_add(&p->by, dt->by, x, ya, yb);
}

/* The longest of a period's time bases: the start markers', and each software
 * counter's own timestamps. The observer can be preempted between its start marker and
 * a software read, which lengthens only that counter's time base. */
static inline uint64_t longest_time_base(const struct observer *o, const uint64_t *prev,
                                         const uint64_t *cur)
{
    uint64_t longest = cur[SAMPLE_CS] - prev[SAMPLE_CS];
    for (unsigned i = o->plan.n_hw; i < probe_readings(&o->plan); i++) { /* software */
        unsigned at = o->time_offset[i];
        uint64_t d = cur[at] - prev[at];
        longest = d > longest ? d : longest;
    }
    return longest;
}

static inline int same_key(const struct observer *o, const uint64_t *a, const uint64_t *b)
{
    for (unsigned i = 0; i < o->tags.key_words; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/*
 * Slow counters are rated over spans, from one read of them to the next (some
 * slow_period cycles, many samples). A span carries their rates to a tag only when every
 * sample from the one before its start to its end read that tag (and the same thread):
 * the tags are read after the counters, so these are exactly the samples whose tags
 * bracket the span. A span in which the program changed phase is counted
 * (samples.slow_spans) but rated for nobody, so a slow rate never mixes phases, and
 * phases shorter than slow_period get no slow rates (their fast rates and shares are
 * unaffected). Called for every period, in order.
 */
static void track_span(struct observer *o, const uint64_t *prev, const uint64_t *cur, int same)
{
    const uint64_t *pk = prev + o->key_offset, *ck = cur + o->key_offset;
    if (o->span_open && !same_key(o, pk, o->span + o->key_offset)) o->span_clean = 0;
    if (!cur[SAMPLE_DUE]) return;
    if (o->span_open) {
        o->totals.slow_spans++;
        if (o->span_clean && same_key(o, ck, o->span + o->key_offset)) {
            o->totals.slow_attributed++;
            record_rates(o, &o->tags, tag_table_lookup(&o->tags, o->span + o->key_offset), o->span,
                         cur, 1, 0, tag_table_clock(&o->tags, o->span[SAMPLE_CS]));
        }
    }
    memcpy(o->span, cur, o->stride * sizeof *o->span); /* the next span begins at cur */
    o->span_open = 1;
    o->span_clean = same; /* prev and cur read one tuple (account_period compared them) */
}

/* A sample into entry e of table t at time `clock` (tag_table_clock): counted (`other`'s by
 * the reason it went there) and in its time batch, and given a detail record once it has
 * earned one. */
static inline void entry_count(struct tag_table *t, struct tag_entry *e, uint64_t cycles,
                               uint64_t total, uint64_t clock)
{
    e->samples++;
    e->cycles += cycles;
    tag_table_count_batch(t, e, clock);
    if (tag_table_is_other(t, e))
        t->other_why[t->why]++;
    else if (tag_table_wants_detail(t, e, total))
        tag_table_give_detail(t, e);
}

/* One period [prev, cur], attributed to the tags read right after prev's counters.
 *
 * Its counter deltas are rated only when the period is bracketed by one tuple: the tags
 * are read after the counters, so the reads that enclose the period's counter deltas are
 * those of the sample before prev and of cur, and both must equal prev's. Otherwise the
 * period straddles a change of tuple (a phase, function, context or loop boundary) and
 * its deltas mix the two sides: rated, a short phase next to a busier one would take
 * some of the busier one's counts. Such a period still counts as a sample of its tuple
 * (time shares are unbiased: the boundary falls anywhere in it), and is counted as
 * straddled.
 *
 * A period in which the observer aggregated (busy) is no sample, but when the same tags
 * were read at both of its ends its time still counts for them: the pause lasts longer
 * after a batch of many samples, that is after a phase the observer samples quickly, so
 * dropping that time would take more of it from such phases and bias the time share. */
static inline unsigned account_period(struct observer *o, const uint64_t *prev, const uint64_t *cur,
                                      int busy, uint64_t *last_kept)
{
    uint64_t d_start = cur[SAMPLE_CS] - prev[SAMPLE_CS], d_end = cur[SAMPLE_CE] - prev[SAMPLE_CE];
    const uint64_t *key = prev + o->key_offset; /* tags read inside this period */
    int same = same_key(o, key, cur + o->key_offset), bracketed = same && o->key_steady;
    o->key_steady = same;
    if (o->n_fast < o->plan.n_hw) {
        track_span(o, prev, cur, same);
        busy |= (int)prev[SAMPLE_DUE]; /* the slow reads lengthened this period */
    }
    o->totals.total++;
    loghist_add(&o->period, (double)d_start);
    if (busy || longest_time_base(o, prev, cur) > o->params.max_period) {
        o->totals.interrupted++; /* the observer did something else: no sample, no rate */
        if (busy && same)        /* a short pause within one */
            tag_table_lookup(&o->tags, key)->cycles += d_start; /* tuple: its time counts */
        return 0;
    }
    struct tag_entry *e = tag_table_lookup(&o->tags, key);
    int other = tag_table_is_other(&o->tags, e);
    unsigned flags = TRACE_ATTRIBUTED | (other ? TRACE_OTHER : 0);
    o->totals.other += (uint64_t)other;
    uint64_t clock = tag_table_clock(&o->tags, prev[SAMPLE_CS]); /* the period's time */
    entry_count(&o->tags, e, d_start, o->totals.total - o->cut_total, clock);
    /* rare: no rate across threads, nor across a thread's block changing hands (a thread
     * that has given its block back reads 0s) */
    if (cur[o->key_offset] != key[0] || cur[o->block_offset] != prev[o->block_offset]) {
        o->totals.thread_changes++;
        return flags;
    }
    if (!bracketed) {
        o->totals.straddled++;
        e->straddled += e->straddled != UINT32_MAX;
        return flags;
    }
    o->totals.rated++;
    loghist_add(&o->cpc, (double)d_end / (double)d_start);
    if (!o->params.dte_off &&
        !dte_accept(d_start, d_end, o->params.dte_tolerance, o->params.dte_resolution))
        return flags | TRACE_RATED;
    o->totals.kept++;
    e->kept++;
    record_rates(o, &o->tags, e, prev, cur, 0, o->trace != NULL, clock);
    if (*last_kept) loghist_add(&o->gap, (double)(cur[SAMPLE_CS] - *last_kept));
    *last_kept = cur[SAMPLE_CS];
    return flags | TRACE_RATED | TRACE_KEPT;
}

/*
 * Paths (signals/path.h). A period belongs to the path that was executing at its start:
 * the first path completed after the ring head its first sample read by the function
 * the method signal named in that sample (paths are intraprocedural: a caller's path
 * that was running before a call completes after the callee's paths, so the next path
 * in the ring is not always the sampled one; without the method signal, the next path
 * is taken). That path may still be running when the period is aggregated, so the
 * period waits, as [flags, the next completion number to look at, its two samples], in
 * a FIFO until the path has completed. Few wait, and not for long: a path ends at every
 * loop back edge and every return.
 */
static inline uint64_t *pending_at(const struct observer *o, unsigned i)
{
    return o->pending + (size_t)((o->pending_first + i) % OBSERVER_PENDING) * PENDING_WORDS(o);
}

static inline void pending_pop(struct observer *o)
{
    o->pending_first = (o->pending_first + 1) % OBSERVER_PENDING;
    o->pending_n--;
}

/* The oldest waiting period into its path's entry once its path has completed (or,
 * when `final`, into the count of those that never did): 1 when it left the queue. */
static int path_settle(struct observer *o, int final)
{
    uint64_t *w = pending_at(o, 0);
    const uint64_t *prev = w + 2, *cur = prev + o->stride;
    uint64_t key[3] = {prev[o->key_offset], 0, 0}; /* thread, function, path number */
    uint64_t fn = o->plan.method_tag ? prev[o->key_offset + o->plan.method_tag] : 0;
    enum path_resolution found;
    const struct shim_path_ring *ring = /* never NULL here: path_period */
        (const struct shim_path_ring *)(uintptr_t)prev[o->path_offset + 1];
    /* what the looks for this function's path passed over: the waiting periods of one
     * function in one stretch share a start, so each need not read the same entries
     * again, and a look the scan budget cut short goes on where it stopped */
    struct path_scan_memo *m = &o->scan_memo;
    if (fn && fn == m->fn && ring == m->ring && w[1] >= m->from && w[1] <= m->to) {
        w[1] = m->to;
    } else {
        m->fn = fn;
        m->ring = ring;
        m->from = m->to = w[1];
    }
    while ((found = path_ring_resolve(ring, w[1], &key[1], &key[2])) == PATH_RESOLVED && fn &&
           key[1] != fn) {
        m->to = ++w[1]; /* a path of a function it called: the sampled one completes later */
        if (!final) {   /* enough for this period? */
            if (o->path_scan == 0) return 0;
            o->path_scan--;
        }
    }
    switch (found) {
    case PATH_PENDING:
        if (!final) return 0;
        o->path_totals.pending++;
        break;
    case PATH_OVERWRITTEN:
        o->path_totals.overwritten++;
        break;
    case PATH_RESOLVED: {
        struct tag_entry *e = tag_table_lookup(&o->paths, key);
        o->path_totals.resolved++;
        uint64_t clock = tag_table_clock(&o->paths, prev[SAMPLE_CS]);
        entry_count(&o->paths, e, cur[SAMPLE_CS] - prev[SAMPLE_CS],
                    o->path_totals.resolved - o->cut_resolved, clock);
        if (w[0] & TRACE_KEPT) {
            e->kept++;
            record_rates(o, &o->paths, e, prev, cur, 0, 0, clock);
        }
        break;
    }
    }
    pending_pop(o);
    return 1;
}

/* Whether fn is not one of the plan's functions with paths: one that appends none, or 0,
 * outside every instrumented function (the thread has run none yet, or runs code before
 * its first, such as shim_start's own: the next path may complete milliseconds later,
 * and taking it would give it all that time). */
static inline int pathless(const struct probe_plan *p, uint64_t fn)
{
    unsigned lo = 0, hi = p->n_pathed;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (p->pathed[mid] < fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return !(lo < p->n_pathed && p->pathed[lo] == fn);
}

static void path_period(struct observer *o, const uint64_t *prev, const uint64_t *cur,
                        unsigned flags)
{
    if (!prev[o->path_offset + 1]) { /* no ring: no block (another process, idle), or a */
        o->path_totals.none++;       /* thread whose code was not built with paths */
        return;
    }
    if (o->plan.pathed && o->plan.method_tag &&
        pathless(&o->plan, prev[o->key_offset + o->plan.method_tag])) {
        o->path_totals.pathless++;
        return;
    }
    o->path_scan = OBSERVER_PATH_SCAN;
    if (o->pending_n == OBSERVER_PENDING && !path_settle(o, 0)) {
        o->path_totals.dropped++;
        pending_pop(o);
    }
    uint64_t *w = pending_at(o, o->pending_n++);
    w[0] = flags;
    w[1] = prev[o->path_offset] + 1;
    memcpy(w + 2, prev, o->stride * sizeof *w);
    memcpy(w + 2 + o->stride, cur, o->stride * sizeof *w);
    while (o->pending_n && path_settle(o, 0))
        ;
}

/* The period as a trace record (docs/trace-format.md), into the ring if it has room. */
static inline void trace_period(struct observer *o, const uint64_t *prev, const uint64_t *cur,
                                unsigned flags)
{
    uint64_t *rec = trace_ring_slot(o->trace);
    if (!rec) return;
    const uint64_t *key = prev + o->key_offset;
    rec[0] = o->totals.total - 1;
    rec[1] = prev[SAMPLE_CS];
    rec[2] = cur[SAMPLE_CS] - prev[SAMPLE_CS];
    rec[3] = flags;
    memcpy(rec + 4, key, o->tags.key_words * sizeof *rec); /* the thread word, the tags */
    /* a walk's chain number means nothing outside this observer's store: a trace record
     * carries no calling context under stack walks (docs/trace-format.md) */
    if (o->plan.walk_tag && STACKWALK_IS_CHAIN(rec[4 + o->plan.walk_tag]))
        rec[4 + o->plan.walk_tag] = 0;
    memcpy(rec + 4 + o->tags.key_words, o->trace_rate, o->plan.n_rates * sizeof *rec);
    trace_ring_push(o->trace);
}

static inline void record_period(struct observer *o, const uint64_t *prev, const uint64_t *cur,
                                 int busy, uint64_t *last_kept)
{
    if (o->trace)
        for (unsigned r = 0; r < o->plan.n_rates; r++)
            o->trace_rate[r] = NAN; /* until record_rates says otherwise */
    unsigned flags = account_period(o, prev, cur, busy, last_kept);
    if (o->pending && (flags & TRACE_ATTRIBUTED)) path_period(o, prev, cur, flags);
    if (o->trace) trace_period(o, prev, cur, flags);
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
    /* the stop flag too: a long period must not hold up shim_stop() */
    while (tsc_now() - since < wait && !__atomic_load_n(&o->stop, __ATOMIC_RELAXED))
        _mm_pause();
}

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Periods between consecutive samples of a batch, into the table. When the batch
 * starts with the last sample of the previous one and the observer does not wait
 * between samples, its first period also covers that batch's aggregation: the observer
 * was busy, so it is counted but not attributed. */
static void aggregate(struct observer *o, unsigned n, int busy_first, uint64_t *last_kept)
{
    tag_table_adopt(&o->tags); /* an index the keeper prepared: a batch boundary is the time */
    if (o->pending) tag_table_adopt(&o->paths);
    if (handover_pending(&o->cut)) /* a snapshot: new tables from here on */
        observer_cut_take(o, sample_at(o, 0)[SAMPLE_CS]);
    for (unsigned i = 1; i < n; i++)
        record_period(o, sample_at(o, i - 1), sample_at(o, i), i == 1 && busy_first, last_kept);
    if (n > 1) memcpy(sample_at(o, 0), sample_at(o, n - 1), o->stride * sizeof *o->batch);
}

/* Off the CPU for a moment (observer_run, "Breathing"). */
static void breathe(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
        ;
}

/*
 * Breathing. The observer is pinned to its CPU and never leaves it, and shim pins the
 * observed thread to another: on a machine of two CPUs neither CPU is then ever idle.
 * Seen there: a program reaping its child stalled for 20 s to over 2 minutes in 4 of
 * 600 runs, its thread looping in the kernel (wait4, invalidating the child's /proc
 * entries, shrink_dcache_parent) for work that waited for a CPU (the RCU kthread was
 * runnable on the observer's CPU); moved off its CPU by hand, the observer let it go on
 * within 2 s. So every breath_every cycles (20 times a second), right after an
 * aggregation, the observer sleeps for breath_ns (50 us; the kernel wakes it a little
 * later still): its CPU goes idle, and the scheduler can run there what waits. With it:
 * no stall in 800 runs. The period that holds the breath is no sample (interrupted), its
 * time kept for its tags when the same tags were read at both ends, as an aggregation's.
 *
 * The loop. When the observer waits between samples (a target period), it aggregates
 * each sample during the wait, which costs the program nothing. When it samples as fast
 * as it can, samples go into a batch and are aggregated every OBSERVER_AGGREGATE TSC
 * cycles (or when the batch is full): between two samples the observer then only stores
 * what it read, so samples are as close as the reads allow, and the aggregation runs as
 * a tight loop instead of being serialised by rdtscp. The period that contains an
 * aggregation is counted as interrupted (the observer was not looking). Aggregating
 * after a fixed time, not a fixed number of samples, keeps those pauses uniform in time:
 * the program's phases all lose the same share of their time to them.
 */
void observer_run(struct observer *o)
{
    unsigned n = 1;
    int busy_first = 0, batched = o->params.period == 0;
    uint64_t rng = o->params.seed | 1, last_kept = 0, since;
    double cpu0 = thread_cpu_seconds();

    take_sample(o, sample_at(o, 0));
    o->first_tsc = since = sample_at(o, 0)[SAMPLE_CS];
    if (!o->tags.batch_origin) o->tags.batch_origin = o->paths.batch_origin = o->first_tsc;
    uint64_t breathed = since;
    while (!__atomic_load_n(&o->stop, __ATOMIC_RELAXED)) {
        throttle(o, sample_at(o, n - 1)[SAMPLE_CS], &rng);
        uint64_t *s = sample_at(o, n++);
        take_sample(o, s);
        if (!batched || n == OBSERVER_BATCH || s[SAMPLE_CS] - since >= OBSERVER_AGGREGATE) {
            aggregate(o, n, busy_first, &last_kept);
            n = 1;
            busy_first = batched;
            since = s[SAMPLE_CS];
            if (since - breathed >= o->breath_every) {
                breathe(o->params.breath_ns);
                o->breaths++;
                busy_first = 1; /* the period that holds it: not a sample */
                breathed = since;
            }
        }
    }
    o->last_tsc = sample_at(o, n - 1)[SAMPLE_CS];
    aggregate(o, n, busy_first, &last_kept);
    while (o->pending_n)
        path_settle(o, 1);
    o->totals.discarded = o->totals.rated - o->totals.kept;
    o->cpu_seconds = thread_cpu_seconds() - cpu0;
}

void observer_merge(struct observer *dst, const struct observer *src)
{
    uint64_t *d = &dst->totals.total;
    const uint64_t *s = &src->totals.total;
    for (size_t i = 0; i < sizeof dst->totals / sizeof *d; i++) /* every member a uint64_t */
        d[i] += s[i];
    d = &dst->path_totals.resolved;
    s = &src->path_totals.resolved;
    for (size_t i = 0; i < sizeof dst->path_totals / sizeof *d; i++)
        d[i] += s[i];
    loghist_merge(&dst->period, &src->period);
    loghist_merge(&dst->gap, &src->gap);
    loghist_merge(&dst->cpc, &src->cpc);
    if (dst->plan.walk_tag && src->plan.walk_tag) { /* src's chain numbers into dst's */
        uint32_t *map = chain_store_merge(&dst->chains, &src->chains);
        for (uint32_t i = 0; i < src->tags.n_entries; i++) {
            uint64_t *key = (uint64_t *)tag_table_key(&src->tags, i);
            uint64_t v = key[src->plan.walk_tag];
            if (!STACKWALK_IS_CHAIN(v)) continue;
            uint32_t c = STACKWALK_CHAIN_ID(v), to = map && c < src->chains.n ? map[c] : CHAIN_LOST;
            if (to == CHAIN_LOST && c != CHAIN_LOST) /* no room here: its samples are lost */
                dst->chains.full += tag_table_entry(&src->tags, i)->samples;
            key[src->plan.walk_tag] = STACKWALK_CHAIN(to);
        }
        free(map);
    }
    /* what found dst's table full went to its `other`: those are `other` samples too */
    dst->totals.other += tag_table_merge(&dst->tags, &src->tags);
    if (dst->pending && src->pending) tag_table_merge(&dst->paths, &src->paths);
    if (src->first_tsc < dst->first_tsc) dst->first_tsc = src->first_tsc;
    if (src->last_tsc > dst->last_tsc) dst->last_tsc = src->last_tsc;
    dst->cpu_seconds += src->cpu_seconds;
}