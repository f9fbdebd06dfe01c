/*
 * machine.h -- facts about the machine the profile records: TSC frequency (and how it
 * was found), TSC invariance, kernel and host name.
 */
#ifndef SHIM_LIBSHIM_MACHINE_H
#define SHIM_LIBSHIM_MACHINE_H

#include <stdint.h>

struct tsc_info {
    double hz;          /* 0 until known */
    const char *source; /* cpuid-0x15, cpuid-hypervisor, calibrated */
    int invariant;      /* CPUID 0x80000007 EDX bit 8 */
    uint64_t step;      /* usual increment between two reads (0: unknown) */
};

/* A (TSC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME) triple taken as close together as
 * possible; two of them calibrate the TSC over a run. */
struct clock_pair {
    uint64_t tsc;
    int64_t mono_ns, real_ns;
};

void tsc_probe(struct tsc_info *t);
void clock_pair_take(struct clock_pair *p);

/* Fill in hz from two clock pairs when CPUID did not give it. Runs shorter than 10 ms
 * are extended by a short calibration so the figure stays within 0.1%. */
void tsc_calibrate(struct tsc_info *t, const struct clock_pair *start, struct clock_pair *end);

struct host_info {
    char hostname[256], kernel[256];
};
void host_probe(struct host_info *h);

#endif
