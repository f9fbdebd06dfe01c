/*
 * machine.c -- TSC frequency, invariance and host facts.
 *
 * The TSC frequency turns cycles into seconds in reports. CPUID leaf 0x15 gives it
 * exactly on recent Intel parts; hypervisors that implement the 0x40000010 timing leaf
 * give it in kHz. Otherwise shim calibrates: the TSC and CLOCK_MONOTONIC_RAW are read
 * together at start and at stop, so the figure comes from the whole run at no cost.
 */
#include "libshim/machine.h"

#include <cpuid.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

/* Some hypervisors advance the TSC in coarse steps; DTE cannot see skew below one. The
 * step is the most common increment between back-to-back reads (the smallest one is
 * not: an occasional adjustment of the virtual TSC gives odd small increments). */
static uint64_t tsc_step(void)
{
    static uint32_t seen[256];
    uint64_t best = 0;
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 2000; i++) {
        uint64_t a = __rdtsc(), b;
        while ((b = __rdtsc()) == a)
            ;
        if (b - a < 256) seen[b - a]++;
    }
    for (uint64_t d = 1; d < 256; d++)
        if (seen[d] > seen[best]) best = d;
    return best;
}

void tsc_probe(struct tsc_info *t)
{
    unsigned a, b, c, d;
    memset(t, 0, sizeof *t);
    t->step = tsc_step();
    if (__get_cpuid(0x80000007, &a, &b, &c, &d)) t->invariant = (d >> 8) & 1;
    if (__get_cpuid_max(0, NULL) >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, d);
        if (a && b && c) {
            t->hz = (double)c * b / a;
            t->source = "cpuid-0x15";
            return;
        }
    }
    __cpuid(0x40000000, a, b, c, d);
    if (a >= 0x40000010 && a < 0x50000000) {
        __cpuid(0x40000010, a, b, c, d);
        if (a) {
            t->hz = a * 1000.0;
            t->source = "cpuid-hypervisor";
        }
    }
}

static int64_t ns_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_pair_take(struct clock_pair *p)
{
    int64_t before = ns_of(CLOCK_MONOTONIC_RAW);
    p->tsc = __rdtsc();
    int64_t after = ns_of(CLOCK_MONOTONIC_RAW);
    p->mono_ns = before + (after - before) / 2;
    p->real_ns = ns_of(CLOCK_REALTIME);
}

void tsc_calibrate(struct tsc_info *t, const struct clock_pair *start, struct clock_pair *end)
{
    if (t->hz > 0) return;
    if (end->mono_ns - start->mono_ns < 10000000) {
        struct timespec ten_ms = {0, 10000000};
        nanosleep(&ten_ms, NULL);
        clock_pair_take(end);
    }
    int64_t ns = end->mono_ns - start->mono_ns;
    if (ns > 0) {
        t->hz = (double)(end->tsc - start->tsc) * 1e9 / (double)ns;
        t->source = "calibrated";
    }
}

void host_probe(struct host_info *h)
{
    struct utsname u;
    memset(h, 0, sizeof *h);
    if (gethostname(h->hostname, sizeof h->hostname - 1) != 0)
        snprintf(h->hostname, sizeof h->hostname, "unknown");
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof h->kernel, "%s %s %s", u.sysname, u.release, u.machine);
}
