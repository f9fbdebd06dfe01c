/*
 * topology.h -- the machine as hwloc sees it, and where to put the observer.
 */
#ifndef SHIM_LIBSHIM_TOPOLOGY_H
#define SHIM_LIBSHIM_TOPOLOGY_H

#include <hwloc.h>
#include <sched.h>

#define TOPOLOGY_MAX_PUS 1024

struct machine_topology {
    char cpu_model[128], vendor[64];
    int packages, cores, pus, smt;
    int n_pu; /* entries in pu[] (capped at TOPOLOGY_MAX_PUS) */
    struct {
        int os_index, core, package;
    } pu[TOPOLOGY_MAX_PUS];
};

struct placement {
    int observed_cpu, observer_cpu;
    const char *relation; /* smt-sibling, shared-cache, same-package, other-package */
    char shared[16];      /* closest shared level: core, L2, L3, package, machine */
    int user_chosen;      /* the observer CPU came from the configuration */
};

/* Load the topology of this machine (0, or -1 with a reason in why). */
int topology_load(hwloc_topology_t *topo, char *why, size_t whylen);

void topology_describe(hwloc_topology_t topo, struct machine_topology *m);

/* The CPUs this process may use: its cpuset (cgroup cpuset.cpus.effective, as hwloc
 * reads it), else the online CPUs. Not the calling thread's affinity mask. */
void topology_process_cpus(hwloc_topology_t topo, cpu_set_t *out);

/*
 * Choose CPUs for the observer and the observed thread, which now runs on `current`.
 * `allowed` is the set the process may use (the observer's choice); `thread` is the
 * observed thread's own affinity mask (the observed CPU is one of it), or NULL for the
 * same as `allowed`; `requested` is a CPU for the observer or -1. Returns 0, or a
 * SHIM_E* code with a one-line reason in why.
 */
int placement_choose(hwloc_topology_t topo, const cpu_set_t *allowed, const cpu_set_t *thread,
                     int current, int requested, struct placement *out, char *why, size_t whylen);

#endif
