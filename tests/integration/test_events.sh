#!/bin/sh
# Hardware events (SHIM_EVENTS), as a user meets them: a name libpfm4 does not know, a
# bad modifier, an event the machine cannot count, a scope the machine cannot honour --
# each one line naming the event and the cause, and the program runs on with its other
# signals (or exits 125 under SHIM_STRICT). The kernel's software events (task-clock)
# go through the same path as hardware ones (libpfm4, perf_event_open, the mmap page,
# read() where rdpmc is not possible), so the observer-scope and thread-scope readings,
# the slow spans and their rates are checked for real on any machine, PMU or not.
# Usage: test_events.sh SHIM_TARGET SHIMVIEW WORKDIR
set -u
target=$1 shimview=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"
pmu=0
[ -e /sys/bus/event_source/devices/cpu ] && pmu=1
hw="[c for c in d['signals']['counters'] if c['kind']=='hardware']"
rate="lambda d,tag,name: [t['rates'][[r['name'] for r in d['rates']].index(name)].get('rate',0) for t in d['tags'] if t['names'][0]==tag][0]"
ns_per_tsc="1e9/d['machine']['tsc']['hz']"

# 1. an event libpfm4 does not know: one line, the program runs on, profiled
SHIM_OUTPUT=unknown.json SHIM_EVENTS=no_such_event "$target" work 0.2 >out 2>err
expect "unknown event: exit 0" test $? -eq 0
expect "unknown event: still profiled" has out "start: 0 success"
expect "unknown event: one line naming it and the cause" has err \
    "SHIM_EVENTS: no_such_event: libpfm4 cannot encode \"no_such_event\": event not found"
expect "unknown event: says the other signals are read" has err "the other signals are read"
expect "unknown event: no hardware counter in the profile" json unknown.json "not $hw"
expect "unknown event: software counters still there" json unknown.json \
    "[c['name'] for c in d['signals']['counters']]==['loops','triples']"

# 2. a modifier the event does not take
SHIM_OUTPUT=mod.json SHIM_EVENTS=task-clock:zz=1 "$target" work 0.2 >out 2>err
expect "bad modifier: exit 0" test $? -eq 0
expect "bad modifier: one line with the cause" has err \
    "SHIM_EVENTS: task-clock:zz=1: libpfm4 cannot encode.*a modifier or value this event does not take"

# 3. strict: the same failure exits 125
SHIM_STRICT=1 SHIM_OUTPUT=strict.json SHIM_EVENTS=no_such_event "$target" work 0.2 >out 2>err
expect "strict: exit 125" test $? -eq 125
expect "strict: says it exits" has err "exiting (SHIM_STRICT=1)"

# 4. values SHIM_EVENTS and SHIM_EVENT_SCOPE refuse: one line each, unprofiled
for kv in "SHIM_EVENTS=a,,b" "SHIM_EVENTS=a,a" "SHIM_EVENTS=a b" "SHIM_EVENT_SCOPE=sideways" \
    "SHIM_SLOW_PERIOD=10" "SHIM_EVENTS=e1,e2,e3,e4,e5,e6,e7,e8,e9"; do
    env "$kv" SHIM_OUTPUT=bad.json "$target" work 0.1 >out 2>err
    st=$?
    name=${kv%%=*}
    expect "$kv: exit 0, one line naming $name" sh -c "[ $st -eq 0 ] && grep -q '^shim: $name=' err && [ \$(wc -l <err) -eq 1 ]"
done

# 5. cycles and instructions in the default scope: counted from where the observer can
# count the observed thread's events (an SMT sibling with any-thread counting), or one
# line saying why not -- never the observer's own count under the program's name
SHIM_OUTPUT=auto.json SHIM_EVENTS=cycles,instructions "$target" work 0.2 >out 2>err
expect "auto scope: exit 0" test $? -eq 0
if json auto.json "$hw"; then
    expect "auto scope: core-minus-own readings" json auto.json \
        "all(c['scope'] in ('core','observer') for c in $hw) and 'ipc' in [r['name'] for r in d['rates']]"
else
    expect "auto scope: one line saying why the program's events cannot be counted" has err \
        "SHIM_EVENTS: the observer cannot count the observed thread's events here: "
    expect "auto scope: and what to use instead" has err "SHIM_EVENT_SCOPE=thread"
fi

# 6. the observer's own events: named observer.*, read with read() for a software event
SHIM_OUTPUT=own.json SHIM_EVENTS=task-clock SHIM_EVENT_SCOPE=observer "$target" work 0.3 >out 2>err
expect "observer scope: exit 0" test $? -eq 0
expect "observer scope: the reading is named observer.task_clock" json own.json \
    "[c['name'] for c in $hw]==['observer.task_clock'] and $hw[0]['scope']=='observer' and $hw[0]['read']=='read'"
expect "observer scope: a note says it is read with read()" has err "read with read()"
# the observer spins: its task clock runs with the TSC (ns per TSC cycle = 1e9 / TSC hz)
expect "observer scope: observer.task_clock per cycle is the observer's CPU time" json own.json \
    "0.5*$ns_per_tsc < ($rate)(d,'one','observer.task_clock') < 1.05*$ns_per_tsc"

# 7. the observed thread's events, every slow period: a phase that runs and one that
# sleeps, each 40 ms, far longer than the slow period. The thread word is the observed
# thread's throughout (SHIM_THREAD_ID=pinned): with BPF's, the sleeping phase's time
# would be the idle CPU's, and its few samples those in which the thread runs.
SHIM_THREAD_ID=pinned SHIM_OUTPUT=thread.json SHIM_EVENTS=task-clock SHIM_EVENT_SCOPE=thread SHIM_SLOW_PERIOD=200000 \
    SHIM_RATES=ms_per_loop=task_clock/loops "$target" busy-sleep 0.8 >out 2>err
expect "thread scope: exit 0" test $? -eq 0
expect "thread scope: a slow reading of the observed thread" json thread.json \
    "[(c['name'],c['scope'],c['read']) for c in $hw]==[('task_clock','thread','read-slow')]"
expect "thread scope: its rates are marked slow" json thread.json \
    "[r['name'] for r in d['rates'] if r.get('slow')]==['task_clock','ms_per_loop']"
expect "thread scope: spans counted, some attributed" json thread.json \
    "0 < d['samples']['slow_attributed'] <= d['samples']['slow_spans']"
expect "thread scope: the running phase's task clock is its CPU time" json thread.json \
    "0.5*$ns_per_tsc < ($rate)(d,'one','task_clock') < 1.05*$ns_per_tsc"
expect "thread scope: the sleeping phase's task clock is ~0" json thread.json \
    "($rate)(d,'two','task_clock') < 0.05*$ns_per_tsc"
expect "shimview reports the slow rate" sh -c "'$shimview' report thread.json >report && grep -q task_clock report"

# 8. SHIM_RATES names: cycles is the TSC when no cycles event is read, tsc always is
SHIM_OUTPUT=tsc.json SHIM_RATES=a=loops/cycles,b=loops/tsc "$target" work 0.2 >out 2>err
expect "rates per tsc and per cycles (no cycles event): both the TSC" json tsc.json \
    "[r.get('per') for r in d['rates'] if r['name'] in ('a','b')]==['tsc','tsc']"

# 9. kernel PMUs named as perf names them (PMU/EVENT/, PMU/term=value,.../), for PMUs
# libpfm4 does not know (AMD's data fabric, Intel's client memory controller); the msr
# PMU, present on most x86 kernels, stands in: msr/tsc/ of a thread counts the TSC cycles
# it ran, the same time as its task clock
for e in "nopmu/x/:the kernel has no PMU \"nopmu\"" "msr/bogus/:PMU msr has no event \"bogus\"" \
    "msr/event=0x0,zz=2/:PMU msr has no term zz" "msr/event=1:is not PMU/EVENT/"; do
    SHIM_OUTPUT=sysfs.json SHIM_EVENTS=${e%%:*} SHIM_EVENT_SCOPE=thread "$target" work 0.1 >out 2>err
    expect "${e%%:*}: one line naming the event and the cause" sh -c "[ $? -eq 0 ] && grep -q 'SHIM_EVENTS: ${e%%:*}: .*${e#*:}' err"
done
if [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then
    SHIM_OUTPUT=msr.json SHIM_EVENTS=msr/event=0x00/,task-clock SHIM_EVENT_SCOPE=thread \
        SHIM_SLOW_PERIOD=200000 "$target" busy-sleep 0.6 >out 2>err
    expect "msr: a comma inside PMU/.../ separates terms, not events" json msr.json \
        "[c['name'] for c in $hw]==['msr.event_0x00','task_clock']"
    SHIM_OUTPUT=msr.json SHIM_EVENTS=msr/tsc/,task-clock SHIM_EVENT_SCOPE=thread \
        SHIM_SLOW_PERIOD=200000 "$target" busy-sleep 0.6 >out 2>err
    expect "msr: msr/tsc/ is read as msr.tsc" json msr.json "[c['name'] for c in $hw]==['msr.tsc','task_clock']"
    expect "msr: the running phase's TSC cycles are its task clock" json msr.json \
        "abs(($rate)(d,'one','msr.tsc')*$ns_per_tsc / ($rate)(d,'one','task_clock') - 1) < 0.05"
else
    echo "skipped: no msr PMU (sysfs-named events are checked for their errors only)"
fi

# 10. on a machine with a PMU, the observed thread's cycles and instructions give IPC
if [ $pmu -eq 1 ]; then
    SHIM_OUTPUT=ipc.json SHIM_EVENTS=cycles,instructions SHIM_EVENT_SCOPE=thread \
        SHIM_SLOW_PERIOD=200000 "$target" busy-sleep 0.8 >out 2>err
    expect "PMU: ipc of the running phase is positive" json ipc.json "($rate)(d,'one','ipc') > 0"
else
    SHIM_OUTPUT=nopmu.json SHIM_EVENTS=cycles SHIM_EVENT_SCOPE=thread "$target" work 0.2 >out 2>err
    expect "no PMU: cycles fails with ENOENT, named" has err "SHIM_EVENTS: cycles: perf_event_open fails with ENOENT"
    echo "skipped: no PMU (IPC of a real run is not checked here)"
fi
finish
