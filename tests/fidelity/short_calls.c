/*
 * short_calls.c -- functions of a few dozen to a few hundred cycles, called millions of
 * times a second from a loop, as an interpreter's helpers are. Built with the compiler
 * pass with and without the context signal (both with frame pointers, so that the code
 * is the same but for the frame stores), each function's share of the samples must be
 * the same (run_cct_walk.sh, check_same_functions.py): a stack walk takes a cache miss
 * or two, during which such a function has often returned, and the sample must stay its
 * own. Usage: short_calls SECONDS [LOST_FILE]: LOST_FILE gets the line "# lost-cpu F"
 * (lost_cpu.h) for busy.py.
 */
#include <shim.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lost_cpu.h"

static volatile unsigned sink;

__attribute__((noinline)) static unsigned long_helper(unsigned x)
{
    unsigned r = x;
    for (unsigned i = 0; i < 60; i++)
        r = (r ^ (r >> 7)) * 2654435761u + i;
    return r;
}

__attribute__((noinline)) static unsigned short_helper(unsigned x)
{
    unsigned r = x;
    for (unsigned i = 0; i < 8; i++)
        r = (r ^ (r >> 5)) * 2246822519u + i;
    return r;
}

__attribute__((noinline)) static void caller(unsigned n)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < n; i++) {
        acc = long_helper(acc + i);
        acc = short_helper(acc);
        for (unsigned k = acc & 15; k < 40; k++) /* the caller's own work */
            acc = (acc ^ (acc >> 3)) * 31u + k;
    }
    sink = acc;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: short_calls SECONDS [LOST_FILE]\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    if (shim_start(NULL) != 0) return 1;
    struct timespec ts0, ts1;
    struct lost_cpu lost;
    lost_cpu_start(&lost);
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    do {
        caller(20000);
        clock_gettime(CLOCK_MONOTONIC, &ts1);
    } while ((double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9 <
             seconds);
    double lost_share = lost_cpu_share(&lost);
    shim_stop();
    if (argc == 3) {
        FILE *f = fopen(argv[2], "w");
        if (!f) return 1;
        lost_cpu_write(f, lost_share);
        return fclose(f) != 0;
    }
    return 0;
}
