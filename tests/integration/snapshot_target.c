/*
 * snapshot_target.c -- a long-running program for the snapshot tests (test_snapshot.sh):
 * it keeps signalling while shim writes snapshots of its profile, the way a server does.
 *
 *   snapshot_target SECONDS [HOLD]
 *       start, work for SECONDS, and on while the file HOLD exists (a test removes it once
 *       it has seen what it waits for: on a loaded machine the snapshots may come late),
 *       then stop (which writes the final profile); SECONDS 0: work until a signal ends
 *       the program (SIGTERM: shim writes the final profile as it dies)
 *
 * Slot 0 cycles through three phases of unequal length and slot 1 takes a new value
 * every 65536 loops (a few milliseconds), so every interval between two snapshots brings
 * tuples the ones before had not seen as well as tuples they had; slot 0 of the counters
 * counts loops. The tuples stay under SHIM_INLINE_MAX (100,000) for about two minutes,
 * so the snapshots stay whole JSON, which the tests' checkers read (a new value every
 * 4096 loops, a run held for 25 s under AddressSanitizer reached 232,000).
 * It prints "working" once shim observes it.
 */
#include <shim.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    const char *hold = argc > 2 ? argv[2] : NULL;
    shim_name_slot(0, "phase");
    shim_name_slot(1, "batch");
    int rc = shim_start(NULL);
    if (rc != 0) {
        fprintf(stderr, "snapshot_target: shim_start: %s\n", shim_strerror(rc));
        return 1;
    }
    printf("working\n");
    fflush(stdout);
    double end = now() + seconds;
    for (uint64_t i = 0;
         seconds <= 0 || (i & 1023) || now() < end || (hold && access(hold, F_OK) == 0); i++) {
        unsigned phase = 1 + (unsigned)(i % 7) / 3; /* 1, 1, 1, 2, 2, 2, 3 */
        SHIM_SIGNAL(0, phase);
        SHIM_SIGNAL(1, i >> 16);
        for (unsigned k = 0; k < 100 * phase; k++)
            sink += k * i;
        SHIM_COUNT(0, 1);
    }
    rc = shim_stop();
    printf("stop: %d\n", rc);
    return rc == 0 ? 0 : 1;
}
