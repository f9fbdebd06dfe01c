/*
 * shim.h -- the one public header of shim, a performance microscope.
 *
 * A program calls shim_start(), and from then on an observer thread pinned on a
 * neighbouring hardware context reads the program's signal words (and, where the
 * machine has them, hardware counters) every few hundred cycles, without interrupts.
 * The program says what it is doing by storing small values into its signal block:
 *
 *     SHIM_SIGNAL(slot, value)   a tag: "this thread is now in phase 3"
 *     SHIM_COUNT(slot, delta)    a software counter: "4 more items processed"
 *
 * Each macro is one store (or one add) through an initial-exec thread-local pointer:
 * no call, no branch. Before shim_start() the pointer targets a dummy block, so the
 * macros are always safe; with -DSHIM_DISABLE they compile to nothing (their arguments
 * are not evaluated). docs/signals.md shows the instructions they generate.
 *
 * Every function returns 0 or a negative SHIM_E* code; shim_strerror() names it.
 * shim never exits or crashes the host program on its own account: a bad setting is
 * one line on stderr and the program runs on unprofiled, unless SHIM_STRICT=1 asks
 * for exit status SHIM_STRICT_EXIT_STATUS instead.
 */
#ifndef SHIM_H
#define SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SHIM_API __attribute__((visibility("default")))
#else
#define SHIM_API
#endif

#define SHIM_VERSION_MAJOR 0
#define SHIM_VERSION_MINOR 1
#define SHIM_VERSION_PATCH 0

/* Tag slots 0..SHIM_USER_TAG_SLOTS-1 belong to the program; the rest are reserved for
 * the automatic signals (method, calling context, loop, path). */
#define SHIM_TAG_SLOTS      16
#define SHIM_USER_TAG_SLOTS 8
#define SHIM_COUNTER_SLOTS  8

/* Exit status used when SHIM_STRICT=1 turns a shim error into an exit. */
#define SHIM_STRICT_EXIT_STATUS 125

/* One thread's signal words. The program stores, the observer loads; nothing else
 * writes here. Aligned and padded so no other data shares its cache lines (nor the
 * adjacent-line prefetch pair). */
struct shim_block {
    uint64_t tag[SHIM_TAG_SLOTS];         /* current value of each tag slot */
    uint64_t counter[SHIM_COUNTER_SLOTS]; /* running total of each software counter */
    uint64_t reserved[8];
} __attribute__((aligned(128)));

enum shim_error {
    SHIM_OK = 0,
    SHIM_EINVAL = -1,      /* a configuration value is out of range or malformed */
    SHIM_EBUSY = -2,       /* shim_start() while already observing */
    SHIM_ENOTSTARTED = -3, /* shim_stop() without a running observer */
    SHIM_ENOCPU = -4,      /* no CPU to put the observer on */
    SHIM_ENOMEM = -5,      /* out of memory while starting */
    SHIM_ETOPOLOGY = -6,   /* the machine topology could not be read or pinning failed */
    SHIM_ETHREAD = -7,     /* the observer thread could not be created */
    SHIM_EIO = -8,         /* the profile could not be written */
    SHIM_EDISABLED = -9,   /* SHIM_DISABLE=1, or a set-user-ID program: shim does not observe */
    SHIM_EFORKED = -10,    /* called in a child forked while observing */
};

/* Configuration. Fill with shim_config_init(), change what you need, pass to
 * shim_start(). The environment (SHIM_*) is applied on top, so a user can retune a
 * built program without recompiling; see docs/environment.md for every variable. */
struct shim_config {
    uint32_t size;          /* sizeof(struct shim_config); set by shim_config_init() */
    const char *output;     /* profile path; %p pid, %e program name, %% percent;
                             * NULL: "shim-%e-%p.json" in the working directory */
    uint64_t period;        /* target sample period in TSC cycles (default 1000); 0: as
                             * fast as possible (see docs/guide.md: finest, but biased) */
    int observer_cpu;       /* CPU for the observer; -1: choose (SMT sibling, else the
                             * nearest core by shared cache) */
    double dte_tolerance;   /* keep a sample's rates only if |CPC - 1| <= this; in [0,1] */
    int dte_off;            /* nonzero: keep every sample's rates (CPC still recorded) */
    int strict;             /* nonzero: errors exit with SHIM_STRICT_EXIT_STATUS */
    uint32_t tag_slots;     /* bitmask of tag slots to read; 0: slot 0 and every slot
                             * named before shim_start(); SHIM_TAGS_NONE: none */
    uint32_t counter_slots; /* bitmask of counter slots to read; 0: every counter named
                             * before shim_start() */
    double counter_scale[SHIM_COUNTER_SLOTS]; /* rate = delta * scale / TSC cycles; 0 = 1 */
    uint32_t hist_buckets;                    /* rate histogram buckets per tag (default 500) */
    double hist_lo; /* histogram range [hist_lo, hist_hi) (default [0, 4)) */
    double hist_hi;
    uint32_t max_tags; /* the most tag tuples kept; further ones go to "other" (1048576) */
    double jitter;     /* period randomisation: wait uniform in period*(1 +- jitter) */
};

#define SHIM_TAGS_NONE 0x80000000u

/* Fill *cfg with the defaults (environment not applied). */
SHIM_API void shim_config_init(struct shim_config *cfg);

/* Start observing the calling thread. cfg NULL: defaults. Returns 0 or SHIM_E*. */
SHIM_API int shim_start(const struct shim_config *cfg);

/* Stop observing and write the profile. Also runs at exit if not called. */
SHIM_API int shim_stop(void);

/* Observe the calling thread too: give it a signal block of its own (its tags and
 * counters), so that samples taken while it runs on an observed CPU are its own
 * (docs/guide.md, "Threads"). Threads created while shim is observing do this by themselves
 * before they run; a thread that exists before shim_start() calls it. A thread's block
 * goes back to the pool when the thread exits, or with shim_thread_detach().
 * Returns 0, SHIM_ENOTSTARTED, or SHIM_ENOMEM when every block is taken. */
SHIM_API int shim_thread_attach(void);
SHIM_API int shim_thread_detach(void);

/* Nonzero while an observer is running. */
SHIM_API int shim_running(void);

/* Text for a SHIM_E* code (or "success"). Never NULL. */
SHIM_API const char *shim_strerror(int err);

/* Names that reports show instead of numbers. Callable at any time from any thread;
 * the name is copied. A tag slot or counter named before shim_start() is observed by
 * default. Returns 0 or SHIM_EINVAL (slot out of range, NULL or empty name). */
SHIM_API int shim_name_slot(unsigned slot, const char *name);
SHIM_API int shim_name_tag(unsigned slot, uint64_t value, const char *name);
SHIM_API int shim_name_counter(unsigned slot, const char *name);

/* The path the profile was (or will be) written to; NULL before the first start. */
SHIM_API const char *shim_output_path(void);

#ifndef SHIM_DISABLE
/* The calling thread's signal block; targets a dummy block until shim_start(). */
SHIM_API extern __thread struct shim_block *shim_tls_block
    __attribute__((tls_model("initial-exec")));

/* One relaxed atomic store: no fence, no lock prefix, just a mov. The slot is masked
 * to the block so even a wrong slot number cannot write outside it; with a constant
 * slot the mask folds away. */
#define SHIM_SIGNAL(slot, value)                                                                   \
    __atomic_store_n(&shim_tls_block->tag[(unsigned)(slot) & (SHIM_TAG_SLOTS - 1)],                \
                     (uint64_t)(value), __ATOMIC_RELAXED)

/* Only the owning thread writes its counters, so a relaxed load + add + relaxed store is
 * enough (no lock prefix): a plain add the observer may read at any moment. */
#define SHIM_COUNT(slot, delta)                                                                    \
    do {                                                                                           \
        uint64_t *shim_word_ =                                                                     \
            &shim_tls_block->counter[(unsigned)(slot) & (SHIM_COUNTER_SLOTS - 1)];                 \
        __atomic_store_n(shim_word_,                                                               \
                         __atomic_load_n(shim_word_, __ATOMIC_RELAXED) + (uint64_t)(delta),        \
                         __ATOMIC_RELAXED);                                                        \
    } while (0)
#else
#define SHIM_SIGNAL(slot, value) ((void)0)
#define SHIM_COUNT(slot, delta)  ((void)0)
#endif

#ifdef __cplusplus
}
#endif
#endif /* SHIM_H */
