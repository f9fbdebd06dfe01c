/*
 * store_phases.c -- planted phases for the attribution store's fidelity tests.
 *
 * Built twice (tests/CMakeLists.txt):
 *
 *  - STARTUP: before its work the program touches 20,000 distinct tag values, each for a
 *    few thousand cycles, as a real program's start-up (library loading, parsing) touches
 *    thousands of functions and contexts; then it runs three hot phases in rounds. The
 *    hot phases must get their own tuples, and their shares, as if start-up had not been:
 *    a table filled first come, first served gave them to `other`.
 *  - BOUNDARY: a short phase of 20,000 cycles between long ones whose counter rate is 7
 *    times its own. A sample period that straddles a phase change mixes the two phases'
 *    counts; attributed to the short phase, it raised the short phase's rate by 10-18%.
 *
 * Like examples/phases.c, the program measures its own truth with the TSC (the cycles of
 * each phase and the items it finished there) and writes one line per phase, "name share
 * rate" (rate in items per 1000 cycles), for check_fidelity.
 *
 * Usage: startup_phases|boundary_phases [--seconds S] [--truth FILE]
 */
#include <shim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

enum { PHASE_SLOT = 0, ITEMS = 0 };
#if defined(STARTUP)
enum { NPHASES = 4, STARTUP_TAGS = 20000, STARTUP_CYCLES = 3000 };
static const char *phase_name[NPHASES] = {"", "lex", "parse", "eval"};
/* per phase: loop iterations per item, and TSC cycles the phase lasts each round */
static const uint64_t iterations[NPHASES] = {0, 40, 150, 500};
static const uint64_t length[NPHASES] = {0, 300000, 500000, 800000};
#elif defined(BOUNDARY)
enum { NPHASES = 3 };
static const char *phase_name[NPHASES] = {"", "busy", "short"};
static const uint64_t iterations[NPHASES] = {0, 60, 420}; /* short: 7 times longer items */
static const uint64_t length[NPHASES] = {0, 200000, 20000};
#else
#error "build with -DSTARTUP or -DBOUNDARY"
#endif

/* An item taking longer than this lost its CPU: that time is not the phase's. */
#define LOST_CPU 50000

static uint64_t state = 88172645463325252ull;
static uint64_t cycles[NPHASES], wall[NPHASES], items[NPHASES]; /* wall: lost CPU included */

static void work(uint64_t n)
{
    uint64_t x = state;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    state = x;
}

/* The phase for `length` TSC cycles, whole items at a time. */
static void run_phase(int phase)
{
    SHIM_SIGNAL(PHASE_SLOT, (uint64_t)phase);
    uint64_t start = __rdtsc(), last = start, lost = 0, done = 0;
    while (last - start < length[phase]) {
        work(iterations[phase]);
        SHIM_COUNT(ITEMS, 1);
        done++;
        uint64_t now = __rdtsc();
        if (now - last > LOST_CPU) lost += now - last;
        last = now;
    }
    cycles[phase] += last - start - lost;
    wall[phase] += last - start;
    items[phase] += done;
}

#if defined(STARTUP)
/* Start-up: each of STARTUP_TAGS values for STARTUP_CYCLES, none of them a phase. */
static void start_up(void)
{
    for (uint64_t v = 0; v < STARTUP_TAGS; v++) {
        SHIM_SIGNAL(PHASE_SLOT, 1000 + v);
        uint64_t start = __rdtsc();
        while (__rdtsc() - start < STARTUP_CYCLES)
            work(10);
    }
}
#endif

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = 1.0;
    const char *truth_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--truth") == 0 && i + 1 < argc) {
            truth_path = argv[++i];
        } else {
            fprintf(stderr, "usage: %s [--seconds S] [--truth FILE]\n", argv[0]);
            return 2;
        }
    }
    shim_name_slot(PHASE_SLOT, "phase");
    for (int p = 1; p < NPHASES; p++)
        shim_name_tag(PHASE_SLOT, (uint64_t)p, phase_name[p]);
    shim_name_counter(ITEMS, "items");
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.counter_scale[ITEMS] = 1000.0;
    cfg.hist_hi = 8.0;
    int rc = shim_start(&cfg);
    if (rc != 0) fprintf(stderr, "store_phases: running without shim: %s\n", shim_strerror(rc));
#if defined(STARTUP)
    start_up();
#endif
    double end = now_seconds() + seconds;
    while (now_seconds() < end)
        for (int p = 1; p < NPHASES; p++)
            run_phase(p);
    SHIM_SIGNAL(PHASE_SLOT, 0);
    shim_stop();

    uint64_t total = 0, wall_total = 0;
    for (int p = 1; p < NPHASES; p++) {
        total += cycles[p];
        wall_total += wall[p];
    }
    FILE *f = truth_path ? fopen(truth_path, "w") : stdout;
    if (!f) {
        perror(truth_path);
        return 1;
    }
    for (int p = 1; p < NPHASES; p++)
        fprintf(f, "%s %.6f %.6f %.6f %.6f\n", phase_name[p], (double)cycles[p] / (double)total,
                1000.0 * (double)items[p] / (double)cycles[p], (double)wall[p] / (double)wall_total,
                1000.0 * (double)items[p] / (double)wall[p]);
    fprintf(f, "# lost-cpu %.6f\n", 1.0 - (double)total / (double)wall_total);
    if (truth_path) fclose(f);
    return 0;
}
