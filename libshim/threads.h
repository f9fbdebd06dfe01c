/*
 * threads.h -- the program's threads and shim's own (see threads.c).
 */
#ifndef SHIM_LIBSHIM_THREADS_H
#define SHIM_LIBSHIM_THREADS_H

#include <pthread.h>
#include <sched.h>

/* pthread_create for shim's own threads (observer, writers): never attached, never
 * counted as the program's. */
int threads_create_internal(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                            void *arg);

/* The calling thread, which joined the run, is about to exit: its name is taken now
 * (lifecycle.c). */
void lifecycle_thread_leaving(void);

/* The calling thread joins the run, as shim_thread_attach(); `inherited`, if not NULL,
 * is its own affinity mask where the one it has was inherited from shim's pin of the
 * thread that created it. */
int lifecycle_thread_attach(const cpu_set_t *inherited);

/* The calling thread's own mask, if shim changed it and it is still shim's: 1, else 0. */
int lifecycle_own_affinity(cpu_set_t *own);

/* A program is about to be started from the calling thread (spawn.c): if shim changed
 * the thread's affinity and it is still shim's, the thread gets its own back, shim's
 * goes to *shims and 1 is returned; else 0. */
int lifecycle_spawn_begin(cpu_set_t *shims);

/* The call that started it returned: the thread is given *shims again if shim still
 * observes it and its mask is still its own. */
void lifecycle_spawn_end(const cpu_set_t *shims);

#endif
