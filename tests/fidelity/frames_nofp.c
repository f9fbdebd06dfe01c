/*
 * frames_nofp.c -- the hooks' frame signal (SHIM_HOOKS=frames) around a function built
 * without a frame pointer: the frame its entry stores does not hold its call site, the
 * observer takes no chain from it, and its samples must keep that function.
 *
 * Built with -finstrument-functions -fno-omit-frame-pointer and linked with libshim; one
 * of its two functions, in frames_nofp_unframed.c, is built without the frame pointer. It starts
 * shim, runs the two in turn for SECONDS, each measuring its own time with the TSC, and writes the
 * truth file as check_functions.py reads it ("function cycles" lines, "all cycles"). Usage:
 * frames_nofp SECONDS TRUTH_FILE
 */
#include "timed_run.h"

#include <stdlib.h>

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

static void round_of_work(void)
{
    unframed(40000);
    framed(20000);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: frames_nofp SECONDS TRUTH_FILE\n");
        return 2;
    }
    unsigned long long all = timed_run(atof(argv[1]), round_of_work);
    if (all == 0) return 1;
    const char *const names[] = {"unframed", "framed"};
    const unsigned long long cycles[] = {t_unframed, t_framed};
    return write_truth(argv[2], 2, names, cycles, NULL, all);
}
