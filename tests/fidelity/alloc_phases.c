/*
 * alloc_phases.c -- planted allocation rates, and the truth about them.
 *
 * Linked with jemalloc and libshim, it starts shim and repeats three phases, signalled in
 * tag slot 0, until SECONDS have passed:
 *   small    allocates 64-byte objects in a tight loop, freeing each one 32 allocations
 *            later (a small working set, as a parser's temporaries);
 *   pages    allocates 4096-byte objects with some arithmetic between them, freeing each
 *            four allocations later;
 *   compute  arithmetic only: it allocates and frees nothing.
 * Both sizes are jemalloc size classes, so the bytes requested are the bytes counted.
 * Each phase measures its own truth around its work: the TSC cycles it took, and the
 * bytes jemalloc counted as allocated by this thread, read from the very word shim reads
 * (thread.allocatedp). The truth file has one line per phase, "NAME ALLOCATED CYCLES",
 * for check_alloc.py to hold against the profile's `alloc` rate.
 * Usage: alloc_phases SECONDS TRUTH_FILE
 */
#include <shim.h>

#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

enum { PHASE = 0 };
enum { SMALL = 1, PAGES = 2, COMPUTE = 3, NPHASES = 4 };
static const char *phase_name[NPHASES] = {"", "small", "pages", "compute"};

enum { SMALL_SIZE = 64, SMALL_COUNT = 32000, SMALL_RING = 32 };
enum { PAGE_SIZE = 4096, PAGE_COUNT = 1000, PAGE_RING = 4, PAGE_WORK = 300 };
enum { COMPUTE_WORK = 500000 };

static void *small_ring[SMALL_RING], *page_ring[PAGE_RING];
static uint64_t state = 88172645463325252ull;

/* jemalloc's count of bytes this thread allocated. Read through volatile: the compiler
 * may assume that malloc leaves memory it can see unchanged, and this word is exactly
 * what it changes. */
static const volatile uint64_t *allocated;

/* Arithmetic the compiler cannot remove: a chain of dependent multiply-adds. */
static void work(int iterations)
{
    uint64_t x = state;
    for (int i = 0; i < iterations; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    state = x;
}

/* A new object in a ring slot, the one it replaces freed; touched, so that it is used. */
static void replace(void **slot, size_t size, unsigned fill)
{
    free(*slot);
    char *p = malloc(size);
    if (!p) abort();
    memset(p, (int)fill, size < 64 ? size : 64);
    p[size - 1] = (char)fill;
    *slot = p;
}

/* The time the thread did not have the CPU: a step between two TSC reads longer than
 * any step here takes is a preemption (or the hypervisor's), and not the phase's time,
 * as shim, which knows which thread runs on the CPU, does not count it either. */
#define LOST_CPU 50000
static uint64_t last_tsc, lost;

static void tick(void)
{
    uint64_t now = __rdtsc();
    if (now - last_tsc > LOST_CPU) lost += now - last_tsc;
    last_tsc = now;
}

static void phase_small(void)
{
    for (unsigned i = 0; i < SMALL_COUNT; i++) {
        replace(&small_ring[i % SMALL_RING], SMALL_SIZE, i);
        tick();
    }
}

static void phase_pages(void)
{
    for (unsigned i = 0; i < PAGE_COUNT; i++) {
        replace(&page_ring[i % PAGE_RING], PAGE_SIZE, i);
        work(PAGE_WORK);
        tick();
    }
}

static void phase_compute(void)
{
    for (int i = 0; i < COMPUTE_WORK / 1000; i++) {
        work(1000);
        tick();
    }
}

struct truth {
    uint64_t allocated, cycles;
};

static void run_phase(int phase, void (*body)(void), struct truth *t)
{
    SHIM_SIGNAL(PHASE, phase);
    uint64_t a0 = *allocated, t0 = __rdtsc();
    last_tsc = t0, lost = 0;
    body();
    tick();
    t[phase].allocated += *allocated - a0;
    t[phase].cycles += last_tsc - t0 - lost;
}

static const volatile uint64_t *allocated_word(void)
{
    uint64_t *word = NULL;
    size_t len = sizeof word;
    if (mallctl("thread.allocatedp", &word, &len, NULL, 0) != 0 || !word) {
        fprintf(stderr, "alloc_phases: jemalloc has no thread.allocatedp (no statistics)\n");
        exit(1);
    }
    return word;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: alloc_phases SECONDS TRUTH_FILE\n");
        return 2;
    }
    double seconds = atof(argv[1]);
    allocated = allocated_word();
    shim_name_slot(PHASE, "phase");
    for (int p = 1; p < NPHASES; p++)
        shim_name_tag(PHASE, (uint64_t)p, phase_name[p]);
    if (shim_start(NULL) != 0) return 1;
    struct truth t[NPHASES] = {{0}};
    struct timespec ts0, ts1;
    clock_gettime(CLOCK_MONOTONIC, &ts0);
    do {
        run_phase(SMALL, phase_small, t);
        run_phase(PAGES, phase_pages, t);
        run_phase(COMPUTE, phase_compute, t);
        clock_gettime(CLOCK_MONOTONIC, &ts1);
    } while ((double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9 <
             seconds);
    SHIM_SIGNAL(PHASE, 0);
    if (shim_stop() != 0) return 1;
    FILE *f = fopen(argv[2], "w");
    if (!f) return 1;
    for (int p = 1; p < NPHASES; p++)
        fprintf(f, "%s %llu %llu\n", phase_name[p], (unsigned long long)t[p].allocated,
                (unsigned long long)t[p].cycles);
    return fclose(f) != 0;
}
