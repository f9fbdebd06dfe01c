/*
 * test_placement.c -- specifies where the observer goes (libshim/topology.{h,c}), on
 * synthetic hwloc topologies so every machine shape can be tried on any machine.
 *
 * The observer takes the allowed CPU closest to the observed one: its SMT sibling
 * ("smt-sibling", shared "core"), else a core under the nearest shared cache
 * ("shared-cache", shared "L<depth>"), else the same package, else anything
 * ("other-package"). One allowed CPU, or a requested observer CPU the process may not
 * use, is SHIM_ENOCPU with a reason; a requested observer CPU equal to the current one
 * moves the observed thread to the CPU nearest to it.
 *
 * The observed thread's own mask may be narrower than the process's CPUs (a program
 * that pins its main thread): the observed CPU is then one of the thread's, the
 * observer any other CPU of the process's; only a requested observer CPU that is the
 * thread's only CPU is refused.
 *
 * hwloc numbers synthetic PUs 0..n-1 in depth-first order (os_index == logical index),
 * which the tests check before relying on it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "shim.h"
#include "libshim/topology.h"

/* 1 package, shared L3, 2 cores each with its own L2 and 2 PUs: PUs {0,1} and {2,3}. */
#define SMT_TOPOLOGY "pack:1 l3:1 l2:2 core:1 pu:2"
/* 2 packages of 2 single-PU cores, no caches: PUs {0,1} and {2,3}. */
#define TWO_PACKAGES "pack:2 core:2 pu:1"

static hwloc_topology_t load_synthetic(const char *desc)
{
    hwloc_topology_t topo;
    assert_int_equal(hwloc_topology_init(&topo), 0);
    assert_int_equal(hwloc_topology_set_synthetic(topo, desc), 0);
    assert_int_equal(hwloc_topology_load(topo), 0);
    /* the numbering the tests rely on */
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    for (int i = 0; i < n; i++)
        assert_int_equal(hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i)->os_index, i);
    return topo;
}

static cpu_set_t cpus(int n, const int *list)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < n; i++)
        CPU_SET(list[i], &set);
    return set;
}

#define CPUS(...) cpus(sizeof((int[]){__VA_ARGS__}) / sizeof(int), (int[]){__VA_ARGS__})

struct outcome {
    int rc;
    struct placement p;
    char why[256];
};

static struct outcome choose_within(const char *desc, cpu_set_t allowed, const cpu_set_t *thread,
                                    int current, int requested)
{
    struct outcome o;
    memset(&o, 0, sizeof o);
    hwloc_topology_t topo = load_synthetic(desc);
    o.rc = placement_choose(topo, &allowed, thread, current, requested, &o.p, o.why, sizeof o.why);
    hwloc_topology_destroy(topo);
    return o;
}

static struct outcome choose(const char *desc, cpu_set_t allowed, int current, int requested)
{
    return choose_within(desc, allowed, NULL, current, requested);
}

static void assert_placed(const struct outcome *o, int observed, int observer, const char *relation,
                          const char *shared)
{
    if (o->rc != 0) fail_msg("placement failed (%d): %s", o->rc, o->why);
    assert_int_equal(o->p.observed_cpu, observed);
    assert_int_equal(o->p.observer_cpu, observer);
    assert_non_null(o->p.relation);
    assert_string_equal(o->p.relation, relation);
    assert_string_equal(o->p.shared, shared);
}

/* A thread pinned to one CPU of a process that may use four: observed where it is, the
 * observer beside it; asked for the thread's only CPU, a reason naming it. */
static void thread_pinned_within_process(void **state)
{
    (void)state;
    cpu_set_t zero = CPUS(0), two = CPUS(2);
    struct outcome o = choose_within(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), &zero, 0, -1);
    assert_placed(&o, 0, 1, "smt-sibling", "core");
    o = choose_within(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), &zero, 0, 3);
    assert_placed(&o, 0, 3, "shared-cache", "L3");
    o = choose_within(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), &two, 0, -1); /* sched_getcpu stale */
    assert_placed(&o, 2, 3, "smt-sibling", "core");
    o = choose_within(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), &zero, 0, 0);
    assert_int_equal(o.rc, SHIM_ENOCPU);
    if (!strstr(o.why, "only CPU the calling thread")) fail_msg("reason: %s", o.why);
    o = choose_within(SMT_TOPOLOGY, CPUS(0), &zero, 0, -1); /* the process has one CPU */
    assert_int_equal(o.rc, SHIM_ENOCPU);
    if (!strstr(o.why, "only one CPU")) fail_msg("reason: %s", o.why);
}

/* (a) */
static void smt_sibling_preferred(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), 0, -1);
    assert_placed(&o, 0, 1, "smt-sibling", "core");
    assert_int_equal(o.p.user_chosen, 0);
    o = choose(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), 3, -1);
    assert_placed(&o, 3, 2, "smt-sibling", "core");
    o = choose(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), 2, -1);
    assert_placed(&o, 2, 3, "smt-sibling", "core");
}

/* (b) */
static void shared_cache_when_sibling_not_allowed(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(0, 2), 0, -1);
    assert_placed(&o, 0, 2, "shared-cache", "L3");
    o = choose(SMT_TOPOLOGY, CPUS(1, 3), 3, -1);
    assert_placed(&o, 3, 1, "shared-cache", "L3");
}

/* An L2 shared by two cores is closer than the L3 they also share. */
static void nearest_cache_level_wins(void **state)
{
    (void)state;
    /* L3 over 2 L2s, each L2 over 2 single-PU cores: PUs {0,1} share an L2 */
    const char *desc = "pack:1 l3:1 l2:2 core:2 pu:1";
    struct outcome o = choose(desc, CPUS(0, 1, 2, 3), 0, -1);
    assert_placed(&o, 0, 1, "shared-cache", "L2");
    o = choose(desc, CPUS(0, 2, 3), 0, -1);
    assert_placed(&o, 0, 2, "shared-cache", "L3");
}

/* (c) */
static void same_and_other_package(void **state)
{
    (void)state;
    struct outcome o = choose(TWO_PACKAGES, CPUS(0, 1, 2, 3), 0, -1);
    assert_placed(&o, 0, 1, "same-package", "package");
    o = choose(TWO_PACKAGES, CPUS(0, 2), 0, -1);
    assert_placed(&o, 0, 2, "other-package", "machine");
    o = choose(TWO_PACKAGES, CPUS(1, 2), 2, -1);
    assert_placed(&o, 2, 1, "other-package", "machine");
}

/* (d) */
static void one_cpu_is_not_enough(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(2), 2, -1);
    assert_int_equal(o.rc, SHIM_ENOCPU);
    if (!strstr(o.why, "only one CPU")) fail_msg("reason: %s", o.why);
    o = choose(SMT_TOPOLOGY, CPUS(2), 2, 1);
    assert_int_equal(o.rc, SHIM_ENOCPU);
}

/* (e) */
static void requested_cpu_must_be_allowed(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(0, 1), 0, 3);
    assert_int_equal(o.rc, SHIM_ENOCPU);
    if (!strstr(o.why, "3")) fail_msg("reason does not name CPU 3: %s", o.why);
    o = choose(SMT_TOPOLOGY, CPUS(0, 1), 0, CPU_SETSIZE + 5);
    assert_int_equal(o.rc, SHIM_ENOCPU);
}

static void requested_cpu_honoured(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), 0, 2);
    assert_placed(&o, 0, 2, "shared-cache", "L3");
    assert_int_equal(o.p.user_chosen, 1);
}

/* (f) */
static void requested_cpu_equal_to_current_moves_observed(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(0, 1, 2, 3), 0, 0);
    assert_placed(&o, 1, 0, "smt-sibling", "core");
    assert_int_equal(o.p.user_chosen, 1);
    o = choose(SMT_TOPOLOGY, CPUS(0, 2, 3), 2, 2);
    assert_placed(&o, 3, 2, "smt-sibling", "core");
    assert_int_equal(o.p.user_chosen, 1);
    o = choose(SMT_TOPOLOGY, CPUS(0, 2), 2, 2);
    assert_placed(&o, 0, 2, "shared-cache", "L3");
}

/* Running on a CPU outside the allowed set (the caller has not yet moved): the observed
 * thread is placed on an allowed CPU, never on a forbidden one. */
static void current_cpu_not_allowed(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(2, 3), 0, -1);
    assert_int_equal(o.rc, 0);
    assert_true(o.p.observed_cpu == 2 || o.p.observed_cpu == 3);
    assert_int_equal(o.p.observer_cpu, o.p.observed_cpu == 2 ? 3 : 2);
    assert_string_equal(o.p.relation, "smt-sibling");
}

/* Allowed CPUs the topology does not have cannot host the observer. */
static void allowed_cpus_outside_topology(void **state)
{
    (void)state;
    struct outcome o = choose(SMT_TOPOLOGY, CPUS(0, 9), 0, -1);
    assert_int_equal(o.rc, SHIM_ENOCPU);
    assert_true(strlen(o.why) > 0);
    o = choose(SMT_TOPOLOGY, CPUS(0, 9), 0, 9);
    assert_int_equal(o.rc, SHIM_ENOCPU);
}

/* ---- topology_describe ---- */

static void describe_smt_topology(void **state)
{
    (void)state;
    static struct machine_topology m;
    hwloc_topology_t topo = load_synthetic(SMT_TOPOLOGY);
    topology_describe(topo, &m);
    hwloc_topology_destroy(topo);
    assert_int_equal(m.pus, 4);
    assert_int_equal(m.cores, 2);
    assert_int_equal(m.packages, 1);
    assert_int_equal(m.smt, 1);
    assert_int_equal(m.n_pu, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.pu[i].os_index, i);
        assert_int_equal(m.pu[i].core, i / 2);
        assert_int_equal(m.pu[i].package, 0);
    }
    assert_true(strlen(m.cpu_model) > 0);
    assert_true(strlen(m.vendor) > 0);
}

static void describe_two_packages(void **state)
{
    (void)state;
    static struct machine_topology m;
    hwloc_topology_t topo = load_synthetic(TWO_PACKAGES);
    topology_describe(topo, &m);
    hwloc_topology_destroy(topo);
    assert_int_equal(m.pus, 4);
    assert_int_equal(m.cores, 4);
    assert_int_equal(m.packages, 2);
    assert_int_equal(m.smt, 0);
    assert_int_equal(m.n_pu, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(m.pu[i].os_index, i);
        assert_int_equal(m.pu[i].core, i);
        assert_int_equal(m.pu[i].package, i / 2);
    }
}

static void describe_this_machine(void **state)
{
    (void)state;
    static struct machine_topology m;
    hwloc_topology_t topo;
    char why[128] = "";
    assert_int_equal(topology_load(&topo, why, sizeof why), 0);
    topology_describe(topo, &m);
    hwloc_topology_destroy(topo);
    assert_true(m.pus >= 1);
    assert_true(m.cores >= 1 && m.cores <= m.pus);
    assert_true(m.packages >= 1 && m.packages <= m.cores);
    assert_int_equal(m.smt, m.pus > m.cores);
    assert_int_equal(m.n_pu, m.pus < TOPOLOGY_MAX_PUS ? m.pus : TOPOLOGY_MAX_PUS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smt_sibling_preferred),
        cmocka_unit_test(shared_cache_when_sibling_not_allowed),
        cmocka_unit_test(nearest_cache_level_wins),
        cmocka_unit_test(same_and_other_package),
        cmocka_unit_test(one_cpu_is_not_enough),
        cmocka_unit_test(thread_pinned_within_process),
        cmocka_unit_test(requested_cpu_must_be_allowed),
        cmocka_unit_test(requested_cpu_honoured),
        cmocka_unit_test(requested_cpu_equal_to_current_moves_observed),
        cmocka_unit_test(current_cpu_not_allowed),
        cmocka_unit_test(allowed_cpus_outside_topology),
        cmocka_unit_test(describe_smt_topology),
        cmocka_unit_test(describe_two_packages),
        cmocka_unit_test(describe_this_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
