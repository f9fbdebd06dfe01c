/*
 * frames_inlined.c -- the hooks' frame signal (SHIM_HOOKS=frames) where a function is
 * inlined into its caller: gcc calls its hooks all the same, so the thread goes in and out
 * of it many times a microsecond without leaving the caller's frame. A walk that sees the
 * function change under the same frame must keep its chain (the frame word says the
 * function is inlined, signals/stackwalk.h): the contexts of these samples are not lost.
 *
 * Built with -O2 -finstrument-functions -fno-omit-frame-pointer and linked with libshim.
 * It starts shim, runs `outer` for SECONDS, which alternates between `helper` (inlined)
 * and work of its own, each stretch about a hundred cycles, measuring both with the TSC,
 * and writes the truth file as check_functions.py reads it ("function cycles" lines,
 * "all cycles"). Usage: frames_inlined SECONDS TRUTH_FILE
 */
#include "timed_run.h"

#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long long t_helper, t_outer;

static inline __attribute__((always_inline)) void helper(unsigned n)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 3u;
    t_helper += __rdtsc() - t0;
}

__attribute__((noinline)) static void outer(unsigned rounds)
{
    unsigned long long t0 = __rdtsc(), in_helper = t_helper;
    for (unsigned r = 0; r < rounds; r++) {
        helper(20);
        for (unsigned i = 0; i < 20; i++)
            sink += i * 7u;
    }
    t_outer += __rdtsc() - t0 - (t_helper - in_helper);
}

static void round_of_work(void)
{
    outer(5000);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: frames_inlined SECONDS TRUTH_FILE\n");
        return 2;
    }
    unsigned long long all = timed_run(atof(argv[1]), round_of_work);
    if (all == 0) return 1;
    const char *const names[] = {"helper", "outer"};
    const unsigned long long cycles[] = {t_helper, t_outer};
    return write_truth(argv[2], 2, names, cycles, all);
}
