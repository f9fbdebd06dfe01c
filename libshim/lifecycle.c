/*
 * lifecycle.c -- shim_start(), shim_stop() and what surrounds them: configuration,
 * placement, the probe plan, the observer thread, stopping at exit, fork.
 *
 * One run at a time, guarded by a mutex that the observer never touches. Starting
 * resolves the configuration (any bad value: one line, and the program runs on
 * unprofiled, or exits under SHIM_STRICT), chooses CPUs with hwloc, pins the calling
 * thread and the observer, gives the calling thread a signal block, builds the probe
 * plan and lets the observer run. Stopping joins the observer, gives every thread whose
 * CPU affinity shim changed its own back (affinity.c) and writes the profile. If the
 * program never calls shim_stop(), an atexit handler does.
 *
 * fork(): the child has no observer thread (threads do not survive fork), so the child
 * forgets the parent's run, closing its copies of the run's descriptors: it is
 * unobserved and may call shim_start() again. The mutex is taken around fork so the
 * child never inherits it locked.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc_signal.h"
#include "cct.h"
#include "names.h"
#include "path.h"
#include "run.h"
#include "sidetable.h"
#include "signal_block.h"
#include "stackwalk.h"
#include "symbols.h"
#include "termination.h"
#include "thread_identity.h"
#include "threads.h"

extern char **environ;

enum run_state { IDLE, RUNNING };

/* Recursive: SHIM_STRICT may exit() while the lock is held, and the atexit handler
 * then takes it again on the same thread. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static enum run_state state;
static struct shim_run *run;
static int hooks_installed;
static char last_output[PATH_MAX];

/* No cancellation point may run while the lock is held: a thread cancelled there (in
 * the fopen of its name, the profile's write) would leave the lock held for ever, and
 * the next pthread_create, fork, shim_stop or the exit handler would wait on it. So
 * cancellation is off from taking the lock to giving it back; a cancel asked for
 * meanwhile acts at the program's next cancellation point. */
static int lock_run(void)
{
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    pthread_mutex_lock(&lock);
    return cancel;
}

static void unlock_run(int cancel)
{
    pthread_mutex_unlock(&lock);
    pthread_setcancelstate(cancel, NULL);
}

const char *shim_strerror(int err)
{
    switch (err) {
    case SHIM_OK:
        return "success";
    case SHIM_EINVAL:
        return "invalid configuration value";
    case SHIM_EBUSY:
        return "shim is already observing";
    case SHIM_ENOTSTARTED:
        return "shim is not observing";
    case SHIM_ENOCPU:
        return "no CPU available for the observer";
    case SHIM_ENOMEM:
        return "out of memory";
    case SHIM_ETOPOLOGY:
        return "machine topology unavailable or CPU pinning failed";
    case SHIM_ETHREAD:
        return "the observer thread could not be created";
    case SHIM_EIO:
        return "the profile could not be written";
    case SHIM_EDISABLED:
        return "shim is disabled (SHIM_DISABLE=1, or a set-user-ID program)";
    case SHIM_EFORKED:
        return "not available in a child forked while observing";
    default:
        return "unknown shim error";
    }
}

/* Set while the atexit handler runs: exit() must not be called again from there. */
static int exiting;

static const char *consequence(int strict)
{
    if (exiting) return "the program has already finished";
    return strict ? "exiting (SHIM_STRICT=1)" : "the program runs on unprofiled";
}

static void strict_exit(int strict)
{
    if (strict && !exiting) exit(SHIM_STRICT_EXIT_STATUS);
}

static void complain(int strict, const char *otherwise, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "shim: %s; %s\n", msg,
            strict && !exiting ? consequence(strict)
            : otherwise        ? otherwise
                               : consequence(0));
    strict_exit(strict);
}

void run_complain(int strict, const char *otherwise, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    complain(strict, otherwise, fmt, ap);
    va_end(ap);
}

/* One line on stderr; under SHIM_STRICT the program exits. Returns code. */
static int fail(int code, int strict, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    complain(strict, NULL, fmt, ap);
    va_end(ap);
    return code;
}

/* The observer thread: it makes itself known (hardware events are opened for it by
 * thread id), then waits until the coordinator has built its plan, or given up. */
static void *observer_main(void *arg)
{
    struct shim_run *r = arg;
    r->observer_tid = gettid();
    sem_post(&r->observer_ready);
    while (sem_wait(&r->observer_go) != 0)
        ;
    if (!r->observer_abort) observer_run(&r->obs);
    return NULL;
}

/* Slots to read: the configured mask, or by default (0) the named ones (tags: and 0). */
static unsigned slots_of(uint32_t mask, uint32_t named, uint32_t fallback, unsigned n,
                         unsigned *out)
{
    uint32_t m = mask == SHIM_TAGS_NONE ? 0 : mask ? mask : (named | fallback);
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (m & (1u << i)) out[k++] = i;
    return k;
}

/* The name a counter is known by at start: its shim_name_counter() name, or counterN. */
static void counter_label(unsigned slot, char *out, size_t len)
{
    const char *name = names_counter(slot);
    if (name)
        snprintf(out, len, "%s", name);
    else
        snprintf(out, len, "counter%u", slot);
}

/* A counter of the run by name, or -1. */
static int counter_named(const struct shim_run *r, const char *name)
{
    for (unsigned i = 0; i < r->n_counters; i++)
        if (!strcmp(r->counter[i].name, name)) return (int)i;
    return -1;
}

/* The derived rates of SHIM_RATES, resolved against the counters read. A denominator
 * "tsc" is the TSC; "cycles" is the hardware cycles counter when one is read, and the
 * TSC otherwise. */
static int plan_derived_rates(struct shim_run *r, struct probe_plan *p)
{
    struct rate_spec derived[PROBE_MAX_RATES];
    char why[256], known[PROBE_MAX_COUNTERS * (EVENT_LABEL_MAX + 2) + 16] = "";
    int n = config_parse_rates(r->settings.rates, derived, PROBE_MAX_RATES, why, sizeof why);
    for (unsigned i = 0; i < r->n_counters; i++) {
        strcat(known, r->counter[i].name);
        strcat(known, ", ");
    }
    strcat(known, "tsc");
    if (n < 0) return fail(SHIM_EINVAL, r->settings.cfg.strict, "SHIM_RATES: %s", why);
    for (int k = 0; k < n; k++) {
        const struct rate_spec *d = &derived[k];
        int num = counter_named(r, d->num), den = counter_named(r, d->den);
        int tsc = den < 0 && (!strcmp(d->den, "tsc") || !strcmp(d->den, "cycles"));
        if (num < 0 || (den < 0 && !tsc))
            return fail(SHIM_EINVAL, r->settings.cfg.strict,
                        "SHIM_RATES: %s=%s/%s names %s, which is not a counter shim reads "
                        "(it reads: %s)",
                        d->name, d->num, d->den, num < 0 ? d->num : d->den, known);
        if (run_add_rate(r, p, num, tsc ? PROBE_RATE_PER_TSC : den, d->scale, d->name,
                         tsc ? "tsc" : d->den) != 0)
            return fail(SHIM_EINVAL, r->settings.cfg.strict,
                        "SHIM_RATES: with the counters' own rates, more than %d rates",
                        PROBE_MAX_RATES);
    }
    return 0;
}

/* A rate of the run by name, or -1. */
static int rate_named(const struct shim_run *r, const char *name)
{
    for (unsigned i = 0; i < r->n_rates; i++)
        if (!strcmp(r->rate[i].name, name)) return (int)i;
    return -1;
}

/* SHIM_BY, resolved against the rates formed. */
static int plan_by(struct shim_run *r, struct probe_plan *p)
{
    const struct shim_settings *s = &r->settings;
    if (!s->by_y[0]) return 0;
    int y = rate_named(r, s->by_y), x = rate_named(r, s->by_x);
    char known[PROBE_MAX_RATES * (EVENT_LABEL_MAX + 2) + 8] = "";
    for (unsigned i = 0; i < r->n_rates; i++) {
        if (i) strcat(known, ", ");
        strcat(known, r->rate[i].name);
    }
    if (y < 0 || x < 0)
        return fail(SHIM_EINVAL, s->cfg.strict,
                    "SHIM_BY: %s is not a rate shim forms (it forms: %s)",
                    y < 0 ? s->by_y : s->by_x, *known ? known : "none");
    for (int k = 0; k < 2; k++) {
        const struct probe_rate *pr = &p->rate[k ? x : y];
        if ((pr->num < (int)p->n_hw && p->hw[pr->num].slow) ||
            (pr->den >= 0 && pr->den < (int)p->n_hw && p->hw[pr->den].slow))
            return fail(SHIM_EINVAL, s->cfg.strict,
                        "SHIM_BY: %s is a slow rate (formed over spans, not sample periods)",
                        k ? s->by_x : s->by_y);
    }
    p->by = (struct probe_by){(unsigned)y, (unsigned)x, s->by_buckets, s->by_lo, s->by_hi};
    if (!(s->by_lo < s->by_hi)) p->by.lo = s->cfg.hist_lo, p->by.hi = s->cfg.hist_hi;
    return 0;
}

int run_add_software(struct shim_run *r, struct probe_plan *p, const char *name, unsigned slot,
                     int sw_slot, double scale)
{
    unsigned at = p->n_hw + p->n_sw;
    if (at >= PROBE_MAX_COUNTERS) return -1;
    struct run_counter *c = &r->counter[at];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->kind = "software";
    c->slot = slot;
    c->width = 64;
    c->scale = scale;
    c->fd = -1;
    r->n_counters = at + 1;
    p->sw[p->n_sw++].slot = sw_slot;
    p->mask[at] = ~(uint64_t)0;
    return (int)at;
}

/* The plan's hardware readings are in place (hardware_open); add the software counters,
 * the tags and the rates. */
static int build_plan(struct shim_run *r, struct shim_block *b, struct probe_plan *p)
{
    const struct shim_config *c = &r->settings.cfg;
    names_lock();
    /* by default, also the method and context slots of an instrumented program: one
     * that has entered an instrumented function, or (started before main(), by
     * shimrun) one whose code calls the hooks */
    int instrumented = cct_active() || symbols_referenced("__cyg_profile_func_enter");
    uint32_t cct_slots = instrumented ? (1u << SHIM_SLOT_METHOD) | (1u << SHIM_SLOT_CCT) : 0;
    /* and, for code built with the compiler pass, the method and loop slots and the
     * thread's path ring */
    if (sidetable_present()) {
        cct_slots |= (1u << SHIM_SLOT_METHOD) | (1u << SHIM_SLOT_LOOP);
        /* paths only where code appends them (not built with SHIM_PASS=method,loop) */
        p->paths = symbols_referenced("shim_tls_path_ring");
    }
    /* and for code whose pass stores the frame signal, or whose hooks do (SHIM_HOOKS=frames),
     * the context slot, from stack walks */
    int walk = symbols_sections(STACKWALK_SECTION, NULL, NULL) > 0 ||
               (instrumented && r->settings.hooks_frames);
    if (walk) cct_slots |= (1u << SHIM_SLOT_METHOD) | (1u << SHIM_SLOT_CCT);
    if (p->paths) {
        struct sidetable st;
        size_t n = 0;
        if (sidetable_open(&st) == 0) {
            r->pathless = sidetable_pathless(&st, &n);
            sidetable_close(&st);
        }
        p->pathless = r->pathless;
        p->n_pathless = (unsigned)n;
    }
    if (p->paths && path_ring_attach(b) != 0)
        run_complain(c->strict, "its paths are not attributed",
                     "no memory for the thread's path ring");
    r->n_tag_slots =
        slots_of(c->tag_slots, names_tag_slots_named() | cct_slots, 1, SHIM_TAG_SLOTS, r->tag_slot);
    r->n_counter_slots =
        slots_of(c->counter_slots, names_counters_named(), 0, SHIM_COUNTER_SLOTS, r->counter_slot);
    /* read from the block of whichever thread the thread word names */
    p->registry = &signal_registry;
    for (unsigned i = 0; i < r->n_tag_slots; i++) {
        if (r->tag_slot[i] == SHIM_SLOT_METHOD) p->method_tag = p->n_tags + 1;
        if (r->tag_slot[i] == SHIM_SLOT_CCT && walk) p->walk_tag = p->n_tags + 1;
        p->tag_slot[p->n_tags++] = r->tag_slot[i];
    }
    if (!p->method_tag) p->walk_tag = 0; /* a chain starts with the method */
    int rc = 0;
    if (hardware_default_rates(r, p) != 0)
        rc = fail(SHIM_EINVAL, c->strict, "SHIM_EVENTS: more than %d rates", PROBE_MAX_RATES);
    for (unsigned i = 0; rc == 0 && i < r->n_counter_slots; i++) {
        unsigned slot = r->counter_slot[i];
        char name[EVENT_LABEL_MAX];
        counter_label(slot, name, sizeof name);
        int at = run_add_software(r, p, name, slot, (int)slot, c->counter_scale[slot]);
        if (at < 0) {
            rc = fail(SHIM_EINVAL, c->strict, "more than %d counters with SHIM_EVENTS",
                      PROBE_MAX_COUNTERS);
            break;
        }
        if (run_add_rate(r, p, at, PROBE_RATE_PER_TSC, c->counter_scale[slot], name, NULL) != 0)
            rc = fail(SHIM_EINVAL, c->strict, "more than %d rates", PROBE_MAX_RATES);
    }
    p->thread_word =
        r->ti ? thread_identity_word(r->ti, r->placement.observed_cpu) : &r->thread_word;
    if (rc == 0) rc = alloc_signal_plan(r, b, p); /* before SHIM_RATES, which may name it */
    if (rc == 0) rc = plan_derived_rates(r, p);
    if (rc == 0) rc = plan_by(r, p);
    names_unlock();
    return rc;
}

static void program_name(char *out, size_t len)
{
    extern char *program_invocation_short_name;
    snprintf(out, len, "%s",
             program_invocation_short_name ? program_invocation_short_name : "prog");
    for (char *p = out; *p; p++) /* keep the default file name tame */
        if (*p == '/' || *p == ' ') *p = '_';
}

/* Choose CPUs and pin the calling thread. The observer may go on any CPU of the
 * process (its cpuset), the observed thread stays within its own mask (topology.c). */
static int place(struct shim_run *r)
{
    hwloc_topology_t topo;
    char why[512];
    int strict = r->settings.cfg.strict;
    if (topology_load(&topo, why, sizeof why) != 0) return fail(SHIM_ETOPOLOGY, strict, "%s", why);
    topology_describe(topo, &r->topo);
    topology_process_cpus(topo, &r->allowed);
    if (sched_getaffinity(0, sizeof r->saved_affinity, &r->saved_affinity) != 0) {
        hwloc_topology_destroy(topo);
        return fail(SHIM_ETOPOLOGY, strict, "cannot read the CPU affinity: %s", strerror(errno));
    }
    int rc = placement_choose(topo, &r->allowed, &r->saved_affinity, sched_getcpu(),
                              r->settings.cfg.observer_cpu, &r->placement, why, sizeof why);
    hwloc_topology_destroy(topo);
    if (rc != 0) return fail(rc, strict, "%s", why);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(r->placement.observed_cpu, &one);
    int err = affinity_move_self(&r->moved, gettid(), &r->saved_affinity, &one);
    if (err)
        return fail(SHIM_ETOPOLOGY, strict, "cannot pin the observed thread to CPU %d: %s",
                    r->placement.observed_cpu, strerror(err));
    r->pinned = 1;
    return 0;
}

/*
 * Which thread runs on the observed CPU: from BPF (thread_identity.c), whose word the
 * observer then reads, or else the observed thread's id, a constant (README, "Threads").
 * The calling thread is pinned to the observed CPU already.
 */
static int open_identity(struct shim_run *r)
{
    enum thread_id_mode mode = r->settings.thread_id;
    int cpu;
    uint64_t tid;
    if (mode == THREAD_ID_PINNED) {
        snprintf(r->identity_why, sizeof r->identity_why, "SHIM_THREAD_ID=pinned");
        return 0;
    }
    if (thread_identity_open(&r->ti, r->identity_why, sizeof r->identity_why) != 0 ||
        thread_identity_prime(r->ti, &cpu, &tid, r->identity_why, sizeof r->identity_why) != 0) {
        thread_identity_close(r->ti);
        r->ti = NULL;
        if (mode == THREAD_ID_BPF)
            return fail(SHIM_EINVAL, r->settings.cfg.strict, "SHIM_THREAD_ID=bpf: %s",
                        r->identity_why);
        return 0;
    }
    /* BPF reports the initial PID namespace's ids: in a namespace of the process's own
     * (a container's) they are not gettid()'s, and the registry must hold BPF's */
    r->observed_seen = tid;
    r->translate = tid != (uint64_t)r->observed_tid;
    if (r->translate) signal_block_set_id(tid);
    return 0;
}

/* The calling thread's id as the thread word shows it: gettid(), or, in a PID namespace
 * of the process's own, the id BPF reports for it (primed); 0 when priming fails, and
 * then the thread's samples count as another process's. */
static uint64_t seen_id(const struct shim_run *r, pid_t tid)
{
    int cpu;
    uint64_t seen;
    char why[128];
    if (!r->ti || !r->translate) return (uint64_t)tid;
    return thread_identity_prime(r->ti, &cpu, &seen, why, sizeof why) == 0 ? seen : 0;
}

/* An observer thread pinned on cpu with every signal blocked (the program's handlers
 * must never run on it): 0 or the pthread_create error. */
static int spawn_observer(pthread_t *t, int cpu, void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    cpu_set_t one;
    sigset_t all, old;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = threads_create_internal(t, &attr, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (!err) pthread_setname_np(*t, "shim-observer");
    return err;
}

static int launch(struct shim_run *r)
{
    int err = spawn_observer(&r->thread, r->placement.observer_cpu, observer_main, r);
    if (err)
        return fail(SHIM_ETHREAD, r->settings.cfg.strict, "cannot start the observer on CPU %d: %s",
                    r->placement.observer_cpu, strerror(err));
    return 0;
}

static void *extra_main(void *arg)
{
    observer_run(&((struct run_observer *)arg)->obs);
    return NULL;
}

/*
 * Observers beyond the first (SHIM_OBSERVERS; auto: one per pair of the CPUs the process
 * may use). Each takes an observed CPU and the CPU nearest it from those still free,
 * as the first did, and reads the same signals with the same plan, except for the thread
 * word: BPF's word of its own observed CPU, or (without BPF) the id of the thread that
 * attach_thread() pins there. Their tables are added to the first observer's at the
 * stop. Hardware events are opened for one observer's CPU and thread, so with events
 * there is one observer. Whatever cannot be placed is said once; the run goes on with
 * the observers it has.
 */
static void start_extra_observers(struct shim_run *r, const struct probe_plan *plan,
                                  const struct observer_params *params)
{
    unsigned want =
        r->settings.observers ? r->settings.observers : (unsigned)CPU_COUNT(&r->allowed) / 2;
    const char *more = "observing with fewer";
    char why[512];
    hwloc_topology_t topo;
    if (want <= 1) return;
    if (plan->n_hw) {
        run_complain(0, "one observer reads them",
                     "SHIM_OBSERVERS=%u: hardware events are opened for one observer", want);
        return;
    }
    r->extra = aligned_alloc(64, (want - 1) * sizeof *r->extra);
    if (!r->extra || topology_load(&topo, why, sizeof why) != 0) {
        run_complain(0, more, "SHIM_OBSERVERS=%u: %s", want, r->extra ? why : "out of memory");
        return;
    }
    memset(r->extra, 0, (want - 1) * sizeof *r->extra);
    cpu_set_t left = r->allowed;
    CPU_CLR(r->placement.observed_cpu, &left);
    CPU_CLR(r->placement.observer_cpu, &left);
    while (r->n_extra + 1 < want) {
        struct run_observer *x = &r->extra[r->n_extra];
        int first = 0;
        while (first < CPU_SETSIZE && !CPU_ISSET(first, &left))
            first++;
        if (CPU_COUNT(&left) < 2) {
            run_complain(0, more, "SHIM_OBSERVERS=%u: only %u fit on the CPUs this process may use",
                         want, r->n_extra + 1);
            break;
        }
        if (placement_choose(topo, &left, NULL, first, -1, &x->placement, why, sizeof why) != 0) {
            run_complain(0, more, "SHIM_OBSERVERS=%u: %s", want, why);
            break;
        }
        CPU_CLR(x->placement.observed_cpu, &left);
        CPU_CLR(x->placement.observer_cpu, &left);
        struct probe_plan p = *plan;
        struct observer_params pp = *params;
        p.thread_word =
            r->ti ? thread_identity_word(r->ti, x->placement.observed_cpu) : &x->thread_word;
        pp.seed ^= (uint64_t)(r->n_extra + 1) * 0x9e3779b97f4a7c15ull;
        if (observer_init(&x->obs, &p, &pp) != 0) {
            run_complain(0, more, "SHIM_OBSERVERS=%u: out of memory for another observer", want);
            break;
        }
        int err = spawn_observer(&x->thread, x->placement.observer_cpu, extra_main, x);
        if (err) {
            observer_free(&x->obs);
            run_complain(0, more, "SHIM_OBSERVERS=%u: cannot start an observer on CPU %d: %s", want,
                         x->placement.observer_cpu, strerror(err));
            break;
        }
        CPU_SET(x->placement.observed_cpu, &r->observed_cpus);
        r->n_extra++;
    }
    hwloc_topology_destroy(topo);
}

/* The keeper of every observer's tables, on the first observer's CPU. Without it the
 * tables keep their first chunk, and what does not fit is counted as "behind". */
static void start_keeper(struct shim_run *r)
{
    cpu_set_t cpu;
    CPU_ZERO(&cpu);
    CPU_SET(r->placement.observer_cpu, &cpu);
    memset(&r->keeper, 0, sizeof r->keeper);
    keeper_add(&r->keeper, &r->obs.tags);
    if (r->obs.pending) keeper_add(&r->keeper, &r->obs.paths);
    for (unsigned k = 0; k < r->n_extra; k++) {
        keeper_add(&r->keeper, &r->extra[k].obs.tags);
        if (r->extra[k].obs.pending) keeper_add(&r->keeper, &r->extra[k].obs.paths);
    }
    int err = keeper_start(&r->keeper, &cpu);
    if (err)
        run_complain(0, "the tag table keeps its first 16384 tuples",
                     "cannot start the thread that grows the tag table: %s", strerror(err));
}

/* Stops the other observers and the keeper, then adds what the others found to the
 * first one's (the first has stopped already). */
static void stop_extra_observers(struct shim_run *r)
{
    for (unsigned k = 0; k < r->n_extra; k++)
        observer_request_stop(&r->extra[k].obs);
    r->samples0 = r->obs.totals.total;
    for (unsigned k = 0; k < r->n_extra; k++)
        pthread_join(r->extra[k].thread, NULL);
    keeper_stop(&r->keeper);
    if (r->keeper.failed)
        fprintf(stderr, "shim: out of memory growing the tag table: tuples that did not fit are "
                        "counted in other\n");
    for (unsigned k = 0; k < r->n_extra; k++) {
        struct run_observer *x = &r->extra[k];
        x->samples = x->obs.totals.total;
        observer_merge(&r->obs, &x->obs);
    }
}

static void free_extra_observers(struct shim_run *r)
{
    for (unsigned k = 0; k < r->n_extra; k++)
        observer_free(&r->extra[k].obs);
    free(r->extra);
    r->extra = NULL;
    r->n_extra = 0;
}

static void stop_at_exit(void)
{
    exiting = 1;
    if (shim_running()) shim_stop();
}

/* The forking thread's CPU affinity as it was before shim changed it, if shim did (the
 * observed thread, or one that joined): the child must not inherit shim's mask. */
static cpu_set_t fork_affinity;
static int fork_restore_affinity;

static void before_fork(void)
{
    pthread_mutex_lock(&lock);
    const struct affinity_moved *m = state == RUNNING ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now; /* a mask the program set since is the program's: the child keeps it */
    fork_restore_affinity =
        m && sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set);
    if (fork_restore_affinity) fork_affinity = m->own;
}

static void after_fork_parent(void)
{
    pthread_mutex_unlock(&lock);
}
static void after_fork_child(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    pthread_mutexattr_destroy(&attr);
    names_after_fork_child();
    termination_after_fork_child();
    signal_block_after_fork_child();
    if (fork_restore_affinity) sched_setaffinity(0, sizeof fork_affinity, &fork_affinity);
    /* The observer did not come along; its memory is the parent's copy: leave it. The
     * descriptors are the child's own copies of the parent's: close them, or the child
     * keeps the perf events, the BPF program on every CPU and the trace file open for as
     * long as it lives (a daemon that forks away from an observed program). */
    if (run) {
        hardware_close(run);
        thread_identity_after_fork_child(run->ti);
        if (run->tracing) trace_writer_after_fork_child(&run->trace);
    }
    run = NULL;
    state = IDLE;
}

static int output_writable(struct shim_run *r);

/* The configuration's messages, one line each, with what follows from them. */
static void report_settings(const char *msgs, int strict)
{
    for (const char *line = msgs; line && *line;) {
        size_t n = strcspn(line, "\n");
        if (strncmp(line, "shim: warning:", 14) == 0)
            fprintf(stderr, "%.*s\n", (int)n, line);
        else
            fprintf(stderr, "%.*s; %s\n", (int)n, line, consequence(strict));
        line += n + (line[n] == '\n');
    }
}

static int configure(struct shim_run *r, const struct shim_config *cfg)
{
    int bad = 0;
    char *msgs = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&msgs, &len);
    config_defaults(&r->settings);
    if (cfg) bad += config_apply_struct(&r->settings, cfg, err ? err : stderr);
    bad += config_apply_env(&r->settings, environ, err ? err : stderr);
    if (err) fclose(err);
    report_settings(msgs, r->settings.cfg.strict);
    free(msgs);
    if (bad) {
        strict_exit(r->settings.cfg.strict);
        return SHIM_EINVAL;
    }
    if (r->settings.disable) return SHIM_EDISABLED;
    /* a program that writes compiler-made signals on every call gets a longer period,
     * unless somebody chose one (config.h, SHIM_AUTO_PERIOD) */
    if (!r->settings.period_given &&
        (cct_active() || symbols_referenced("__cyg_profile_func_enter") || sidetable_present())) {
        r->settings.cfg.period = SHIM_AUTO_PERIOD;
        r->period_auto = 1;
    }
    program_name(r->prog_name, sizeof r->prog_name);
    r->pid = (long)getpid();
    char path[PATH_MAX], cwd[PATH_MAX];
    if (config_expand_output(r->settings.output, r->pid, r->prog_name, path, sizeof path) != 0)
        return fail(SHIM_EINVAL, r->settings.cfg.strict,
                    "SHIM_OUTPUT=\"%s\" expands to a path that is too long", r->settings.output);
    /* A relative path is taken from the working directory at start, not at exit: a
     * program that changes directory still finds its profile where it was started. */
    int n = path[0] == '/' || !getcwd(cwd, sizeof cwd)
                ? snprintf(r->output_path, sizeof r->output_path, "%s", path)
                : snprintf(r->output_path, sizeof r->output_path, "%s/%s", cwd, path);
    if (n < 0 || (size_t)n >= sizeof r->output_path)
        return fail(SHIM_EINVAL, r->settings.cfg.strict,
                    "the profile path %s/%s is longer than PATH_MAX", cwd, path);
    snprintf(r->output_shown, sizeof r->output_shown, "%s", path);
    if (r->settings.trace_on) { /* beside the profile, or where SHIM_TRACE says */
        char tpath[PATH_MAX];
        if (!r->settings.trace[0])
            n = snprintf(r->trace_path, sizeof r->trace_path, "%s.trace", r->output_path);
        else if (config_expand_output(r->settings.trace, r->pid, r->prog_name, tpath,
                                      sizeof tpath) != 0)
            n = -1;
        else
            n = tpath[0] == '/' || !getcwd(cwd, sizeof cwd)
                    ? snprintf(r->trace_path, sizeof r->trace_path, "%s", tpath)
                    : snprintf(r->trace_path, sizeof r->trace_path, "%s/%s", cwd, tpath);
        if (n < 0 || (size_t)n >= sizeof r->trace_path)
            return fail(SHIM_EINVAL, r->settings.cfg.strict,
                        "SHIM_TRACE: the trace's path is longer than PATH_MAX");
    }
    return output_writable(r);
}

/* A profile that cannot be written would lose the whole run: say so at start. */
static int output_writable(struct shim_run *r)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", r->output_path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK | X_OK) != 0)
        return fail(SHIM_EIO, r->settings.cfg.strict,
                    "cannot write the profile %s: directory %s: %s", r->output_shown, dir,
                    strerror(errno));
    return 0;
}

static int start_locked(const struct shim_config *cfg)
{
    /* aligned: the observer's stop flag and the thread word have cache lines of their own */
    size_t size = (sizeof(struct shim_run) + 63) & ~(size_t)63;
    struct shim_run *r = aligned_alloc(64, size);
    if (!r) return fail(SHIM_ENOMEM, 0, "out of memory starting shim");
    memset(r, 0, size);
    int rc = configure(r, cfg);
    if (rc == 0) rc = place(r);
    struct shim_block *block = rc == 0 ? signal_block_acquire() : NULL;
    if (rc == 0 && !block)
        rc = fail(SHIM_ENOMEM, r->settings.cfg.strict, "no signal block left for this thread");
    if (rc == 0) {
        const struct shim_config *c = &r->settings.cfg;
        struct probe_plan plan;
        tsc_probe(&r->tsc); /* its step is DTE's resolution */
        struct observer_params params = {
            .period = c->period,
            .jitter = c->jitter,
            .dte_tolerance = c->dte_tolerance,
            .dte_resolution = r->tsc.step,
            .dte_off = c->dte_off,
            .max_tags = c->max_tags,
            .max_detail = r->settings.hist_tuples,
            .max_period = observer_default_max_period(c->period, c->jitter),
            .slow_period = r->settings.slow_period,
        };
        signal_block_attach(block);
        cct_republish(); /* the context so far, into the block the observer reads */
        if (r->settings.hooks_frames) cct_use_frames(1);
        r->observed_tid = gettid();
        r->thread_word = (uint64_t)r->observed_tid;
        rc = open_identity(r);
        memset(&plan, 0, sizeof plan);
        sem_init(&r->observer_ready, 0, 0);
        sem_init(&r->observer_go, 0, 0);
        int launched = rc == 0 && (rc = launch(r)) == 0;
        if (launched)
            while (sem_wait(&r->observer_ready) != 0) /* its thread id, for its events */
                ;
        if (rc == 0) rc = hardware_open(r, &plan);
        if (rc == 0) rc = build_plan(r, block, &plan);
        if (rc == 0 && hist_spec_init(&params.hist, c->hist_buckets, c->hist_lo, c->hist_hi) != 0)
            rc = fail(SHIM_EINVAL, c->strict, "histogram %u:%g:%g cannot be built", c->hist_buckets,
                      c->hist_lo, c->hist_hi);
        clock_pair_take(&r->start);
        params.seed = r->start.tsc ^ ((uint64_t)r->pid << 32);
        params.batch_origin = r->start.tsc; /* every observer's time batches line up */
        /* what the tables take at once: their first chunk and the histograms' pool (the
         * rest grows with the tuples, up to SHIM_MAX_TAGS entries of tag_table_entry_bytes) */
        size_t need = tag_table_initial_bytes(1 + plan.n_tags, plan.n_rates,
                                              r->settings.hist_tuples, &params.hist);
        if (plan.paths) /* and the paths' table, the same size */
            need += tag_table_initial_bytes(3, plan.n_rates, r->settings.hist_tuples, &params.hist);
        if (rc == 0 && need > SHIM_MAX_TABLE_BYTES)
            rc = fail(SHIM_EINVAL, c->strict,
                      "the rate histograms would need %zu MiB (SHIM_HIST_TUPLES=%u x %u rates x "
                      "%u histogram buckets); the limit is %u MiB: lower SHIM_HIST_TUPLES or the "
                      "buckets of SHIM_HIST",
                      need >> 20, r->settings.hist_tuples, plan.n_rates, c->hist_buckets,
                      (unsigned)(SHIM_MAX_TABLE_BYTES >> 20));
        if (rc == 0 && observer_init(&r->obs, &plan, &params) != 0)
            rc = fail(SHIM_ENOMEM, c->strict,
                      "out of memory for the observer's tables "
                      "(SHIM_HIST_TUPLES=%u, %u histogram buckets)",
                      r->settings.hist_tuples, c->hist_buckets);
        if (rc == 0 && r->settings.trace_on) {
            /* the writer shares the observer's CPU: its work then shows as interrupted
             * sample periods, counted, instead of slowing the program down */
            cpu_set_t writer_cpu;
            CPU_ZERO(&writer_cpu);
            CPU_SET(r->placement.observer_cpu, &writer_cpu);
            char why[PATH_MAX + 128];
            if (trace_writer_start(&r->trace, r->trace_path, r->settings.trace_max, &plan,
                                   r->tsc.hz, r->start.tsc, r->pid, &writer_cpu, why,
                                   sizeof why) == 0) {
                r->obs.trace = &r->trace.ring;
                r->tracing = 1;
            } else {
                run_complain(c->strict, "no trace is written", "SHIM_TRACE: %s", why);
            }
        }
        CPU_ZERO(&r->observed_cpus);
        CPU_SET(r->placement.observed_cpu, &r->observed_cpus);
        if (rc == 0) start_extra_observers(r, &plan, &params);
        if (rc == 0) start_keeper(r);
        if (launched) {
            r->observer_abort = rc != 0;
            sem_post(&r->observer_go);
            if (rc != 0) pthread_join(r->thread, NULL);
        }
        if (rc != 0) hardware_close(r);
    }
    if (rc != 0) thread_identity_close(r->ti);
    if (rc != 0) {
        affinity_give_back_all(&r->moved, getpid());
        affinity_free(&r->moved);
        free(r->pathless);
        free(r);
        return rc;
    }
    host_probe(&r->host);
    snprintf(last_output, sizeof last_output, "%s", r->output_path);
    run = r;
    state = RUNNING;
    return 0;
}

/*
 * Secure execution (set-user-ID, set-group-ID, file capabilities: AT_SECURE): the
 * environment and the working directory belong to the user who ran the program, not
 * to the one whose rights it runs with. Every file shim writes is named by them
 * (SHIM_OUTPUT, SHIM_TRACE, or the working directory), so observing would let that user
 * create or truncate files with the program's rights. shim then does not observe at all
 * and reads nothing of the environment, and says so once.
 */
static int secure_execution(void)
{
    static int said;
    if (!getauxval(AT_SECURE)) return 0;
    if (!said++)
        fprintf(stderr, "shim: this program runs set-user-ID, set-group-ID or with file "
                        "capabilities: shim ignores the SHIM_* environment and does not observe "
                        "it; the program runs on unprofiled\n");
    return 1;
}

/*
 * shimrun: a program that never calls shim_start() is observed from its start when
 * libshim is preloaded with SHIM_AUTOSTART=1. The constructor runs on the main thread
 * before main(), so the main thread is the observed one. It takes both variables out of
 * the environment first: programs the observed one starts are not observed (each
 * would start an observer of its own), unless SHIM_AUTOSTART_CHILDREN=1 keeps them.
 */
static void drop_preload(void)
{
    const char *pre = getenv("LD_PRELOAD");
    char kept[4096] = "";
    if (!pre || strlen(pre) >= sizeof kept) return;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", pre);
    for (char *save = NULL, *t = strtok_r(copy, " :", &save); t; t = strtok_r(NULL, " :", &save)) {
        const char *base = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;
        if (!strncmp(base, "libshim.so", 10)) continue;
        if (*kept) strcat(kept, ":");
        strcat(kept, t);
    }
    if (*kept)
        setenv("LD_PRELOAD", kept, 1);
    else
        unsetenv("LD_PRELOAD");
}

/* Set while the constructor starts shim: SIGINT is then left to the program unless
 * SHIM_SIGINT=on (termination.c). */
static int before_main;

__attribute__((constructor)) static void autostart(void)
{
    const char *v = getenv("SHIM_AUTOSTART");
    if (!v || strcmp(v, "1") != 0 || secure_execution()) return;
    const char *children = getenv("SHIM_AUTOSTART_CHILDREN");
    if (!children || strcmp(children, "1") != 0) {
        drop_preload();
        unsetenv("SHIM_AUTOSTART");
    }
    before_main = 1;
    shim_start(NULL); /* its own messages say what went wrong; the program runs on */
    before_main = 0;
}

int shim_start(const struct shim_config *cfg)
{
    int cancel = lock_run();
    int rc;
    if (secure_execution()) {
        rc = SHIM_EDISABLED;
    } else if (state == RUNNING) {
        fprintf(stderr, "shim: shim_start() called while already observing; ignored\n");
        rc = SHIM_EBUSY;
    } else {
        rc = start_locked(cfg);
    }
    if (rc == 0 && !hooks_installed) {
        hooks_installed = 1;
        atexit(stop_at_exit);
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    }
    if (rc == 0) { /* at every start: a child of fork() needs a writer thread of its own */
        enum sigint_mode sigint = run->settings.sigint;
        termination_install(sigint == SIGINT_ON || (sigint == SIGINT_AUTO && !before_main));
    }
    unlock_run(cancel);
    return rc;
}

/* Samples that are not their own tuple's, said whenever there are any: silent loss is a
 * bug. Interrupted periods (the observer's own pauses) are said when above 1%. */
static void summary_unattributed(const struct shim_run *r)
{
    const struct observer_totals *t = &r->obs.totals;
    const uint64_t *why = r->obs.tags.other_why;
    double all = t->total ? (double)t->total : 1;
    if (t->other)
        fprintf(stderr,
                "shim: %.2f%% of the samples (%llu) went to \"other\", not to their own tag tuple: "
                "%llu because the store reached its limit of %u tuples (raise SHIM_MAX_TAGS), "
                "%llu because it could not grow in time (a larger SHIM_PERIOD gives it time)\n",
                100.0 * (double)t->other / all, (unsigned long long)t->other,
                (unsigned long long)why[TAG_OTHER_FULL], r->obs.tags.max_entries,
                (unsigned long long)why[TAG_OTHER_BEHIND]);
    if ((double)t->interrupted > 0.01 * all)
        fprintf(stderr,
                "shim: %.2f%% of the sample periods (%llu) are attributed to nothing: the observer "
                "was interrupted or paused in them (preemption, its own aggregation)\n",
                100.0 * (double)t->interrupted / all, (unsigned long long)t->interrupted);
    /* calling contexts the stack walks could not give (docs/calling-contexts.md) */
    const struct chain_store *c = &r->obs.chains;
    uint64_t lost = c->unsteady + c->full + c->no_stack;
    if (r->obs.plan.walk_tag && c->walks && (double)lost > 0.01 * (double)c->walks)
        fprintf(stderr,
                "shim: %.2f%% of the samples' calling contexts are lost: %llu kept changing "
                "while the stack was read, %llu found the store of %u chains full, %llu were of "
                "a thread whose stack is unknown\n",
                100.0 * (double)lost / (double)c->walks, (unsigned long long)c->unsteady,
                (unsigned long long)c->full, c->cap - CHAIN_FIRST, (unsigned long long)c->no_stack);
}

static void summary(const struct shim_run *r)
{
    const struct observer_totals *t = &r->obs.totals;
    fprintf(stderr,
            "shim: wrote %s: %llu samples, median period %.0f cycles, %.1f%% kept by DTE, "
            "observer on CPU %d (%s)\n",
            r->output_shown, (unsigned long long)t->total, loghist_quantile(&r->obs.period, 0.5),
            t->rated ? 100.0 * (double)t->kept / (double)t->rated : 0.0, r->placement.observer_cpu,
            r->placement.relation);
    summary_unattributed(r);
}

int shim_stop(void)
{
    int cancel = lock_run();
    if (state != RUNNING) {
        unlock_run(cancel);
        return SHIM_ENOTSTARTED;
    }
    struct shim_run *r = run;
    observer_request_stop(&r->obs);
    pthread_join(r->thread, NULL);
    stop_extra_observers(r);
    hardware_check(r);
    if (r->tracing) {
        trace_writer_stop(&r->trace);
        if (r->trace.error)
            fprintf(stderr, "shim: SHIM_TRACE: writing %s failed: %s; %llu periods are not in it\n",
                    r->trace_path, strerror(r->trace.error),
                    (unsigned long long)r->trace.dropped_limit);
    }
    run = NULL; /* from here on, an exit() (SHIM_STRICT) finds nothing to stop */
    state = IDLE;
    clock_pair_take(&r->end);
    struct clock_pair calibration_end = r->end;
    tsc_calibrate(&r->tsc, &r->start, &calibration_end);
    /* The observed thread and those that joined get their own masks back (affinity.c) */
    affinity_give_back_all(&r->moved, (pid_t)r->pid);
    affinity_free(&r->moved);
    char why[PATH_MAX + 128];
    int rc = 0;
    if (profile_write(r, why, sizeof why) != 0) {
        fprintf(stderr, "shim: %s; the profile of this run is lost\n", why);
        strict_exit(r->settings.cfg.strict);
        rc = SHIM_EIO;
    } else if (!r->settings.quiet) {
        summary(r);
    }
    if (r->settings.hooks_frames) cct_use_frames(0);
    observer_free(&r->obs);
    free_extra_observers(r);
    hardware_close(r);
    thread_identity_close(r->ti);
    if (r->tracing) trace_writer_free(&r->trace);
    free(r->pathless);
    free(r);
    unlock_run(cancel);
    return rc;
}

/*
 * Another thread of the program joins the run (threads.c, or the program's own call).
 * It gets a block, a path ring when the program has paths, and its calling-context
 * slots. Where the thread word comes from BPF (the thread actually running on the
 * observed CPU), the thread is confined to the observed CPU, so every moment it runs
 * is seen and told apart from the others. Without it, the thread word is the thread
 * that called shim_start(): another thread on that CPU would be taken for it, so the
 * thread stays off the observed CPU where it can (and is not observed), and shim says
 * once why it cannot do better (README, "Threads").
 */
static int attach_thread(struct shim_run *r, const cpu_set_t *inherited)
{
    pid_t tid = gettid();
    if (tid == r->observed_tid || shim_tls_block != &shim_dummy_block) return 0; /* already */
    uint64_t seen = seen_id(r, tid);
    struct shim_block *b = signal_block_acquire();
    if (!b) {
        if (!r->said_full++)
            fprintf(stderr, "shim: more than %d threads observed at once; thread %d is not\n",
                    SIGNAL_BLOCK_POOL, (int)tid);
        return SHIM_ENOMEM;
    }
    if (seen != (uint64_t)tid) signal_block_set_id(seen);
    signal_block_attach(b);
    if (r->obs.plan.paths) path_ring_attach(b); /* without memory: its paths go unseen */
    cct_republish();
    alloc_signal_attach(r, b);
    if (r->attached < RUN_MAX_THREADS) {
        r->thread_tid[r->attached] = tid;
        r->thread_seen[r->attached] = seen;
        run_thread_name(tid, r->thread_name[r->attached], RUN_THREAD_NAME);
    }
    r->attached++;
    cpu_set_t now, own, set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof now, &now) != 0) return 0; /* then left where it is */
    own = inherited ? *inherited : now;
    struct run_observer *free_cpu = NULL;
    for (unsigned k = 0; k < r->n_extra && !free_cpu; k++)
        if (!__atomic_load_n(&r->extra[k].thread_word, __ATOMIC_RELAXED) &&
            CPU_ISSET(r->extra[k].placement.observed_cpu, &own))
            free_cpu = &r->extra[k];
    if (r->ti) {
        CPU_AND(&set, &r->observed_cpus, &own);
    } else if (free_cpu) { /* one thread per observed CPU: this one gets the next */
        CPU_SET(free_cpu->placement.observed_cpu, &set);
        __atomic_store_n(&free_cpu->thread_word, (uint64_t)tid, __ATOMIC_RELAXED);
    } else {
        set = own;
        CPU_CLR(r->placement.observed_cpu, &set);
        CPU_CLR(r->placement.observer_cpu, &set);
        if (!r->said_identity++)
            fprintf(stderr,
                    "shim: thread %d joins the run, but shim cannot tell threads apart on CPU "
                    "%d (%s): only thread %d is observed there%s\n",
                    (int)tid, r->placement.observed_cpu, r->identity_why, (int)r->observed_tid,
                    CPU_COUNT(&set) ? "; the others run on the other CPUs"
                                    : ", and samples of others that run there count as its own");
    }
    /* only ever narrowed within the thread's own mask (one the program gave it through
     * pthread_attr_setaffinity_np included), and given back at the stop */
    if (!CPU_COUNT(&set)) set = own;
    if (!CPU_EQUAL(&set, &now) || !CPU_EQUAL(&own, &now)) /* an inherited pin is shim's too */
        affinity_move_self(&r->moved, tid, &own, &set);
    return 0;
}

void lifecycle_thread_leaving(void)
{
    int cancel = lock_run();
    pid_t tid = gettid();
    for (unsigned i = 0; state == RUNNING && i < run->attached && i < RUN_MAX_THREADS; i++)
        if (run->thread_tid[i] == tid) run_thread_name(tid, run->thread_name[i], RUN_THREAD_NAME);
    if (state == RUNNING) affinity_forget(&run->moved, tid); /* its id may come back */
    unlock_run(cancel);
}

int lifecycle_spawn_begin(cpu_set_t *shims)
{
    int cancel = lock_run();
    const struct affinity_moved *m = state == RUNNING ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now;
    int moved = m && sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set) &&
                sched_setaffinity(0, sizeof m->own, &m->own) == 0;
    if (moved) *shims = m->set;
    unlock_run(cancel);
    return moved;
}

void lifecycle_spawn_end(const cpu_set_t *shims)
{
    int cancel = lock_run();
    const struct affinity_moved *m = state == RUNNING ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now;
    if (m && CPU_EQUAL(&m->set, shims) && sched_getaffinity(0, sizeof now, &now) == 0 &&
        CPU_EQUAL(&now, &m->own))
        sched_setaffinity(0, sizeof *shims, shims);
    unlock_run(cancel);
}

int shim_thread_attach(void)
{
    return lifecycle_thread_attach(NULL);
}

int lifecycle_thread_attach(const cpu_set_t *inherited)
{
    int cancel = lock_run();
    int rc = state == RUNNING ? attach_thread(run, inherited) : SHIM_ENOTSTARTED;
    unlock_run(cancel);
    return rc;
}

int lifecycle_own_affinity(cpu_set_t *own)
{
    int cancel = lock_run();
    const struct affinity_moved *m = state == RUNNING ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now;
    int moved = m && sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set);
    if (moved) *own = m->own;
    unlock_run(cancel);
    return moved;
}

int shim_thread_detach(void)
{
    signal_block_release();
    path_ring_detach();
    return 0;
}

int shim_running(void)
{
    int cancel = lock_run();
    int on = state == RUNNING;
    unlock_run(cancel);
    return on;
}

const char *shim_output_path(void)
{
    return last_output[0] ? last_output : NULL;
}
