/*
 * driver.h -- what the drivers of bench/realprog's real programs share: the clock they
 * time their work with and the reading of their count of iterations. Each driver is
 * compiled with its program's variant (instrumented, or with the compiler pass), so
 * this stays small and static: no library of its own to build in every variant.
 */
#ifndef SHIM_REALPROG_DRIVER_H
#define SHIM_REALPROG_DRIVER_H

#include <errno.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double driver_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The count of iterations arg asks for, or 0 when it is not a positive decimal number. */
static inline unsigned long driver_iterations(const char *arg)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(arg, &end, 10);
    return errno || *end || arg[0] < '0' || arg[0] > '9' ? 0 : n;
}

#endif
