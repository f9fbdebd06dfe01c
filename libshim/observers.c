/*
 * observers.c -- where a run's observers go and how they start: the CPUs (hwloc, the
 * process's cpuset), the thread word (BPF's, or the observed thread's id), the observer
 * threads themselves, the observers beyond the first (SHIM_OBSERVERS) and the keeper
 * that grows their tables.
 *
 * The observed thread is pinned to its CPU, each observer to the CPU chosen for it, with
 * every signal blocked: the program's handlers never run on an observer. What cannot be
 * placed is said once; the run goes on with the observers it has.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libshim/internal.h"
#include "libshim/snapshot.h"
#include "signals/signal_block.h"
#include "libshim/thread_identity.h"
#include "libshim/threads.h"

/* The observer thread: it makes itself known (hardware events are opened for it by
 * thread id), then waits until the coordinator has built its plan, or given up. */
static void *observer_main(void *arg)
{
    struct shim_run *r = arg;
    r->observer_tid = gettid();
    sem_post(&r->observer_ready);
    while (sem_wait(&r->observer_go) != 0)
        ;
    if (!r->observer_abort) observer_run(&r->obs);
    return NULL;
}

/* Choose CPUs and pin the calling thread. The observer may go on any CPU of the
 * process (its cpuset), the observed thread stays within its own mask (topology.c). */
int observers_place(struct shim_run *r)
{
    hwloc_topology_t topo;
    char why[512];
    int strict = r->settings.cfg.strict;
    if (topology_load(&topo, why, sizeof why) != 0)
        return run_fail(SHIM_ETOPOLOGY, strict, "%s", why);
    topology_describe(topo, &r->topo);
    topology_process_cpus(topo, &r->allowed);
    if (sched_getaffinity(0, sizeof r->saved_affinity, &r->saved_affinity) != 0) {
        hwloc_topology_destroy(topo);
        return run_fail(SHIM_ETOPOLOGY, strict, "cannot read the CPU affinity: %s",
                        strerror(errno));
    }
    int rc = placement_choose(topo, &r->allowed, &r->saved_affinity, sched_getcpu(),
                              r->settings.cfg.observer_cpu, &r->placement, why, sizeof why);
    hwloc_topology_destroy(topo);
    if (rc != 0) return run_fail(rc, strict, "%s", why);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(r->placement.observed_cpu, &one);
    int err = affinity_move_self(&r->moved, gettid(), &r->saved_affinity, &one);
    if (err)
        return run_fail(SHIM_ETOPOLOGY, strict, "cannot pin the observed thread to CPU %d: %s",
                        r->placement.observed_cpu, strerror(err));
    r->pinned = 1;
    return 0;
}

/*
 * Which thread runs on the observed CPU: from BPF (thread_identity.c), whose word the
 * observer then reads, or else the observed thread's id, a constant (docs/guide.md, "Threads").
 * The calling thread is pinned to the observed CPU already.
 */
int observers_open_identity(struct shim_run *r)
{
    enum thread_id_mode mode = r->settings.thread_id;
    int cpu;
    uint64_t tid;
    if (mode == THREAD_ID_PINNED) {
        snprintf(r->identity_why, sizeof r->identity_why, "SHIM_THREAD_ID=pinned");
        return 0;
    }
    if (thread_identity_open(&r->ti, r->identity_why, sizeof r->identity_why) != 0 ||
        thread_identity_prime(r->ti, &cpu, &tid, r->identity_why, sizeof r->identity_why) != 0) {
        thread_identity_close(r->ti);
        r->ti = NULL;
        if (mode == THREAD_ID_BPF)
            return run_fail(SHIM_EINVAL, r->settings.cfg.strict, "SHIM_THREAD_ID=bpf: %s",
                            r->identity_why);
        return 0;
    }
    /* BPF reports the initial PID namespace's ids: in a namespace of the process's own
     * (a container's) they are not gettid()'s, and the registry must hold BPF's */
    r->observed_seen = tid;
    r->translate = tid != (uint64_t)r->observed_tid;
    if (r->translate) signal_block_set_id(tid);
    return 0;
}

/* An observer thread pinned on cpu with every signal blocked (the program's handlers
 * must never run on it): 0 or the pthread_create error. */
static int spawn_observer(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    cpu_set_t one;
    sigset_t all, old;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = threads_create_internal(t, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (!err) pthread_setname_np(*t, "shim-observer");
    return err;
}

int observers_launch(struct shim_run *r)
{
    int err = spawn_observer(&r->thread, r->placement.observer_cpu, observer_main, r);
    if (err)
        return run_fail(SHIM_ETHREAD, r->settings.cfg.strict,
                        "cannot start the observer on CPU %d: %s", r->placement.observer_cpu,
                        strerror(err));
    return 0;
}

static void *extra_main(void *arg)
{
    observer_run(&((struct run_observer *)arg)->obs);
    return NULL;
}

/*
 * Observers beyond the first (SHIM_OBSERVERS; auto: one per pair of the CPUs the process
 * may use). Each takes an observed CPU and the CPU nearest it from those still free,
 * as the first did, and reads the same signals with the same plan, except for the thread
 * word: BPF's word of its own observed CPU, or (without BPF) the id of the thread that
 * attach.c pins there. Their tables are added to the first observer's at the
 * stop. Hardware events are opened for one observer's CPU and thread, so with events
 * there is one observer. Whatever cannot be placed is said once; the run goes on with
 * the observers it has.
 */
void observers_start_extra(struct shim_run *r, const struct probe_plan *plan,
                           const struct observer_params *params)
{
    unsigned want =
        r->settings.observers ? r->settings.observers : (unsigned)CPU_COUNT(&r->allowed) / 2;
    const char *more = "observing with fewer";
    char why[512];
    hwloc_topology_t topo;
    if (want <= 1) return;
    if (plan->n_hw) {
        run_complain(0, "one observer reads them",
                     "SHIM_OBSERVERS=%u: hardware events are opened for one observer", want);
        return;
    }
    r->extra = aligned_alloc(64, (want - 1) * sizeof *r->extra);
    if (!r->extra || topology_load(&topo, why, sizeof why) != 0) {
        run_complain(0, more, "SHIM_OBSERVERS=%u: %s", want, r->extra ? why : "out of memory");
        return;
    }
    memset(r->extra, 0, (want - 1) * sizeof *r->extra);
    cpu_set_t left = r->allowed;
    CPU_CLR(r->placement.observed_cpu, &left);
    CPU_CLR(r->placement.observer_cpu, &left);
    while (r->n_extra + 1 < want) {
        struct run_observer *x = &r->extra[r->n_extra];
        int first = 0;
        while (first < CPU_SETSIZE && !CPU_ISSET(first, &left))
            first++;
        if (CPU_COUNT(&left) < 2) {
            run_complain(0, more, "SHIM_OBSERVERS=%u: only %u fit on the CPUs this process may use",
                         want, r->n_extra + 1);
            break;
        }
        if (placement_choose(topo, &left, NULL, first, -1, &x->placement, why, sizeof why) != 0) {
            run_complain(0, more, "SHIM_OBSERVERS=%u: %s", want, why);
            break;
        }
        CPU_CLR(x->placement.observed_cpu, &left);
        CPU_CLR(x->placement.observer_cpu, &left);
        struct probe_plan p = *plan;
        struct observer_params pp = *params;
        p.thread_word =
            r->ti ? thread_identity_word(r->ti, x->placement.observed_cpu) : &x->thread_word;
        pp.seed ^= (uint64_t)(r->n_extra + 1) * 0x9e3779b97f4a7c15ull;
        if (observer_init(&x->obs, &p, &pp) != 0) {
            run_complain(0, more, "SHIM_OBSERVERS=%u: out of memory for another observer", want);
            break;
        }
        int err = spawn_observer(&x->thread, x->placement.observer_cpu, extra_main, x);
        if (err) {
            observer_free(&x->obs);
            run_complain(0, more, "SHIM_OBSERVERS=%u: cannot start an observer on CPU %d: %s", want,
                         x->placement.observer_cpu, strerror(err));
            break;
        }
        CPU_SET(x->placement.observed_cpu, &r->observed_cpus);
        r->n_extra++;
    }
    hwloc_topology_destroy(topo);
}

/* The keeper of every observer's tables, on the first observer's CPU. Without it the
 * tables keep their first chunk, and what does not fit is counted as "behind". */
void observers_start_keeper(struct shim_run *r)
{
    cpu_set_t cpu;
    CPU_ZERO(&cpu);
    CPU_SET(r->placement.observer_cpu, &cpu);
    memset(&r->keeper, 0, sizeof r->keeper);
    keeper_add(&r->keeper, &r->obs.tags);
    if (r->obs.pending) keeper_add(&r->keeper, &r->obs.paths);
    for (unsigned k = 0; k < r->n_extra; k++) {
        keeper_add(&r->keeper, &r->extra[k].obs.tags);
        if (r->extra[k].obs.pending) keeper_add(&r->keeper, &r->extra[k].obs.paths);
    }
    int err = keeper_start(&r->keeper, &cpu);
    if (err)
        run_complain(0, "the tag table keeps its first 16384 tuples",
                     "cannot start the thread that grows the tag table: %s", strerror(err));
}

/* Stops the other observers and the keeper, then adds what the others found to the
 * first one's (the first has stopped already). */
void observers_stop_extra(struct shim_run *r)
{
    for (unsigned k = 0; k < r->n_extra; k++)
        observer_request_stop(&r->extra[k].obs);
    r->samples0 = r->obs.totals.total;
    for (unsigned k = 0; k < r->n_extra; k++)
        pthread_join(r->extra[k].thread, NULL);
    keeper_stop(&r->keeper);
    snapshot_fold(r); /* SHIM_SNAPSHOT: each observer's tables become its whole run's again */
    if (r->keeper.failed)
        fprintf(stderr, "shim: out of memory growing the tag table: tuples that did not fit are "
                        "counted in other\n");
    for (unsigned k = 0; k < r->n_extra; k++) {
        struct run_observer *x = &r->extra[k];
        x->samples = x->obs.totals.total;
        observer_merge(&r->obs, &x->obs);
    }
}

void observers_free_extra(struct shim_run *r)
{
    for (unsigned k = 0; k < r->n_extra; k++)
        observer_free(&r->extra[k].obs);
    free(r->extra);
    r->extra = NULL;
    r->n_extra = 0;
}
