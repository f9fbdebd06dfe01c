/*
 * frames_inlined.c -- the hooks' frame signal (SHIM_HOOKS=frames) where a function is
 * inlined into its caller: gcc calls its hooks all the same, so the thread goes in and out
 * of it many times a microsecond without leaving the caller's frame. A walk that sees the
 * function change under the same frame must keep its chain (one of its two reads is the
 * inlined function's exit, or both are entries from the same call site,
 * signals/stackwalk.h): the contexts of these samples are not lost.
 *
 * Built with -O2 -finstrument-functions -fno-omit-frame-pointer and linked with libshim.
 * It starts shim, runs `outer` for SECONDS, which alternates between `helper` (inlined)
 * and work of its own, each stretch about a hundred cycles, measuring both with the TSC,
 * and writes the truth file as check_functions.py reads it ("function low high" lines,
 * "all cycles"). Usage: frames_inlined SECONDS TRUTH_FILE
 *
 * The hooks gcc calls around the inlined body take about as long as the body itself, and
 * their time goes partly to the helper (after the entry hook published it, until the exit
 * hook published `outer` again) and partly to `outer`. So the truth is a span: the helper's
 * body alone (measured inside it) to the body with both hooks (measured around the call),
 * and `outer` the rest. How the hooks' time splits depends on the CPU. On an AMD EPYC VM
 * the body is 25% of the time, the call with its hooks (and the TSC reads) 75%, and the
 * helper gets 47.5% of the samples. The span is wide: this program's share check only
 * catches samples that go to the wrong function altogether; the point of it is the walks
 * (--lost-max), and fidelity_cct_walk holds short functions' shares to 2 points.
 */
#include "timed_run.h"

#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long long t_helper, t_call, t_outer;

static inline __attribute__((always_inline)) void helper(unsigned n)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 3u;
    t_helper += __rdtsc() - t0;
}

__attribute__((noinline)) static void outer(unsigned rounds)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned r = 0; r < rounds; r++) {
        unsigned long long c0 = __rdtsc(); /* before the helper's entry hook */
        helper(20);
        t_call += __rdtsc() - c0;
        for (unsigned i = 0; i < 20; i++)
            sink += i * 7u;
    }
    t_outer += __rdtsc() - t0; /* all of it, the helper and its hooks included */
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
    const unsigned long long low[] = {t_helper, t_outer - t_call};
    const unsigned long long high[] = {t_call, t_outer - t_helper};
    return write_truth(argv[2], 2, names, low, high, all);
}
