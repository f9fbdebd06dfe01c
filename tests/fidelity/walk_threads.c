/*
 * walk_threads.c -- threads that come and go while the observer walks their stacks.
 *
 * Built with the compiler pass's context signal: each of many short-lived threads
 * recurses a few levels and spins, then exits, so its stack may be unmapped or reused
 * while the observer is walking it. A thread gives its block back only once no walk of
 * its stack is under way (signals/signal_block.c): the run must end normally, and the
 * profile must hold contexts of the workers (run_cct_walk.sh checks it).
 * Usage: walk_threads THREADS
 */
#include <shim.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <x86intrin.h>

static volatile uint64_t sink;

__attribute__((noinline)) static void spin_at(int depth)
{
    if (depth > 0) {
        spin_at(depth - 1);
        return;
    }
    uint64_t t0 = __rdtsc();
    while (__rdtsc() - t0 < 200000)
        sink++;
}

static void *worker(void *arg)
{
    spin_at((int)(intptr_t)arg % 8);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (shim_start(NULL) != 0) return 1;
    for (int i = 0; i < n; i++) {
        pthread_t t[4];
        for (int k = 0; k < 4; k++)
            if (pthread_create(&t[k], NULL, worker, (void *)(intptr_t)(i + k)) != 0) return 1;
        for (int k = 0; k < 4; k++)
            pthread_join(t[k], NULL);
    }
    shim_stop();
    return 0;
}
