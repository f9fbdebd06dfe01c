/*
 * affinity.c -- the CPU affinity shim changes in the program's threads, and giving it
 * back.
 *
 * shim pins the thread that calls shim_start() to the observed CPU, and narrows the
 * mask of each thread that joins the run (docs/threads.md, "Placement"). Each change is
 * written down here with the thread's own mask from before, so that the stop gives
 * every such thread its own mask back, and so that a program started from such a
 * thread (fork, exec, posix_spawn, system, popen: lifecycle.c, spawn.c) gets the
 * thread's own mask rather than shim's. A thread whose mask the program changed after
 * shim did keeps the program's: only a mask still equal to shim's is given back. The
 * log is the run's, guarded by the run's lock (run.c); the observer never reads it.
 */
#include "libshim/affinity.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int affinity_move_self(struct affinity_log *log, pid_t tid, const cpu_set_t *own,
                       const cpu_set_t *set)
{
    struct affinity_moved *m = (struct affinity_moved *)affinity_find(log, tid);
    if (!m && log->n == log->cap) {
        unsigned cap = log->cap ? 2 * log->cap : 16;
        struct affinity_moved *grown = realloc(log->moved, cap * sizeof *grown);
        if (!grown) return ENOMEM; /* not moved: nothing would give it back */
        log->moved = grown;
        log->cap = cap;
    }
    if (sched_setaffinity(0, sizeof *set, set) != 0) return errno;
    if (!m) {
        m = &log->moved[log->n++];
        m->tid = tid;
        m->own = *own;
    }
    m->set = *set;
    return 0;
}

const struct affinity_moved *affinity_find(const struct affinity_log *log, pid_t tid)
{
    for (unsigned i = 0; tid && i < log->n; i++)
        if (log->moved[i].tid == tid) return &log->moved[i];
    return NULL;
}

void affinity_forget(struct affinity_log *log, pid_t tid)
{
    struct affinity_moved *m = (struct affinity_moved *)affinity_find(log, tid);
    if (m) m->tid = 0;
}

void affinity_give_back_all(struct affinity_log *log, pid_t pid)
{
    for (unsigned i = 0; i < log->n; i++) {
        struct affinity_moved *m = &log->moved[i];
        cpu_set_t now;
        /* only a thread of this process still: after it exited its id may be another's */
        if (!m->tid || syscall(SYS_tgkill, pid, m->tid, 0) != 0) continue;
        if (sched_getaffinity(m->tid, sizeof now, &now) == 0 && CPU_EQUAL(&now, &m->set))
            sched_setaffinity(m->tid, sizeof m->own, &m->own);
        m->tid = 0;
    }
}

void affinity_free(struct affinity_log *log)
{
    free(log->moved);
    log->moved = NULL;
    log->n = log->cap = 0;
}
