/*
 * topology.c -- placement of the observer with hwloc.
 *
 * The SHIM paper runs the observer on the SMT sibling of the observed thread (it then
 * shares the core's counters and the L1) or, on a chip multiprocessor, on another core.
 * shim asks hwloc for the observed CPU's ancestors -- core, caches, package, machine --
 * and takes the closest one that holds another CPU the process may run on: the SMT
 * sibling if there is one, else a core sharing the nearest cache level, else the same
 * package, else anything. The chosen relation is named in the profile and by shim-info.
 * A user-chosen observer CPU is honoured when allowed; if it is the observed CPU, the
 * observed thread moves to the CPU closest to it instead.
 *
 * Two sets of CPUs take part, and they differ. The observer may run on any CPU the
 * process may use: its cpuset (cgroup cpuset.cpus.effective, which hwloc reads as the
 * topology's allowed set), or else every online CPU. The observed thread stays within
 * its own affinity mask, which the program may have narrowed (pthread_setaffinity_np on
 * the main thread, taskset): a thread pinned to one CPU is observed there, with the
 * observer on another CPU of the process's set. Only a process whose cpuset holds one
 * CPU is refused.
 */
#include "libshim/topology.h"

#include <stdio.h>
#include <string.h>

#include "shim.h"

int topology_load(hwloc_topology_t *topo, char *why, size_t whylen)
{
    if (hwloc_topology_init(topo) != 0) {
        snprintf(why, whylen, "hwloc could not initialise a topology");
        return -1;
    }
    if (hwloc_topology_load(*topo) != 0) {
        snprintf(why, whylen, "hwloc could not read this machine's topology");
        hwloc_topology_destroy(*topo);
        return -1;
    }
    return 0;
}

static const char *info_of(hwloc_topology_t topo, const char *key)
{
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *v = pkg ? hwloc_obj_get_info_by_name(pkg, key) : NULL;
    if (!v) v = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), key);
    return v ? v : "unknown";
}

void topology_describe(hwloc_topology_t topo, struct machine_topology *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->cpu_model, sizeof m->cpu_model, "%s", info_of(topo, "CPUModel"));
    snprintf(m->vendor, sizeof m->vendor, "%s", info_of(topo, "CPUVendor"));
    m->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    m->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    m->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    m->smt = m->cores > 0 && m->pus > m->cores;
    for (int i = 0; i < m->pus && m->n_pu < TOPOLOGY_MAX_PUS; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
        m->pu[m->n_pu].os_index = (int)pu->os_index;
        m->pu[m->n_pu].core = core ? (int)core->logical_index : -1;
        m->pu[m->n_pu].package = pkg ? (int)pkg->logical_index : -1;
        m->n_pu++;
    }
}

/* Name the closest level two CPUs share, given their closest common ancestor. */
static void classify(hwloc_obj_t common, struct placement *p)
{
    hwloc_obj_t o = common;
    /* the common ancestor may be a group or memory-side object: climb to a named level */
    while (o && o->type != HWLOC_OBJ_CORE && !hwloc_obj_type_is_cache(o->type) &&
           o->type != HWLOC_OBJ_PACKAGE && o->type != HWLOC_OBJ_MACHINE)
        o = o->parent;
    if (!o || o->type == HWLOC_OBJ_MACHINE) {
        p->relation = "other-package";
        snprintf(p->shared, sizeof p->shared, "machine");
    } else if (o->type == HWLOC_OBJ_CORE) {
        p->relation = "smt-sibling";
        snprintf(p->shared, sizeof p->shared, "core");
    } else if (o->type == HWLOC_OBJ_PACKAGE) {
        p->relation = "same-package";
        snprintf(p->shared, sizeof p->shared, "package");
    } else {
        p->relation = "shared-cache";
        snprintf(p->shared, sizeof p->shared, "L%u", o->attr->cache.depth);
    }
}

static hwloc_bitmap_t to_bitmap(const cpu_set_t *set)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    for (int i = 0; b && i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, set)) hwloc_bitmap_set(b, (unsigned)i);
    return b;
}

/* The allowed CPU closest to `from` other than `from` itself, or -1. */
static int nearest_other(hwloc_topology_t topo, hwloc_const_bitmap_t allowed, int from)
{
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)from);
    hwloc_bitmap_t cand = hwloc_bitmap_alloc();
    int found = -1;
    for (hwloc_obj_t o = pu ? pu->parent : NULL; o && cand && found < 0; o = o->parent) {
        hwloc_bitmap_and(cand, o->cpuset, allowed);
        hwloc_bitmap_clr(cand, (unsigned)from);
        found = hwloc_bitmap_first(cand);
    }
    hwloc_bitmap_free(cand);
    return found;
}

void topology_process_cpus(hwloc_topology_t topo, cpu_set_t *out)
{
    hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    CPU_ZERO(out);
    for (int i = hwloc_bitmap_first(allowed); i >= 0 && i < CPU_SETSIZE;
         i = hwloc_bitmap_next(allowed, i))
        CPU_SET(i, out);
}

int placement_choose(hwloc_topology_t topo, const cpu_set_t *allowed, const cpu_set_t *thread,
                     int current, int requested, struct placement *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (!thread) thread = allowed;
    if (CPU_COUNT(allowed) < 2) {
        snprintf(why, whylen,
                 "this process may run on only one CPU (%d; its cpuset, or the online CPUs), and "
                 "the observer needs a second one; allow two or more CPUs (the cgroup's "
                 "cpuset.cpus)",
                 current);
        return SHIM_ENOCPU;
    }
    if (requested >= 0 && !CPU_ISSET(requested, allowed)) {
        snprintf(why, whylen,
                 "observer CPU %d (SHIM_OBSERVER_CPU or observer_cpu) is not a CPU this "
                 "process may run on",
                 requested);
        return SHIM_ENOCPU;
    }
    hwloc_bitmap_t set = to_bitmap(allowed);
    if (!set) {
        snprintf(why, whylen, "out of memory reading the CPU set");
        return SHIM_ENOMEM;
    }
    hwloc_bitmap_t own = to_bitmap(thread); /* where the observed thread may be */
    if (!own) {
        hwloc_bitmap_free(set);
        snprintf(why, whylen, "out of memory reading the CPU set");
        return SHIM_ENOMEM;
    }
    hwloc_bitmap_and(set, set, hwloc_topology_get_allowed_cpuset(topo));
    hwloc_bitmap_and(own, own, set);
    int rc = 0;
    if (!hwloc_get_pu_obj_by_os_index(topo, (unsigned)current) ||
        !hwloc_bitmap_isset(own, (unsigned)current))
        current = hwloc_bitmap_first(own);
    if (requested >= 0) {
        out->user_chosen = 1;
        out->observer_cpu = requested;
        out->observed_cpu = current == requested ? nearest_other(topo, own, requested) : current;
    } else {
        out->observed_cpu = current;
        out->observer_cpu = current < 0 ? -1 : nearest_other(topo, set, current);
    }
    hwloc_obj_t a = out->observed_cpu < 0
                        ? NULL
                        : hwloc_get_pu_obj_by_os_index(topo, (unsigned)out->observed_cpu);
    hwloc_obj_t b = out->observer_cpu < 0
                        ? NULL
                        : hwloc_get_pu_obj_by_os_index(topo, (unsigned)out->observer_cpu);
    if (requested >= 0 && out->observed_cpu < 0 && hwloc_bitmap_weight(own) == 1) {
        snprintf(why, whylen,
                 "observer CPU %d (SHIM_OBSERVER_CPU or observer_cpu) is the only CPU the "
                 "calling thread may run on; choose another observer CPU, or let the thread run "
                 "on a second one",
                 requested);
        rc = SHIM_ENOCPU;
    } else if (out->observed_cpu < 0 || out->observer_cpu < 0 || !a || !b) {
        snprintf(why, whylen, "hwloc shows no second CPU this process may run on");
        rc = SHIM_ENOCPU;
    } else {
        classify(hwloc_get_common_ancestor_obj(topo, a, b), out);
    }
    hwloc_bitmap_free(own);
    hwloc_bitmap_free(set);
    return rc;
}
