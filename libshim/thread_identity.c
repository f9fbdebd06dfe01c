/*
 * thread_identity.c -- which thread runs on each CPU, from a BPF program on the
 * sched_switch tracepoint, read as plain memory words (docs/threads.md).
 *
 * The observer must know which thread is running on the CPU it samples; the SHIM paper
 * patched the kernel for that. Here a BPF program (signals/sched_switch.bpf.c, compiled
 * for the BPF target at build time and embedded in libshim as bytes) writes the id of
 * the thread switched in into its CPU's slot of a BPF array created with
 * BPF_F_MMAPABLE, and this file maps the array read-only: the observer's read is a load,
 * not a system call. The cost moves to the kernel: one short program run per context
 * switch, on every CPU, while the program is attached.
 *
 * Opening is done in steps, each with its own one-line cause when it fails: a probe map
 * (is there a bpf() system call, may this process use it, does the kernel know
 * BPF_F_MMAPABLE), the tracepoint's layout as the running kernel describes it, then
 * libbpf's open, load and attach, then the mmap. libbpf would print its own complaints
 * on stderr, which is the host program's; while a handle is being opened its printing
 * is redirected here (under a lock, since the print function is libbpf's global) and its
 * first warning becomes part of the cause when no better one is known.
 *
 * Built without libbpf or clang, the same functions exist and say so.
 */
#include "libshim/thread_identity.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "signals/sched_switch.h"

#ifndef SHIM_HAVE_BPF

struct thread_identity {
    int unused;
};

static const char built_without[] =
#ifdef SHIM_BPF_DISABLED
    "built without BPF support (configured with -DSHIM_BPF=OFF)";
#else
    "built without BPF support (libbpf-dev or clang was missing at build time)";
#endif

int thread_identity_open(struct thread_identity **out, char *why, size_t len)
{
    *out = NULL;
    snprintf(why, len, "%s", built_without);
    return -1;
}

const volatile uint64_t *thread_identity_word(const struct thread_identity *ti, int cpu)
{
    (void)ti, (void)cpu;
    return NULL;
}

void thread_identity_after_fork_child(struct thread_identity *ti)
{
    (void)ti;
}

int thread_identity_prime(const struct thread_identity *ti, int *cpu, uint64_t *kernel_tid,
                          char *why, size_t len)
{
    (void)ti, (void)cpu, (void)kernel_tid;
    snprintf(why, len, "%s", built_without);
    return -1;
}

uint64_t thread_identity_switches(const struct thread_identity *ti, int cpu)
{
    (void)ti, (void)cpu;
    return 0;
}

int thread_identity_map_fd(const struct thread_identity *ti)
{
    (void)ti;
    return -1;
}

void thread_identity_close(struct thread_identity *ti)
{
    free(ti);
}

int thread_identity_available(char *why, size_t len)
{
    snprintf(why, len, "%s", built_without);
    return 0;
}

#else

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* the compiled program, written into a C array at build time (cmake/bpf.cmake) */
extern const unsigned char shim_sched_switch_bpf[];
extern const size_t shim_sched_switch_bpf_size;

/* where the program reads next_pid: the record's layout since Linux 4.x */
#define NEXT_PID_OFFSET 56
#define NEXT_PID_SIZE   4

struct thread_identity {
    struct bpf_object *obj;
    struct bpf_link *link;
    const volatile struct sched_switch_slot *slots; /* MAP_FAILED until mapped */
    size_t mapped;                                  /* bytes mapped */
    int cpus;                                       /* slots: the possible CPUs */
    int map_fd;
    int perf_fd; /* the tracepoint's perf event the link holds (-1: none) */
};

static pthread_mutex_t libbpf_lock = PTHREAD_MUTEX_INITIALIZER;
static char libbpf_said[256]; /* libbpf's first warning while opening, under the lock */

static int libbpf_collect(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level != LIBBPF_WARN || libbpf_said[0]) return 0;
    char line[sizeof libbpf_said];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\n")] = 0;
    const char *text = strncmp(line, "libbpf: ", 8) ? line : line + 8;
    snprintf(libbpf_said, sizeof libbpf_said, "%s", text);
    return 0;
}

/* One line for a step that failed with err; -1. */
static int fail(char *why, size_t len, const char *step, int err, const char *hint)
{
    if (!hint && (err == EPERM || err == EACCES)) hint = "needs root, or CAP_BPF and CAP_PERFMON";
    if (!hint && err == ENOSYS)
        hint = "the kernel has no bpf() system call: built without CONFIG_BPF_SYSCALL";
    const char *name = strerrorname_np(err);
    if (hint)
        snprintf(why, len, "BPF is not available: %s failed with %s (%s)", step,
                 name ? name : "an unknown error", hint);
    else
        snprintf(why, len, "BPF is not available: %s failed with %s (%s)%s%s", step,
                 name ? name : "an unknown error", strerror(err),
                 libbpf_said[0] ? "; libbpf: " : "", libbpf_said);
    return -1;
}

/* Can this process create a memory-mappable BPF array at all? Asked before libbpf
 * loads anything, because the answer names the cause precisely. */
static int probe_map(char *why, size_t len)
{
    LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
    int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "shim_probe", sizeof(__u32),
                            sizeof(struct sched_switch_slot), 1, &opts);
    if (fd >= 0) return close(fd), 0;
    int err = errno;
    return fail(why, len, "creating a BPF array", err,
                err == EINVAL ? "the kernel does not know BPF_F_MMAPABLE: Linux 5.5 or later "
                                "is needed"
                              : NULL);
}

/* The program reads next_pid at a fixed offset; refuse a kernel whose format file says
 * otherwise. When the file cannot be read, attaching will tell why. */
static int check_layout(char *why, size_t len)
{
    static const char *const formats[] = {
        "/sys/kernel/tracing/events/sched/sched_switch/format",
        "/sys/kernel/debug/tracing/events/sched/sched_switch/format"};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        FILE *f = fopen(formats[i], "re");
        if (!f) continue;
        char line[256];
        int offset = -1, size = -1;
        while (fgets(line, sizeof line, f)) {
            const char *at = strstr(line, " next_pid;"), *o, *s;
            if (!at || !(o = strstr(at, "offset:")) || !(s = strstr(at, "size:"))) continue;
            offset = atoi(o + 7), size = atoi(s + 5);
            break;
        }
        fclose(f);
        if (offset == NEXT_PID_OFFSET && size == NEXT_PID_SIZE) return 0;
        snprintf(why, len,
                 "BPF is not available: this kernel's sched_switch tracepoint has next_pid %s "
                 "(%s), not at offset %d size %d as the program was built for",
                 offset < 0 ? "nowhere" : "elsewhere", formats[i], NEXT_PID_OFFSET, NEXT_PID_SIZE);
        return -1;
    }
    return 0;
}

/* The sched_switch tracepoint's id, or -1 with errno: ENOENT when tracefs has none, the
 * open's own error (EACCES: not root) when one exists but cannot be read. */
static long tracepoint_id(void)
{
    static const char *const ids[] = {"/sys/kernel/tracing/events/sched/sched_switch/id",
                                      "/sys/kernel/debug/tracing/events/sched/sched_switch/id"};
    int err = ENOENT;
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        FILE *f = fopen(ids[i], "re");
        if (!f) {
            if (errno != ENOENT) err = errno;
            continue;
        }
        long id = -1;
        if (fscanf(f, "%ld", &id) != 1) id = -1;
        fclose(f);
        if (id >= 0) return id;
    }
    errno = err;
    return -1;
}

/* The program on the tracepoint, through a perf event opened here rather than inside
 * libbpf, so that its descriptor is known: a child of fork() must close its copy of it
 * (thread_identity_after_fork_child), or the program stays attached for as long as the
 * child lives. */
static struct bpf_link *attach(struct thread_identity *ti, struct bpf_program *prog)
{
    long id = tracepoint_id();
    if (id < 0) return NULL;
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.size = sizeof attr;
    attr.config = (__u64)id;
    int fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return NULL;
    struct bpf_link *link = bpf_program__attach_perf_event(prog, fd);
    if (!link) {
        int err = errno;
        close(fd);
        errno = err;
        return NULL;
    }
    ti->perf_fd = fd; /* the link owns it now: bpf_link__destroy closes it */
    return link;
}

static int open_locked(struct thread_identity *ti, char *why, size_t len)
{
    if (probe_map(why, len) || check_layout(why, len)) return -1;
    LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "shim_sched_switch");
    ti->obj = bpf_object__open_mem(shim_sched_switch_bpf, shim_sched_switch_bpf_size, &opts);
    if (!ti->obj) return fail(why, len, "libbpf's open of the sched_switch program", errno, NULL);
    struct bpf_map *map = bpf_object__find_map_by_name(ti->obj, "shim_cpu_threads");
    struct bpf_program *prog = bpf_object__find_program_by_name(ti->obj, "shim_sched_switch");
    if (!map || !prog)
        return snprintf(why, len,
                        "libbpf could not find the map and program in the embedded "
                        "sched_switch object (a broken build)"),
               -1;
    ti->cpus = libbpf_num_possible_cpus();
    if (ti->cpus <= 0)
        return fail(why, len, "counting the possible CPUs", ti->cpus ? -ti->cpus : EINVAL, NULL);
    int rc = bpf_map__set_max_entries(map, (__u32)ti->cpus);
    if (rc) return fail(why, len, "sizing the BPF array", -rc, NULL);
    rc = bpf_object__load(ti->obj);
    if (rc) return fail(why, len, "loading the sched_switch program", -rc, NULL);
    ti->link = attach(ti, prog);
    if (!ti->link) {
        int err = errno;
        return fail(why, len, "attaching to the sched/sched_switch tracepoint", err,
                    err == ENOENT ? "no such tracepoint: the kernel needs tracing "
                                    "(CONFIG_FTRACE) and tracefs mounted: mount -t tracefs "
                                    "nodev /sys/kernel/tracing"
                    : err == EACCES || err == EPERM
                        ? "needs root, or CAP_PERFMON and read access to /sys/kernel/tracing"
                        : NULL);
    }
    ti->map_fd = bpf_map__fd(map);
    long page = sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)ti->cpus * sizeof(struct sched_switch_slot);
    ti->mapped = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
    void *p = mmap(NULL, ti->mapped, PROT_READ, MAP_SHARED, ti->map_fd, 0);
    if (p == MAP_FAILED) return fail(why, len, "mapping the BPF array", errno, NULL);
    ti->slots = p;
    return 0;
}

int thread_identity_open(struct thread_identity **out, char *why, size_t len)
{
    *out = NULL;
    struct thread_identity *ti = calloc(1, sizeof *ti);
    if (!ti) return snprintf(why, len, "out of memory"), -1;
    ti->slots = MAP_FAILED;
    ti->map_fd = -1;
    ti->perf_fd = -1;
    pthread_mutex_lock(&libbpf_lock);
    libbpf_said[0] = 0;
    libbpf_print_fn_t before = libbpf_set_print(libbpf_collect);
    int rc = open_locked(ti, why, len);
    libbpf_set_print(before);
    pthread_mutex_unlock(&libbpf_lock);
    if (rc) {
        thread_identity_close(ti);
        return -1;
    }
    *out = ti;
    return 0;
}

const volatile uint64_t *thread_identity_word(const struct thread_identity *ti, int cpu)
{
    if (!ti || cpu < 0 || cpu >= ti->cpus) return NULL;
    /* __u64 is unsigned long long, uint64_t unsigned long: the same 64-bit word */
    return (const volatile uint64_t *)&ti->slots[cpu].tid;
}

uint64_t thread_identity_switches(const struct thread_identity *ti, int cpu)
{
    if (!ti || cpu < 0 || cpu >= ti->cpus) return 0;
    return ti->slots[cpu].switches;
}

int thread_identity_map_fd(const struct thread_identity *ti)
{
    return ti ? ti->map_fd : -1;
}

/* While this thread runs on a CPU, the last thread switched in there is this one, once
 * it has been switched in with the program attached at all: even if it moved away and
 * back meanwhile, it came back through a switch. So a short sleep (one switch out, one
 * in), then the slot of the CPU this thread is on before and after the read. */
int thread_identity_prime(const struct thread_identity *ti, int *cpu, uint64_t *kernel_tid,
                          char *why, size_t len)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        struct timespec moment = {0, 1000};
        nanosleep(&moment, NULL);
        int before = sched_getcpu();
        const volatile uint64_t *word = thread_identity_word(ti, before);
        if (!word) break;
        uint64_t tid = *word;
        if (tid && sched_getcpu() == before) {
            *cpu = before;
            *kernel_tid = tid;
            return 0;
        }
    }
    snprintf(why, len, "the sched_switch program never showed this thread on its CPU");
    return -1;
}

void thread_identity_close(struct thread_identity *ti)
{
    if (!ti) return;
    pthread_mutex_lock(&libbpf_lock);
    libbpf_print_fn_t before = libbpf_set_print(libbpf_collect);
    /* detach first: nothing writes the slots once the link is gone */
    if (ti->link) bpf_link__destroy(ti->link);
    if (ti->slots != MAP_FAILED) munmap((void *)ti->slots, ti->mapped);
    if (ti->obj) bpf_object__close(ti->obj);
    libbpf_set_print(before);
    pthread_mutex_unlock(&libbpf_lock);
    free(ti);
}

/* In a child of fork(): the descriptors are copies of the parent's, which goes on
 * using them, so nothing is detached or freed through libbpf (detaching a perf link
 * disables the perf event, which the parent shares); the child's copies of the
 * descriptors are closed and the array unmapped, and the small bookkeeping of libbpf is
 * left behind in the child's memory. */
void thread_identity_after_fork_child(struct thread_identity *ti)
{
    if (!ti) return;
    if (ti->slots != MAP_FAILED) munmap((void *)ti->slots, ti->mapped);
    ti->slots = MAP_FAILED;
    int link_fd = ti->link ? bpf_link__fd(ti->link) : -1;
    if (link_fd >= 0) close(link_fd);
    if (ti->perf_fd >= 0 && ti->perf_fd != link_fd) close(ti->perf_fd);
    if (ti->obj) {
        struct bpf_program *prog;
        struct bpf_map *map;
        bpf_object__for_each_program(prog, ti->obj)
        {
            if (bpf_program__fd(prog) >= 0) close(bpf_program__fd(prog));
        }
        bpf_object__for_each_map(map, ti->obj)
        {
            if (bpf_map__fd(map) >= 0) close(bpf_map__fd(map));
        }
        const struct btf *btf = bpf_object__btf(ti->obj);
        if (btf && btf__fd(btf) >= 0) close(btf__fd(btf));
    }
}

int thread_identity_available(char *why, size_t len)
{
    struct thread_identity *ti;
    if (thread_identity_open(&ti, why, len)) return 0;
    int cpu;
    uint64_t tid;
    int ok = thread_identity_prime(ti, &cpu, &tid, why, len) == 0;
    if (ok)
        snprintf(why, len, "the sched_switch program showed this thread (%llu) on CPU %d",
                 (unsigned long long)tid, cpu);
    thread_identity_close(ti);
    return ok;
}

#endif
