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
 * wall time (what the snapshot thread took from it), and how many snapshots were
 * written. The figures
 * are medians over the rounds, and the ratios are taken between conditions measured side
 * by side in the same run.
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

struct result {
    double seconds, median, mean, interrupted, snapshots, observer_share;
};

/* One observed run of the work: 0, or -1 when shim could not start or write. */
static int observed(uint64_t n, unsigned tags, const char *every, const char *path,
                    int observer_cpu, struct result *out)
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
    out->seconds = work(n, tags);
    shim_stop();
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    if (!d) return -1;
    out->median = bench_profile_number(d, "period", "median");
    out->mean = bench_profile_number(d, "period", "mean");
    out->interrupted = bench_profile_number(d, "samples", "interrupted") /
                       bench_profile_number(d, "samples", "total");
    out->observer_share = bench_profile_number(d, "cost", "observer_cpu_share");
    double number = bench_profile_number(d, "snapshot", "number");
    out->snapshots = number == number ? number - 1 : 0;
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

    double sec[2][100], med[2][100], mean[2][100], intr[2][100], snaps[2][100], cpu[2][100];
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int c = (r + k) % 2; /* 0: no snapshots, 1: snapshots; the order alternates */
            struct result res;
            if (observed(n, (unsigned)tags, c ? v[3] : NULL, path, observer_cpu, &res) != 0) {
                fprintf(stderr, "snapshot_cost: shim could not observe or write %s\n", path);
                return 1;
            }
            sec[c][r] = res.seconds;
            med[c][r] = res.median;
            mean[c][r] = res.mean;
            intr[c][r] = res.interrupted;
            snaps[c][r] = res.snapshots;
            cpu[c][r] = res.observer_share;
        }
    double m[2][6];
    for (int c = 0; c < 2; c++) {
        m[c][0] = bench_median(sec[c], rounds);
        m[c][1] = bench_median(med[c], rounds);
        m[c][2] = bench_median(mean[c], rounds);
        m[c][3] = bench_median(intr[c], rounds);
        m[c][4] = bench_median(cpu[c], rounds);
        m[c][5] = bench_median(snaps[c], rounds);
    }
    char label[64];
    snprintf(label, sizeof label, "a snapshot every %s s", v[3]);
    printf("%d interleaved rounds of %.1f s of work, %ld tag values, default period; medians\n",
           rounds, seconds, tags);
    printf("%-26s %10s %11s %12s %12s %13s %10s\n", "condition", "program s", "period med",
           "period mean", "interrupted", "observer CPU", "snapshots");
    for (int c = 0; c < 2; c++)
        printf("%-26s %10.3f %11.1f %12.1f %11.3f%% %12.2f%% %10.0f\n", c ? label : "no snapshots",
               m[c][0], m[c][1], m[c][2], 100 * m[c][3], 100 * m[c][4], m[c][5]);
    printf("%-26s %10.4f %11.4f %12.4f %12s %12.4f\n", "ratio (snapshots / none)",
           m[1][0] / m[0][0], m[1][1] / m[0][1], m[1][2] / m[0][2], "", m[1][4] / m[0][4]);
    if (v[4]) {
        FILE *out = fopen(v[4], "w");
        if (!out) {
            perror(v[4]);
            return 1;
        }
        fprintf(out, "condition,program_seconds,period_median,period_mean,interrupted,"
                     "observer_cpu_share,snapshots\n");
        for (int c = 0; c < 2; c++)
            fprintf(out, "%s,%.4f,%.1f,%.1f,%.5f,%.4f,%.0f\n", c ? "snapshots" : "none", m[c][0],
                    m[c][1], m[c][2], m[c][3], m[c][4], m[c][5]);
        fprintf(out, "ratio,%.4f,%.4f,%.4f,,%.4f,\n", m[1][0] / m[0][0], m[1][1] / m[0][1],
                m[1][2] / m[0][2], m[1][4] / m[0][4]);
        fclose(out);
    }
    return 0;
}
