/*
 * mixed_phases.c -- a program built with the compiler pass that calls code built with
 * -finstrument-functions (mixed_hooked.c), and the truth about where its time went.
 *
 * The pass stores a function in the loop word only, and the observer takes a sample's
 * function from it (signals/path.h); the hooks' code stores no loop word of its own, so
 * the hooks store it for it. Without that, every sample in hooked_spin() would name
 * main(), whose word was the last the pass stored. The program alternates between
 * passed_spin() (built with the pass) and hooked_spin() (built with the hooks), each
 * measuring its own time with the TSC, and writes "function cycles" lines and
 * "all cycles" to the truth file for check_functions.py.
 * Usage: mixed_phases SECONDS TRUTH_FILE
 */
#include <shim.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "lost_cpu.h"

unsigned long long hooked_spin(unsigned n); /* mixed_hooked.c: its own cycles */

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long long passed_spin(unsigned n)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 3u;
    return __rdtsc() - t0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: mixed_phases SECONDS TRUTH_FILE\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    if (shim_start(NULL) != 0) return 1;
    unsigned long long t_passed = 0, t_hooked = 0, t0 = __rdtsc();
    struct timespec ts0, ts1;
    struct lost_cpu lost;
    lost_cpu_start(&lost);
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    /* Calls of about 100 us: where the host makes a coherence miss slow (about 1 us), each
     * call's first stores to the signal block's line reach the observer a miss or two
     * late, which gives the caller that moment; at 25 us a call, that was 2 points of
     * hooked_spin's time (three stores to the line on the way in, one on the way out). */
    do {
        t_passed += passed_spin(16000);
        t_hooked += hooked_spin(32000);
        clock_gettime(CLOCK_MONOTONIC, &ts1);
    } while ((double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9 <
             seconds);
    unsigned long long all = __rdtsc() - t0;
    double lost_share = lost_cpu_share(&lost);
    shim_stop();
    FILE *f = fopen(argv[2], "w");
    if (!f) return 1;
    fprintf(f, "passed_spin %llu\nhooked_spin %llu\nall %llu\n", t_passed, t_hooked, all);
    lost_cpu_write(f, lost_share);
    return fclose(f) != 0;
}
