/*
 * threads.c -- a multi-threaded program observed by shim: workers that share the
 * observed CPU, each signalling its own phases.
 *
 * Build and run (after installing shim):
 *
 *     cc -O2 threads.c $(pkg-config --cflags --libs shim) -lpthread -o threads
 *     ./threads
 *     shimview report shim-threads-<pid>.json     # the threads' phases, merged
 *     shimview threads shim-threads-<pid>.json    # one row per thread
 *
 * The main thread starts shim, then creates the workers: a thread created while shim
 * observes gets a signal block of its own before it runs (libshim wraps
 * pthread_create), so each worker's SHIM_SIGNAL and SHIM_COUNT are its own words.
 * Where the process may load BPF programs (root, or CAP_BPF and CAP_PERFMON) the
 * observer knows which thread runs on the observed CPU at every sample, and the workers
 * are kept on that CPU, so their time is told apart; elsewhere shim says once what it
 * cannot do (docs/guide.md, "Threads").
 *
 * Each worker goes round "hash" (a tight arithmetic loop) and "sort" (insertion sorts of
 * small arrays), counting the items it finishes; a "mixer" worker has a third phase,
 * "wait", in which it sleeps, so that the other workers get the CPU meanwhile.
 *
 * Usage: threads [SECONDS] [WORKERS]
 */
#include <shim.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { PHASE = 0, ITEMS = 0 };
enum { HASH = 1, SORT = 2, WAIT = 3 };

struct worker {
    pthread_t thread;
    int id;
    double seconds;
    uint64_t items;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t hash_item(uint64_t x)
{
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

static uint64_t sort_item(uint64_t seed)
{
    uint32_t a[64];
    for (int i = 0; i < 64; i++)
        a[i] = (uint32_t)(seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 7;
    for (int i = 1; i < 64; i++)
        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
            uint32_t t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
    return seed ^ a[0];
}

static void *work(void *arg)
{
    struct worker *w = arg;
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
    double end = now() + w->seconds;
    while (now() < end) {
        SHIM_SIGNAL(PHASE, HASH);
        for (int i = 0; i < 200; i++, w->items++) {
            x = hash_item(x);
            SHIM_COUNT(ITEMS, 1);
        }
        SHIM_SIGNAL(PHASE, SORT);
        for (int i = 0; i < 300; i++, w->items++) {
            x = sort_item(x);
            SHIM_COUNT(ITEMS, 1);
        }
        if (w->id == 0) { /* the mixer */
            SHIM_SIGNAL(PHASE, WAIT);
            nanosleep(&(struct timespec){.tv_nsec = 500000}, NULL);
        }
    }
    SHIM_SIGNAL(PHASE, 0);
    return (void *)(uintptr_t)x;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    int n = argc > 2 ? atoi(argv[2]) : 3;
    if (!(seconds > 0) || n < 1 || n > 64) {
        fprintf(stderr, "usage: threads [SECONDS > 0] [WORKERS 1-64]\n");
        return 2;
    }
    shim_name_slot(PHASE, "phase");
    shim_name_tag(PHASE, HASH, "hash");
    shim_name_tag(PHASE, SORT, "sort");
    shim_name_tag(PHASE, WAIT, "wait");
    shim_name_counter(ITEMS, "items");
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.counter_scale[ITEMS] = 1000.0; /* items per 1000 cycles */
    int rc = shim_start(&cfg);
    if (rc != 0) fprintf(stderr, "threads: not observed: %s\n", shim_strerror(rc));
    struct worker *w = calloc((size_t)n, sizeof *w);
    if (!w) return 1;
    for (int i = 0; i < n; i++) {
        w[i] = (struct worker){.id = i, .seconds = seconds};
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) return 1;
        char name[16];
        snprintf(name, sizeof name, i ? "worker-%d" : "mixer", i);
        pthread_setname_np(w[i].thread, name);
    }
    uint64_t items = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(w[i].thread, NULL);
        items += w[i].items;
    }
    shim_stop();
    printf("%d workers, %.1f s: %llu items\n", n, seconds, (unsigned long long)items);
    free(w);
    return 0;
}
