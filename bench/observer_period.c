/*
 * observer_period.c -- how fast can the observer sample, against the floor?
 *
 * The floor is a bare loop that does exactly the observer's reading sequence for one
 * software counter and nothing else: rdtscp (start marker), rdtscp (end marker), load
 * the thread word, load the counter, rdtscp (the counter's timestamp). shim's observer
 * does the same and then DTE, the rate, the histograms and the tag table. Both run on the
 * same CPU, one after the other, in interleaved rounds, while the observed thread either
 * keeps writing the counter (busy) or does not touch it (idle). Each period is binned in
 * the same geometric histogram shim uses, so the medians are comparable.
 *
 * Usage: observer_period [--rounds N] [--ms MS] [--csv FILE] [--snapshot SECONDS]
 * Prints one line per condition: floor median, shim median, ratio, shim's DTE kept share.
 * With --snapshot, each round also runs shim with SHIM_SNAPSHOT=SECONDS (rounds of --ms
 * longer than SECONDS then hold snapshots), and a line per condition says that shim's.
 */
#include <shim.h>

#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "observer/loghist.h"
#include "observer/tsc.h"

static uint64_t *counter_word; /* the observed thread's counter slot 0 */
static uint64_t thread_word = 1;
static int floor_stop; /* set by the observed side, read by the floor loop */
static int observer_cpu = -1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *floor_loop(void *arg)
{
    struct loghist *h = arg;
    uint64_t prev = 0, sink = 0;
    while (!__atomic_load_n(&floor_stop, __ATOMIC_RELAXED)) {
        uint64_t cs = tsc_marker(); /* start marker */
        tsc_marker();               /* end marker (no hardware counter between) */
        sink += __atomic_load_n(&thread_word, __ATOMIC_RELAXED);
        sink += __atomic_load_n(counter_word, __ATOMIC_RELAXED);
        tsc_marker(); /* the software counter's own timestamp */
        if (prev) loghist_add(h, (double)(cs - prev));
        prev = cs;
    }
    return (void *)(uintptr_t)sink;
}

/* The observed side: write the counter continuously (busy) or just spin (idle). */
static void observed(int busy, double ms)
{
    double end = now() + ms / 1000.0;
    while (now() < end)
        for (int i = 0; i < 1000; i++) {
            if (busy)
                SHIM_COUNT(0, 1);
            else
                __asm__ volatile("pause");
        }
}

static double floor_round(int busy, double ms, double *mean)
{
    struct loghist h;
    pthread_t t;
    pthread_attr_t attr;
    cpu_set_t one;
    loghist_init(&h, 5, 0, 40);
    CPU_ZERO(&one);
    CPU_SET(observer_cpu, &one);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    __atomic_store_n(&floor_stop, 0, __ATOMIC_RELAXED);
    pthread_create(&t, &attr, floor_loop, &h);
    pthread_attr_destroy(&attr);
    observed(busy, ms);
    __atomic_store_n(&floor_stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    double median = loghist_quantile(&h, 0.5);
    *mean = h.sum / (double)h.count;
    loghist_free(&h);
    return median;
}

static double shim_round(int busy, double ms, const char *path, const char *snapshot, double *kept,
                         double *mean)
{
    struct shim_config cfg;
    if (snapshot)
        setenv("SHIM_SNAPSHOT", snapshot, 1);
    else
        unsetenv("SHIM_SNAPSHOT");
    shim_config_init(&cfg);
    cfg.period = 0;
    cfg.counter_slots = 1;
    cfg.tag_slots = SHIM_TAGS_NONE;
    cfg.observer_cpu = observer_cpu;
    cfg.output = path;
    if (shim_start(&cfg) != 0) return -1;
    observed(busy, ms);
    shim_stop();
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    if (!d) return -1;
    double median = bench_profile_number(d, "period", "median");
    *mean = bench_profile_number(d, "period", "mean");
    *kept =
        bench_profile_number(d, "samples", "kept") / bench_profile_number(d, "samples", "rated");
    json_decref(d);
    unlink(path);
    return median;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"rounds", "ms", "csv", "snapshot", NULL};
    const char *v[] = {"5", "300", NULL, NULL};
    int bad = bench_options(argc, argv, names, v);
    int rounds = atoi(v[0]);
    double ms = atof(v[1]);
    const char *csv = v[2];
    if (bad || rounds < 1 || rounds > 100 || ms <= 0) {
        fprintf(stderr, "usage: %s [--rounds 1-100] [--ms MS] [--csv FILE] [--snapshot SECONDS]\n",
                argv[0]);
        return 2;
    }
    setenv("SHIM_QUIET", "1", 1);
    /* The observed thread stays where it is; the observer (floor or shim) takes the
     * other CPU, like shim's own placement on a 2-CPU machine. */
    int here = sched_getcpu();
    cpu_set_t allowed, one;
    sched_getaffinity(0, sizeof allowed, &allowed);
    observer_cpu = bench_other_cpu();
    if (observer_cpu < 0) {
        fprintf(stderr, "observer_period: needs two CPUs\n");
        return 1;
    }
    CPU_ZERO(&one);
    CPU_SET(here, &one);
    counter_word = &shim_tls_block->counter[0];
    char path[64];
    snprintf(path, sizeof path, "/tmp/shim-bench-period-%d.json", (int)getpid());

    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (out)
        fprintf(out, "condition,floor_median,shim_median,median_ratio,floor_mean,shim_mean,"
                     "mean_ratio,dte_kept\n");
    printf("periods in TSC cycles; each figure the median over %d interleaved rounds of %.0f ms\n",
           rounds, ms);
    printf("%-6s %14s %14s %7s %12s %12s %7s %9s\n", "writer", "floor median", "shim median",
           "ratio", "floor mean", "shim mean", "ratio", "DTE kept");
    for (int busy = 0; busy <= 1; busy++) {
        double f[100], s[100], k[100], fa[100], sa[100], sn[100], kn[100], na[100];
        for (int r = 0; r < rounds; r++) {
            sched_setaffinity(0, sizeof one, &one); /* as shim pins it */
            f[r] = floor_round(busy, ms, &fa[r]);
            sched_setaffinity(0, sizeof allowed, &allowed);
            s[r] = shim_round(busy, ms, path, NULL, &k[r], &sa[r]);
            if (v[3]) sn[r] = shim_round(busy, ms, path, v[3], &kn[r], &na[r]);
            if (r == 0) /* the first shim_start also made the block the floor reads */
                counter_word = &shim_tls_block->counter[0];
        }
        double fm = bench_median(f, rounds), sm = bench_median(s, rounds),
               km = bench_median(k, rounds);
        double fam = bench_median(fa, rounds), sam = bench_median(sa, rounds);
        printf("%-6s %14.1f %14.1f %7.3f %12.1f %12.1f %7.3f %8.1f%%\n", busy ? "busy" : "idle", fm,
               sm, sm / fm, fam, sam, sam / fam, 100 * km);
        if (out)
            fprintf(out, "%s,%.1f,%.1f,%.4f,%.1f,%.1f,%.4f,%.4f\n", busy ? "busy" : "idle", fm, sm,
                    sm / fm, fam, sam, sam / fam, km);
        if (!v[3]) continue;
        double snm = bench_median(sn, rounds), snk = bench_median(kn, rounds),
               sna = bench_median(na, rounds);
        printf("%-6s %14s %14.1f %7.3f %12s %12.1f %7.3f %8.1f%%   snapshots every %s s\n",
               busy ? "busy" : "idle", "", snm, snm / fm, "", sna, sna / fam, 100 * snk, v[3]);
        if (out)
            fprintf(out, "%s+snapshot,%.1f,%.1f,%.4f,%.1f,%.1f,%.4f,%.4f\n", busy ? "busy" : "idle",
                    fm, snm, snm / fm, fam, sna, sna / fam, snk);
    }
    if (out) fclose(out);
    return 0;
}
