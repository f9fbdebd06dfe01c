/*
 * phases.c -- the first program to read: a loop in three phases, observed by shim.
 *
 * Build and run (after installing shim):
 *
 *     cc -O2 phases.c $(pkg-config --cflags --libs shim) -o phases
 *     ./phases
 *     shimview report shim-phases-<pid>.json
 *
 * The program says which phase it is in with SHIM_SIGNAL (one store) and counts the
 * items it finishes with SHIM_COUNT (one add). shim's observer thread, on another CPU,
 * reads both words every few hundred cycles and attributes its samples to the phases.
 *
 * The phases are planted: each does a known kind of work and finishes items at its own
 * rate. The program also measures the truth itself with the time-stamp counter (the
 * cycles spent in each phase and the items it finished there) and prints it, so you
 * can hold shim's report against it. The test suite does exactly that.
 *
 * Usage: phases [--seconds S | --rounds N] [--truth FILE] [--no-shim]
 *
 * --rounds N runs a fixed amount of work instead and prints the time it took (used to
 * measure what observation costs the program).
 */
#include <shim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

/* Tag slot 0 carries the phase; counter slot 0 counts finished items. */
enum { PHASE_SLOT = 0, ITEMS = 0 };
enum { PHASE_PARSE = 1, PHASE_EVAL = 2, PHASE_EMIT = 3, NPHASES = 4 };

static const char *phase_name[NPHASES] = {"", "parse", "eval", "emit"};

/* Per phase: items per round, and loop iterations per item. The products differ, so
 * the phases take different shares of the time; the iterations per item differ, so
 * items are finished at different rates. */
static const struct {
    int items, iterations;
} shape[NPHASES] = {{0, 0}, {400, 60}, {60, 700}, {150, 180}};

static uint64_t state = 88172645463325252ull;

/* One item of work: a dependent chain the compiler cannot remove. */
static void work(int iterations)
{
    uint64_t x = state;
    for (int i = 0; i < iterations; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    state = x;
}

/* Per phase: the cycles it had the CPU, all its cycles (lost ones included), its items. */
struct truth {
    uint64_t cycles[NPHASES], wall[NPHASES], items[NPHASES];
};

/* TSC cycles no item takes while it has the CPU: an item that took longer was
 * preempted (or its CPU taken by the hypervisor), and that time is not the phase's. */
#define LOST_CPU 50000

static void run_phase(int phase, struct truth *t)
{
    SHIM_SIGNAL(PHASE_SLOT, phase); /* from now on, samples belong to this phase */
    uint64_t start = __rdtsc(), last = start, lost = 0;
    for (int i = 0; i < shape[phase].items; i++) {
        work(shape[phase].iterations);
        SHIM_COUNT(ITEMS, 1);
        uint64_t now = __rdtsc();
        if (now - last > LOST_CPU) lost += now - last;
        last = now;
    }
    /* the truth is the time the phase ran: where shim knows which thread runs on the
     * CPU, time given to another process is that process's, not the phase's */
    t->cycles[phase] += last - start - lost;
    t->wall[phase] += last - start;
    t->items[phase] += (uint64_t)shape[phase].items;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The truth, to stdout for a person or to a file for the fidelity tests: per phase its
 * share of the time and its rate, over the cycles it had the CPU; in the file, then the
 * same over all its cycles, the stretches it lost the CPU included (what shim measures
 * when it cannot tell when the thread is off its CPU: docs/threads.md), and last the
 * share of the time it lost the CPU. */
static void report_truth(const struct truth *t, const char *path)
{
    uint64_t total = 0, wall = 0;
    for (int p = 1; p < NPHASES; p++) {
        total += t->cycles[p];
        wall += t->wall[p];
    }
    FILE *f = path ? fopen(path, "w") : stdout;
    if (!f) {
        perror(path);
        exit(1);
    }
    if (!path)
        printf("truth measured by the program with the TSC:\n"
               "  phase   share    items per 1000 cycles\n");
    for (int p = 1; p < NPHASES; p++) {
        double share = (double)t->cycles[p] / (double)total;
        double rate = 1000.0 * (double)t->items[p] / (double)t->cycles[p];
        if (path)
            fprintf(f, "%s %.6f %.6f %.6f %.6f\n", phase_name[p], share, rate,
                    (double)t->wall[p] / (double)wall,
                    1000.0 * (double)t->items[p] / (double)t->wall[p]);
        else
            printf("  %-6s %6.2f%%  %8.4f\n", phase_name[p], 100 * share, rate);
    }
    if (path) fprintf(f, "# lost-cpu %.6f\n", 1.0 - (double)total / (double)wall);
    if (path) fclose(f);
}

int main(int argc, char **argv)
{
    double seconds = 1.0;
    long rounds = 0;
    const char *truth_path = NULL;
    int use_shim = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atol(argv[++i]);
        else if (strcmp(argv[i], "--truth") == 0 && i + 1 < argc)
            truth_path = argv[++i];
        else if (strcmp(argv[i], "--no-shim") == 0)
            use_shim = 0;
        else {
            fprintf(stderr, "usage: %s [--seconds S | --rounds N] [--truth FILE] [--no-shim]\n",
                    argv[0]);
            return 2;
        }
    }

    /* Names make the report readable; naming slots before shim_start() also tells
     * the observer to read them. */
    shim_name_slot(PHASE_SLOT, "phase");
    for (int p = 1; p < NPHASES; p++)
        shim_name_tag(PHASE_SLOT, (uint64_t)p, phase_name[p]);
    shim_name_counter(ITEMS, "items");

    /* Items per 1000 cycles reads better than items per cycle; the histogram range
     * is chosen to hold those rates. Any SHIM_* variable still overrides this. */
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.counter_scale[ITEMS] = 1000.0;
    cfg.hist_hi = 8.0;
    if (use_shim) {
        int rc = shim_start(&cfg);
        if (rc != 0) fprintf(stderr, "phases: running without shim: %s\n", shim_strerror(rc));
    }

    struct truth t = {0};
    double begin = now_seconds(), end = begin + seconds;
    for (long r = 0; rounds ? r < rounds : now_seconds() < end; r++) {
        run_phase(PHASE_PARSE, &t);
        run_phase(PHASE_EVAL, &t);
        run_phase(PHASE_EMIT, &t);
    }
    SHIM_SIGNAL(PHASE_SLOT, 0);
    if (rounds) printf("elapsed: %.6f s for %ld rounds\n", now_seconds() - begin, rounds);

    if (use_shim) shim_stop(); /* writes the profile; would also happen at exit */
    report_truth(&t, truth_path);
    return 0;
}
