/*
 * config.h -- the resolved configuration: defaults, then the program's struct, then
 * the SHIM_* environment (see config.c for the rules).
 */
#ifndef SHIM_LIBSHIM_CONFIG_H
#define SHIM_LIBSHIM_CONFIG_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libshim/events.h"
#include "shim.h"

#define SHIM_MAX_PERIOD   1000000000000ull /* 1e12 TSC cycles: minutes on any machine */
#define SHIM_MAX_BUCKETS  100000u
#define SHIM_MAX_TAG_CAP  (1u << 24)
#define SHIM_DEFAULT_TAGS (1u << 20)
/* The sample period when nobody chose one: SHIM_DEFAULT_PERIOD, or, for a program whose
 * compiler-made signals (the pass, or -finstrument-functions) it writes on every call,
 * SHIM_AUTO_PERIOD: each sample's read of those lines costs the program a cache miss on
 * its next store (docs/calling-contexts.md, "The observer's share"). */
#define SHIM_DEFAULT_PERIOD      1000u
#define SHIM_AUTO_PERIOD         40000u
#define SHIM_DEFAULT_HIST_TUPLES 256u
#define SHIM_MAX_HIST_TUPLES     (1u << 16)
/* Tag entries and calling-context nodes a profile holds as JSON; beyond, its table file
 * (docs/profile-format.md, "Large profiles"): about 20 MB of JSON, read in half a second. */
#define SHIM_DEFAULT_INLINE_MAX 100000u
#define SHIM_MAX_TABLE_BYTES    ((size_t)256 << 20) /* what the observer's tables take at once */
#define SHIM_DEFAULT_OUTPUT     "shim-%e-%p.json"
#define SHIM_DEFAULT_SLOW       2000000u /* TSC cycles: just under a millisecond at 2-3 GHz */
#define SHIM_MIN_SLOW           100000u
#define SHIM_DEFAULT_TRACE      ((uint64_t)64 << 20)
#define SHIM_MIN_TRACE          ((uint64_t)64 << 10)
#define SHIM_MAX_TRACE          ((uint64_t)64 << 30)

/* SHIM_ALLOC: read jemalloc's per-thread counters when the program runs on it (auto),
 * and say why not when it does not (on), or never (off). */
enum alloc_mode { ALLOC_AUTO, ALLOC_ON, ALLOC_OFF };

/* SHIM_SIGINT: write the profile on SIGINT left at its default action when the program
 * calls shim_start() itself, not when shim starts before main() (auto); always (on);
 * never (off). termination.c says why. */
enum sigint_mode { SIGINT_AUTO, SIGINT_ON, SIGINT_OFF };

/* SHIM_THREAD_ID: where the observer learns which thread runs on the observed CPU: BPF
 * where it can be loaded (auto), BPF or an error (bpf), or never: the thread that called
 * shim_start() (pinned). */
enum thread_id_mode { THREAD_ID_AUTO, THREAD_ID_BPF, THREAD_ID_PINNED };

#define SHIM_MAX_OBSERVERS 64

/* SHIM_SNAPSHOT's limits in seconds, and SHIM_SNAPSHOT_KEEP's (snapshot.c) */
#define SHIM_MIN_SNAPSHOT      0.1
#define SHIM_MAX_SNAPSHOT      86400.0
#define SHIM_MAX_SNAPSHOT_KEEP 100000u

struct shim_settings {
    struct shim_config cfg; /* cfg.output points at output[] */
    char output[PATH_MAX];
    char rates[512];                              /* SHIM_RATES as given ("" = none) */
    char event_names[EVENTS_MAX][EVENT_NAME_MAX]; /* SHIM_EVENTS */
    unsigned n_events;
    enum event_scope event_scope;  /* SHIM_EVENT_SCOPE */
    uint64_t slow_period;          /* SHIM_SLOW_PERIOD: TSC cycles between slow reads */
    int period_given;              /* SHIM_PERIOD set, or a struct period other than the
                                      default: the period is the user's, never changed */
    int hooks_frames;              /* SHIM_HOOKS: 1 frames (the -finstrument-functions hooks
                                      publish the frame signal, not the tree), 0 tree (the
                                      default), -1 auto (frames where the instrumented code
                                      keeps frame pointers; decided at the start) */
    uint32_t hist_tuples;          /* SHIM_HIST_TUPLES: tuples that get rate histograms */
    uint64_t inline_max;           /* SHIM_INLINE_MAX: tag entries (and calling-context
                                      nodes) the JSON profile holds; more go to its table
                                      file (profile_table.c) */
    int trace_on;                  /* SHIM_TRACE set */
    char trace[PATH_MAX];          /* its path pattern; "" = beside the profile */
    uint64_t trace_max;            /* its size limit in bytes */
    char by_y[64], by_x[64];       /* SHIM_BY: rate y bucketed by rate x ("" = off) */
    unsigned by_buckets;           /* 20 unless given */
    double by_lo, by_hi;           /* the span of x; by_lo == by_hi: SHIM_HIST's */
    int disable;                   /* SHIM_DISABLE=1 */
    int quiet;                     /* SHIM_QUIET=1: no summary line at stop */
    enum alloc_mode alloc;         /* SHIM_ALLOC: jemalloc's per-thread byte counters */
    enum sigint_mode sigint;       /* SHIM_SIGINT */
    enum thread_id_mode thread_id; /* SHIM_THREAD_ID */
    unsigned observers;            /* SHIM_OBSERVERS: 1 unless given; 0: auto */
    double snapshot;               /* SHIM_SNAPSHOT: seconds between snapshots; 0: none */
    unsigned snapshot_keep;        /* SHIM_SNAPSHOT_KEEP: numbered snapshot files kept */
};

/* One environment variable the configuration knows. */
struct config_var {
    const char *name;
    const char *accepts; /* what the error message says is accepted */
    int (*parse)(struct shim_settings *s, const char *value);
};

/* The table of every SHIM_* variable, NULL-terminated; used for parsing and for the
 * unknown-variable check (tests/docs checks that docs/environment.md documents each). */
extern const struct config_var config_vars[];

/* Fill s with the defaults. */
void config_defaults(struct shim_settings *s);

/* Check a program-supplied struct and copy it into s. Writes one line per bad field to
 * err. Returns the number of bad fields. */
int config_apply_struct(struct shim_settings *s, const struct shim_config *cfg, FILE *err);

/* Apply one variable: 0, or -1 with one line on err naming variable, value and what is
 * accepted. Unknown names are -1 too. */
int config_apply_var(struct shim_settings *s, const char *name, const char *value, FILE *err);

/* Apply every SHIM_* entry of envp (NULL-terminated "NAME=value" strings). Unknown
 * SHIM_* names give a warning line and are not errors; a name given twice is an error.
 * Returns the number of errors. */
int config_apply_env(struct shim_settings *s, char *const *envp, FILE *err);

/* One derived rate of SHIM_RATES: NAME=NUM[*SCALE]/DEN, NUM and DEN counter names or
 * "cycles" (the TSC). */
struct rate_spec {
    char name[64], num[64], den[64];
    double scale;
};

/* Parse a SHIM_RATES value into at most max specs: the number parsed, or -1 with what
 * is wrong in why. Names are resolved later, against the counters read. */
int config_parse_rates(const char *spec, struct rate_spec *out, unsigned max, char *why,
                       size_t whylen);

/* SHIM_ALLOC's value as written: "auto", "on" or "off". */
const char *config_alloc_name(enum alloc_mode m);

/* SHIM_THREAD_ID's value as written: "auto", "bpf" or "pinned". */
const char *config_thread_id_name(enum thread_id_mode m);

/* Expand %p, %e, %% of an output pattern. Returns 0 or -1 (too long, or an unknown
 * %-sequence). */
int config_expand_output(const char *pattern, long pid, const char *prog, char *out, size_t outlen);

#endif
