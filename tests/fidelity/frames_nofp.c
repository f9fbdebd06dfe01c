/*
 * frames_nofp.c -- the hooks' frame signal (SHIM_HOOKS=frames) around a function built
 * without a frame pointer: its frame does not check out, the hooks publish frame 0 with
 * its function, and its samples must keep that function (without a chain).
 *
 * Built with -finstrument-functions -fno-omit-frame-pointer and linked with libshim; one
 * of its two functions, in frames_nofp_unframed.c, is built without the frame pointer. It starts
 * shim, runs the two in turn for SECONDS, each measuring its own time with the TSC, and writes the
 * truth file as check_functions.py reads it ("function cycles" lines, "all cycles"). Usage:
 * frames_nofp SECONDS TRUTH_FILE
 */
#include <shim.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static volatile unsigned long sink;
static unsigned long long t_framed;

/* in frames_nofp_unframed.c, built without a frame pointer */
void unframed(unsigned n);
unsigned long long t_unframed;

__attribute__((noinline)) static void framed(unsigned n)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 5u;
    t_framed += __rdtsc() - t0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: frames_nofp SECONDS TRUTH_FILE\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    if (shim_start(NULL) != 0) return 1;
    unsigned long long t0 = __rdtsc();
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    do {
        unframed(40000);
        framed(20000);
        clock_gettime(CLOCK_MONOTONIC, &ts1);
    } while ((double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9 <
             seconds);
    unsigned long long all = __rdtsc() - t0;
    shim_stop();
    FILE *f = fopen(argv[2], "w");
    if (!f) return 1;
    fprintf(f, "unframed %llu\nframed %llu\nall %llu\n", t_unframed, t_framed, all);
    return fclose(f) != 0;
}
