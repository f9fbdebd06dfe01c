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
 */
#include <shim.h>

#include <pthread.h>
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
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return 0;
}
