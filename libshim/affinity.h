/*
 * affinity.h -- the CPU affinity shim changes in the program's threads, and giving it
 * back (see affinity.c).
 */
#ifndef SHIM_LIBSHIM_AFFINITY_H
#define SHIM_LIBSHIM_AFFINITY_H

#include <sched.h>
#include <sys/types.h>

struct affinity_moved {
    pid_t tid;     /* 0: the thread left */
    cpu_set_t own; /* its mask before shim changed it */
    cpu_set_t set; /* the mask shim gave it */
};

struct affinity_log {
    struct affinity_moved *moved;
    unsigned n, cap;
};

/* Give the calling thread (tid) the mask `set`, and remember its own: 0, or an errno
 * (the mask is then unchanged, or nothing is remembered and it is given back). */
int affinity_move_self(struct affinity_log *log, pid_t tid, const cpu_set_t *own,
                       const cpu_set_t *set);

/* The thread's own mask if shim changed it, else NULL. */
const struct affinity_moved *affinity_find(const struct affinity_log *log, pid_t tid);

/* The thread left: its id may be another thread's later. */
void affinity_forget(struct affinity_log *log, pid_t tid);

/* Every thread of process pid that shim moved, still alive and still on the mask shim
 * gave it, gets its own back; one the program moved since keeps the program's. */
void affinity_give_back_all(struct affinity_log *log, pid_t pid);

void affinity_free(struct affinity_log *log);

#endif
