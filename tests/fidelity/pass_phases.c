/*
 * pass_phases.c -- planted truth for the compiler pass's loop and path signals.
 *
 * Built with clang and the pass plugin (method, loop and path signals), run under
 * shim, and checked by check_pass.py against what it measured itself with the TSC:
 *
 *   - two_paths(): one loop whose body takes one of two straight-line chains of
 *     dependent multiply-adds, the long one on one iteration in three; each iteration
 *     is one acyclic path (it ends on the back edge), and the program adds the TSC
 *     cycles of each iteration to the truth of its branch;
 *   - other_loop(): a second loop, of medium chains;
 *   - main(): a chain inside its own loop of rounds, after the two calls.
 *
 * The truth file says "loop two_paths CYCLES", "loop other_loop CYCLES", "loop main
 * CYCLES" (main's chain), "path long CYCLES" and "path short CYCLES", each the sum of
 * the steps between two TSC reads in which the thread kept its CPU. The check recognises the two
 * paths by the source lines marked LINE_LONG and LINE_SHORT once it has turned their numbers back
 * into blocks and lines. The chains have no loop in them, and an empty asm statement after each
 * step keeps the compiler from folding them: the paths are exactly the ones written here.
 *
 *   pass_phases TRUTH_FILE [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

#include "shim.h"

#define STEP(x)                                                                                    \
    x = x * 3 + 1;                                                                                 \
    __asm__ volatile("" : "+r"(x));
#define R5(x)   STEP(x) STEP(x) STEP(x) STEP(x) STEP(x)
#define R25(x)  R5(x) R5(x) R5(x) R5(x) R5(x)
#define R100(x) R25(x) R25(x) R25(x) R25(x)

static uint64_t loop_paths, loop_other, outside, path_cycles[2];
static volatile uint64_t sink;

/* A step of the truth: the cycles since *before, unless the thread lost the CPU in
 * between (a step longer than any piece of work here is a preemption, an interrupt or
 * the virtual CPU stolen; shim sees another thread, or nothing, then). */
#define GAP 20000
static inline uint64_t step(uint64_t *before)
{
    uint64_t now = __rdtsc(), d = now - *before;
    *before = now;
    return d < GAP ? d : 0;
}

/* Each iteration is one path, through the long or the short chain. An iteration's
 * truth runs from its start to the next one's (the last one's to the loop's end): the
 * same length as the path, which runs from one back edge to the next, so the loop's own
 * instructions and the TSC reads are counted where shim counts them. */
__attribute__((noinline)) static void two_paths(int iters, uint64_t seed)
{
    uint64_t x = seed, before = __rdtsc();
    int kind = 0;
    for (int i = 0; i < iters; i++) {
        uint64_t d = step(&before);
        if (i > 0) path_cycles[kind] += d, loop_paths += d;
        kind = i % 3 == 0;
        if (kind) {
            // clang-format off
            R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) enum { LINE_LONG = __LINE__ };
            // clang-format on
        } else {
            // clang-format off
            R100(x) R100(x) enum { LINE_SHORT = __LINE__ };
            // clang-format on
        }
    }
    uint64_t d = step(&before);
    path_cycles[kind] += d, loop_paths += d;
    sink = x;
}

__attribute__((noinline)) static void other_loop(int iters, uint64_t seed)
{
    uint64_t x = seed, before = __rdtsc();
    for (int i = 0; i < iters; i++) {
        loop_other += step(&before);
        R100(x) R100(x) R100(x)
    }
    loop_other += step(&before);
    sink = x;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pass_phases TRUTH_FILE [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 400;
    if (shim_start(NULL) != 0) return 1;
    for (int r = 0; r < rounds; r++) {
        two_paths(300, (uint64_t)r);
        other_loop(200, (uint64_t)r);
        uint64_t before = __rdtsc(), x = before;
        R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) R100(x) sink = x;
        outside += step(&before);
    }
    shim_stop();
    FILE *f = fopen(argv[1], "w");
    if (!f) return 1;
    fprintf(f, "loop two_paths %llu\nloop other_loop %llu\nloop main %llu\n",
            (unsigned long long)loop_paths, (unsigned long long)loop_other,
            (unsigned long long)outside);
    fprintf(f, "path long %llu\npath short %llu\n", (unsigned long long)path_cycles[1],
            (unsigned long long)path_cycles[0]);
    return fclose(f) != 0;
}
