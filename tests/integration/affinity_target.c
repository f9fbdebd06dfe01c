/*
 * affinity_target.c -- a program that sets CPU affinity itself and starts other
 * programs while shim observes it, to check that shim changes affinity only as
 * documented and gives it back (docs/host-process.md, "CPU affinity"). Each scenario,
 * named by argv[1], prints the masks it sees as the kernel writes them
 * (Cpus_allowed_list); tests/integration/test_affinity.sh compares them.
 *
 *   pinmain      pins the main thread to CPU 0 (pthread_setaffinity_np), then
 *                shim_start(), a little work, shim_stop()
 *   threads      shim_start(), then two threads: one given CPU 0 through
 *                pthread_attr_setaffinity_np, one with no mask of its own; each prints
 *                its mask while observed and again after shim_stop(); the second forks
 *                while observed, and its child prints its mask
 *   spawn        shim_start(), then starts grep on its own /proc status through
 *                system(), popen() and posix_spawnp() from the observed thread, and
 *                prints the observed thread's mask after each
 *   exec         shim_start(), then execlp() of grep on its own /proc status
 */
#include <shim.h>

#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* File scope: clang counts a local static only written as set but not used. */
static volatile unsigned long sink;

static void work(void)
{
    for (unsigned long i = 0; i < 20000000; i++)
        sink += i;
}

/* "LABEL: LIST", the calling thread's Cpus_allowed_list. */
static void show(const char *label)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)gettid());
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            printf("%s: %s", label, line + 18 + strspn(line + 18, " \t"));
    if (f) fclose(f);
    fflush(stdout);
}

static pthread_barrier_t stopped;

static void *threaded(void *label)
{
    char l[64];
    snprintf(l, sizeof l, "%s observed", (const char *)label);
    show(l);
    if (strcmp(label, "plain") == 0) { /* a child forked from a thread that joined */
        pid_t pid = fork();
        if (pid == 0) {
            show("plain's child");
            _exit(0);
        }
        waitpid(pid, NULL, 0);
    }
    pthread_barrier_wait(&stopped); /* observing */
    pthread_barrier_wait(&stopped); /* stopped */
    snprintf(l, sizeof l, "%s after", (const char *)label);
    show(l);
    return NULL;
}

static int threads(void)
{
    pthread_t a, b;
    pthread_attr_t attr;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pthread_barrier_init(&stopped, NULL, 3);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    if (pthread_create(&a, &attr, threaded, "named") || pthread_create(&b, NULL, threaded, "plain"))
        return 1;
    pthread_attr_destroy(&attr);
    pthread_barrier_wait(&stopped);
    printf("stop: %d\n", shim_stop());
    pthread_barrier_wait(&stopped);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    show("main after");
    return 0;
}

static int spawn(void)
{
    static char *grep[] = {"grep", "Cpus_allowed_list", "/proc/self/status", NULL};
    char line[256];
    printf("system: ");
    fflush(stdout);
    if (system("grep Cpus_allowed_list /proc/self/status") != 0) return 1;
    show("main after system");
    FILE *p = popen("grep Cpus_allowed_list /proc/self/status", "r");
    if (!p) return 1;
    while (fgets(line, sizeof line, p))
        printf("popen: %s", line);
    if (pclose(p) != 0) return 1;
    show("main after popen");
    pid_t pid;
    int status;
    printf("posix_spawnp: ");
    fflush(stdout);
    if (posix_spawnp(&pid, "grep", NULL, NULL, grep, environ) != 0) return 1;
    waitpid(pid, &status, 0);
    show("main after posix_spawnp");
    printf("stop: %d\n", shim_stop());
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "pinmain";
    show("main own");
    if (strcmp(mode, "pinmain") == 0) {
        cpu_set_t zero;
        CPU_ZERO(&zero);
        CPU_SET(0, &zero);
        pthread_setaffinity_np(pthread_self(), sizeof zero, &zero);
        show("main pinned");
    }
    printf("start: %d\n", shim_start(NULL));
    fflush(stdout);
    show("main observed");
    if (strcmp(mode, "threads") == 0) return threads();
    if (strcmp(mode, "spawn") == 0) return spawn();
    if (strcmp(mode, "exec") == 0) {
        printf("exec: ");
        fflush(stdout);
        execlp("grep", "grep", "Cpus_allowed_list", "/proc/self/status", (char *)NULL);
        return 1;
    }
    work();
    printf("stop: %d\n", shim_stop());
    show("main after");
    return 0;
}
