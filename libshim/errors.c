/*
 * errors.c -- what a run says when something goes wrong: one line on stderr, "shim:
 * MESSAGE; CONSEQUENCE", where the consequence is what the program gets instead (it runs
 * on unprofiled, the other signals are read, ...) or, under SHIM_STRICT, the exit that
 * follows. And the words for each error code (shim_strerror).
 *
 * Every part of starting a run (configuration, placement, the plan, the hardware events,
 * the allocation signal) reports through here, so a message reads the same whoever
 * wrote it, and SHIM_STRICT ends the program the same way wherever the failure is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "libshim/internal.h"

const char *shim_strerror(int err)
{
    switch (err) {
    case SHIM_OK:
        return "success";
    case SHIM_EINVAL:
        return "invalid configuration value";
    case SHIM_EBUSY:
        return "shim is already observing";
    case SHIM_ENOTSTARTED:
        return "shim is not observing";
    case SHIM_ENOCPU:
        return "no CPU available for the observer";
    case SHIM_ENOMEM:
        return "out of memory";
    case SHIM_ETOPOLOGY:
        return "machine topology unavailable or CPU pinning failed";
    case SHIM_ETHREAD:
        return "the observer thread could not be created";
    case SHIM_EIO:
        return "the profile could not be written";
    case SHIM_EDISABLED:
        return "shim is disabled (SHIM_DISABLE=1, or a set-user-ID program)";
    case SHIM_EFORKED:
        return "not available in a child forked while observing";
    default:
        return "unknown shim error";
    }
}

/* Set while the atexit handler runs: exit() must not be called again from there. */
static int exiting;

void run_set_exiting(void)
{
    exiting = 1;
}

const char *run_consequence(int strict)
{
    if (exiting) return "the program has already finished";
    return strict ? "exiting (SHIM_STRICT=1)" : "the program runs on unprofiled";
}

void run_strict_exit(int strict)
{
    if (strict && !exiting) exit(SHIM_STRICT_EXIT_STATUS);
}

static void complain(int strict, const char *otherwise, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "shim: %s; %s\n", msg,
            strict && !exiting ? run_consequence(strict)
            : otherwise        ? otherwise
                               : run_consequence(0));
    run_strict_exit(strict);
}

void run_complain(int strict, const char *otherwise, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    complain(strict, otherwise, fmt, ap);
    va_end(ap);
}

int run_fail(int code, int strict, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    complain(strict, NULL, fmt, ap);
    va_end(ap);
    return code;
}
