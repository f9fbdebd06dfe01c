/*
 * shim_info.c -- `shim-info`: what this machine offers shim, and why not.
 *
 * A performance engineer's first question on a new machine is whether the counters are
 * there at all: a virtual machine without a PMU, a paranoid kernel setting or a CPU
 * without SMT each change what shim can measure. shim-info asks the same sources shim
 * does -- the kernel's PMU list, libpfm4, perf_event_open itself, hwloc, CPUID -- and
 * prints one line per fact, the observer placement shim would choose for a thread on
 * each CPU, and a verdict. It is useful precisely on machines with no PMU, where it says
 * so and why. It never changes anything on the machine.
 */
/* Where `cmake --install` puts the documents the help text names (CMakeLists.txt) */
#ifndef SHIM_DOC_DIR
#define SHIM_DOC_DIR "/usr/local/share/doc/shim"
#endif

#ifndef SHIM_TOOL_VERSION
#define SHIM_TOOL_VERSION "0.1.0"
#endif

#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "formats/profile.h"
#include "libshim/events.h"
#include "libshim/machine.h"
#include "shim.h"
#include "libshim/thread_identity.h"
#include "libshim/topology.h"

static void fact(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fact(const char *what, const char *fmt, ...)
{
    va_list ap;
    printf("%-13s", what);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* First line of a small text file, or NULL. */
static char *read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char *r = fgets(buf, (int)len, f);
    fclose(f);
    if (r) buf[strcspn(buf, "\n")] = 0;
    return r;
}

static int kernel_pmus(void)
{
    char list[1024] = "";
    int has_cpu = 0;
    DIR *d = opendir("/sys/bus/event_source/devices");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (!strcmp(e->d_name, "cpu") || !strncmp(e->d_name, "cpu_", 4)) has_cpu = 1;
        if (strlen(list) + strlen(e->d_name) + 3 < sizeof list) {
            if (*list) strcat(list, ", ");
            strcat(list, e->d_name);
        }
    }
    if (d) closedir(d);
    fact("kernel PMUs", "%s%s", *list ? list : "none listed",
         has_cpu ? "" : "  (no \"cpu\" PMU: no hardware counters exposed)");
    return has_cpu;
}

static void libpfm_pmus(int *counters)
{
    char list[1024] = "";
    int hardware = 0;
    *counters = -1;
    for (int i = 0; i < PFM_PMU_MAX; i++) {
        pfm_pmu_info_t info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        if (pfm_get_pmu_info(i, &info) != PFM_SUCCESS || !info.is_present) continue;
        if (strlen(list) + strlen(info.name) + 3 < sizeof list) {
            if (*list) strcat(list, ", ");
            strcat(list, info.name);
        }
        if (info.type == PFM_PMU_TYPE_CORE) {
            hardware = 1;
            *counters = info.num_cntrs;
        }
    }
    fact("libpfm4", "%s%s", *list ? list : "no PMU",
         hardware ? "" : "  (generic perf events only: no core PMU recognised)");
}

/* Try to open an event by name for this thread; 0, or the errno of the failure. */
static int probe_event(const char *name, char *why, size_t len)
{
    struct hw_event ev;
    int rc = event_encode(name, 0, &ev, why, len);
    if (rc) return rc;
    ev.attr.disabled = 1;
    int fd = event_open(&ev.attr, 0, -1, why, len);
    if (fd < 0) return errno;
    close(fd);
    snprintf(why, len, "opens");
    return 0;
}

static int any_thread(void)
{
    char why[256];
    int yes = cpu_any_thread(why, sizeof why);
    fact("any-thread", "%s: %s", yes ? "available" : "not available", why);
    return yes;
}

/* Memory-controller and data-fabric PMUs the kernel exposes: shim reads them as slow
 * signals (bandwidth per tag). */
static int memory_pmus(void)
{
    char list[512] = "";
    DIR *d = opendir("/sys/bus/event_source/devices");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if ((!strncmp(e->d_name, "uncore_imc", 10) || !strcmp(e->d_name, "amd_df") ||
             !strncmp(e->d_name, "amd_umc", 7)) &&
            strlen(list) + strlen(e->d_name) + 3 < sizeof list) {
            if (*list) strcat(list, ", ");
            strcat(list, e->d_name);
        }
    if (d) closedir(d);
    if (*list)
        fact("memory PMU", "%s (memory bandwidth per tag: name its events in SHIM_EVENTS)", list);
    else
        fact("memory PMU",
             "none exposed (no uncore_imc*, amd_df or amd_umc): memory bandwidth per tag "
             "is not available");
    return *list != 0;
}

/* Whether the observer can tell which thread runs on the CPU it samples: a BPF program
 * on sched_switch, loaded and unloaded here (libshim/thread_identity.c). */
static void thread_ids(void)
{
    char why[512];
    int yes = thread_identity_available(why, sizeof why);
    fact("thread ids", "%s%s", yes ? "from BPF: " : "", why);
}

static void placements(hwloc_topology_t topo)
{
    cpu_set_t allowed, one; /* the process's CPUs; a thread pinned to one of them */
    topology_process_cpus(topo, &allowed);
    int first = 1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        struct placement p;
        char why[256];
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        int rc = placement_choose(topo, &allowed, &one, cpu, -1, &p, why, sizeof why);
        if (rc == 0)
            fact(first ? "placement" : "",
                 "a thread on CPU %d -> observer on CPU %d (%s, sharing %s)", p.observed_cpu,
                 p.observer_cpu, p.relation, p.shared);
        else
            fact(first ? "placement" : "", "a thread on CPU %d -> none: %s", cpu, why);
        first = 0;
    }
}

static void usage(void)
{
    printf("usage: shim-info [--help | --version]\n\n"
           "Print what this machine offers shim: CPU and topology, TSC, the PMUs the kernel and\n"
           "libpfm4 see, perf_event_paranoid, rdpmc, any-thread counting, whether cycles and\n"
           "instructions can be counted, whether BPF can tell which thread runs on a CPU, the\n"
           "observer placement for a thread on each CPU, and a one-line verdict. Changes "
           "nothing.\n\n"
           "What each line means, and what to change: " SHIM_DOC_DIR "/hardware-counters.md\n"
           "(counters, rdpmc, any-thread counting) and " SHIM_DOC_DIR "/threads.md (BPF).\n\n"
           "  -h, --help     print this help\n"
           "  -V, --version  print shim-info's version and exit\n");
}

/* The command line: 0 to go on, else 1 + the exit status (0 after --help or --version,
 * 2 after one line naming what was wrong and a hint). */
static int parse_options(int argc, char **argv)
{
    static const struct option options[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":hV", options, NULL)) != -1) {
        switch (opt) {
        case 'h':
            usage();
            return 1;
        case 'V':
            printf("shim-info %s (profile format version %d)\n", SHIM_TOOL_VERSION,
                   PROFILE_FORMAT_VERSION);
            return 1;
        default:
            if (optopt && strncmp(argv[optind - 1], "--", 2) != 0)
                fprintf(stderr, "shim-info: unknown option '-%c'\n", optopt);
            else
                fprintf(stderr, "shim-info: unknown option '%s'\n", argv[optind - 1]);
            fprintf(stderr, "Try 'shim-info --help'.\n");
            return 3;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "shim-info: takes no arguments, got '%s'\nTry 'shim-info --help'.\n",
                argv[optind]);
        return 3;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc = parse_options(argc, argv);
    if (rc) return rc - 1;
    char why[512], buf[256];
    hwloc_topology_t topo;
    struct machine_topology m;
    if (topology_load(&topo, why, sizeof why) != 0) {
        fprintf(stderr, "shim-info: %s\n", why);
        return 1;
    }
    topology_describe(topo, &m);
    printf("shim-info: what this machine offers shim %d.%d.%d\n\n", SHIM_VERSION_MAJOR,
           SHIM_VERSION_MINOR, SHIM_VERSION_PATCH);
    fact("CPU", "%s (%s)", m.cpu_model, m.vendor);
    fact("topology", "%d package%s, %d cores, %d PUs, %s", m.packages, m.packages == 1 ? "" : "s",
         m.cores, m.pus, m.smt ? "SMT: yes" : "SMT: no (the observer takes a separate core)");

    struct tsc_info tsc;
    struct clock_pair a, b;
    tsc_probe(&tsc);
    clock_pair_take(&a);
    struct timespec twenty_ms = {0, 20 * 1000 * 1000};
    nanosleep(&twenty_ms, NULL);
    clock_pair_take(&b);
    tsc_calibrate(&tsc, &a, &b);
    fact("TSC", "%s, %.3f GHz (%s), advances in steps of %llu cycles",
         tsc.invariant ? "invariant" : "NOT invariant (rates across frequency changes are wrong)",
         tsc.hz / 1e9, tsc.source ? tsc.source : "unknown", (unsigned long long)tsc.step);

    int has_cpu_pmu = kernel_pmus(), counters = -1;
    if (!has_cpu_pmu) fact("", "hardware events can at most be the kernel's software ones here");
    int pfm = pfm_initialize();
    if (pfm == PFM_SUCCESS)
        libpfm_pmus(&counters);
    else
        fact("libpfm4", "cannot initialise: %s", pfm_strerror(pfm));
    const char *paranoid = read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf);
    fact("paranoid", "kernel.perf_event_paranoid = %s%s", paranoid ? paranoid : "unknown",
         paranoid && atoi(paranoid) <= 2 ? " (counting this process's own threads is allowed)"
                                         : " (lower it: sysctl kernel.perf_event_paranoid=2)");
    const char *rdpmc = read_line("/sys/bus/event_source/devices/cpu/rdpmc", buf, sizeof buf);
    fact("rdpmc", "%s",
         rdpmc ? (atoi(rdpmc) ? "allowed in user space"
                              : "disabled (shim would "
                                "fall back to read())")
               : "no setting (no \"cpu\" PMU)");
    if (counters >= 0)
        fact("counters", "%d programmable per hardware thread (libpfm4)", counters);
    else
        fact("counters", "unknown: no core PMU recognised");
    int anythread = any_thread();

    int cycles_err = pfm == PFM_SUCCESS ? probe_event("cycles", why, sizeof why) : ENOSYS;
    fact("cycles", "%s", pfm == PFM_SUCCESS ? why : "not probed (libpfm4 unavailable)");
    char why2[512];
    int instr_err = pfm == PFM_SUCCESS ? probe_event("instructions", why2, sizeof why2) : ENOSYS;
    fact("instructions", "%s", pfm == PFM_SUCCESS ? why2 : "not probed (libpfm4 unavailable)");
    int memory = memory_pmus();
    thread_ids();
    placements(topo);
    hwloc_topology_destroy(topo);

    putchar('\n');
    if (cycles_err || instr_err)
        fact("verdict",
             "IPC per tag: not available because %s; software signals and TSC-based rates: "
             "available",
             cycles_err ? why : why2);
    else if (m.smt && anythread)
        fact("verdict", "IPC per tag: available (SHIM_EVENTS=cycles,instructions; the observer "
                        "counts the core and subtracts its own count)");
    else
        fact("verdict",
             "IPC per tag: not available at the sample period because %s; the observed "
             "thread's IPC every slow period: SHIM_EVENT_SCOPE=thread",
             !m.smt ? "there are no SMT siblings (the observer's counters count only its own "
                      "core)"
                    : "this CPU cannot count for the other hardware thread");
    fact("", "memory bandwidth per tag: %s",
         memory ? "available as a slow signal" : "not available (no memory-controller PMU)");
    return 0;
}
