/*
 * host_target.c -- a program that does to shim what hosts do to libraries: cancels the
 * threads it creates, runs set-user-ID, and so on. Each scenario, named by argv[1],
 * prints what happened; tests/integration/test_host.sh checks it.
 *
 *   cancel N     while observing, create N threads and cancel each at once (some are
 *                cancelled before their start routine runs, some while shim attaches
 *                them), then create one more thread and stop: neither may hang
 *   start        shim_start(), a little work, shim_stop() (test_host.sh runs a
 *                setuid-root copy of this program as another user)
 *   inventory    what shim changes in the process, taken before shim_start(), while
 *                observing and after shim_stop() (docs/host-process.md's table): its
 *                threads by name, the descriptors (all, and perf events and BPF
 *                objects), the environment, SIGINT/SIGTERM/SIGHUP's dispositions, the
 *                calling thread's CPU affinity, signal mask and cancellation state
 */
#include <shim.h>

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pause(); /* a cancellation point */
    return NULL;
}

static void *quick(void *arg)
{
    SHIM_SIGNAL(0, (uintptr_t)arg);
    return arg;
}

/* File scope: clang counts a local static only written as set but not used. */
static volatile unsigned long sink;

static void work(void)
{
    for (unsigned long i = 0; i < 20000000; i++)
        sink += i;
}

extern char **environ;

/* The process's threads named NAME, from /proc/self/task/TID/comm. */
static int threads_named(const char *name)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
        fclose(f);
        n += strcmp(comm, name) == 0;
    }
    if (d) closedir(d);
    return n;
}

/* The open descriptors: all of them, and those that are perf events or BPF objects;
 * the highest number open. */
static void descriptors(int *all, int *kernel, int *highest)
{
    *all = *kernel = *highest = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], target[256];
        if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d)) continue;
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len < 0) continue;
        target[len] = 0;
        (*all)++;
        if (atoi(e->d_name) > *highest) *highest = atoi(e->d_name);
        *kernel += strstr(target, "perf_event") || strstr(target, "bpf") || strstr(target, "btf");
    }
    if (d) closedir(d);
}

/* The environment as one number (FNV-1a over every "NAME=value"). */
static uint64_t environment(void)
{
    uint64_t h = 14695981039346656037ull;
    for (char **e = environ; *e; e++)
        for (const char *c = *e;; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c) break;
        }
    return h;
}

static const char *disposition(int sig)
{
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    return sa.sa_handler == SIG_DFL ? "default" : sa.sa_handler == SIG_IGN ? "ignored" : "handler";
}

static void inventory(const char *when)
{
    static const char *const names[] = {"shim-observer", "shim-keeper", "shim-writer",
                                        "shim-trace"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        printf("%s thread %s %d\n", when, names[i], threads_named(names[i]));
    int all, kernel, highest, size = 0;
    descriptors(&all, &kernel, &highest);
    printf("%s descriptors %d\n%s perf-bpf %d\n%s highest %d\n", when, all, when, kernel, when,
           highest);
    FILE *status = fopen("/proc/self/status", "r"); /* the descriptor table's size */
    char line[256];
    while (status && fgets(line, sizeof line, status))
        if (sscanf(line, "FDSize: %d", &size) == 1) break;
    if (status) fclose(status);
    printf("%s fdsize %d\n", when, size);
    printf("%s environment %016llx\n", when, (unsigned long long)environment());
    printf("%s SIGINT %s\n%s SIGTERM %s\n%s SIGHUP %s\n", when, disposition(SIGINT), when,
           disposition(SIGTERM), when, disposition(SIGHUP));
    cpu_set_t cpus;
    sched_getaffinity(0, sizeof cpus, &cpus);
    printf("%s cpus", when);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &cpus)) printf(" %d", c);
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, NULL, &mask);
    int blocked = 0, cancel;
    for (int sig = 1; sig < NSIG; sig++)
        blocked += sigismember(&mask, sig) == 1;
    pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &cancel);
    pthread_setcancelstate(cancel, NULL);
    printf("\n%s blocked %d\n%s cancel %s\n", when, blocked, when,
           cancel == PTHREAD_CANCEL_ENABLE ? "enabled" : "disabled");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "start";
    if (strcmp(mode, "cancel") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 300;
        printf("start: %d\n", shim_start(NULL));
        fflush(stdout);
        int cancelled = 0;
        for (int i = 0; i < n; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, sleeper, NULL) != 0) return 1;
            pthread_cancel(t);
            void *ret;
            pthread_join(t, &ret);
            cancelled += ret == PTHREAD_CANCELED;
        }
        printf("cancelled: %d\n", cancelled);
        fflush(stdout);
        pthread_t t;
        void *ret = NULL;
        if (pthread_create(&t, NULL, quick, (void *)7) == 0) pthread_join(t, &ret);
        printf("created after: %d\n", (int)(uintptr_t)ret);
        fflush(stdout);
        printf("stop: %d\n", shim_stop());
    } else if (strcmp(mode, "start") == 0) {
        printf("start: %d\n", shim_start(NULL));
        fflush(stdout);
        work();
        printf("stop: %d\n", shim_stop());
    } else if (strcmp(mode, "inventory") == 0) {
        inventory("before");
        printf("start: %d\n", shim_start(NULL));
        work();
        inventory("during");
        printf("stop: %d\n", shim_stop());
        inventory("after");
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
