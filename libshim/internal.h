/*
 * internal.h -- libshim's coordinator: struct shim_run, everything it knows about one
 * observation run from shim_start() to the profile, and the functions its files call in
 * each other, sectioned by the file that defines them (as libuv's src/unix/internal.h).
 *
 * lifecycle.c starts and stops a run and owns no declaration here: shim_start() and
 * shim_stop() are shim.h's. The modules with a structure of their own (config, topology,
 * affinity, events, symbols, the trace writer, ...) keep a header each.
 */
#ifndef SHIM_LIBSHIM_INTERNAL_H
#define SHIM_LIBSHIM_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/types.h>

#include "libshim/config.h"
#include "libshim/keeper.h"
#include "libshim/machine.h"
#include "observer/observer.h"
#include "libshim/affinity.h"
#include "libshim/topology.h"
#include "libshim/trace_writer.h"
#include "libshim/unread.h"

/* ---- the run: filled by lifecycle.c and the files below, read by the profile writer ---- */

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

/* What the profile's `snapshot` member says (SHIM_SNAPSHOT, snapshot.c): which profile of
 * the run it is, and the run's duration at the one before. */
struct run_snapshot_info {
    int on; /* 0: no member */
    int final;
    uint64_t number, previous_ns;
    double every;
    double cpu_seconds; /* the snapshot thread's CPU time up to this profile */
    unsigned keep;
};

struct shim_run {
    struct shim_settings settings;
    struct observer obs;
    uint64_t *pathed; /* the plan's functions with paths (sidetable_pathed) */
    int period_auto;  /* the period is SHIM_AUTO_PERIOD: nobody chose one, and the program
                         writes compiler-made signals */
    struct placement placement;
    struct machine_topology topo;
    struct tsc_info tsc;
    struct host_info host;
    struct clock_pair start, end;
    double children_cpu_start;                      /* run_children_cpu() at the start */
    unsigned tag_slot[SHIM_TAG_SLOTS], n_tag_slots; /* plan order */
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
    struct keeper keeper;      /* grows every observer's tables while they run */
    struct snapshot *snapshot; /* SHIM_SNAPSHOT's thread and state (snapshot.c), or NULL */
    struct run_snapshot_info snapshot_info; /* the profile's `snapshot` member */
    uint64_t samples0; /* the first observer's periods, before the others' were added */
    cpu_set_t observed_cpus;
    struct unread_watch unread;            /* the program's slots that are not read (unread.c) */
    pid_t thread_tid[RUN_MAX_THREADS];     /* gettid(): the process's own namespace */
    uint64_t thread_seen[RUN_MAX_THREADS]; /* as the thread word shows it */
    char thread_name[RUN_MAX_THREADS][RUN_THREAD_NAME]; /* as each was named when it joined */
    _Alignas(64) uint64_t thread_word; /* the observed thread's tid, read by the observer */
};

/* ---- run.c ---- */

/* The run's lock, taken with cancellation off (a thread cancelled while holding it would
 * hold it for ever): run_lock() returns the cancel state run_unlock() restores. */
int run_lock(void);
void run_unlock(int cancel);

/* The lock if it is free: 0 (give it back with run_unlock(*cancel)), else -1. For a
 * thread of shim's own that shim_stop() joins while holding the lock (snapshot.c). */
int run_trylock(int *cancel);

/* The run in progress, or NULL; under the lock. */
struct shim_run *run_current(void);
void run_set_current(struct shim_run *r);

/* Whether a run is going, read without the lock (async-signal-safe; a moment's view). */
int run_going(void);

/* The CPU seconds of the programs this process started that ended and were waited for
 * (getrusage's RUSAGE_CHILDREN, fork or vfork alike), and of those since r started
 * (children_cpu_start): what they used while observed, which is not in the profile unless
 * SHIM_AUTOSTART_CHILDREN=1. */
double run_children_cpu(void);
double run_children_seconds(const struct shim_run *r);
void run_observe_children(void); /* the constructor left them SHIM_AUTOSTART=1 */
int run_children_observed(void);

/* Around fork(): the lock is held across it, given back in the parent and made anew in
 * the child (which then forgets the run: run_set_current(NULL)). */
void run_fork_prepare(void);
void run_fork_parent(void);
void run_fork_child(void);

/* A rate appended to the plan and the run: 0, or -1 if PROBE_MAX_RATES are taken. */
int run_add_rate(struct shim_run *r, struct probe_plan *p, int num, int den, double scale,
                 const char *name, const char *per_name);

/* A software counter of the running thread's block (probe_sw's slot sw_slot) as the next
 * reading, named `name`, `slot` in the profile: its reading index, or -1 when the plan
 * has no room. */
int run_add_software(struct shim_run *r, struct probe_plan *p, const char *name, unsigned slot,
                     int sw_slot, double scale);

/* ---- errors.c ---- */

/* One line on stderr about something that went wrong: "shim: MESSAGE; CONSEQUENCE",
 * the consequence being `otherwise`, or under SHIM_STRICT the exit it causes. */
void run_complain(int strict, const char *otherwise, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with what follows from it said for the caller (the program runs on unprofiled,
 * or exits under SHIM_STRICT); returns code. */
int run_fail(int code, int strict, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* What follows from a failure: "the program runs on unprofiled", the exit under
 * SHIM_STRICT, or, once the exit handler runs, that the program has finished. */
const char *run_consequence(int strict);

/* Under SHIM_STRICT, exit with SHIM_STRICT_EXIT_STATUS (not from the exit handler). */
void run_strict_exit(int strict);

/* The exit handler runs: exit() must not be called again from there. */
void run_set_exiting(void);

/* ---- plan.c ---- */

/* The plan's hardware readings are in place (hardware_open); add the software counters,
 * the tags and the rates, for the calling thread's block b. 0, or an error code after a
 * message. */
struct shim_block;
int plan_build(struct shim_run *r, struct shim_block *b, struct probe_plan *p);

/* ---- observers.c ---- */

/* Choose the CPUs and pin the calling thread to the observed one. 0, or an error code
 * after a message. */
int observers_place(struct shim_run *r);

/* Where the thread word comes from: BPF (r->ti), or the observed thread's id (r->ti NULL,
 * and why in r->identity_why). 0, or SHIM_EINVAL after a message when SHIM_THREAD_ID=bpf
 * cannot be had. */
int observers_open_identity(struct shim_run *r);

/* Start the first observer's thread, which waits on r->observer_go. 0, or SHIM_ETHREAD
 * after a message. */
int observers_launch(struct shim_run *r);

/* The observers beyond the first (SHIM_OBSERVERS), each with a copy of plan and params;
 * what cannot be placed or started is said, and the run goes on with fewer. */
void observers_start_extra(struct shim_run *r, const struct probe_plan *plan,
                           const struct observer_params *params);

/* The keeper that grows every observer's tables, on the first observer's CPU. */
void observers_start_keeper(struct shim_run *r);

/* At the stop, the first observer stopped: stop the others and the keeper, and add what
 * the others found to the first one's. */
void observers_stop_extra(struct shim_run *r);
void observers_free_extra(struct shim_run *r);

/* ---- attach.c ---- */

/* The calling thread joins the run, as shim_thread_attach(); `inherited`, if not NULL,
 * is its own affinity mask where the one it has was inherited from shim's pin of the
 * thread that created it. */
int attach_thread(const cpu_set_t *inherited);

/* The calling thread, which joined the run, is about to exit: its name is taken now. */
void attach_thread_leaving(void);

/* The calling thread's own mask, if shim changed it and it is still shim's: 1, else 0. */
int attach_own_affinity(cpu_set_t *own);

/* A program is about to be started from the calling thread (spawn.c): if shim changed
 * the thread's affinity and it is still shim's, the thread gets its own back, shim's
 * goes to *shims and 1 is returned; else 0. */
int attach_spawn_begin(cpu_set_t *shims);

/* The call that started it returned: the thread is given *shims again if shim still
 * observes it and its mask is still its own. */
void attach_spawn_end(const cpu_set_t *shims);

/* ---- hardware.c ---- */

/* hardware_open() opens what SHIM_EVENTS asks for, in the scope it can honestly count,
 * and appends the readings to r->counter and the plan's hardware list, with their default
 * rates (ipc, cpc, one per event); an event that cannot be opened costs one line and is
 * left out. Returns 0, or SHIM_EINVAL when SHIM_STRICT made a failure fatal.
 * hardware_check() reads each event once more at stop (how long it was on a counter) and
 * hardware_close() releases them. hardware_default_rates() appends the default rates of
 * the hardware readings: 0, or -1 when PROBE_MAX_RATES are taken. */
int hardware_open(struct shim_run *r, struct probe_plan *p);
int hardware_default_rates(struct shim_run *r, struct probe_plan *p);
void hardware_check(struct shim_run *r);
void hardware_close(struct shim_run *r);

/* ---- profile_writer.c ---- */

/* Write the profile of a finished run to r->output_path, atomically. Returns 0, or -1
 * with the reason in why. */
int profile_write(const struct shim_run *r, char *why, size_t whylen);

/* The name the kernel has for thread tid of this process (its comm): 0, or -1 when it
 * is gone. */
int run_thread_name(pid_t tid, char *name, size_t len);

#endif /* SHIM_LIBSHIM_INTERNAL_H */
