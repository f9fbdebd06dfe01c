#!/bin/sh
# shim and the program's CPU affinity: a program that pins its own main thread is
# observed; threads keep the masks the program gave them and get their own back at the
# stop; programs started from the observed thread get its own mask, not shim's pin
# (docs/host-process.md, "CPU affinity").
# Usage: test_affinity.sh AFFINITY_TARGET WORKDIR WITH_TRACEFS [wrap|nowrap]
# nowrap: a sanitizer build, where libshim defines no pthread_create, so a thread that
# names no mask inherits the observed thread's pin before shim can know it
set -u
target=$1 dir=$2 with_tracefs=$3 threads=${4:-wrap}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"
if [ "$(nproc)" -lt 2 ]; then
    echo "skipped: affinity: this process may run on only one CPU"
    finish
    exit
fi
mask() { sed -n "s/^$2: //p" "$1" | head -1 | tr -d ' \t'; }
own=$(grep Cpus_allowed_list /proc/self/status | tr -d ' \t' | cut -d: -f2)

# 1. the main thread pinned to CPU 0 before shim_start(): observed there, the observer
# on another CPU of the process (also when that CPU is asked for), the pin left as is
for req in "" 1; do
    env ${req:+SHIM_OBSERVER_CPU=$req} SHIM_OUTPUT=pin$req.json "$target" pinmain >pin$req.out 2>pin$req.err
    st=$?
    what="pinned main thread${req:+, SHIM_OBSERVER_CPU=$req}"
    expect "$what: exit $st" test $st -eq 0
    expect "$what: shim_start returns 0" has pin$req.out "start: 0"
    expect "$what: not refused" sh -c "! grep -q 'only one CPU' pin$req.err"
    expect "$what: profile written" test -s pin$req.json
    expect "$what: observed on CPU 0, observer on CPU 1" json pin$req.json \
        "d['placement']['observed_cpu']==0 and d['placement']['observer_cpu']==1"
    expect "$what: still CPU 0 while observed" test "$(mask pin$req.out 'main observed')" = 0
    expect "$what: still CPU 0 after the stop" test "$(mask pin$req.out 'main after')" = 0
done
# the thread's only CPU asked for as the observer's: a refusal that names it
SHIM_OBSERVER_CPU=0 SHIM_OUTPUT=pin0.json "$target" pinmain >pin0.out 2>pin0.err
expect "pinned main thread, SHIM_OBSERVER_CPU=0: refused with the reason" has pin0.err \
    "observer CPU 0 (SHIM_OBSERVER_CPU or observer_cpu) is the only CPU the calling thread"
expect "pinned main thread, SHIM_OBSERVER_CPU=0: the pin left as is" \
    test "$(mask pin0.out 'main after')" = 0

# 2. threads created while observing, with BPF thread identity where it attaches and
# without: the one given CPU 0 (the observer's) by pthread_attr_setaffinity_np keeps
# it; the one that named no mask (it inherits the pinned thread's) and the main thread
# get their own masks back at the stop; a child forked from the one that named no mask
# has that thread's own mask
for tid in auto pinned; do
    SHIM_THREAD_ID=$tid SHIM_OBSERVER_CPU=0 SHIM_QUIET=1 SHIM_OUTPUT=threads-$tid.json \
        sh "$with_tracefs" "$target" threads >threads-$tid.out 2>threads-$tid.err
    st=$?
    expect "threads ($tid): exit $st" test $st -eq 0
    expect "threads ($tid): shim_stop returns 0" has threads-$tid.out "stop: 0"
    expect "threads ($tid): the named mask is kept while observed" \
        test "$(mask threads-$tid.out 'named observed')" = 0
    expect "threads ($tid): the named mask after the stop" \
        test "$(mask threads-$tid.out 'named after')" = 0
    if [ "$threads" = nowrap ]; then
        echo "skipped: threads ($tid): the thread that names no mask (no pthread_create of libshim's in a sanitizer build)"
    else
        expect "threads ($tid): the other thread's own mask back after the stop" \
            test "$(mask threads-$tid.out 'plain after')" = "$own"
        expect "threads ($tid): a child forked from the other thread has its own mask" \
            test "$(mask threads-$tid.out "plain's child")" = "$own"
    fi
    expect "threads ($tid): the main thread's own mask back after the stop" \
        test "$(mask threads-$tid.out 'main after')" = "$own"
done

# 3. programs started from the observed (pinned) thread get its own mask; the thread is
# pinned again after each call
SHIM_QUIET=1 SHIM_OUTPUT=spawn.json "$target" spawn >spawn.out 2>spawn.err
st=$?
expect "spawn: exit $st" test $st -eq 0
observed=$(mask spawn.out 'main observed')
expect "spawn: the observed thread is pinned" test "$observed" = 0 -o "$observed" = 1
for how in system popen posix_spawnp; do
    expect "spawn: $how's child has the thread's own mask" \
        test "$(grep "^$how: " spawn.out | cut -f2)" = "$own"
    expect "spawn: pinned again after $how" test "$(mask spawn.out "main after $how")" = "$observed"
done
expect "spawn: the profile is written" test -s spawn.json
SHIM_QUIET=1 SHIM_OUTPUT=exec.json "$target" exec >exec.out 2>exec.err
st=$?
expect "exec: exit $st" test $st -eq 0
expect "exec: the new program has the thread's own mask" test "$(grep '^exec: ' exec.out | cut -f2)" = "$own"
finish
