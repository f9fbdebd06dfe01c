/*
 * lost_cpu.h -- how much of a stretch of its run a fidelity program's thread did not have
 * its CPU (another process ran there; the host's own use of the virtual CPU too, where
 * the kernel accounts it as steal time): the share of the wall time that is not the
 * thread's CPU time. The program writes it as the last line of
 * its truth file, "# lost-cpu F", for busy.py: where the program lost over a tenth of its
 * time, a failed check says how busy the machine was, not how well shim measured. The
 * checkers pass over lines that start with '#'.
 */
#ifndef SHIM_TESTS_FIDELITY_LOST_CPU_H
#define SHIM_TESTS_FIDELITY_LOST_CPU_H

#include <stdio.h>
#include <time.h>

struct lost_cpu {
    struct timespec wall, cpu;
};

__attribute__((no_instrument_function)) static inline double
lost_cpu_seconds(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

__attribute__((no_instrument_function)) static inline void lost_cpu_start(struct lost_cpu *l)
{
    clock_gettime(CLOCK_MONOTONIC, &l->wall);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &l->cpu);
}

/* The share of the wall time since lost_cpu_start() that the thread did not run. */
__attribute__((no_instrument_function)) static inline double
lost_cpu_share(const struct lost_cpu *l)
{
    struct timespec wall, cpu;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    clock_gettime(CLOCK_MONOTONIC, &wall);
    double w = lost_cpu_seconds(&l->wall, &wall), c = lost_cpu_seconds(&l->cpu, &cpu);
    return w > 0 && c < w ? 1.0 - c / w : 0.0;
}

/* Appends "# lost-cpu F" to an open truth file. */
__attribute__((no_instrument_function)) static inline void lost_cpu_write(FILE *f, double share)
{
    fprintf(f, "# lost-cpu %.6f\n", share);
}

#endif
