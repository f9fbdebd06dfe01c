/*
 * run.c -- the run in progress and its lock, and what is appended to a run's probe plan
 * (its readings and its rates, as the profile names them).
 *
 * One run at a time, guarded by a mutex that the observer never touches: shim_start(),
 * shim_stop(), a thread that joins or leaves, fork and the exit handler all take it
 * (lifecycle.c, attach.c). The mutex is taken around fork so the child never inherits
 * it locked, and made anew in the child.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "libshim/internal.h"

enum run_state { IDLE, RUNNING };

/* Recursive: SHIM_STRICT may exit() while the lock is held, and the atexit handler
 * then takes it again on the same thread. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static enum run_state state;
static struct shim_run *run;

/* No cancellation point may run while the lock is held: a thread cancelled there (in
 * the fopen of its name, the profile's write) would leave the lock held for ever, and
 * the next pthread_create, fork, shim_stop or the exit handler would wait on it. So
 * cancellation is off from taking the lock to giving it back; a cancel asked for
 * meanwhile acts at the program's next cancellation point. */
int run_lock(void)
{
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    pthread_mutex_lock(&lock);
    return cancel;
}

int run_trylock(int *cancel)
{
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel);
    if (pthread_mutex_trylock(&lock) == 0) return 0;
    pthread_setcancelstate(*cancel, NULL);
    return -1;
}

void run_unlock(int cancel)
{
    pthread_mutex_unlock(&lock);
    pthread_setcancelstate(cancel, NULL);
}

struct shim_run *run_current(void)
{
    return state == RUNNING ? run : NULL;
}

void run_set_current(struct shim_run *r)
{
    run = r;
    __atomic_store_n(&state, r ? RUNNING : IDLE, __ATOMIC_RELEASE);
}

int run_going(void)
{
    return __atomic_load_n(&state, __ATOMIC_ACQUIRE) == RUNNING;
}

double run_children_cpu(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_CHILDREN, &u) != 0) return 0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double run_children_seconds(const struct shim_run *r)
{
    return fmax(0, run_children_cpu() - r->children_cpu_start);
}

static int children_observed;

void run_observe_children(void)
{
    children_observed = 1;
}

int run_children_observed(void)
{
    return children_observed;
}

void run_fork_prepare(void)
{
    pthread_mutex_lock(&lock);
}

void run_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

void run_fork_child(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

int shim_running(void)
{
    int cancel = run_lock();
    int on = state == RUNNING;
    run_unlock(cancel);
    return on;
}

/* ---- the plan's readings and rates ---- */

int run_add_rate(struct shim_run *r, struct probe_plan *p, int num, int den, double scale,
                 const char *name, const char *per_name)
{
    if (p->n_rates == PROBE_MAX_RATES) return -1;
    struct run_rate *rt = &r->rate[r->n_rates++];
    p->rate[p->n_rates++] = (struct probe_rate){num, den, scale};
    memset(rt, 0, sizeof *rt);
    snprintf(rt->name, sizeof rt->name, "%s", name);
    _Static_assert(sizeof rt->counter == sizeof r->counter[num].name, "label sizes");
    memcpy(rt->counter, r->counter[num].name, sizeof rt->counter);
    snprintf(rt->per, sizeof rt->per, "%s", per_name ? per_name : "");
    rt->scale = scale;
    /* the TSC is "cycles" in units, whatever SHIM_RATES called it */
    int tsc = den == PROBE_RATE_PER_TSC;
    const char *per = tsc ? "cycle" : per_name;
    char counted_in[sizeof r->counter[num].unit];
    memcpy(counted_in, r->counter[num].unit, sizeof counted_in);
    if (counted_in[0] && tsc && scale == r->counter[num].scale)
        snprintf(rt->unit, sizeof rt->unit, "%s per cycle", counted_in);
    else if (scale == 1.0)
        snprintf(rt->unit, sizeof rt->unit, "per %s", per);
    else
        snprintf(rt->unit, sizeof rt->unit, "per %g %s%s", scale, per, tsc ? "s" : "");
    return 0;
}

int run_add_software(struct shim_run *r, struct probe_plan *p, const char *name, unsigned slot,
                     int sw_slot, double scale)
{
    unsigned at = p->n_hw + p->n_sw;
    if (at >= PROBE_MAX_COUNTERS) return -1;
    struct run_counter *c = &r->counter[at];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = "software";
    c->slot = slot;
    c->width = 64;
    c->scale = scale;
    c->fd = -1;
    r->n_counters = at + 1;
    p->sw[p->n_sw++].slot = sw_slot;
    p->mask[at] = ~(uint64_t)0;
    return (int)at;
}
