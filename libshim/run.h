/*
 * run.h -- everything the coordinator knows about one observation run, from
 * shim_start() to the profile. Owned by lifecycle.c; read by the profile writer.
 */
#ifndef SHIM_LIBSHIM_RUN_H
#define SHIM_LIBSHIM_RUN_H

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

#include "config.h"
#include "machine.h"
#include "observer.h"
#include "topology.h"

struct shim_run {
    struct shim_settings settings;
    struct observer obs;
    struct placement placement;
    struct machine_topology topo;
    struct tsc_info tsc;
    struct host_info host;
    struct clock_pair start, end;
    unsigned tag_slot[SHIM_TAG_SLOTS], n_tag_slots;             /* plan order */
    unsigned counter_slot[SHIM_COUNTER_SLOTS], n_counter_slots; /* plan order */
    struct rate_spec derived[PROBE_MAX_RATES]; /* SHIM_RATES, after one rate per counter */
    unsigned n_derived;
    long pid;
    pid_t observed_tid;
    cpu_set_t allowed, saved_affinity;
    char output_path[PATH_MAX];  /* absolute */
    char output_shown[PATH_MAX]; /* as the user gave it, for messages */
    char prog_name[256];
    pthread_t thread;
    int pinned;                        /* the observed thread's affinity was changed */
    _Alignas(64) uint64_t thread_word; /* the observed thread's tid, read by the observer */
};

/* Write the profile of a finished run to r->output_path, atomically. Returns 0, or -1
 * with the reason in why. */
int profile_write(const struct shim_run *r, char *why, size_t whylen);

#endif
