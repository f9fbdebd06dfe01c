/*
 * run.h -- everything the coordinator knows about one observation run, from
 * shim_start() to the profile. Owned by lifecycle.c; read by the profile writer.
 */
#ifndef SHIM_LIBSHIM_RUN_H
#define SHIM_LIBSHIM_RUN_H

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/types.h>

#include "config.h"
#include "keeper.h"
#include "machine.h"
#include "observer.h"
#include "affinity.h"
#include "topology.h"
#include "trace_writer.h"
#include "unread.h"

#define RUN_MAX_THREADS 1024 /* threads the profile lists by id */
#define RUN_THREAD_NAME 16   /* the kernel's limit, with the terminating 0 */

/* An observer beyond the first (SHIM_OBSERVERS): its own observed CPU and thread word. */
struct run_observer {
    struct observer obs;
    struct placement placement;
    pthread_t thread;
    uint64_t samples; /* its periods, before they were added to the first observer's */
    /* Without BPF: the thread pinned on its observed CPU (0 until one is) */
    _Alignas(64) uint64_t thread_word;
};

/* One reading of the plan (same index), as the profile names it. */
struct run_counter {
    char name[EVENT_LABEL_MAX];
    char event[256];    /* hardware: libpfm4's fully qualified name */
    const char *kind;   /* "software" or "hardware" */
    const char *source; /* software: NULL for a signal block's word, "jemalloc" (alloc_signal.c) */
    const char *scope;  /* hardware: "core", "observer", "thread" or "uncore" */
    unsigned slot;      /* software: the counter slot (jemalloc's: 0); hardware: the
                         * event's place in SHIM_EVENTS */
    unsigned width;     /* bits before the counter wraps */
    double scale;
    char unit[16]; /* what count x scale is in, when the kernel says (MiB); else "" */
    int fd;        /* hardware: the perf event, else -1 */
    struct perf_event_mmap_page *page;
    int rdpmc;       /* the page allowed rdpmc when the observer started */
    double counting; /* the share of the run the event was on a counter, at stop */
};

/* One rate of the plan (same index). */
struct run_rate {
    char name[EVENT_LABEL_MAX];
    char counter[EVENT_LABEL_MAX];
    char per[EVENT_LABEL_MAX]; /* "" for the TSC as the counter's own time base */
    char unit[96];
    double scale;
};

struct shim_run {
    struct shim_settings settings;
    struct observer obs;
    uint64_t *pathless; /* the plan's functions without paths (sidetable_pathless) */
    int period_auto;    /* the period is SHIM_AUTO_PERIOD: nobody chose one, and the program
                           writes compiler-made signals */
    struct placement placement;
    struct machine_topology topo;
    struct tsc_info tsc;
    struct host_info host;
    struct clock_pair start, end;
    unsigned tag_slot[SHIM_TAG_SLOTS], n_tag_slots;             /* plan order */
    unsigned counter_slot[SHIM_COUNTER_SLOTS], n_counter_slots; /* plan order */
    struct run_counter counter[PROBE_MAX_COUNTERS];             /* the plan's readings */
    unsigned n_counters;
    struct run_rate rate[PROBE_MAX_RATES]; /* the plan's rates */
    unsigned n_rates;
    long pid;
    pid_t observed_tid;
    /* the observed thread's id as BPF reports it (primed); where it differs from
     * observed_tid the process has a PID namespace of its own, and each thread that joins
     * is primed too, so that the registry holds the ids the thread word gives */
    uint64_t observed_seen;
    int translate;
    cpu_set_t allowed;           /* the process's CPUs (topology_process_cpus) */
    cpu_set_t saved_affinity;    /* the observed thread's own mask */
    struct affinity_log moved;   /* the threads whose mask shim changed (affinity.c) */
    char output_path[PATH_MAX];  /* absolute */
    char output_shown[PATH_MAX]; /* as the user gave it, for messages */
    char trace_path[PATH_MAX];   /* SHIM_TRACE's file, absolute, when tracing */
    struct trace_writer trace;
    int tracing;
    char prog_name[256];
    pthread_t thread;
    pid_t observer_tid;
    sem_t observer_ready, observer_go; /* the observer waits until its plan is complete */
    int observer_abort;
    int pinned;     /* the observed thread's affinity was changed */
    int alloc_read; /* the allocation signal is read (alloc_signal.c) */
    /* Threads: where the thread word comes from (ti: BPF's word of each observed CPU;
     * NULL: the observed thread's id, and why), the threads that joined */
    struct thread_identity *ti;
    char identity_why[256];
    unsigned attached, said_full, said_identity;
    /* Observers beyond the first, and the CPUs all of them observe */
    struct run_observer *extra;
    unsigned n_extra;
    struct keeper keeper; /* grows every observer's tables while they run */
    uint64_t samples0;    /* the first observer's periods, before the others' were added */
    cpu_set_t observed_cpus;
    struct unread_watch unread;            /* the program's slots that are not read (unread.c) */
    pid_t thread_tid[RUN_MAX_THREADS];     /* gettid(): the process's own namespace */
    uint64_t thread_seen[RUN_MAX_THREADS]; /* as the thread word shows it */
    char thread_name[RUN_MAX_THREADS][RUN_THREAD_NAME]; /* as each was named when it joined */
    _Alignas(64) uint64_t thread_word; /* the observed thread's tid, read by the observer */
};

/* One line on stderr about something that went wrong: "shim: MESSAGE; CONSEQUENCE",
 * the consequence being `otherwise`, or under SHIM_STRICT the exit it causes. */
void run_complain(int strict, const char *otherwise, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Hardware events (hardware.c). hardware_open() opens what SHIM_EVENTS asks for, in the
 * scope it can honestly count, and appends the readings to r->counter and the plan's
 * hardware list, with their default rates (ipc, cpc, one per event); an event that
 * cannot be opened costs one line and is left out. Returns 0, or SHIM_EINVAL when
 * SHIM_STRICT made a failure fatal. hardware_check() reads each event once more at stop
 * (how long it was on a counter) and hardware_close() releases them.
 * hardware_default_rates() appends the default rates of the hardware readings: 0, or -1
 * when PROBE_MAX_RATES are taken. */
int hardware_open(struct shim_run *r, struct probe_plan *p);
int hardware_default_rates(struct shim_run *r, struct probe_plan *p);
void hardware_check(struct shim_run *r);
void hardware_close(struct shim_run *r);

/* A rate appended to the plan and the run: 0, or -1 if PROBE_MAX_RATES are taken. */
int run_add_rate(struct shim_run *r, struct probe_plan *p, int num, int den, double scale,
                 const char *name, const char *per_name);

/* A software counter of the running thread's block (probe_sw's slot sw_slot) as the next
 * reading, named `name`, `slot` in the profile: its reading index, or -1 when the plan
 * has no room. */
int run_add_software(struct shim_run *r, struct probe_plan *p, const char *name, unsigned slot,
                     int sw_slot, double scale);

/* Write the profile of a finished run to r->output_path, atomically. Returns 0, or -1
 * with the reason in why. */
int profile_write(const struct shim_run *r, char *why, size_t whylen);

/* The name the kernel has for thread tid of this process (its comm): 0, or -1 when it
 * is gone. */
int run_thread_name(pid_t tid, char *name, size_t len);

#endif
