/*
 * planted_shift.c -- the planted-phase demo (examples/phases.c) with one phase's share
 * moved on purpose, for measuring what `shimview compare` marks (bench/compare_pairs.py).
 *
 *     planted_shift [--seconds S] [--eval-items N] [--truth FILE] [--no-count]
 *
 * Three phases in a loop, as in the demo: parse (400 items of 60 iterations), eval (60
 * items of 700 iterations, or N with --eval-items) and emit (150 of 180); slot 0 says
 * which, counter slot 0 counts items. Two runs with the same settings should differ only
 * by noise; --eval-items 65 instead of 60 plants about 2 percentage points more of the
 * time in eval (0.44 -> 0.46). The program measures its own phase shares with the TSC
 * and writes them (one line per phase: name, share) to FILE, so a comparison can be
 * held against the change that was really there. --no-count leaves out the counter
 * store per item: the observer's reads of that line cost the program time on its next
 * store, more in some phases than others, by an amount that varies with the host's
 * placement of the CPUs (bench/README.md, "Comparing runs").
 */
#include <shim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

enum { PHASE_SLOT = 0, ITEMS = 0, NPHASES = 4 };

static const char *phase_name[NPHASES] = {"", "parse", "eval", "emit"};
static int items[NPHASES] = {0, 400, 60, 150};
static const int iterations[NPHASES] = {0, 60, 700, 180};
static uint64_t state = 88172645463325252ull;
static uint64_t cycles[NPHASES];
static int count_items = 1;

static void run_phase(int phase)
{
    SHIM_SIGNAL(PHASE_SLOT, phase);
    uint64_t start = __rdtsc(), x = state;
    for (int i = 0; i < items[phase]; i++) {
        for (int k = 0; k < iterations[phase]; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        if (count_items) SHIM_COUNT(ITEMS, 1);
    }
    state = x;
    cycles[phase] += __rdtsc() - start;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = 2.0;
    const char *truth = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--eval-items") && i + 1 < argc)
            items[2] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
            truth = argv[++i];
        else if (!strcmp(argv[i], "--no-count"))
            count_items = 0;
        else {
            fprintf(stderr,
                    "usage: %s [--seconds S] [--eval-items N] [--truth FILE] [--no-count]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!(seconds > 0) || items[2] <= 0) {
        fprintf(stderr, "planted_shift: --seconds and --eval-items must be positive\n");
        return 2;
    }
    shim_name_slot(PHASE_SLOT, "phase");
    for (int p = 1; p < NPHASES; p++)
        shim_name_tag(PHASE_SLOT, (uint64_t)p, phase_name[p]);
    shim_name_counter(ITEMS, "items");
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.counter_scale[ITEMS] = 1000.0;
    int rc = shim_start(&cfg);
    if (rc != 0) fprintf(stderr, "planted_shift: running without shim: %s\n", shim_strerror(rc));
    for (double end = now_seconds() + seconds; now_seconds() < end;)
        for (int p = 1; p < NPHASES; p++)
            run_phase(p);
    SHIM_SIGNAL(PHASE_SLOT, 0);
    shim_stop();
    if (truth) {
        FILE *f = fopen(truth, "w");
        if (!f) {
            perror(truth);
            return 1;
        }
        double total = (double)(cycles[1] + cycles[2] + cycles[3]);
        for (int p = 1; p < NPHASES; p++)
            fprintf(f, "%s %.6f\n", phase_name[p], (double)cycles[p] / total);
        fclose(f);
    }
    return 0;
}
