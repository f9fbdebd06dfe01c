/*
 * cct_phases.c -- calling contexts with planted work, and the truth about them.
 *
 * Built with -finstrument-functions and linked with libshim, it starts shim, then spends
 * a known share of its time in each of five calling contexts: the same leaf function
 * reached from two callers is two contexts, and a recursive one folds onto itself. Each
 * context measures its own exclusive time with the TSC (time in the context minus time
 * in the instrumented functions it calls), and the program writes those cycles to the
 * truth file, one "path cycles" line per context, for check_cct.py to hold against the
 * profile. Usage: cct_phases SECONDS TRUTH_FILE
 *
 * Each call lasts tens of microseconds: where the host makes a coherence miss slow, a
 * hook's store to the line the observer has just read reaches it a microsecond late, and
 * with calls of a few microseconds that moved 2 points of the time between contexts
 * (SHIM_HOOKS=frames; docs/compiler-pass.md says the same of the pass's stores).
 */
#include <shim.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "lost_cpu.h"

static volatile unsigned long sink;
static unsigned long long t_leaf_a, t_leaf_b, t_a, t_b, t_rec;

/* The same function under two callers: two contexts. */
__attribute__((noinline)) static void leaf(unsigned n, unsigned long long *own)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 7u;
    *own += __rdtsc() - t0;
}

__attribute__((noinline)) static void phase_a(void)
{
    unsigned long long t0 = __rdtsc(), inner = t_leaf_a;
    for (unsigned i = 0; i < 12000; i++)
        sink += i;
    leaf(24000, &t_leaf_a);
    t_a += __rdtsc() - t0 - (t_leaf_a - inner);
}

__attribute__((noinline)) static void phase_b(void)
{
    unsigned long long t0 = __rdtsc(), inner = t_leaf_b;
    for (unsigned i = 0; i < 36000; i++)
        sink += i;
    leaf(8000, &t_leaf_b);
    t_b += __rdtsc() - t0 - (t_leaf_b - inner);
}

/* Recursion: every level is the same context (the first call's node). */
__attribute__((noinline)) static void recurse(int depth)
{
    for (unsigned i = 0; i < 3200; i++)
        sink += i;
    if (depth > 0) recurse(depth - 1);
}

__attribute__((noinline)) static void phase_rec(void)
{
    unsigned long long t0 = __rdtsc();
    recurse(6);
    t_rec += __rdtsc() - t0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cct_phases SECONDS TRUTH_FILE\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    if (shim_start(NULL) != 0) return 1;
    unsigned long long t_main0 = __rdtsc(), budget;
    struct timespec ts0, ts1;
    struct lost_cpu lost;
    lost_cpu_start(&lost);
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    do {
        phase_a();
        phase_b();
        phase_rec();
        clock_gettime(CLOCK_MONOTONIC, &ts1);
    } while ((double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9 <
             seconds);
    budget = __rdtsc() - t_main0;
    double lost_share = lost_cpu_share(&lost);
    shim_stop();
    FILE *f = fopen(argv[2], "w");
    if (!f) return 1;
    fprintf(f,
            "main>phase_a %llu\nmain>phase_a>leaf %llu\nmain>phase_b %llu\n"
            "main>phase_b>leaf %llu\nmain>phase_rec>recurse %llu\nall %llu\n",
            t_a, t_leaf_a, t_b, t_leaf_b, t_rec, budget);
    lost_cpu_write(f, lost_share);
    return fclose(f) != 0;
}
