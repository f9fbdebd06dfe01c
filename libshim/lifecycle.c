/*
 * lifecycle.c -- shim_start(), shim_stop() and what surrounds them: configuration,
 * starting before main (shimrun), stopping at exit, fork.
 *
 * One run at a time, under the run's lock (run.c). Starting resolves the configuration
 * (any bad value: one line, and the program runs on unprofiled, or exits under
 * SHIM_STRICT; errors.c), chooses CPUs with hwloc and pins the calling thread and the
 * observer (observers.c), gives the calling thread a signal block, builds the probe
 * plan (plan.c) and lets the observer run. Stopping joins the observer, gives every
 * thread whose CPU affinity shim changed its own back (affinity.c) and writes the
 * profile. If the program never calls shim_stop(), an atexit handler does. Threads that
 * join the run meanwhile are attach.c's.
 *
 * fork(): the child has no observer thread (threads do not survive fork), so the child
 * forgets the parent's run, closing its copies of the run's descriptors: it is
 * unobserved and may call shim_start() again. The mutex is taken around fork so the
 * child never inherits it locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "signals/cct.h"
#include "formats/profile.h"
#include "libshim/internal.h"
#include "libshim/names.h"
#include "libshim/sidetable.h"
#include "libshim/snapshot.h"
#include "signals/signal_block.h"
#include "signals/stackwalk.h"
#include "libshim/symbols.h"
#include "libshim/termination.h"
#include "libshim/thread_identity.h"

#ifndef SHIM_DOC_DIR
#define SHIM_DOC_DIR "/usr/local/share/doc/shim"
#endif

extern char **environ;

static int hooks_installed;
static char last_output[PATH_MAX];

/* Where the stop's messages go. A program may close its standard error before the
 * atexit handler runs (coreutils' close_stdout does), and `stderr` is then a closed
 * stream, so the stop writes with dprintf: to descriptor 2 while it is open, else to a
 * copy of it taken at the start (close-on-exec, closed at the end of the stop), if that
 * still is the same file. The copy is the first free descriptor from 60: out of the way
 * of the program's low numbers, and inside the 64 a process's table starts with. A
 * higher one made the kernel grow the table, which in a process with threads (the
 * observer's) waits for an RCU grace period: 5 to 17 ms of shim_start() on a 2-CPU
 * machine whose other CPU the observer keeps busy, sampled as the program's start. */
static int say_fd = -1;
static struct stat say_st;

static void say_keep(void)
{
    if (say_fd >= 0) return;
    int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 60);
    if (fd < 0) fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd >= 0 && fstat(fd, &say_st) != 0) {
        close(fd);
        fd = -1;
    }
    say_fd = fd;
}

/* Whether say_fd is still the copy taken (not closed, nor its number reused by the
 * program for another file). */
static int say_fd_ours(void)
{
    struct stat st;
    return say_fd >= 0 && fstat(say_fd, &st) == 0 && st.st_dev == say_st.st_dev &&
           st.st_ino == say_st.st_ino;
}

/* At the end of the stop: the process's descriptors are as they were before the start. */
static void say_drop(void)
{
    if (say_fd_ours()) close(say_fd);
    say_fd = -1;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    int fd = STDERR_FILENO;
    if (fcntl(fd, F_GETFD) == -1) {
        if (!say_fd_ours()) return;
        fd = say_fd;
    }
    va_list ap;
    va_start(ap, fmt);
    vdprintf(fd, fmt, ap);
    va_end(ap);
}

static void program_name(char *out, size_t len)
{
    extern char *program_invocation_short_name;
    snprintf(out, len, "%s",
             program_invocation_short_name ? program_invocation_short_name : "prog");
    for (char *p = out; *p; p++) /* keep the default file name tame */
        if (*p == '/' || *p == ' ') *p = '_';
}

static void stop_at_exit(void)
{
    run_set_exiting();
    if (shim_running()) shim_stop();
}

/* A program that leaves by _exit() or _Exit() (a shell does, and a child after fork)
 * runs no atexit handler: shim's own definitions of the two have the writer thread
 * stop the run and write the profile first, when this process is the one observed
 * (not a child of fork() or vfork(): termination.c), and then end the process as the
 * C library's do. Async-signal-safe, as _exit() must be. */
SHIM_API void _exit(int status)
{
    termination_before_exit();
    for (;;)
        syscall(SYS_exit_group, status);
}

SHIM_API void _Exit(int status)
{
    _exit(status);
}

/* The forking thread's CPU affinity as it was before shim changed it, if shim did (the
 * observed thread, or one that joined): the child must not inherit shim's mask. */
static cpu_set_t fork_affinity;
static int fork_restore_affinity;

static void before_fork(void)
{
    run_fork_prepare();
    struct shim_run *run = run_current();
    const struct affinity_moved *m = run ? affinity_find(&run->moved, gettid()) : NULL;
    cpu_set_t now; /* a mask the program set since is the program's: the child keeps it */
    fork_restore_affinity =
        m && sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set);
    if (fork_restore_affinity) fork_affinity = m->own;
}

static void after_fork_parent(void)
{
    run_fork_parent();
}
static void after_fork_child(void)
{
    struct shim_run *run = run_current();
    run_fork_child();
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
    say_drop();
    run_set_current(NULL);
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
            fprintf(stderr, "%.*s; %s\n", (int)n, line, run_consequence(strict));
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
        run_strict_exit(r->settings.cfg.strict);
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
        return run_fail(SHIM_EINVAL, r->settings.cfg.strict,
                        "SHIM_OUTPUT=\"%s\" expands to a path that is too long",
                        r->settings.output);
    /* A relative path is taken from the working directory at start, not at exit: a
     * program that changes directory still finds its profile where it was started. */
    int n = path[0] == '/' || !getcwd(cwd, sizeof cwd)
                ? snprintf(r->output_path, sizeof r->output_path, "%s", path)
                : snprintf(r->output_path, sizeof r->output_path, "%s/%s", cwd, path);
    if (n < 0 || (size_t)n >= sizeof r->output_path)
        return run_fail(SHIM_EINVAL, r->settings.cfg.strict,
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
            return run_fail(SHIM_EINVAL, r->settings.cfg.strict,
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
        return run_fail(SHIM_EIO, r->settings.cfg.strict,
                        "cannot write the profile %s: directory %s: %s", r->output_shown, dir,
                        strerror(errno));
    return 0;
}

/*
 * What the -finstrument-functions hooks keep (SHIM_HOOKS), decided as shim starts. Auto:
 * the frame signal where the code that calls the hooks keeps frame pointers (three in
 * four of its functions start by setting one up: symbols_framed_callers), the tree
 * otherwise (docs/calling-contexts.md). The frame signal is refused where code built
 * with the compiler pass stores no frames: the hooks' pair would stay in slot 11 under
 * its loop words, which the observer would then take for the hooks'.
 */
static void hooks_choose(struct shim_run *r)
{
    int *frames = &r->settings.hooks_frames;
    int asked = *frames == 1;
    if (*frames < 0) { /* no module calls the hooks: none counted */
        size_t total, framed = symbols_framed_callers("__cyg_profile_func_enter", &total);
        *frames = total > 0 && framed * 4 >= total * 3;
    }
    if (*frames && sidetable_present() && symbols_sections(STACKWALK_SECTION, NULL, NULL) == 0) {
        if (asked)
            run_complain(r->settings.cfg.strict, "the hooks keep the calling-context tree",
                         "SHIM_HOOKS=frames: the program's code built with the compiler pass "
                         "stores no frames (SHIM_PASS without context)");
        *frames = 0;
    }
}

static int start_locked(const struct shim_config *cfg)
{
    /* aligned: the observer's stop flag and the thread word have cache lines of their own */
    size_t size = (sizeof(struct shim_run) + 63) & ~(size_t)63;
    struct shim_run *r = aligned_alloc(64, size);
    if (!r) return run_fail(SHIM_ENOMEM, 0, "out of memory starting shim");
    memset(r, 0, size);
    int rc = configure(r, cfg);
    if (rc == 0) rc = observers_place(r);
    struct shim_block *block = rc == 0 ? signal_block_acquire() : NULL;
    if (rc == 0 && !block)
        rc = run_fail(SHIM_ENOMEM, r->settings.cfg.strict, "no signal block left for this thread");
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
            /* the TSC's rate is often only calibrated at the stop: then 10^8 cycles,
             * 20 to 50 ms at the usual 2 to 5 GHz */
            .breath_every = r->tsc.hz > 0 ? (uint64_t)(r->tsc.hz / OBSERVER_BREATHS_PER_SECOND)
                                          : OBSERVER_BREATH_EVERY_UNKNOWN,
            .breath_ns = OBSERVER_BREATH_NS,
        };
        signal_block_attach(block);
        cct_republish(); /* the context so far, into the block the observer reads */
        hooks_choose(r);
        if (r->settings.hooks_frames) cct_use_frames(1);
        r->observed_tid = gettid();
        r->thread_word = (uint64_t)r->observed_tid;
        rc = observers_open_identity(r);
        memset(&plan, 0, sizeof plan);
        sem_init(&r->observer_ready, 0, 0);
        sem_init(&r->observer_go, 0, 0);
        int launched = rc == 0 && (rc = observers_launch(r)) == 0;
        if (launched)
            while (sem_wait(&r->observer_ready) != 0) /* its thread id, for its events */
                ;
        if (rc == 0) rc = hardware_open(r, &plan);
        if (rc == 0) rc = plan_build(r, block, &plan);
        if (rc == 0 && hist_spec_init(&params.hist, c->hist_buckets, c->hist_lo, c->hist_hi) != 0)
            rc = run_fail(SHIM_EINVAL, c->strict, "histogram %u:%g:%g cannot be built",
                          c->hist_buckets, c->hist_lo, c->hist_hi);
        clock_pair_take(&r->start);
        r->children_cpu_start = run_children_cpu();
        params.seed = r->start.tsc ^ ((uint64_t)r->pid << 32);
        params.batch_origin = r->start.tsc; /* every observer's time batches line up */
        /* what the tables take at once: their first chunk and the histograms' pool (the
         * rest grows with the tuples, up to SHIM_MAX_TAGS entries of tag_table_entry_bytes) */
        size_t need = tag_table_initial_bytes(1 + plan.n_tags, plan.n_rates,
                                              r->settings.hist_tuples, &params.hist);
        if (plan.paths) /* and the paths' table, the same size */
            need += tag_table_initial_bytes(3, plan.n_rates, r->settings.hist_tuples, &params.hist);
        if (rc == 0 && need > SHIM_MAX_TABLE_BYTES)
            rc = run_fail(
                SHIM_EINVAL, c->strict,
                "the rate histograms would need %zu MiB (SHIM_HIST_TUPLES=%u x %u rates x "
                "%u histogram buckets); the limit is %u MiB: lower SHIM_HIST_TUPLES or the "
                "buckets of SHIM_HIST",
                need >> 20, r->settings.hist_tuples, plan.n_rates, c->hist_buckets,
                (unsigned)(SHIM_MAX_TABLE_BYTES >> 20));
        if (rc == 0 && observer_init(&r->obs, &plan, &params) != 0)
            rc = run_fail(SHIM_ENOMEM, c->strict,
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
        if (rc == 0) observers_start_extra(r, &plan, &params);
        if (rc == 0) observers_start_keeper(r);
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
        free(r->pathed);
        free(r);
        return rc;
    }
    host_probe(&r->host);
    snapshot_start(r);                 /* SHIM_SNAPSHOT: the profile so far, every few seconds */
    unread_watch_start(&r->unread, r); /* without memory: nothing said at the stop */
    snprintf(last_output, sizeof last_output, "%s", r->output_path);
    run_set_current(r);
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
    } else {
        run_observe_children(); /* they are observed, each on its own */
    }
    before_main = 1;
    shim_start(NULL); /* its own messages say what went wrong; the program runs on */
    before_main = 0;
}

int shim_start(const struct shim_config *cfg)
{
    int cancel = run_lock();
    int rc;
    if (secure_execution()) {
        rc = SHIM_EDISABLED;
    } else if (run_current()) {
        fprintf(stderr, "shim: shim_start() called while already observing; ignored\n");
        rc = SHIM_EBUSY;
    } else {
        rc = start_locked(cfg);
    }
    if (rc == 0) say_keep();
    if (rc == 0 && !hooks_installed) {
        hooks_installed = 1;
        atexit(stop_at_exit);
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    }
    if (rc == 0) { /* at every start: a child of fork() needs a writer thread of its own */
        enum sigint_mode sigint = run_current()->settings.sigint;
        termination_install(sigint == SIGINT_ON || (sigint == SIGINT_AUTO && !before_main));
    }
    run_unlock(cancel);
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
        say("shim: %.2f%% of the samples (%llu) went to \"other\", not to their own tag tuple: "
            "%llu because the store reached its limit of %u tuples (raise SHIM_MAX_TAGS), "
            "%llu because it could not grow in time (a larger SHIM_PERIOD gives it time)\n",
            100.0 * (double)t->other / all, (unsigned long long)t->other,
            (unsigned long long)why[TAG_OTHER_FULL], r->obs.tags.max_entries,
            (unsigned long long)why[TAG_OTHER_BEHIND]);
    if ((double)t->interrupted > 0.01 * all)
        say("shim: %.2f%% of the sample periods (%llu) are attributed to nothing: the observer "
            "was interrupted or paused in them (preemption, its own aggregation)\n",
            100.0 * (double)t->interrupted / all, (unsigned long long)t->interrupted);
    /* calling contexts the stack walks could not give (docs/calling-contexts.md) */
    const struct chain_store *c = &r->obs.chains;
    uint64_t lost = c->unsteady + c->full + c->no_stack;
    if (r->obs.plan.walk_tag && c->walks && (double)lost > 0.01 * (double)c->walks)
        say("shim: %.2f%% of the samples' calling contexts are lost (their functions are "
            "kept): in %llu the thread left the frames while they were read, %llu found the "
            "store of %u chains full, %llu were of a thread whose stack is unknown\n",
            100.0 * (double)lost / (double)c->walks, (unsigned long long)c->unsteady,
            (unsigned long long)c->full, c->cap - CHAIN_FIRST, (unsigned long long)c->no_stack);
}

/* Whether no sample saw a signal: every tuple's tag values are 0. */
static int no_signal_seen(const struct tag_table *t)
{
    for (uint32_t i = 0; i < t->n_entries; i++) {
        const uint64_t *key = tag_table_key(t, i);
        for (unsigned w = 1; w < t->key_words; w++) /* word 0 is the thread */
            if (key[w]) return 0;
    }
    return 1;
}

/* The median of h to the precision its bucket has, or exactly where every value in it was
 * the same, as shimview prints it (profile_bucket_text). */
static const char *median_text(const struct loghist *h, char *buf, size_t len)
{
    int exact = 0;
    double v = loghist_quantile_exact(h, 0.5, &exact);
    if (exact || !(v >= 1)) {
        snprintf(buf, len, "%.0f", v);
        return buf;
    }
    return profile_bucket_text(v, ldexp(1.0, (int)floor(log2(v)) - h->sub_bits), buf, len);
}

static void summary(const struct shim_run *r)
{
    const struct observer_totals *t = &r->obs.totals;
    if (t->total == 0) {
        say("shim: wrote %s: no samples: the program ended before the observer's first sample "
            "(starting takes shim a few milliseconds) or within its first period\n",
            r->output_shown);
        return;
    }
    char median[32];
    say("shim: wrote %s: %llu sample%s, median period %s cycles%s, %.1f%% kept by DTE, "
        "observer on CPU %d (%s)\n",
        r->output_shown, (unsigned long long)t->total, t->total == 1 ? "" : "s",
        median_text(&r->obs.period, median, sizeof median),
        r->period_auto
            ? " (the default for compiler-made signals: SHIM_PERIOD or shimrun -p sets another)"
            : "",
        t->rated ? 100.0 * (double)t->kept / (double)t->rated : 0.0, r->placement.observer_cpu,
        r->placement.relation);
    double children = run_children_seconds(r);
    if (no_signal_seen(&r->obs.tags)) {
        if (!run_children_observed() &&
            profile_children_matter(children, (double)(r->end.mono_ns - r->start.mono_ns) * 1e-9))
            say("shim: the program wrote no signal, so every sample is \"(before the first "
                "signal)\"; the programs it started used %.2f s of CPU, not observed: shimrun "
                "--children (SHIM_AUTOSTART_CHILDREN=1) observes them too, each writing its own "
                "profile (%%p, the pid, in -o's name keeps them apart)\n",
                children);
        else
            say("shim: the program wrote no signal, so every sample is \"(before the first "
                "signal)\": build it with -finstrument-functions, or clang's "
                "-fpass-plugin=$(pkg-config --variable=passplugin shim), for its functions, "
                "loops and calling contexts, or mark its phases with SHIM_SIGNAL (" SHIM_DOC_DIR
                "/guide.md)\n");
    }
    summary_unattributed(r);
    char unread[1024];
    if (unread_watch_message(&r->unread, r, unread, sizeof unread)) say("shim: %s\n", unread);
}

int shim_stop(void)
{
    int cancel = run_lock();
    struct shim_run *r = run_current();
    if (!r) {
        run_unlock(cancel);
        return SHIM_ENOTSTARTED;
    }
    snapshot_stop(r); /* before the observers: a snapshot under way needs them */
    observer_request_stop(&r->obs);
    pthread_join(r->thread, NULL);
    observers_stop_extra(r);
    unread_watch_stop(&r->unread);
    hardware_check(r);
    if (r->tracing) {
        trace_writer_stop(&r->trace);
        if (r->trace.error)
            say("shim: SHIM_TRACE: writing %s failed: %s; %llu periods are not in it\n",
                r->trace_path, strerror(r->trace.error),
                (unsigned long long)r->trace.dropped_limit);
    }
    run_set_current(NULL); /* from here on, an exit() (SHIM_STRICT) finds nothing to stop */
    clock_pair_take(&r->end);
    struct clock_pair calibration_end = r->end;
    tsc_calibrate(&r->tsc, &r->start, &calibration_end);
    /* The observed thread and those that joined get their own masks back (affinity.c) */
    affinity_give_back_all(&r->moved, (pid_t)r->pid);
    affinity_free(&r->moved);
    char why[PATH_MAX + 128];
    int rc = 0;
    if (profile_write(r, why, sizeof why) != 0) {
        say("shim: %s; the profile of this run is lost\n", why);
        run_strict_exit(r->settings.cfg.strict);
        rc = SHIM_EIO;
    } else if (!r->settings.quiet) {
        summary(r);
    }
    if (r->settings.hooks_frames) cct_use_frames(0);
    snapshot_free(r);
    unread_watch_free(&r->unread);
    observer_free(&r->obs);
    observers_free_extra(r);
    hardware_close(r);
    thread_identity_close(r->ti);
    if (r->tracing) trace_writer_free(&r->trace);
    free(r->pathed);
    free(r);
    say_drop();
    run_unlock(cancel);
    return rc;
}

const char *shim_output_path(void)
{
    return last_output[0] ? last_output : NULL;
}
