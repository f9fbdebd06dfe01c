/*
 * timed_run.h -- the frame of a fidelity program: run a round of its work again and again
 * for a given time under shim, then write the truth file its checker reads ("function
 * cycles" lines, then "all cycles": the TSC cycles of the whole measured loop, and the
 * share of it the program did not have its CPU, lost_cpu.h).
 */
#ifndef SHIM_TESTS_FIDELITY_TIMED_RUN_H
#define SHIM_TESTS_FIDELITY_TIMED_RUN_H

#include <shim.h>

#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#include "lost_cpu.h"

/* The share of timed_run()'s loop in which the program lost its CPU. */
static double timed_run_lost;

/* Starts shim, calls round() until `seconds` have passed, stops shim; the TSC cycles the
 * loop took, or 0 where shim did not start. */
static inline unsigned long long timed_run(double seconds, void (*round)(void))
{
    if (shim_start(NULL) != 0) return 0;
    struct lost_cpu lost;
    lost_cpu_start(&lost);
    unsigned long long t0 = __rdtsc();
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    do {
        round();
        clock_gettime(CLOCK_MONOTONIC, &ts1);
    } while ((double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9 <
             seconds);
    unsigned long long all = __rdtsc() - t0;
    timed_run_lost = lost_cpu_share(&lost);
    shim_stop();
    return all;
}

/* Writes n "name cycles" lines, or "name low high" where high is not NULL (a function's
 * time known to lie between two measures), and "all cycles" to path; 0 on success. */
static inline int write_truth(const char *path, int n, const char *const *names,
                              const unsigned long long *cycles, const unsigned long long *high,
                              unsigned long long all)
{
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    for (int i = 0; i < n; i++) {
        if (high)
            fprintf(f, "%s %llu %llu\n", names[i], cycles[i], high[i]);
        else
            fprintf(f, "%s %llu\n", names[i], cycles[i]);
    }
    fprintf(f, "all %llu\n", all);
    lost_cpu_write(f, timed_run_lost);
    return fclose(f) != 0;
}

#endif
