/*
 * snapshot_cost.c -- what SHIM_SNAPSHOT costs the program and the observer.
 *
 * A program does a fixed amount of work (xorshift steps, a tag that takes T distinct
 * values and a counter), observed by shim at its default period, once without snapshots
 * and once with a snapshot every S seconds (SHIM_SNAPSHOT), in interleaved rounds, the
 * order alternating. Per condition: the program's own elapsed time for the work, and
 * from the final profile the observer's median and mean sample period and the share of
 * periods that were interrupted (the snapshot thread shares the observer's CPU: its work
 * shows there, as the keeper's does), the observer thread's CPU time over the run's
 * wall time (what the snapshot thread and anything else on that CPU took from it), the
 * snapshot thread's own CPU time over the run's (the profile's snapshot.cpu_seconds),
 * and how many snapshots were written. The figures are medians over the rounds, and the
 * ratios are taken between conditions measured side by side in the same run.
 *
 * Usage: snapshot_cost [--rounds N] [--seconds S] [--tags T] [--every S] [--csv FILE]
 */
#include <shim.h>

#include <jansson.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The work: n loops of 64 xorshift steps, the tag changing every 256 loops. */
static double work(uint64_t n, unsigned tags)
{
    uint64_t x = 88172645463325252ull;
    double t0 = now();
    for (uint64_t i = 0; i < n; i++) {
        SHIM_SIGNAL(0, 1 + (i >> 8) % tags);
        for (int k = 0; k < 64; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        SHIM_COUNT(0, 1);
    }
    sink = x;
    return now() - t0;
}

/* What one round measures, in the order printed. */
enum {
    PROGRAM_S,
    PERIOD_MEDIAN,
    PERIOD_MEAN,
    INTERRUPTED,
    OBSERVER_CPU,
    SNAPSHOT_CPU,
    SNAPSHOTS,
    NM
};
static const char *const metric_csv[NM] = {
    "program_seconds",    "period_median",      "period_mean", "interrupted",
    "observer_cpu_share", "snapshot_cpu_share", "snapshots"};

/* One observed run of the work into m[]: 0, or -1 when shim could not start or write. */
static int observed(uint64_t n, unsigned tags, const char *every, const char *path,
                    int observer_cpu, double *m)
{
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.counter_slots = 1;
    cfg.tag_slots = 1;
    cfg.observer_cpu = observer_cpu;
    cfg.output = path;
    if (every)
        setenv("SHIM_SNAPSHOT", every, 1);
    else
        unsetenv("SHIM_SNAPSHOT");
    if (shim_start(&cfg) != 0) return -1;
    m[PROGRAM_S] = work(n, tags);
    shim_stop();
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    if (!d) return -1;
    double duration = bench_profile_number(d, "run", "duration_ns") * 1e-9;
    m[PERIOD_MEDIAN] = bench_profile_number(d, "period", "median");
    m[PERIOD_MEAN] = bench_profile_number(d, "period", "mean");
    m[INTERRUPTED] = bench_profile_number(d, "samples", "interrupted") /
                     bench_profile_number(d, "samples", "total");
    m[OBSERVER_CPU] = bench_profile_number(d, "cost", "observer_cpu_share");
    double number = bench_profile_number(d, "snapshot", "number"),
           cpu = bench_profile_number(d, "snapshot", "cpu_seconds");
    m[SNAPSHOTS] = number == number ? number - 1 : 0;
    m[SNAPSHOT_CPU] = cpu == cpu && duration > 0 ? cpu / duration : 0;
    json_decref(d);
    unlink(path);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"rounds", "seconds", "tags", "every", "csv", NULL};
    const char *v[] = {"5", "5", "16", "1", NULL};
    int bad = bench_options(argc, argv, names, v);
    int rounds = atoi(v[0]);
    double seconds = atof(v[1]);
    long tags = atol(v[2]);
    if (bad || rounds < 1 || rounds > 100 || !(seconds > 0) || tags < 1 || atof(v[3]) <= 0) {
        fprintf(stderr,
                "usage: %s [--rounds 1-100] [--seconds S] [--tags T] [--every S] [--csv FILE]\n",
                argv[0]);
        return 2;
    }
    setenv("SHIM_QUIET", "1", 1);
    int observer_cpu = bench_other_cpu();
    if (observer_cpu < 0) {
        fprintf(stderr, "snapshot_cost: needs two CPUs\n");
        return 1;
    }
    /* as many loops as the work takes `seconds` unobserved */
    uint64_t probe = 200000;
    double t = work(probe, (unsigned)tags);
    uint64_t n = (uint64_t)((double)probe * seconds / (t > 0 ? t : 1e-3));
    char path[64];
    snprintf(path, sizeof path, "/tmp/shim-bench-snapshot-%d.json", (int)getpid());

    static double x[2][NM][100];
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int c = (r + k) % 2; /* 0: no snapshots, 1: snapshots; the order alternates */
            double m[NM];
            if (observed(n, (unsigned)tags, c ? v[3] : NULL, path, observer_cpu, m) != 0) {
                fprintf(stderr, "snapshot_cost: shim could not observe or write %s\n", path);
                return 1;
            }
            for (int i = 0; i < NM; i++)
                x[c][i][r] = m[i];
        }
    /* the rounds are paired (both conditions in each, the order alternating): the median
     * of the pairs' ratios is steadier than the ratio of the medians (taken first:
     * bench_median sorts what it is given) */
    double pair[100];
    for (int r = 0; r < rounds; r++)
        pair[r] = x[1][PROGRAM_S][r] / x[0][PROGRAM_S][r];
    double pair_median = bench_median(pair, rounds), lo = pair[0], hi = pair[rounds - 1];
    double med[2][NM];
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < NM; i++)
            med[c][i] = bench_median(x[c][i], rounds);
    char label[64];
    snprintf(label, sizeof label, "a snapshot every %s s", v[3]);
    printf("%d interleaved rounds of %.1f s of work, %ld tag values, default period; medians\n",
           rounds, seconds, tags);
    printf("%-26s %10s %11s %12s %12s %13s %13s %10s\n", "condition", "program s", "period med",
           "period mean", "interrupted", "observer CPU", "snapshot CPU", "snapshots");
    for (int c = 0; c < 2; c++) {
        const double *m = med[c];
        printf("%-26s %10.3f %11.1f %12.1f %11.3f%% %12.2f%% %12.3f%% %10.0f\n",
               c ? label : "no snapshots", m[PROGRAM_S], m[PERIOD_MEDIAN], m[PERIOD_MEAN],
               100 * m[INTERRUPTED], 100 * m[OBSERVER_CPU], 100 * m[SNAPSHOT_CPU], m[SNAPSHOTS]);
    }
    printf("%-26s %10.4f %11.4f %12.4f %12s %12.4f\n", "ratio (snapshots / none)",
           med[1][PROGRAM_S] / med[0][PROGRAM_S], med[1][PERIOD_MEDIAN] / med[0][PERIOD_MEDIAN],
           med[1][PERIOD_MEAN] / med[0][PERIOD_MEAN], "",
           med[1][OBSERVER_CPU] / med[0][OBSERVER_CPU]);
    printf("program time, paired rounds: median ratio %.4f (from %.4f to %.4f)\n", pair_median, lo,
           hi);
    if (v[4]) {
        FILE *out = fopen(v[4], "w");
        if (!out) {
            perror(v[4]);
            return 1;
        }
        fprintf(out, "condition");
        for (int i = 0; i < NM; i++)
            fprintf(out, ",%s", metric_csv[i]);
        fprintf(out, "\n");
        for (int c = 0; c < 2; c++) {
            fprintf(out, "%s", c ? "snapshots" : "none");
            for (int i = 0; i < NM; i++)
                fprintf(out, ",%.6g", med[c][i]);
            fprintf(out, "\n");
        }
        fclose(out);
    }
    return 0;
}
