/*
 * plain_target.c -- a program that knows nothing of shim: no header, no shim_start(),
 * not linked with libshim. Built with -finstrument-functions, it is what shimrun is for.
 *
 *   plain_target SECONDS [STATUS]   work in two functions for SECONDS, exit with STATUS
 *   plain_target spawn              run itself as a child ("plain_target 0.05"), wait
 *   plain_target sigint             like CPython: install a SIGINT handler only if SIGINT
 *                                   is at SIG_DFL at main; then work until SIGINT comes
 *                                   (the handler exits with 0)
 *   plain_target _exit SECONDS STATUS  work, then leave by _exit(STATUS), as a shell does:
 *                                   no atexit handler runs
 *   plain_target vfork SECONDS      a vfork() child that leaves by _exit(0) at once, then
 *                                   work (the child shares the parent's memory)
 *   plain_target closeerr SECONDS   work; at exit, close standard error (as coreutils'
 *                                   close_stdout does) before later atexit handlers run
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void light(void)
{
    for (int i = 0; i < 2000; i++)
        sink += (unsigned long)i;
}

__attribute__((noinline)) static void heavy(void)
{
    for (int i = 0; i < 6000; i++)
        sink += (unsigned long)i * 3;
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    static const char msg[] = "plain_target: own SIGINT handler ran\n";
    ssize_t ignored = write(STDOUT_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    interrupted = 1; /* like CPython: the main loop sees it, unwinds and exits */
}

static void close_stderr(void)
{
    fclose(stderr);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "sigint")) {
        struct sigaction current;
        sigaction(SIGINT, NULL, &current);
        int dfl = current.sa_handler == SIG_DFL && !(current.sa_flags & SA_SIGINFO);
        if (dfl) signal(SIGINT, on_sigint);
        printf("plain_target: SIGINT at main: %s\n", dfl ? "default" : "taken");
        fflush(stdout);
        double end = now() + 10;
        while (now() < end) {
            if (interrupted) exit(0);
            light();
            heavy();
        }
        return 3;
    }
    if (argc > 1 && !strcmp(argv[1], "spawn")) {
        pid_t pid = fork();
        if (pid == 0) {
            execl("/proc/self/exe", argv[0], "0.05", (char *)NULL);
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (argc > 3 && !strcmp(argv[1], "_exit")) {
        double end = now() + atof(argv[2]);
        while (now() < end) {
            light();
            heavy();
        }
        _exit(atoi(argv[3]));
    }
    if (argc > 2 && !strcmp(argv[1], "vfork")) {
        pid_t pid = vfork();
        if (pid == 0) _exit(0);
        int status = 1;
        if (pid > 0) waitpid(pid, &status, 0);
        argc = 2, argv[1] = argv[2];
    }
    if (argc > 2 && !strcmp(argv[1], "closeerr")) {
        atexit(close_stderr);
        argc = 2, argv[1] = argv[2];
    }
    double seconds = argc > 1 ? atof(argv[1]) : 0.2, end = now() + seconds;
    while (now() < end) {
        light();
        heavy();
    }
    printf("plain_target: done, %d arguments\n", argc - 1);
    return argc > 2 ? atoi(argv[2]) : 0;
}
