/*
 * many_contexts.c -- a program with more than 100,000 calling contexts, all of them busy.
 *
 * A binary tree of calls 17 levels deep: each level calls the next from two call sites,
 * so the leaf function is reached through 2^17 = 131,072 distinct calling contexts (call
 * sites kept apart), and spins there for a few thousand cycles, long enough for the
 * observer to sample every one. Built with -finstrument-functions and run under shim at
 * the defaults, every sampled context must have a tuple of its own: none may go to
 * `other`. check_contexts.py checks the profile.
 *
 * Usage: many_contexts [ROUNDS]
 */
#include <shim.h>

#include <stdint.h>
#include <stdlib.h>
#include <x86intrin.h>

#define NOINLINE    __attribute__((noinline))
#define LEAF_CYCLES 4000

static volatile uint64_t sink;

static NOINLINE void leaf(void)
{
    uint64_t start = __rdtsc();
    while (__rdtsc() - start < LEAF_CYCLES)
        sink++;
}

#define LEVEL(k, next)                                                                             \
    static NOINLINE void level##k(void)                                                            \
    {                                                                                              \
        next();                                                                                    \
        sink++;                                                                                    \
        next();                                                                                    \
        sink++;                                                                                    \
    }
LEVEL(16, leaf)
LEVEL(15, level16)
LEVEL(14, level15)
LEVEL(13, level14)
LEVEL(12, level13)
LEVEL(11, level12)
LEVEL(10, level11)
LEVEL(9, level10)
LEVEL(8, level9)
LEVEL(7, level8)
LEVEL(6, level7)
LEVEL(5, level6)
LEVEL(4, level5)
LEVEL(3, level4)
LEVEL(2, level3)
LEVEL(1, level2)
LEVEL(0, level1)

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    int rc = shim_start(NULL);
    for (int r = 0; r < rounds; r++)
        level0();
    if (rc == 0) shim_stop();
    return rc == 0 ? 0 : 1;
}
