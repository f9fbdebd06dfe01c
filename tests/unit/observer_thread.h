/*
 * observer_thread.h -- what the unit tests that run a real observer loop share: the
 * thread body that runs it, and a monotonic clock for how long the "program" plays.
 */
#ifndef SHIM_TESTS_OBSERVER_THREAD_H
#define SHIM_TESTS_OBSERVER_THREAD_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "observer/observer.h"

static inline void *observer_thread(void *arg)
{
    observer_run(arg);
    return NULL;
}

/* The observer on a thread of its own, side by side with this one, as shim places it:
 * when the process may use two CPUs or more, this thread is pinned to the CPU it is on
 * and the observer to another, so that the scheduler cannot make the two take turns on
 * one CPU (then the program would never run while the observer samples). The caller's
 * affinity comes back in observer_thread_join(). 0, or the pthread_create error. */
struct observer_thread_run {
    pthread_t thread;
    cpu_set_t saved;
    int pinned;
};

static inline int observer_thread_start(struct observer_thread_run *t, struct observer *o)
{
    cpu_set_t here, other;
    int cpu = sched_getcpu(), other_cpu = -1;
    t->pinned = 0;
    if (cpu >= 0 && sched_getaffinity(0, sizeof t->saved, &t->saved) == 0)
        for (int c = 0; c < CPU_SETSIZE && other_cpu < 0; c++)
            if (c != cpu && CPU_ISSET(c, &t->saved)) other_cpu = c;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (other_cpu >= 0) {
        CPU_ZERO(&here);
        CPU_SET(cpu, &here);
        CPU_ZERO(&other);
        CPU_SET(other_cpu, &other);
        t->pinned = sched_setaffinity(0, sizeof here, &here) == 0;
        if (t->pinned) pthread_attr_setaffinity_np(&attr, sizeof other, &other);
    }
    int err = pthread_create(&t->thread, &attr, observer_thread, o);
    pthread_attr_destroy(&attr);
    return err;
}

static inline int observer_thread_join(struct observer_thread_run *t)
{
    int err = pthread_join(t->thread, NULL);
    if (t->pinned) sched_setaffinity(0, sizeof t->saved, &t->saved);
    return err;
}

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Whether the observer and the "program" ran side by side for all but `max_lost` of the
 * run's time. On a machine too busy for that (another load on both CPUs), the
 * observer's preempted periods hold most of the program's work and are attributed to
 * nothing, so comparisons of rates and counts say nothing about shim: tests skip them,
 * saying why. */
static inline int ran_side_by_side(const struct observer *obs, double max_lost)
{
    uint64_t attributed = 0;
    for (uint32_t i = 0; i <= obs->tags.n_entries; i++)
        attributed += tag_table_at(&obs->tags, i)->cycles;
    double lost = 1.0 - (double)attributed / (double)(obs->last_tsc - obs->first_tsc);
    if (lost <= max_lost) return 1;
    print_message("skipped: %.0f%% of the run's time was in interrupted periods (a busy "
                  "machine): the observer and the program did not run side by side\n",
                  100 * lost);
    return 0;
}

#endif
