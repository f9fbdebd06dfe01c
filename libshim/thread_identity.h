/*
 * thread_identity.h -- which thread is running on a CPU, read as a memory word.
 *
 * Where the process may load BPF programs (root, or CAP_BPF and CAP_PERFMON; Linux 5.5
 * or later), thread_identity_open() loads a program on the sched/sched_switch tracepoint
 * that writes, at every context switch, the kernel id of the thread switched in into a
 * per-CPU slot of a memory-mappable BPF array, and maps that array read-only here. The
 * observer then reads thread_identity_word(ti, observed_cpu) in its loop like any other
 * signal word: a plain load, no system call (docs/threads.md).
 *
 * A slot is written only at a switch on its CPU, so after open() each slot still holds
 * 0 (or an old value) until that CPU next switches: a thread that is already running and
 * never blocks would not be seen. The coordinator therefore calls
 * thread_identity_prime() on the observed thread once, after open() and after pinning
 * it: it blocks briefly, so the thread is switched back in with the program attached.
 */
#ifndef SHIM_LIBSHIM_THREAD_IDENTITY_H
#define SHIM_LIBSHIM_THREAD_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

struct thread_identity;

/* Load and attach the sched_switch program and map its per-CPU slots: 0, or -1 with one
 * line in why naming the cause and what to do about it. */
int thread_identity_open(struct thread_identity **out, char *why, size_t len);

/* The word holding the kernel thread id of the thread running on cpu (0: the idle task,
 * or no switch seen there since open), or NULL when cpu is not a possible CPU. Ids are
 * those of the initial pid namespace and belong to any process: the observer compares
 * them with its own threads' ids (thread_identity_prime gives them). */
const volatile uint64_t *thread_identity_word(const struct thread_identity *ti, int cpu);

/* Make the calling thread's CPU slot current: block for a moment, so that the thread is
 * switched back in with the program attached, then read the slot of the CPU it runs on.
 * Returns 0 with *cpu and *kernel_tid (the id the slot shows for this thread: gettid()
 * outside pid namespaces, the initial namespace's id inside one), or -1 with why. */
int thread_identity_prime(const struct thread_identity *ti, int *cpu, uint64_t *kernel_tid,
                          char *why, size_t len);

/* Context switches the program has counted on cpu since open (0 for an unknown CPU). */
uint64_t thread_identity_switches(const struct thread_identity *ti, int cpu);

/* The BPF array's file descriptor, for tests and diagnostics: a duplicate of it keeps
 * the array (not the program) alive after thread_identity_close(). */
int thread_identity_map_fd(const struct thread_identity *ti);

/* Detach the program, unmap the slots, free everything. NULL is allowed. */
void thread_identity_close(struct thread_identity *ti);

/* In a child of fork(): close the child's copies of the descriptors and unmap the array,
 * leaving the parent's program attached and its handle usable there. */
void thread_identity_after_fork_child(struct thread_identity *ti);

/* Whether thread identity from BPF works on this machine, for shim-info: open, prime and
 * close. 1, or 0 with the reason in why. */
int thread_identity_available(char *why, size_t len);

#endif
