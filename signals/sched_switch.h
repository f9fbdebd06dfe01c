/*
 * sched_switch.h -- the slot the BPF sched_switch program (sched_switch.bpf.c) writes for
 * each CPU, shared by that program and its reader (libshim/thread_identity.c).
 *
 * One slot per possible CPU, indexed by CPU number, in a memory-mappable BPF array. A
 * slot is only ever written by the program running on its own CPU, at each context
 * switch there; an observer on another CPU reads `tid` as a plain memory word. Each slot
 * fills a 64-byte cache line of its own, so a switch on one CPU never invalidates the
 * line an observer is reading for another.
 *
 * Only <linux/types.h> is used: the header is compiled for the BPF target too, where the
 * C library's headers are not available.
 */
#ifndef SHIM_SIGNALS_SCHED_SWITCH_H
#define SHIM_SIGNALS_SCHED_SWITCH_H

#include <linux/types.h>

#define SCHED_SWITCH_SLOT_SIZE 64

struct sched_switch_slot {
    /* the kernel thread id (init pid namespace) of the thread switched in last; 0 for
     * the idle task, and before the first switch seen on this CPU */
    __u64 tid;
    __u64 switches; /* switches seen on this CPU since the program was loaded */
    __u64 pad[6];
};

#endif
