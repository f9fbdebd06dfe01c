/*
 * tsc.h -- the observer's clock: the time-stamp counter.
 *
 * rdtscp is the SHIM paper's marker: it waits until every earlier instruction has
 * executed and every earlier load is globally visible, so a value read after it was
 * read after the marker. It is used for the start and end markers and before each
 * counter read. Plain rdtsc (not ordering) is used only to spin while throttling.
 */
#ifndef SHIM_OBSERVER_TSC_H
#define SHIM_OBSERVER_TSC_H

#include <stdint.h>
#include <x86intrin.h>

static inline uint64_t tsc_marker(void)
{
    unsigned int aux;
    return __rdtscp(&aux);
}

static inline uint64_t tsc_now(void)
{
    return __rdtsc();
}

#endif
