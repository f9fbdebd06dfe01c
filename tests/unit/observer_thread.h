/*
 * observer_thread.h -- what the unit tests that run a real observer loop share: the
 * thread body that runs it, and a monotonic clock for how long the "program" plays.
 */
#ifndef SHIM_TESTS_OBSERVER_THREAD_H
#define SHIM_TESTS_OBSERVER_THREAD_H

#include <stdint.h>
#include <time.h>

#include "observer.h"

static inline void *observer_thread(void *arg)
{
    observer_run(arg);
    return NULL;
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
    for (uint32_t i = 0; i <= obs->tags.max_entries; i++)
        attributed += obs->tags.entry[i].cycles;
    double lost = 1.0 - (double)attributed / (double)(obs->last_tsc - obs->first_tsc);
    if (lost <= max_lost) return 1;
    print_message("skipped: %.0f%% of the run's time was in interrupted periods (a busy "
                  "machine): the observer and the program did not run side by side\n",
                  100 * lost);
    return 0;
}

#endif
