/*
 * termination.h -- the profile survives SIGINT, SIGTERM and SIGHUP (see termination.c).
 */
#ifndef SHIM_LIBSHIM_TERMINATION_H
#define SHIM_LIBSHIM_TERMINATION_H

/* Start the writer thread (once per process) and take over those signals the program
 * leaves at their default action, SIGINT only when take_sigint. Called at every
 * successful shim_start(). */
void termination_install(int take_sigint);

/* Before the process ends by _exit(): if this process's run is going, the writer
 * thread writes the profile, waited for as on a terminating signal. Async-signal-safe. */
void termination_before_exit(void);

/* In a child after fork(): there is no writer thread there. */
void termination_after_fork_child(void);

#endif
