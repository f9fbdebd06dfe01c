/*
 * test_thread_identity.c -- specifies thread identity from BPF (libshim/thread_identity.c):
 * the word of a CPU names the thread running there, as a reader on another CPU sees it.
 *
 * - Primed, the calling thread's CPU word shows the caller (its gettid() outside pid
 *   namespaces) for as long as it runs there.
 * - Two threads time-sharing one CPU are both seen by a reader polling that CPU's word
 *   from another CPU (needs two allowed CPUs).
 * - After close the program is gone: the array, kept alive by a duplicate of its file
 *   descriptor, counts no more switches; opening again works.
 * - A process without privileges is refused with one line naming the capabilities.
 *
 * Where the machine or the build cannot load BPF, every test prints `skipped: <why>` and
 * checks only that the reason is one line. No observer is started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "signals/sched_switch.h"
#include "libshim/thread_identity.h"

static cpu_set_t original; /* this process's affinity, given back after each test */

static int save_affinity(void **state)
{
    (void)state;
    return sched_getaffinity(0, sizeof original, &original);
}

static int restore_affinity(void **state)
{
    (void)state;
    return sched_setaffinity(0, sizeof original, &original);
}

/* The n-th allowed CPU, or -1. */
static int allowed_cpu(int n)
{
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &original) && n-- == 0) return cpu;
    return -1;
}

static void pin(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
}

static uint64_t my_tid(void)
{
    return (uint64_t)syscall(SYS_gettid);
}

/* Outside a pid namespace the kernel's ids are the ones gettid() gives. */
static int in_initial_pid_namespace(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[256];
    int fields = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "NSpid:", 6))
            for (char *t = strtok(line + 6, " \t\n"); t; t = strtok(NULL, " \t\n"))
                fields++;
    if (f) fclose(f);
    return fields == 1;
}

/* Open, or print why not and return NULL: the test then passes. */
static struct thread_identity *open_or_skip(void)
{
    struct thread_identity *ti;
    char why[512] = "";
    if (thread_identity_open(&ti, why, sizeof why) == 0) return ti;
    assert_null(ti);
    assert_true(why[0] != 0);
    assert_null(strchr(why, '\n'));
    print_message("skipped: %s\n", why);
    return NULL;
}

static void block_briefly(int times)
{
    for (int i = 0; i < times; i++) {
        struct timespec moment = {0, 1000};
        nanosleep(&moment, NULL);
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void follows_the_calling_thread(void **state)
{
    (void)state;
    struct thread_identity *ti = open_or_skip();
    if (!ti) return;
    int c = allowed_cpu(0), cpu = -1;
    pin(c);
    uint64_t tid = 0;
    char why[256];
    assert_int_equal(thread_identity_prime(ti, &cpu, &tid, why, sizeof why), 0);
    assert_int_equal(cpu, c);
    if (in_initial_pid_namespace())
        assert_int_equal(tid, my_tid());
    else
        print_message("in a pid namespace: the kernel's id %llu, gettid() %llu\n",
                      (unsigned long long)tid, (unsigned long long)my_tid());
    /* while this thread runs on c, the word says so, after any number of switches */
    for (int i = 0; i < 100; i++) {
        assert_int_equal(*thread_identity_word(ti, c), tid);
        if (i % 10 == 0) block_briefly(1);
    }
    assert_true(thread_identity_switches(ti, c) > 0);
    assert_true(thread_identity_map_fd(ti) >= 0);
    /* words exist for the possible CPUs only */
    assert_null(thread_identity_word(ti, -1));
    assert_null(thread_identity_word(ti, 1 << 20));
    assert_int_equal(thread_identity_switches(ti, -1), 0);
    thread_identity_close(ti);
    thread_identity_close(NULL);
}

/* Two spinners on CPU c; the main thread, on another CPU, polls c's word. */
struct spinner {
    struct thread_identity *ti;
    int cpu;
    _Atomic uint64_t tid; /* the kernel's id for it, once primed */
    atomic_int *stop;
    int primed;
};

static void *spin(void *arg)
{
    struct spinner *s = arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(s->cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one)) return NULL;
    int cpu;
    uint64_t tid;
    char why[256];
    s->primed = thread_identity_prime(s->ti, &cpu, &tid, why, sizeof why) == 0 && cpu == s->cpu;
    atomic_store(&s->tid, s->primed ? tid : UINT64_MAX);
    while (!atomic_load_explicit(s->stop, memory_order_relaxed))
        ;
    return NULL;
}

static void sees_threads_time_sharing_a_cpu(void **state)
{
    (void)state;
    int c = allowed_cpu(0), r = allowed_cpu(1);
    if (r < 0) {
        print_message("skipped: one allowed CPU (a reader on another CPU is needed)\n");
        return;
    }
    struct thread_identity *ti = open_or_skip();
    if (!ti) return;
    pin(r);
    atomic_int stop = 0;
    struct spinner s[2] = {{.ti = ti, .cpu = c, .stop = &stop},
                           {.ti = ti, .cpu = c, .stop = &stop}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, spin, &s[i]), 0);
    while (!atomic_load(&s[0].tid) || !atomic_load(&s[1].tid))
        ;
    const volatile uint64_t *word = thread_identity_word(ti, c);
    assert_non_null(word);
    /* The scheduler alternates the two within a few milliseconds; the bound only keeps a
     * broken program from hanging the test. */
    int seen[2] = {0, 0};
    unsigned long reads = 0, others = 0;
    double until = now() + 20.0;
    while (!(seen[0] && seen[1]) && (reads & 0xfff || now() < until)) {
        uint64_t v = *word;
        reads++;
        if (v == s[0].tid)
            seen[0] = 1;
        else if (v == s[1].tid)
            seen[1] = 1;
        else
            others++;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    print_message("%lu reads of CPU %d's word from CPU %d; %lu named neither spinner\n", reads, c,
                  r, others);
    assert_true(s[0].primed && s[1].primed);
    assert_int_not_equal(s[0].tid, s[1].tid);
    assert_true(seen[0]);
    assert_true(seen[1]);
    thread_identity_close(ti);
}

static void close_detaches_and_open_works_again(void **state)
{
    (void)state;
    struct thread_identity *ti = open_or_skip();
    if (!ti) return;
    int c = allowed_cpu(0), cpu;
    pin(c);
    uint64_t tid;
    char why[256];
    assert_int_equal(thread_identity_prime(ti, &cpu, &tid, why, sizeof why), 0);
    /* keep the array past close, and look at it directly */
    int fd = dup(thread_identity_map_fd(ti));
    assert_true(fd >= 0);
    thread_identity_close(ti);
    long page = sysconf(_SC_PAGESIZE);
    size_t len = ((size_t)(c + 1) * sizeof(struct sched_switch_slot) + (size_t)page - 1) /
                 (size_t)page * (size_t)page;
    const volatile struct sched_switch_slot *slots = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(slots != MAP_FAILED);
    uint64_t before = slots[c].switches;
    block_briefly(20); /* 40 switches on c, were the program still attached */
    assert_int_equal(slots[c].switches, before);
    munmap((void *)slots, len);
    close(fd);

    /* a fresh handle: its own array, counting again */
    ti = open_or_skip();
    assert_non_null(ti);
    uint64_t again;
    assert_int_equal(thread_identity_prime(ti, &cpu, &again, why, sizeof why), 0);
    assert_int_equal(cpu, c);
    assert_int_equal(again, tid);
    before = thread_identity_switches(ti, c);
    block_briefly(20);
    assert_true(thread_identity_switches(ti, c) >= before + 20);
    thread_identity_close(ti);
}

/* Only root can drop to another user here; the child reports what open() said. */
static void unprivileged_is_refused(void **state)
{
    (void)state;
    if (geteuid() != 0) {
        print_message("skipped: not root (cannot drop to an unprivileged user)\n");
        return;
    }
    struct thread_identity *ti = open_or_skip();
    if (!ti) return;
    thread_identity_close(ti);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        char why[512] = "";
        int rc = -2;
        if (setgroups(0, NULL) == 0 && setgid(65534) == 0 && setuid(65534) == 0)
            rc = thread_identity_open(&ti, why, sizeof why);
        dprintf(fds[1], "%d %s", rc, why);
        _exit(0);
    }
    close(fds[1]);
    char out[600] = "";
    ssize_t n = read(fds[0], out, sizeof out - 1);
    close(fds[0]);
    waitpid(pid, NULL, 0);
    assert_true(n > 0);
    print_message("unprivileged: %s\n", out);
    assert_int_equal(strncmp(out, "-1 BPF is not available: ", 25), 0);
    assert_non_null(strstr(out, "needs root, or CAP_BPF and CAP_PERFMON"));
    assert_null(strchr(out, '\n'));
}

static void available_agrees_with_open(void **state)
{
    (void)state;
    char why[512] = "";
    int yes = thread_identity_available(why, sizeof why);
    assert_true(why[0] != 0);
    assert_null(strchr(why, '\n'));
    struct thread_identity *ti;
    char why2[512];
    int opens = thread_identity_open(&ti, why2, sizeof why2) == 0;
    thread_identity_close(opens ? ti : NULL);
    assert_int_equal(yes, opens);
    print_message("%s: %s\n", yes ? "available" : "not available", why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(follows_the_calling_thread, save_affinity,
                                        restore_affinity),
        cmocka_unit_test_setup_teardown(sees_threads_time_sharing_a_cpu, save_affinity,
                                        restore_affinity),
        cmocka_unit_test_setup_teardown(close_detaches_and_open_works_again, save_affinity,
                                        restore_affinity),
        cmocka_unit_test_setup_teardown(unprivileged_is_refused, save_affinity, restore_affinity),
        cmocka_unit_test_setup_teardown(available_agrees_with_open, save_affinity,
                                        restore_affinity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
