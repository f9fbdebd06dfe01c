/*
 * mixed_hooked.c -- the part of mixed_phases built with -finstrument-functions (and
 * without the compiler pass): a loop that measures its own time with the TSC.
 */
#include <x86intrin.h>

static volatile unsigned long sink;

unsigned long long hooked_spin(unsigned n)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 5u;
    return __rdtsc() - t0;
}
