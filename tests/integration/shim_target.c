/*
 * shim_target.c -- a small program for the integration tests: it runs shim the way a
 * host program would, in one of several scenarios named by argv[1], and reports what
 * the API returned. The test script checks its output, exit status and profile.
 *
 *   work SECONDS     start, signal and count for SECONDS, stop
 *   nostop SECONDS   start, work, return from main without shim_stop (atexit stops)
 *   twice            start twice (EBUSY), stop twice (ENOTSTARTED)
 *   stop-only        shim_stop without shim_start
 *   fork             fork while observing; the child starts its own observer
 *   fork-again NAME  fork while observing; the child lists the descriptors shim left it
 *                    (perf events, BPF objects, files whose path has NAME in it), starts
 *                    its own observer, signals, and is ended by SIGTERM
 *   exit-thread      another thread calls exit() while main works
 *   strerror         every error code has its own text
 *   strict-struct    a struct with strict=1 and a bad period
 *   lose-output DIR  start writing into DIR, remove DIR, return 3 without shim_stop
 *   until-signal     start and work until a signal ends the program
 *   own-handler      like until-signal, with the program's own SIGTERM handler that exits
 *   exec             exec /bin/true while observing
 *   threads N        create and join N short threads that signal, while observing
 *   oom              limit the address space, then start with a large tag table
 *   fsize            limit file size so the profile cannot be written
 *   busy-sleep SECONDS  tag 0 alternates: "one" spins 40 ms, "two" sleeps 40 ms
 *   unread SECONDS   like work, and also counts into counter slot 5 and signals tag
 *                    slot 3, neither of them named
 */
#include <shim.h>

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static void work(double seconds)
{
    double end = now() + seconds;
    uint64_t i = 0;
    while (now() < end) {
        SHIM_SIGNAL(0, 1 + (i / 1000) % 2);
        for (int k = 0; k < 1000; k++)
            sink += (uint64_t)k * i;
        SHIM_COUNT(0, 1);
        SHIM_COUNT(1, 3); /* "triples": always 3 per loop, for counter/counter rates */
        i++;
    }
}

/* Phases of known CPU use: the observed thread runs through all of "one" and sleeps
 * through "two", so its task clock (ns) per TSC cycle is 1e9 / TSC hz in one and ~0 in
 * the other, on any machine. */
static void busy_sleep(double seconds)
{
    double end = now() + seconds;
    while (now() < end) {
        SHIM_SIGNAL(0, 1);
        double until = now() + 0.04;
        while (now() < until)
            sink++;
        SHIM_SIGNAL(0, 2);
        struct timespec ts = {0, 40 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void names(void)
{
    shim_name_slot(0, "phase");
    shim_name_tag(0, 1, "one");
    shim_name_tag(0, 2, "two");
    shim_name_counter(0, "loops");
    shim_name_counter(1, "triples");
}

static int start(void)
{
    int rc = shim_start(NULL);
    printf("start: %d %s\n", rc, shim_strerror(rc));
    fflush(stdout);
    return rc;
}

static volatile sig_atomic_t got_term;
static void on_term(int sig)
{
    (void)sig;
    got_term = 1;
}

static void *short_thread(void *arg)
{
    SHIM_SIGNAL(0, (uintptr_t)arg);
    SHIM_COUNT(0, 1);
    return NULL;
}

/* Current address-space size in bytes, from /proc/self/statm (pages). */
static long address_space(void)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1) pages = 0;
        fclose(f);
    }
    return pages * sysconf(_SC_PAGESIZE);
}

/* The calling process's descriptors that are perf events, BPF objects, or files whose
 * path holds `name`, one line each; the count is returned. */
static int list_inherited(const char *name)
{
    int n = 0;
    for (int fd = 0; fd < 1024; fd++) {
        char link[64], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t len = readlink(link, target, sizeof target - 1);
        if (len < 0) continue;
        target[len] = 0;
        if (strstr(target, "perf_event") || strstr(target, "bpf") || strstr(target, "btf") ||
            strstr(target, name)) {
            printf("child inherited: %d -> %s\n", fd, target);
            n++;
        }
    }
    return n;
}

static void *exit_soon(void *arg)
{
    (void)arg;
    usleep(200000);
    printf("exit from a second thread\n");
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "work";
    double seconds = argc > 2 ? atof(argv[2]) : 0.3;
    if (seconds <= 0) seconds = 0.3;
    names();
    if (strcmp(mode, "busy-sleep") == 0) {
        start();
        busy_sleep(seconds);
        int rc = shim_stop();
        printf("stop: %d %s\n", rc, shim_strerror(rc));
    } else if (strcmp(mode, "unread") == 0 && argc > 2) {
        names();
        if (start() == 0) {
            for (int k = 0; k < 10; k++) {
                SHIM_COUNT(5, 2);
                SHIM_SIGNAL(3, 7 + k);
                work(atof(argv[2]) / 10);
            }
            shim_stop();
        }
    } else if (strcmp(mode, "work") == 0) {
        start();
        work(seconds);
        int rc = shim_stop();
        printf("stop: %d %s\n", rc, shim_strerror(rc));
    } else if (strcmp(mode, "nostop") == 0) {
        start();
        work(seconds);
        printf("returning from main while observing\n");
    } else if (strcmp(mode, "twice") == 0) {
        start();
        int rc = shim_start(NULL);
        printf("second start: %d\n", rc);
        printf("running: %d\n", shim_running());
        printf("stop: %d\n", shim_stop());
        printf("second stop: %d\n", shim_stop());
        printf("running: %d\n", shim_running());
    } else if (strcmp(mode, "stop-only") == 0) {
        printf("stop: %d\n", shim_stop());
    } else if (strcmp(mode, "fork") == 0) {
        start();
        work(0.1);
        pid_t pid = fork();
        if (pid == 0) {
            printf("child running: %d\n", shim_running());
            printf("child stop: %d\n", shim_stop());
            fflush(stdout);
            int rc = shim_start(NULL);
            printf("child start: %d\n", rc);
            work(0.1);
            printf("child second stop: %d\n", shim_stop());
            fflush(stdout);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("child exit: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        work(0.1);
        printf("parent stop: %d\n", shim_stop());
    } else if (strcmp(mode, "fork-again") == 0 && argc > 2) {
        start();
        work(0.1);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            printf("child inherited descriptors: %d\n", list_inherited(argv[2]));
            printf("child start: %d\n", shim_start(NULL));
            fflush(stdout);
            work(0.2);
            kill(getpid(), SIGTERM); /* at its default action: the profile, then death */
            sleep(10);
            printf("child survived SIGTERM\n");
            fflush(stdout);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        printf("child pid: %d\n", (int)pid);
        printf("child ended by signal: %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        work(0.1);
        printf("parent stop: %d\n", shim_stop());
    } else if (strcmp(mode, "exit-thread") == 0) {
        pthread_t t;
        start();
        pthread_create(&t, NULL, exit_soon, NULL);
        work(5.0);
        printf("not reached\n");
    } else if (strcmp(mode, "strict-struct") == 0) {
        struct shim_config c;
        shim_config_init(&c);
        c.strict = 1;
        c.period = (uint64_t)-1;
        printf("start: %d\n", shim_start(&c));
    } else if (strcmp(mode, "lose-output") == 0 && argc > 2) {
        char path[4096];
        snprintf(path, sizeof path, "%s/lost.json", argv[2]);
        setenv("SHIM_OUTPUT", path, 1);
        start();
        work(0.05);
        rmdir(argv[2]);
        return 3; /* the profile cannot be written at exit; the status must stay 3 */
    } else if (strcmp(mode, "until-signal") == 0) {
        /* a shell starts background jobs with SIGINT ignored; a foreground program has it
         * at its default action, which is the case to test */
        signal(SIGINT, SIG_DFL);
        start();
        printf("working\n");
        fflush(stdout);
        work(30.0);
    } else if (strcmp(mode, "own-handler") == 0) {
        signal(SIGTERM, on_term);
        start();
        printf("working\n");
        fflush(stdout);
        while (!got_term)
            work(0.01);
        printf("own handler ran\n");
        return 0; /* exit(): the atexit handler writes the profile */
    } else if (strcmp(mode, "exec") == 0) {
        start();
        work(0.05);
        fflush(stdout);
        execl("/bin/true", "true", (char *)NULL);
        return 1;
    } else if (strcmp(mode, "threads") == 0) {
        int n = argc > 2 ? atoi(argv[2]) : 1000;
        start();
        for (int i = 0; i < n; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, short_thread, (void *)(uintptr_t)(i % 4)) != 0) return 1;
            pthread_join(t, NULL);
            SHIM_COUNT(0, 1);
        }
        printf("threads: %d\n", n);
        printf("stop: %d\n", shim_stop());
    } else if (strcmp(mode, "oom") == 0) {
        struct rlimit lim = {(rlim_t)(address_space() + (64l << 20)),
                             (rlim_t)(address_space() + (64l << 20))};
        setrlimit(RLIMIT_AS, &lim);
        setenv("SHIM_HIST_TUPLES", "40000", 1); /* ~160 MB of histograms, under shim's cap */
        setenv("SHIM_COUNTERS", "0", 1);        /* one rate */
        start();
        work(0.05);
        printf("still running\n");
    } else if (strcmp(mode, "fsize") == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &lim);
        start();
        work(0.1);
        int rc = shim_stop();
        printf("stop: %d\n", rc);
    } else if (strcmp(mode, "strerror") == 0) {
        for (int e = 0; e >= -10; e--)
            printf("%d %s\n", e, shim_strerror(e));
        printf("%d %s\n", -99, shim_strerror(-99));
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
