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

#endif
