/*
 * snapshot.c -- SHIM_SNAPSHOT: every few seconds, the profile of the run so far, written
 * to the profile's path while the program and the observers run on.
 *
 * A server never ends on its own, so a profile written only at the stop is a profile
 * never seen. A snapshot cannot stop the observer to read its tables, nor copy them at a
 * batch boundary (megabytes), nor read them while the observer writes them. So it cuts:
 * a thread of its own (the snapshot thread) prepares empty tables of each observer's
 * shape and offers them through the observer's `cut` handover (observer/handover.h, the
 * hand-over by which the keeper gives the observer a larger index); at its next batch
 * boundary the observer swaps them for its own and hands its own back
 * (observer/observer_cut.h), with its totals and histograms as they stand. The snapshot
 * thread holds the keeper off from the offer until the tables come back (the keeper
 * grows the very table being exchanged), which takes one batch: microseconds.
 *
 * The tables that come back hold every period since the last cut, and nothing else. The
 * snapshot thread adds them into its own accumulated copy (tag_table_merge, as the stop
 * combines several observers' tables), frees them, prepares the next empty ones, and
 * writes the profile of the accumulated copy with the totals of the cut through the
 * ordinary profile writer, into a view of the run (a struct shim_run of its own, filled
 * from the fields the writer reads): atomically, as every profile is written. So every
 * period is in exactly one interval, and each snapshot counts exactly the periods up to
 * its cut: its tag entries add up to its attributed samples, and the samples of two
 * snapshots differ by the periods between their cuts. At the stop (snapshot_fold) each
 * observer's last interval is added to the accumulated copy, which becomes the
 * observer's table again: the final profile holds every period, as without snapshots.
 *
 * The thread's work (allocating the next tables, adding an interval, building and writing
 * the JSON: a few ms for a profile of a few tags, 5 to 10 us more per tuple) goes where it
 * disturbs nobody: on a CPU that no observer observes from or on, where the machine has
 * one; else (two CPUs) on the first observer's, as the keeper and the trace writer do,
 * where it shows as interrupted sample periods, counted in the profile, instead of
 * taking time from the program. bench/README.md has what it costs.
 *
 * SHIM_SNAPSHOT_KEEP=N also keeps the last N snapshots as files of their own, the
 * profile's name with the snapshot's number before its `.json` (shim-app-42.000007.json):
 * each is written under that name, then linked to the profile's path, so the two are one
 * file, and the one N snapshots older is removed (with its table file, if it had one).
 */
#include "libshim/snapshot.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "libshim/internal.h"
#include "libshim/threads.h"
#include "observer/observer_cut.h"

/* How often the snapshot thread looks whether a cut came back, and whether the run's
 * lock is free: it sleeps in between, so the observer on the same CPU runs. */
#define CUT_POLL_NS  20000L
#define LOCK_POLL_NS 1000000L

/* A snapshot that takes more than this share of its period on the observer's CPU is said
 * (once): the observer loses that share of its samples. */
#define SNAPSHOT_SAY_SHARE 0.01

struct snapshot_observer {
    struct observer *o;
    pthread_t thread;             /* the observer's, for its CPU time */
    struct observer_cut cut;      /* offered; then the last cut's totals */
    struct tag_table tags, paths; /* every period up to the last cut */
    int ready;                    /* cut holds empty tables to offer */
    int offered, cut_taken;       /* this snapshot: offered, and came back */
    int has_cut;                  /* cut holds a cut's totals */
    uint64_t to_other;            /* samples that found `tags` full when an interval was
                                     folded in: in its `other`, and so in the totals' */
};

struct snapshot {
    struct shim_run *run;
    double every; /* seconds */
    unsigned keep;
    unsigned n;
    struct snapshot_observer *obs;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;             /* atomic */
    uint64_t written;     /* snapshots written */
    uint64_t failed;      /* snapshots not written */
    uint64_t number;      /* of the profile being written: written + 1 */
    uint64_t previous_ns; /* the run's duration when the last snapshot was cut */
    double cpu_seconds;   /* this thread's CPU time, as of the profile being written */
    int final;            /* the profile being written is the stop's */
    int on_observer_cpu;  /* the thread shares the first observer's CPU (snapshot_cpus) */
    int said_cost;        /* a snapshot's cost above SNAPSHOT_SAY_SHARE was said */
};

static int stopping(struct snapshot *s)
{
    return __atomic_load_n(&s->stop, __ATOMIC_ACQUIRE);
}

static void say_failure(struct snapshot *s, const char *why)
{
    if (!s->failed++)
        fprintf(stderr,
                "shim: SHIM_SNAPSHOT: snapshot %llu: %s; the next one tries again (later "
                "failures are not said)\n",
                (unsigned long long)s->number, why);
}

/* ---- the cut ---- */

/* Until the observer hands the record back (1), or has stopped without taking it (0). */
static int wait_cut(struct snapshot_observer *so)
{
    const struct timespec nap = {0, CUT_POLL_NS};
    struct handover *h = &so->o->cut;
    for (;;) {
        if (handover_reclaim(h)) return 1;
        if (handover_pending(h) && __atomic_load_n(&so->o->stop, __ATOMIC_ACQUIRE) &&
            handover_withdraw(h))
            return 0;
        nanosleep(&nap, NULL);
    }
}

/* The interval's tables into the accumulated ones; empty tables for the next cut. */
static void fold_interval(struct snapshot *s, struct snapshot_observer *so)
{
    so->to_other += tag_table_merge(&so->tags, &so->cut.tags);
    if (so->o->pending) tag_table_merge(&so->paths, &so->cut.paths);
    observer_cut_release_tables(&so->cut);
    so->has_cut = 1;
    so->ready = observer_cut_refill(&so->cut, so->o) == 0;
    if (!so->ready) say_failure(s, "out of memory for the next tables: no more snapshots");
}

/* The clocks at the cut: the last observer's cut TSC, and the wall clocks of that
 * moment, taken now and moved back by the TSC cycles since at the run's TSC frequency
 * (this thread may have waited milliseconds for its turn on the CPU since). */
static void cut_time(const struct snapshot *s, struct clock_pair *end)
{
    const struct shim_run *r = s->run;
    uint64_t cut = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (s->obs[i].cut_taken && s->obs[i].cut.last_tsc > cut) cut = s->obs[i].cut.last_tsc;
    clock_pair_take(end);
    struct tsc_info tsc = r->tsc;
    struct clock_pair now = *end;
    tsc_calibrate(&tsc, &r->start, &now);
    if (!cut || cut > end->tsc || !(tsc.hz > 0)) return;
    int64_t back = (int64_t)((double)(end->tsc - cut) / tsc.hz * 1e9);
    end->tsc = cut;
    end->mono_ns -= back;
    end->real_ns -= back;
}

/* Cut every observer; 1 when each has cut, with the time of the cut in *end. */
static int cut_all(struct snapshot *s, struct clock_pair *end)
{
    struct keeper *k = &s->run->keeper;
    int all = 1;
    keeper_pause(k);
    for (unsigned i = 0; i < s->n; i++) {
        struct snapshot_observer *so = &s->obs[i];
        so->offered = so->ready && handover_offer(&so->o->cut, &so->cut) == 0;
    }
    for (unsigned i = 0; i < s->n; i++) {
        struct snapshot_observer *so = &s->obs[i];
        so->cut_taken = so->offered && wait_cut(so);
        all &= so->cut_taken;
    }
    keeper_resume(k);
    cut_time(s, end);
    for (unsigned i = 0; i < s->n; i++)
        if (s->obs[i].cut_taken) fold_interval(s, &s->obs[i]);
    return all;
}

/* ---- the view of the run that the profile writer reads ---- */

/* What the writer reads of the run, copied: the fields fixed at the start as they are,
 * the threads that joined under the run's lock. -1 when the run is stopping. */
static int run_view(struct shim_run *v, const struct shim_run *r, struct snapshot *s)
{
    const struct timespec nap = {0, LOCK_POLL_NS};
    v->settings = r->settings;
    v->period_auto = r->period_auto;
    v->placement = r->placement;
    v->topo = r->topo;
    v->tsc = r->tsc;
    v->host = r->host;
    v->start = r->start;
    memcpy(v->tag_slot, r->tag_slot, sizeof v->tag_slot);
    v->n_tag_slots = r->n_tag_slots;
    memcpy(v->counter_slot, r->counter_slot, sizeof v->counter_slot);
    v->n_counter_slots = r->n_counter_slots;
    memcpy(v->counter, r->counter, sizeof v->counter);
    v->n_counters = r->n_counters;
    memcpy(v->rate, r->rate, sizeof v->rate);
    v->n_rates = r->n_rates;
    v->pid = r->pid;
    v->observed_tid = r->observed_tid;
    v->observed_seen = r->observed_seen;
    v->allowed = r->allowed;
    memcpy(v->output_path, r->output_path, sizeof v->output_path);
    memcpy(v->prog_name, r->prog_name, sizeof v->prog_name);
    v->ti = r->ti; /* only whether there is one */
    memcpy(v->identity_why, r->identity_why, sizeof v->identity_why);
    v->n_extra = r->n_extra;
    int cancel;
    while (run_trylock(&cancel) != 0) { /* shim_stop() holds it while it joins us */
        if (stopping(s)) return -1;
        nanosleep(&nap, NULL);
    }
    v->attached = r->attached;
    unsigned n = r->attached < RUN_MAX_THREADS ? r->attached : RUN_MAX_THREADS;
    memcpy(v->thread_tid, r->thread_tid, n * sizeof *v->thread_tid);
    memcpy(v->thread_seen, r->thread_seen, n * sizeof *v->thread_seen);
    memcpy(v->thread_name, r->thread_name, n * sizeof *v->thread_name);
    run_unlock(cancel);
    for (unsigned i = 0; i < v->n_counters; i++) { /* as hardware_check() finds it at the stop */
        uint64_t count, enabled, running;
        struct run_counter *c = &v->counter[i];
        if (c->fd >= 0 && event_read(c->fd, &count, &enabled, &running) == 0 && enabled)
            c->counting = (double)running / (double)enabled;
    }
    return 0;
}

static double own_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_seconds(pthread_t t)
{
    clockid_t id;
    struct timespec ts;
    if (pthread_getcpuclockid(t, &id) != 0 || clock_gettime(id, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One observer as of its last cut, its tables the accumulated ones (borrowed). */
static void observer_view(struct observer *v, const struct snapshot_observer *so)
{
    const struct observer *o = so->o; /* only what never changes once it runs */
    v->plan = o->plan;
    v->params = o->params;
    v->n_fast = o->n_fast;
    memcpy(v->rate_slow, o->rate_slow, sizeof v->rate_slow);
    v->pending = o->pending; /* only whether paths are read */
    v->tags = so->tags;
    v->paths = so->paths;
    v->totals = so->cut.totals;
    v->totals.other += so->to_other;
    v->path_totals = so->cut.path_totals;
    v->period = so->cut.period;
    v->gap = so->cut.gap;
    v->cpc = so->cut.cpc;
    v->chains = so->cut.chains;
    v->first_tsc = so->cut.first_tsc;
    v->last_tsc = so->cut.last_tsc;
    v->cpu_seconds = thread_cpu_seconds(so->thread);
}

/* Observers' copies of a table with stack walks: observer_merge() renumbers the chains
 * in its source's keys, which must not be the accumulated table's. */
static int table_copy(struct tag_table *copy, const struct tag_table *t)
{
    if (observer_cut_table_like(copy, t) != 0) return -1;
    tag_table_merge(copy, t);
    return 0;
}

/* Several observers: their views added up, as observers_stop_extra() adds them at the
 * stop, into tables and histograms of v's own (free them with merged_free). */
static int merged_view(struct observer *v, struct snapshot *s)
{
    const struct observer *o = s->obs[0].o;
    uint64_t chains = CHAIN_FIRST, words = 1;
    observer_view(v, &s->obs[0]);
    memset(&v->tags, 0, sizeof v->tags);
    memset(&v->paths, 0, sizeof v->paths);
    memset(&v->chains, 0, sizeof v->chains);
    memset(&v->totals, 0, sizeof v->totals);
    memset(&v->path_totals, 0, sizeof v->path_totals);
    memset(&v->period, 0, sizeof v->period);
    memset(&v->gap, 0, sizeof v->gap);
    memset(&v->cpc, 0, sizeof v->cpc);
    v->first_tsc = UINT64_MAX;
    v->last_tsc = 0;
    v->cpu_seconds = 0;
    for (unsigned i = 0; i < s->n; i++) {
        chains += s->obs[i].cut.chains.n;
        words += s->obs[i].cut.chains.used;
    }
    if (observer_cut_table_like(&v->tags, &o->tags) != 0 ||
        (o->pending && observer_cut_table_like(&v->paths, &o->paths) != 0) ||
        loghist_init(&v->period, o->period.sub_bits, o->period.exp_min, o->period.exp_max) ||
        loghist_init(&v->gap, o->gap.sub_bits, o->gap.exp_min, o->gap.exp_max) ||
        loghist_init(&v->cpc, o->cpc.sub_bits, o->cpc.exp_min, o->cpc.exp_max) ||
        (o->plan.walk_tag && chain_store_init(&v->chains, (uint32_t)chains, (uint32_t)words)))
        return -1;
    struct observer *src = calloc(1, sizeof *src);
    if (!src) return -1;
    int rc = 0;
    for (unsigned i = 0; i < s->n && rc == 0; i++) {
        memset(src, 0, sizeof *src);
        observer_view(src, &s->obs[i]);
        if (o->plan.walk_tag && (table_copy(&src->tags, &s->obs[i].tags) != 0)) {
            rc = -1;
            break;
        }
        observer_merge(v, src);
        if (o->plan.walk_tag) tag_table_free(&src->tags);
    }
    free(src);
    return rc;
}

static void merged_free(struct observer *v)
{
    tag_table_free(&v->tags);
    tag_table_free(&v->paths);
    loghist_free(&v->period);
    loghist_free(&v->gap);
    loghist_free(&v->cpc);
    chain_store_free(&v->chains);
}

/* The profile's `snapshot` member, for the profile now written. */
static void snapshot_info(struct run_snapshot_info *si, const struct snapshot *s)
{
    *si = (struct run_snapshot_info){.on = 1,
                                     .final = s->final,
                                     .number = s->number,
                                     .previous_ns = s->previous_ns,
                                     .every = s->every,
                                     .cpu_seconds = s->cpu_seconds,
                                     .keep = s->keep};
}

/* ---- the files ---- */

/* path with ".NNNNNN" before a final ".json", or after it: 0, or -1 too long. */
static int numbered_path(const char *path, uint64_t n, char *out, size_t len)
{
    size_t l = strlen(path);
    int k = l > 5 && !strcmp(path + l - 5, ".json")
                ? snprintf(out, len, "%.*s.%06llu.json", (int)(l - 5), path, (unsigned long long)n)
                : snprintf(out, len, "%s.%06llu", path, (unsigned long long)n);
    return k < 0 || (size_t)k >= len ? -1 : 0;
}

/* The numbered file becomes the profile's path too (a second link, renamed into place:
 * atomic like every write). 0, or -1 with why. */
static int publish(const char *numbered, const char *path, char *why, size_t whylen)
{
    char tmp[PATH_MAX + 32];
    uint64_t rnd;
    if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd = (uint64_t)clock() ^ (uint64_t)getpid();
    snprintf(tmp, sizeof tmp, "%s.%016llx.tmp", path, (unsigned long long)rnd);
    if (link(numbered, tmp) != 0) {
        snprintf(why, whylen, "cannot link %s to %s: %s", numbered, tmp, strerror(errno));
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Removes snapshot n's numbered file and its table file, if any. */
static void remove_numbered(const char *path, uint64_t n)
{
    char old[PATH_MAX], table[PATH_MAX + 8];
    if (numbered_path(path, n, old, sizeof old) != 0) return;
    unlink(old);
    snprintf(table, sizeof table, "%s.table", old);
    unlink(table);
}

/* The profile of the run up to the cut at *end, from the accumulated tables. */
static void write_snapshot(struct snapshot *s, const struct clock_pair *end)
{
    const struct shim_run *r = s->run;
    size_t size = (sizeof(struct shim_run) + 63) & ~(size_t)63;
    struct shim_run *v = aligned_alloc(64, size);
    char why[PATH_MAX * 2 + 128];
    s->number = s->written + 1;
    if (!v) {
        say_failure(s, "out of memory");
        return;
    }
    memset(v, 0, size);
    if (run_view(v, r, s) != 0) {
        free(v);
        return;
    }
    v->end = *end;
    struct clock_pair calibration_end = *end;
    tsc_calibrate(&v->tsc, &v->start, &calibration_end);
    int merged = s->n > 1, rc = 0;
    if (merged)
        rc = merged_view(&v->obs, s);
    else
        observer_view(&v->obs, &s->obs[0]);
    v->samples0 = s->obs[0].cut.totals.total;
    if (rc == 0 && v->n_extra) {
        v->extra = aligned_alloc(64, v->n_extra * sizeof *v->extra);
        if (!v->extra) rc = -1;
        for (unsigned k = 0; rc == 0 && k < v->n_extra; k++) {
            memset(&v->extra[k], 0, sizeof v->extra[k]);
            v->extra[k].placement = r->extra[k].placement;
            v->extra[k].samples = s->obs[k + 1].cut.totals.total;
        }
    }
    s->cpu_seconds = own_cpu_seconds();
    snapshot_info(&v->snapshot_info, s);
    if (rc != 0) {
        say_failure(s, "out of memory");
    } else if (s->keep && numbered_path(r->output_path, s->number, v->output_path,
                                        sizeof v->output_path) != 0) {
        say_failure(s, "the numbered file's path is longer than PATH_MAX");
    } else if (profile_write(v, why, sizeof why) != 0 ||
               (s->keep && publish(v->output_path, r->output_path, why, sizeof why) != 0)) {
        say_failure(s, why);
    } else {
        s->written++;
        s->previous_ns = (uint64_t)(end->mono_ns - r->start.mono_ns);
        if (s->keep && s->number > s->keep) remove_numbered(r->output_path, s->number - s->keep);
    }
    if (merged) merged_free(&v->obs);
    free(v->extra);
    free(v);
}

/* ---- the thread ---- */

static void timespec_add(struct timespec *t, double seconds)
{
    long long ns = (long long)(seconds * 1e9 + 0.5) + t->tv_nsec;
    t->tv_sec += (time_t)(ns / 1000000000LL);
    t->tv_nsec = (long)(ns % 1000000000LL);
}

static int timespec_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Says once when a snapshot took more than SNAPSHOT_SAY_SHARE of the period from the
 * observer, and what to do about it. */
static void say_cost(struct snapshot *s, double cpu)
{
    if (!s->on_observer_cpu || s->said_cost || !(cpu > SNAPSHOT_SAY_SHARE * s->every)) return;
    s->said_cost = 1;
    fprintf(stderr,
            "shim: SHIM_SNAPSHOT: snapshot %llu took %.3f s of the observer's CPU, %.1f%% of its "
            "period (no other CPU is free for it): the observer loses that share of its "
            "samples; a longer period costs proportionally less\n",
            (unsigned long long)s->number, cpu, 100 * cpu / s->every);
}

static void *snapshot_main(void *arg)
{
    struct snapshot *s = arg;
    struct timespec due, now;
    clock_gettime(CLOCK_MONOTONIC, &due);
    pthread_mutex_lock(&s->lock);
    for (;;) {
        timespec_add(&due, s->every); /* every period from the start, however long a write */
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (timespec_before(&due, &now)) due = now; /* a write longer than the period */
        while (!stopping(s) && pthread_cond_timedwait(&s->wake, &s->lock, &due) != ETIMEDOUT)
            ;
        if (stopping(s)) break;
        pthread_mutex_unlock(&s->lock);
        struct clock_pair end;
        double cpu0 = own_cpu_seconds();
        int all = cut_all(s, &end); /* always: what came back is folded, never lost */
        if (all && !stopping(s)) write_snapshot(s, &end);
        say_cost(s, own_cpu_seconds() - cpu0);
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    s->cpu_seconds = own_cpu_seconds(); /* for the final profile */
    return NULL;
}

static void snapshot_release(struct snapshot *s)
{
    for (unsigned i = 0; s->obs && i < s->n; i++) {
        observer_cut_free(&s->obs[i].cut);
        tag_table_free(&s->obs[i].tags);
        tag_table_free(&s->obs[i].paths);
    }
    free(s->obs);
    free(s);
}

/* Where the thread runs: the process's CPUs that no observer observes from or on, where
 * a machine has them (0); else the first observer's CPU (a 2-CPU machine: 1), where its
 * work shows as interrupted periods instead of taking time from the program. */
static int snapshot_cpus(const struct shim_run *r, cpu_set_t *cpus)
{
    *cpus = r->allowed;
    CPU_CLR(r->placement.observer_cpu, cpus);
    CPU_CLR(r->placement.observed_cpu, cpus);
    for (unsigned k = 0; k < r->n_extra; k++) {
        CPU_CLR(r->extra[k].placement.observer_cpu, cpus);
        CPU_CLR(r->extra[k].placement.observed_cpu, cpus);
    }
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &r->observed_cpus)) CPU_CLR(c, cpus);
    if (CPU_COUNT(cpus) > 0) return 0;
    CPU_ZERO(cpus);
    CPU_SET(r->placement.observer_cpu, cpus);
    return 1;
}

void snapshot_start(struct shim_run *r)
{
    const struct shim_settings *st = &r->settings;
    if (!(st->snapshot > 0)) {
        if (st->snapshot_keep)
            fprintf(stderr,
                    "shim: warning: SHIM_SNAPSHOT_KEEP=%u does nothing without "
                    "SHIM_SNAPSHOT\n",
                    st->snapshot_keep);
        return;
    }
    struct snapshot *s = calloc(1, sizeof *s);
    int ok = s != NULL;
    if (ok) {
        s->run = r;
        s->every = st->snapshot;
        s->keep = st->snapshot_keep;
        s->n = 1 + r->n_extra;
        s->obs = calloc(s->n, sizeof *s->obs);
        ok = s->obs != NULL;
    }
    for (unsigned i = 0; ok && i < s->n; i++) {
        struct snapshot_observer *so = &s->obs[i];
        so->o = i ? &r->extra[i - 1].obs : &r->obs;
        so->thread = i ? r->extra[i - 1].thread : r->thread;
        ok = observer_cut_init(&so->cut, so->o) == 0 &&
             observer_cut_table_like(&so->tags, &so->o->tags) == 0 &&
             (!so->o->pending || observer_cut_table_like(&so->paths, &so->o->paths) == 0);
        so->ready = ok;
    }
    if (!ok) {
        if (s) snapshot_release(s);
        run_complain(0, "no snapshot is written", "SHIM_SNAPSHOT: out of memory for its tables");
        return;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->lock, NULL);
    /* on a CPU nobody observes from or on, every signal blocked (the program's handlers
     * are its own) */
    pthread_attr_t attr;
    cpu_set_t cpu;
    sigset_t all, old;
    s->on_observer_cpu = snapshot_cpus(r, &cpu);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof cpu, &cpu);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = threads_create_internal(&s->thread, &attr, snapshot_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err) {
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        snapshot_release(s);
        run_complain(0, "no snapshot is written", "SHIM_SNAPSHOT: cannot start its thread: %s",
                     strerror(err));
        return;
    }
    pthread_setname_np(s->thread, "shim-snapshot");
    r->snapshot = s;
}

void snapshot_stop(struct shim_run *r)
{
    struct snapshot *s = r->snapshot;
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    s->final = 1;
    s->number = s->written + 1;
    snapshot_info(&r->snapshot_info, s);
}

void snapshot_fold(struct shim_run *r)
{
    struct snapshot *s = r->snapshot;
    for (unsigned i = 0; s && i < s->n; i++) {
        struct snapshot_observer *so = &s->obs[i];
        struct observer *o = so->o;
        o->totals.other += so->to_other + tag_table_merge(&so->tags, &o->tags);
        so->to_other = 0;
        tag_table_free(&o->tags);
        memcpy(&o->tags, &so->tags, sizeof o->tags);
        memset(&so->tags, 0, sizeof so->tags);
        if (!o->pending) continue;
        tag_table_merge(&so->paths, &o->paths);
        tag_table_free(&o->paths);
        memcpy(&o->paths, &so->paths, sizeof o->paths);
        memset(&so->paths, 0, sizeof so->paths);
    }
}

void snapshot_free(struct shim_run *r)
{
    struct snapshot *s = r->snapshot;
    if (!s) return;
    if (s->failed)
        fprintf(stderr, "shim: SHIM_SNAPSHOT: %llu of %llu snapshots could not be written\n",
                (unsigned long long)s->failed, (unsigned long long)(s->failed + s->written));
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    snapshot_release(s);
    r->snapshot = NULL;
}
