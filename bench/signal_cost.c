/*
 * signal_cost.c -- what one SHIM_SIGNAL and one SHIM_COUNT cost the program, in cycles.
 *
 * The same loop runs three ways -- plain, with a SHIM_SIGNAL per iteration, with a
 * SHIM_COUNT per iteration -- in interleaved rounds, and the cost of a macro is the
 * difference in TSC cycles per iteration from the plain loop, median over the rounds.
 * Each iteration is a short dependent chain (a few xorshift steps), as in real code the
 * store overlaps other work. Measured twice: with nobody reading the block, and with
 * shim's observer reading it every ~1000 cycles (then the line moves between the cores,
 * which is the real cost of a signal under observation). docs/signals.md shows the
 * instructions.
 *
 * Usage: signal_cost [--rounds N] [--iterations N] [--csv FILE]
 */
#include <shim.h>

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

static uint64_t state = 88172645463325252ull;

#define STEP(x) ((x) ^= (x) << 13, (x) ^= (x) >> 7, (x) ^= (x) << 17)

static __attribute__((noinline)) uint64_t plain(long n)
{
    uint64_t x = state, t = __rdtsc();
    for (long i = 0; i < n; i++) {
        STEP(x), STEP(x), STEP(x);
        __asm__ volatile("" : "+r"(x));
    }
    state = x;
    return __rdtsc() - t;
}

static __attribute__((noinline)) uint64_t with_signal(long n)
{
    uint64_t x = state, t = __rdtsc();
    for (long i = 0; i < n; i++) {
        STEP(x), STEP(x), STEP(x);
        SHIM_SIGNAL(0, x & 3);
        __asm__ volatile("" : "+r"(x));
    }
    state = x;
    return __rdtsc() - t;
}

static __attribute__((noinline)) uint64_t with_count(long n)
{
    uint64_t x = state, t = __rdtsc();
    for (long i = 0; i < n; i++) {
        STEP(x), STEP(x), STEP(x);
        SHIM_COUNT(0, 1);
        __asm__ volatile("" : "+r"(x));
    }
    state = x;
    return __rdtsc() - t;
}

/* Per-iteration cycles of the three loops, median over interleaved rounds. */
static void measure(int rounds, long n, double out[3])
{
    double v[3][64];
    for (int r = 0; r < rounds; r++) {
        v[0][r] = (double)plain(n) / (double)n;
        v[1][r] = (double)with_signal(n) / (double)n;
        v[2][r] = (double)with_count(n) / (double)n;
    }
    for (int k = 0; k < 3; k++)
        out[k] = bench_median(v[k], rounds);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"rounds", "iterations", "csv", NULL};
    const char *v[] = {"9", "20000000", NULL};
    int bad = bench_options(argc, argv, names, v);
    int rounds = atoi(v[0]);
    long n = atol(v[1]);
    const char *csv = v[2];
    if (bad || rounds < 1 || rounds > 64 || n < 1000) {
        fprintf(stderr, "usage: %s [--rounds 1-64] [--iterations N>=1000] [--csv FILE]\n", argv[0]);
        return 2;
    }
    double idle[3], observed[3];
    measure(rounds, n, idle); /* nobody reads the (dummy) block */
    setenv("SHIM_QUIET", "1", 1);
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.tag_slots = 1;
    cfg.counter_slots = 1;
    cfg.output = "/tmp/shim-bench-signal-cost.json";
    int started = shim_start(&cfg) == 0;
    measure(rounds, n, observed);
    if (started) shim_stop();
    printf("cycles per iteration (median of %d interleaved rounds of %ld iterations)\n", rounds, n);
    printf("%-22s %8s %12s %12s\n", "", "plain", "+SHIM_SIGNAL", "+SHIM_COUNT");
    printf("%-22s %8.2f %+12.2f %+12.2f\n", "not observed", idle[0], idle[1] - idle[0],
           idle[2] - idle[0]);
    if (started)
        printf("%-22s %8.2f %+12.2f %+12.2f\n", "observed (1000 cycles)", observed[0],
               observed[1] - observed[0], observed[2] - observed[0]);
    if (csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            fprintf(f, "condition,plain,signal_cost,count_cost\n");
            fprintf(f, "not observed,%.3f,%.3f,%.3f\n", idle[0], idle[1] - idle[0],
                    idle[2] - idle[0]);
            if (started)
                fprintf(f, "observed,%.3f,%.3f,%.3f\n", observed[0], observed[1] - observed[0],
                        observed[2] - observed[0]);
            fclose(f);
        }
    }
    return 0;
}
