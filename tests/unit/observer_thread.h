/*
 * observer_thread.h -- what the unit tests that run a real observer loop share: the
 * thread body that runs it, and a monotonic clock for how long the "program" plays.
 */
#ifndef SHIM_TESTS_OBSERVER_THREAD_H
#define SHIM_TESTS_OBSERVER_THREAD_H

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

#endif
