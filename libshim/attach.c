/*
 * attach.c -- the program's other threads and the run: a thread joins (threads.c's
 * pthread_create, or the program's shim_thread_attach()), leaves, or starts a program,
 * and shim keeps what it changed of the thread's CPU affinity its own to give back.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "libshim/alloc_signal.h"
#include "signals/cct.h"
#include "libshim/internal.h"
#include "signals/path.h"
#include "signals/signal_block.h"
#include "libshim/thread_identity.h"

/* The calling thread's id as the thread word shows it: gettid(), or, in a PID namespace
 * of the process's own, the id BPF reports for it (primed); 0 when priming fails, and
 * then the thread's samples count as another process's. */
static uint64_t seen_id(const struct shim_run *r, pid_t tid)
{
    int cpu;
    uint64_t seen;
    char why[128];
    if (!r->ti || !r->translate) return (uint64_t)tid;
    return thread_identity_prime(r->ti, &cpu, &seen, why, sizeof why) == 0 ? seen : 0;
}

/*
 * Another thread of the program joins the run (threads.c, or the program's own call).
 * It gets a block, a path ring when the program has paths, and its calling-context
 * slots. Where the thread word comes from BPF (the thread actually running on the
 * observed CPU), the thread is confined to the observed CPU, so every moment it runs
 * is seen and told apart from the others. Without it, the thread word is the thread
 * that called shim_start(): another thread on that CPU would be taken for it, so the
 * thread stays off the observed CPU where it can (and is not observed), and shim says
 * once why it cannot do better (docs/guide.md, "Threads").
 */
static int attach_locked(struct shim_run *r, const cpu_set_t *inherited)
{
    pid_t tid = gettid();
    if (tid == r->observed_tid || shim_tls_block != &shim_dummy_block) return 0; /* already */
    uint64_t seen = seen_id(r, tid);
    struct shim_block *b = signal_block_acquire();
    if (!b) {
        if (!r->said_full++)
            fprintf(stderr, "shim: more than %d threads observed at once; thread %d is not\n",
                    SIGNAL_BLOCK_POOL, (int)tid);
        return SHIM_ENOMEM;
    }
    if (seen != (uint64_t)tid) signal_block_set_id(seen);
    signal_block_attach(b);
    if (r->obs.plan.paths) path_ring_attach(b); /* without memory: its paths go unseen */
    cct_republish();
    alloc_signal_attach(r, b);
    if (r->attached < RUN_MAX_THREADS) {
        r->thread_tid[r->attached] = tid;
        r->thread_seen[r->attached] = seen;
        run_thread_name(tid, r->thread_name[r->attached], RUN_THREAD_NAME);
    }
    r->attached++;
    cpu_set_t now, own, set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof now, &now) != 0) return 0; /* then left where it is */
    own = inherited ? *inherited : now;
    struct run_observer *free_cpu = NULL;
    for (unsigned k = 0; k < r->n_extra && !free_cpu; k++)
        if (!__atomic_load_n(&r->extra[k].thread_word, __ATOMIC_RELAXED) &&
            CPU_ISSET(r->extra[k].placement.observed_cpu, &own))
            free_cpu = &r->extra[k];
    if (r->ti) {
        CPU_AND(&set, &r->observed_cpus, &own);
    } else if (free_cpu) { /* one thread per observed CPU: this one gets the next */
        CPU_SET(free_cpu->placement.observed_cpu, &set);
        __atomic_store_n(&free_cpu->thread_word, (uint64_t)tid, __ATOMIC_RELAXED);
    } else {
        set = own;
        CPU_CLR(r->placement.observed_cpu, &set);
        CPU_CLR(r->placement.observer_cpu, &set);
        if (!r->said_identity++)
            fprintf(stderr,
                    "shim: thread %d joins the run, but shim cannot tell threads apart on CPU "
                    "%d (%s): only thread %d is observed there%s\n",
                    (int)tid, r->placement.observed_cpu, r->identity_why, (int)r->observed_tid,
                    CPU_COUNT(&set) ? "; the others run on the other CPUs"
                                    : ", and samples of others that run there count as its own");
    }
    /* only ever narrowed within the thread's own mask (one the program gave it through
     * pthread_attr_setaffinity_np included), and given back at the stop */
    if (!CPU_COUNT(&set)) set = own;
    if (!CPU_EQUAL(&set, &now) || !CPU_EQUAL(&own, &now)) /* an inherited pin is shim's too */
        affinity_move_self(&r->moved, tid, &own, &set);
    return 0;
}

void attach_thread_leaving(void)
{
    int cancel = run_lock();
    struct shim_run *run = run_current();
    pid_t tid = gettid();
    for (unsigned i = 0; run && i < run->attached && i < RUN_MAX_THREADS; i++)
        if (run->thread_tid[i] == tid) run_thread_name(tid, run->thread_name[i], RUN_THREAD_NAME);
    if (run) affinity_forget(&run->moved, tid); /* its id may come back */
    run_unlock(cancel);
}

int attach_spawn_begin(cpu_set_t *shims)
{
    int cancel = run_lock();
    struct shim_run *run = run_current();
    const struct affinity_moved *m = run ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now;
    int moved = m && sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set) &&
                sched_setaffinity(0, sizeof m->own, &m->own) == 0;
    if (moved) *shims = m->set;
    run_unlock(cancel);
    return moved;
}

void attach_spawn_end(const cpu_set_t *shims)
{
    int cancel = run_lock();
    struct shim_run *run = run_current();
    const struct affinity_moved *m = run ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now;
    if (m && CPU_EQUAL(&m->set, shims) && sched_getaffinity(0, sizeof now, &now) == 0 &&
        CPU_EQUAL(&now, &m->own))
        sched_setaffinity(0, sizeof *shims, shims);
    run_unlock(cancel);
}

int shim_thread_attach(void)
{
    return attach_thread(NULL);
}

int attach_thread(const cpu_set_t *inherited)
{
    int cancel = run_lock();
    struct shim_run *run = run_current();
    int rc = run ? attach_locked(run, inherited) : SHIM_ENOTSTARTED;
    run_unlock(cancel);
    return rc;
}

int attach_own_affinity(cpu_set_t *own)
{
    int cancel = run_lock();
    struct shim_run *run = run_current();
    const struct affinity_moved *m = run ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now;
    int moved = m && sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set);
    if (moved) *own = m->own;
    run_unlock(cancel);
    return moved;
}

int shim_thread_detach(void)
{
    signal_block_release();
    path_ring_detach();
    return 0;
}
