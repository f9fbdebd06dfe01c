/*
 * thread_phases.c -- planted truth for threads that time-share the observed CPU.
 *
 * Two threads, created while shim observes (so they attach themselves, or call
 * shim_thread_attach() where the build has no pthread_create of its own), run on the
 * observed CPU at once, so the kernel switches between them; each goes through phases
 * of its own (thread A: tags 1 and 2, thread B: tags 3 and 4) and measures, with the
 * TSC, the time it actually ran in each: it reads the TSC in a tight loop and counts
 * each step shorter than 20000 cycles (a longer one is time the other thread, or
 * anything else, had the CPU). The check (check_threads.py) holds each (thread, phase)
 * share of the two threads' running time against shim's share of its samples' cycles.
 *
 *   thread_phases TRUTH_FILE [SECONDS]
 *
 * The truth file has one line per (thread, tag): "TID TAG CYCLES".
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#include "shim.h"

#define GAP 20000 /* TSC cycles: a longer step between two reads was not ours */

struct worker {
    unsigned tag[2];
    uint64_t phase_cycles[2]; /* how long each phase runs, in running cycles */
    uint64_t ran[2];          /* the truth: cycles run in each phase */
    uint64_t total;           /* running cycles to do in all */
    pid_t tid;
    int cpu;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    shim_thread_attach(); /* a no-op when the thread attached itself */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(w->cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    w->tid = gettid();
    uint64_t done = 0;
    unsigned k = 0;
    while (done < w->total) {
        SHIM_SIGNAL(0, w->tag[k]);
        uint64_t in_phase = 0, last = __rdtsc();
        while (in_phase < w->phase_cycles[k]) {
            uint64_t now = __rdtsc(), step = now - last;
            last = now;
            if (step < GAP) in_phase += step;
        }
        w->ran[k] += in_phase;
        done += in_phase;
        k ^= 1;
    }
    SHIM_SIGNAL(0, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: thread_phases TRUTH_FILE [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    if (shim_start(NULL) != 0) return 1;
    int cpu = sched_getcpu();    /* shim_start() pinned this thread to the observed CPU */
    uint64_t hz = 2000000000ull; /* a rough TSC rate is enough for a duration */
    struct worker w[2] = {
        {.tag = {1, 2}, .phase_cycles = {hz / 1000, hz / 2500}, .cpu = cpu},
        {.tag = {3, 4}, .phase_cycles = {hz / 4000, hz / 1500}, .cpu = cpu},
    };
    w[0].total = w[1].total = (uint64_t)(seconds * (double)hz / 2);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, work, &w[i]) != 0) return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    shim_stop();
    FILE *f = fopen(argv[1], "w");
    if (!f) return 1;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            fprintf(f, "%d %u %llu\n", (int)w[i].tid, w[i].tag[k], (unsigned long long)w[i].ran[k]);
    return fclose(f) != 0;
}
