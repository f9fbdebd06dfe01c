/*
 * sched_switch.bpf.c -- which thread runs on each CPU, written where an observer can
 * read it without a system call.
 *
 * The observer samples the program's thread on a neighbouring CPU by reading memory
 * words; it must also know which thread is running there at each sample. This program
 * runs on the sched/sched_switch tracepoint: at every context switch, on the CPU that
 * switches, it stores the id of the thread switched in (next_pid) in that CPU's slot of
 * a BPF array created with BPF_F_MMAPABLE. libshim/thread_identity.c loads it, maps the
 * array read-only, and hands the observer a pointer to the observed CPU's word.
 *
 * Built with `clang -target bpf -O2 -g` against <linux/bpf.h> and libbpf's
 * <bpf/bpf_helpers.h> only: no vmlinux.h, no bpftool, no CO-RE. That works because this
 * is the classic tracepoint, whose argument is the tracepoint's record as
 * /sys/kernel/tracing/events/sched/sched_switch/format describes it, and that layout has
 * been the same since Linux 4.x (thread_identity.c still checks next_pid's offset in the
 * running kernel's format file before it attaches).
 *
 * The helpers used (bpf_get_smp_processor_id, bpf_map_lookup_elem) are not GPL-only, so
 * the program carries the dual licence.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "signals/sched_switch.h"

/* The tracepoint's record: the 8-byte common header (common_type, common_flags,
 * common_preempt_count, common_pid), then the fields at the offsets the format file
 * gives: prev_comm 8, prev_pid 24, prev_prio 28, prev_state 32, next_comm 40,
 * next_pid 56, next_prio 60. */
struct sched_switch_record {
    __u64 common;
    char prev_comm[16];
    int prev_pid;
    int prev_prio;
    long prev_state;
    char next_comm[16];
    int next_pid;
    int next_prio;
};

_Static_assert(__builtin_offsetof(struct sched_switch_record, next_pid) == 56,
               "next_pid is at offset 56 of the sched_switch record");
_Static_assert(sizeof(struct sched_switch_slot) == SCHED_SWITCH_SLOT_SIZE,
               "one slot fills one cache line");

/* One slot per CPU. max_entries is a compile-time ceiling; the loader sets it to the
 * number of possible CPUs before it creates the map. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, 1024);
    __type(key, __u32);
    __type(value, struct sched_switch_slot);
} shim_cpu_threads SEC(".maps");

SEC("tracepoint/sched/sched_switch")
int shim_sched_switch(struct sched_switch_record *rec)
{
    __u32 cpu = bpf_get_smp_processor_id();
    struct sched_switch_slot *slot = bpf_map_lookup_elem(&shim_cpu_threads, &cpu);
    if (!slot) return 0;
    /* Only this CPU writes its slot, with preemption off: plain stores suffice. The tid
     * is what the observer reads; the count lets a reader tell that switches happen. */
    slot->tid = (__u64)(__u32)rec->next_pid;
    slot->switches++;
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
