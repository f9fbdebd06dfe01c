/*
 * count_calls.c -- -finstrument-functions hooks that only count, for bench/realprog.
 *
 *     LD_PRELOAD=count_calls.so ./driver N     prints "count_calls: C function entries"
 *                                               on stderr at exit
 *
 * An instrumented program calls __cyg_profile_func_enter on entry to each of its
 * functions (those not inlined). Preloaded, this library's hooks are the ones called,
 * so their count is the number of calls the program makes, the unit in which the cost
 * of hooks and of shim's calling-context runtime is best stated (nanoseconds per call).
 * The count is an atomic add, correct for any number of threads; this run is not timed.
 */
#include <stdio.h>

static unsigned long long entries;

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)fn, (void)site;
    __atomic_fetch_add(&entries, 1, __ATOMIC_RELAXED);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn, (void)site;
}

__attribute__((destructor)) static void count_calls_report(void)
{
    fprintf(stderr, "count_calls: %llu function entries\n",
            __atomic_load_n(&entries, __ATOMIC_RELAXED));
}
