/*
 * alloc_signal.c -- the allocation signal: how many bytes the observed thread allocates
 * per unit of time, in each phase, function or context it signals.
 *
 * jemalloc keeps, in each thread's thread-specific data, the running total of bytes the
 * thread has ever allocated, counted in jemalloc's size classes (a request for 100 bytes
 * counts 112). mallctl("thread.allocatedp") gives its address, so that a program can read
 * it without a call. That word is what the observer already reads from a signal block: a
 * 64-bit word that one thread writes with plain stores and another loads whole. So this
 * file only hands its address to the probe plan as one more software counter,
 * `allocated`, with the rate `alloc`. The program pays nothing new (jemalloc updates the
 * word on every allocation whether anybody reads it or not) and nothing is hooked into
 * malloc.
 *
 * The address is per thread, so it is looked up on the observed thread, inside
 * shim_start(), and published in the thread's signal block (SHIM_BLOCK_ALLOCATED), where
 * an observer that reads the blocks of whichever thread runs finds it. libshim does not
 * link jemalloc: mallctl is looked up at run time, and is there when the program linked
 * -ljemalloc or runs with libjemalloc.so.2 in LD_PRELOAD. A mallctl from another object
 * than the program's malloc has a counter that never moves: that is not running on
 * jemalloc. It happens when a library the program loads links jemalloc, which then comes
 * after the C library in the search order, and under a sanitizer, whose allocator comes
 * first. A jemalloc built without statistics has no such counter.
 *
 * The word is in the thread's thread-local storage: it stays where it is for as long as
 * the thread lives. When the thread ends, its block is given back and the word is no
 * longer read through it. It wraps at 2^64, like every software counter of the plan.
 *
 * Freed bytes (thread.deallocatedp) could be read the same way. They are not: the
 * allocation rate is what says where a program makes work for its allocator, and each
 * word the observer reads lengthens every sample.
 *
 * SHIM_ALLOC=auto (the default) adds the counter when it can and says nothing when it
 * cannot: most programs do not run on jemalloc. SHIM_ALLOC=on says why it cannot, in one
 * line, and makes that fatal under SHIM_STRICT.
 */
#include "libshim/alloc_signal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int (*mallctl_fn)(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

/* Bytes per 1000 TSC cycles: a program busy allocating small objects does a few bytes
 * per cycle, so per-cycle rates would be small fractions and most phases' rates would
 * fall in SHIM_HIST's first bucket. */
#define ALLOC_RATE_SCALE 1000.0

static const char *file_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path && *path ? path : "the program";
}

/* jemalloc's mallctl when the program's malloc is jemalloc's; else NULL, and why. */
static mallctl_fn find_mallctl(char *why, size_t len)
{
    void *ctl = dlsym(RTLD_DEFAULT, "mallctl"), *mal = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info in_ctl, in_mal;
    if (!ctl) {
        snprintf(why, len, "mallctl not found");
        return NULL;
    }
    if (mal && dladdr(ctl, &in_ctl) && dladdr(mal, &in_mal) &&
        in_ctl.dli_fbase != in_mal.dli_fbase) {
        snprintf(why, len, "mallctl is in %s, but malloc comes from %s",
                 file_name(in_ctl.dli_fname), file_name(in_mal.dli_fname));
        return NULL;
    }
    return (mallctl_fn)ctl;
}

int alloc_signal_thread_word(const uint64_t **word, char *why, size_t len)
{
    mallctl_fn mallctl = find_mallctl(why, len);
    if (!mallctl) return ALLOC_ABSENT;
    uint64_t *w = NULL;
    size_t size = sizeof w;
    int err = mallctl("thread.allocatedp", &w, &size, NULL, 0);
    if (err) {
        snprintf(why, len, "jemalloc's mallctl(\"thread.allocatedp\"): %s%s", strerror(err),
                 err == ENOENT ? " (jemalloc built without --enable-stats?)" : "");
        return ALLOC_UNREADABLE;
    }
    if (size != sizeof w || !w || (uintptr_t)w % sizeof *w) {
        snprintf(why, len,
                 "jemalloc's mallctl(\"thread.allocatedp\") gives no aligned 64-bit word");
        return ALLOC_UNREADABLE;
    }
    *word = w;
    return 0;
}

/* The thread's word where the observer looks for it: its block's reserved word. */
static void publish_word(struct shim_block *b, const uint64_t *word)
{
    __atomic_store_n(&b->reserved[SHIM_BLOCK_ALLOCATED], (uint64_t)(uintptr_t)word,
                     __ATOMIC_RELEASE);
}

int alloc_signal_plan(struct shim_run *r, struct shim_block *b, struct probe_plan *p)
{
    int on = r->settings.alloc == ALLOC_ON, strict = on && r->settings.cfg.strict;
    const uint64_t *word = NULL;
    char why[512];
    if (r->settings.alloc == ALLOC_OFF) return 0;
    int found = alloc_signal_thread_word(&word, why, sizeof why);
    if (found != 0 && !on) return 0; /* auto: nothing to read, nothing to say */
    if (found == ALLOC_ABSENT) {
        run_complain(strict, "the other signals are read",
                     "SHIM_ALLOC=on but the program does not run on jemalloc (%s); link "
                     "-ljemalloc or LD_PRELOAD libjemalloc.so.2",
                     why);
        return strict ? SHIM_EINVAL : 0;
    }
    if (found == ALLOC_UNREADABLE) {
        run_complain(strict, "no allocation rate is read", "SHIM_ALLOC: %s", why);
        return strict ? SHIM_EINVAL : 0;
    }
    /* The program's own signals and events come first; the counter is added only with
     * room for its rate. */
    unsigned at = p->n_hw + p->n_sw;
    if (at >= PROBE_MAX_COUNTERS || p->n_rates >= PROBE_MAX_RATES) {
        run_complain(strict, "no allocation rate is read",
                     "SHIM_ALLOC: no room for jemalloc's counter beside %u counters and %u "
                     "rates (at most %d and %d)",
                     at, p->n_rates, PROBE_MAX_COUNTERS, PROBE_MAX_RATES);
        return strict ? SHIM_EINVAL : 0;
    }
    publish_word(b, word);
    /* read through the block of the running thread, where each thread publishes its own */
    run_add_software(r, p, "allocated", 0, PROBE_SW_RESERVED(SHIM_BLOCK_ALLOCATED), 1.0);
    r->counter[at].source = "jemalloc";
    run_add_rate(r, p, (int)at, PROBE_RATE_PER_TSC, ALLOC_RATE_SCALE, "alloc", NULL);
    r->alloc_read = 1;
    return 0;
}

void alloc_signal_attach(const struct shim_run *r, struct shim_block *b)
{
    const uint64_t *word;
    char why[256];
    if (r->alloc_read && alloc_signal_thread_word(&word, why, sizeof why) == 0)
        publish_word(b, word);
}
