/*
 * producer_consumer.c -- the SHIM paper's producer/consumer microbenchmark (Fig. 8):
 * what does reading a word another core keeps writing cost the writer?
 *
 * The producer (the calling thread, on its CPU) executes p_wait rdtsc instructions, then
 * writes the flag word and a dummy word (which pushes the flag's store out of the store
 * buffer), over and over. The consumer, on the other CPU shim would choose, either does
 * not exist, or is a bare reader that loads the flag and then executes c_wait rdtsc
 * instructions, or is shim's own observer sampling the flag at a target period. For each
 * pair, in interleaved rounds: the producer's slowdown against no consumer, and the
 * consumer's sample period in TSC cycles.
 *
 * With --event NAME (a hardware event libpfm4 knows, e.g. an RFO or snoop event of
 * the CPU), the producer also counts that event for itself and the tables give it per
 * write: the write-invalidations of the paper's Fig. 9/10 where the machine has a PMU.
 *
 * Usage: producer_consumer [--rounds N] [--iterations N] [--csv FILE] [--event NAME]
 */
#include <shim.h>

#include "bench.h"
#include "libshim/events.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

enum { FLAG = 0 };

static uint64_t dummy[16] __attribute__((aligned(128)));
static int consumer_stop, consumer_cpu = -1;
static long c_wait_now;
static uint64_t consumer_reads, consumer_cycles;

static int event_fd = -1;       /* the producer's own count of --event, or -1 */
static double events_per_write; /* of the last produce() */

static uint64_t event_count(void)
{
    uint64_t count = 0, enabled, running;
    if (event_fd >= 0) event_read(event_fd, &count, &enabled, &running);
    return count;
}

/* The producer: iterations x (p_wait rdtsc, flag store, dummy store); TSC cycles taken. */
static uint64_t produce(long iterations, long p_wait)
{
    uint64_t e0 = event_count(), t0 = __rdtsc(), sink = 0;
    for (long i = 0; i < iterations; i++) {
        for (long k = 0; k < p_wait; k++)
            sink += __rdtsc();
        SHIM_SIGNAL(FLAG, i);
        __atomic_store_n(&dummy[0], sink, __ATOMIC_RELAXED);
    }
    uint64_t t = __rdtsc() - t0;
    events_per_write = (double)(event_count() - e0) / (double)iterations;
    return t;
}

/* --event: open it for this thread (the producer), or say why not. */
static int open_event(const char *name)
{
    struct hw_event ev;
    char why[512];
    if (event_encode(name, 0, &ev, why, sizeof why) == 0) {
        ev.attr.read_format = EVENTS_READ_FORMAT;
        event_fd = event_open(&ev.attr, 0, -1, why, sizeof why);
        if (event_fd >= 0) return 0;
    }
    fprintf(stderr, "producer_consumer: --event %s: %s\n", name, why);
    return -1;
}

static void *bare_consumer(void *arg)
{
    const uint64_t *flag = arg;
    uint64_t reads = 0, sink = 0, t0 = __rdtsc();
    while (!__atomic_load_n(&consumer_stop, __ATOMIC_RELAXED)) {
        sink += __atomic_load_n(flag, __ATOMIC_RELAXED);
        for (long k = 0; k < c_wait_now; k++)
            sink += __rdtsc();
        reads++;
    }
    consumer_cycles = __rdtsc() - t0;
    consumer_reads = reads;
    return (void *)(uintptr_t)sink;
}

/* One round with a bare consumer waiting c_wait; its period goes to *period. */
static uint64_t with_bare(long iterations, long p_wait, long c_wait, double *period)
{
    pthread_t t;
    pthread_attr_t attr;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(consumer_cpu, &one);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    c_wait_now = c_wait;
    __atomic_store_n(&consumer_stop, 0, __ATOMIC_RELAXED);
    pthread_create(&t, &attr, bare_consumer, &shim_tls_block->tag[FLAG]);
    pthread_attr_destroy(&attr);
    uint64_t cycles = produce(iterations, p_wait);
    __atomic_store_n(&consumer_stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    *period = consumer_reads ? (double)consumer_cycles / (double)consumer_reads : 0;
    return cycles;
}

/* One round observed by shim at a target period; the median period goes to *period. */
static uint64_t with_shim(long iterations, long p_wait, uint64_t target, double *period)
{
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.period = target;
    cfg.tag_slots = 1u << FLAG;
    cfg.counter_slots = SHIM_TAGS_NONE;
    cfg.observer_cpu = consumer_cpu;
    cfg.output = "/tmp/shim-bench-pc.json";
    if (shim_start(&cfg) != 0) return 0;
    uint64_t cycles = produce(iterations, p_wait);
    shim_stop();
    json_t *profile = json_load_file(cfg.output, 0, NULL);
    *period = profile ? bench_profile_number(profile, "period", "median") : NAN;
    json_decref(profile);
    remove(cfg.output);
    return cycles;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"rounds", "iterations", "csv", "event", NULL};
    const char *v[] = {"5", "200000", NULL, NULL};
    int bad = bench_options(argc, argv, names, v);
    int rounds = atoi(v[0]);
    long iterations = atol(v[1]);
    const char *csv = v[2];
    if (bad || rounds < 1 || rounds > 64 || iterations < 1000) {
        fprintf(stderr,
                "usage: %s [--rounds 1-64] [--iterations N>=1000] [--csv FILE] [--event NAME]\n",
                argv[0]);
        return 2;
    }
    if (v[3] && open_event(v[3]) != 0) return 1;
    setenv("SHIM_QUIET", "1", 1);
    consumer_cpu = bench_other_cpu();
    if (consumer_cpu < 0) {
        fprintf(stderr, "producer_consumer: needs two CPUs\n");
        return 1;
    }
    /* the flag must live in a real block: a first start attaches this thread to one */
    double ignored;
    with_shim(1000, 1, 0, &ignored);

    static const long p_waits[] = {1, 10, 100};
    static const long c_waits[] = {0, 10, 100};
    static const uint64_t periods[] = {0, 1000, 10000};
    FILE *out = csv ? fopen(csv, "w") : NULL;
    if (out)
        fprintf(out, "p_wait,consumer,consumer_wait,consumer_period,producer_slowdown,"
                     "producer_events_per_write\n");
    printf("producer slowdown against no consumer (consumer period in TSC cycles); median of %d "
           "interleaved rounds of %ld writes\n",
           rounds, iterations);
    for (size_t pi = 0; pi < sizeof p_waits / sizeof *p_waits; pi++) {
        long pw = p_waits[pi];
        double base[64], bare[3][64], bare_p[3][64], obs[3][64], obs_p[3][64];
        double base_e[64], bare_e[3][64], obs_e[3][64]; /* --event per write */
        for (int r = 0; r < rounds; r++) {
            base[r] = (double)produce(iterations, pw);
            base_e[r] = events_per_write;
            for (int k = 0; k < 3; k++) {
                bare[k][r] = (double)with_bare(iterations, pw, c_waits[k], &bare_p[k][r]);
                bare_e[k][r] = events_per_write;
                obs[k][r] = (double)with_shim(iterations, pw, periods[k], &obs_p[k][r]);
                obs_e[k][r] = events_per_write;
            }
        }
        double b = bench_median(base, rounds);
        printf("p_wait %4ld (%.0f cycles per write alone", pw, b / (double)iterations);
        if (event_fd >= 0) printf(", %.3f %s per write", bench_median(base_e, rounds), v[3]);
        printf("):\n");
        for (int k = 0; k < 3; k++) {
            double bs = bench_median(bare[k], rounds) / b, bp = bench_median(bare_p[k], rounds);
            double os = bench_median(obs[k], rounds) / b, op = bench_median(obs_p[k], rounds);
            printf("  bare reader, c_wait %4ld: period %7.0f, producer %+6.1f%%   |   shim, "
                   "SHIM_PERIOD=%-6llu: period %7.0f, producer %+6.1f%%\n",
                   c_waits[k], bp, 100 * (bs - 1), (unsigned long long)periods[k], op,
                   100 * (os - 1));
            if (event_fd >= 0)
                printf("    %s per write: bare %.3f, shim %.3f\n", v[3],
                       bench_median(bare_e[k], rounds), bench_median(obs_e[k], rounds));
            if (out) {
                char be[32] = "", oe[32] = "";
                if (event_fd >= 0) {
                    snprintf(be, sizeof be, "%.4f", bench_median(bare_e[k], rounds));
                    snprintf(oe, sizeof oe, "%.4f", bench_median(obs_e[k], rounds));
                }
                fprintf(out, "%ld,bare,%ld,%.1f,%.4f,%s\n", pw, c_waits[k], bp, bs, be);
                fprintf(out, "%ld,shim,%llu,%.1f,%.4f,%s\n", pw, (unsigned long long)periods[k], op,
                        os, oe);
            }
        }
    }
    if (out) fclose(out);
    return 0;
}
