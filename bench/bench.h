/*
 * bench.h -- what the measurement programs share: "--name value" options, the median
 * of interleaved rounds, the CPU the observer goes on, and numbers read back from a
 * profile shim wrote (with jansson, like every reader of profiles).
 */
#ifndef SHIM_BENCH_H
#define SHIM_BENCH_H

#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Fill values[i] with the argument after "--names[i]" (left alone when absent). Every
 * argument must be such a pair: returns -1 on an unknown name or a missing value. */
static inline int bench_options(int argc, char **argv, const char *const *names,
                                const char **values)
{
    for (int a = 1; a < argc; a += 2) {
        int known = 0;
        for (int i = 0; names[i]; i++)
            if (argv[a][0] == '-' && argv[a][1] == '-' && !strcmp(argv[a] + 2, names[i])) {
                if (a + 1 >= argc) return -1;
                values[i] = argv[a + 1];
                known = 1;
            }
        if (!known) return -1;
    }
    return 0;
}

static inline int bench_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of n values (sorts them). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The first CPU this process may use other than the one it runs on (where shim puts
 * the observer on a 2-CPU machine), or -1. */
static inline int bench_other_cpu(void)
{
    cpu_set_t allowed;
    int here = sched_getcpu();
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (c != here && CPU_ISSET(c, &allowed)) return c;
    return -1;
}

/* profile[object][member] as a number, NaN when absent. */
static inline double bench_profile_number(const json_t *profile, const char *object,
                                          const char *member)
{
    json_t *v = json_object_get(json_object_get(profile, object), member);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

#endif
