#!/bin/sh
# What a host program does to the libraries it links, done to shim: the program must
# never hang, nor be made to do what its user could not (docs/host-process.md).
# Usage: test_host.sh HOST_TARGET WORKDIR [CLOEXEC_CHECK] (none in sanitizer builds)
# (and tests/with_tracefs.sh beside this directory, for BPF where it can attach)
set -u
target=$1 dir=$2 cloexec=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"

# 1. threads cancelled at once, 300 times: some while shim attaches them. A lock left
# held would hang the next pthread_create or shim_stop; timeout turns a hang into a
# failure instead of a stuck suite (no time is asserted: 60 s is far beyond the run).
SHIM_OUTPUT=cancel.json SHIM_QUIET=1 timeout 60 "$target" cancel 300 >out 2>err
st=$?
expect "cancel: the program ends (exit $st, 124 is a hang)" test $st -eq 0
expect "cancel: all 300 threads were cancelled" has out "cancelled: 300"
expect "cancel: a thread created afterwards runs" has out "created after: 7"
expect "cancel: shim_stop returns" has out "stop: 0"
expect "cancel: the profile is written" test -s cancel.json
expect "cancel: every cancelled thread gave its signal block back" sh -c "! grep -q 'threads observed at once' err"
# 2. set-user-ID: a setuid-root copy run by another user must not take the SHIM_*
# environment (that user's choice of files) and write there as root.
suid_skip() { echo "skipped: set-user-ID: $*"; }
if [ "$(id -u)" -ne 0 ]; then
    suid_skip "not root (a setuid-root copy cannot be made)"
elif findmnt -no OPTIONS --target "$dir" | tr , '\n' | grep -qx nosuid; then
    suid_skip "$dir is on a nosuid mount"
else
    mkdir -p suid etc shared
    cp "$target" suid/host_target
    chown root:root suid/host_target etc && chmod 4755 suid/host_target && chmod 755 suid etc
    chmod 777 shared
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    if ! as_nobody test -x "$dir/suid/host_target"; then
        suid_skip "user 65534 cannot execute $dir/suid/host_target"
    else
        (cd shared && SHIM_OUTPUT="$dir/shared/x.json" SHIM_TRACE="$dir/etc/FILE:1M" SHIM_STRICT=1 \
            as_nobody "$dir/suid/host_target" start >../suid.out 2>../suid.err)
        st=$?
        expect "setuid: the program runs on (exit $st)" test $st -eq 0
        expect "setuid: nothing created at SHIM_TRACE's path" test ! -e etc/FILE
        expect "setuid: nothing created at SHIM_OUTPUT's path" test ! -e shared/x.json
        expect "setuid: no profile in the working directory" test -z "$(ls shared)"
        expect "setuid: shim_start returns SHIM_EDISABLED" has suid.out "start: -9"
        expect "setuid: one line says why" sh -c \
            "[ \$(wc -l <suid.err) -eq 1 ] && grep -q 'set-user-ID' suid.err"
    fi
fi
# 3. every file libshim opens is close-on-exec, so a program that starts another while
# observing does not hand it shim's descriptors: the preloaded checker names any that
# is not. Threads (their names are read from /proc) and a sysfs-named event (its PMU's
# files are read, and fail here, which is enough) make libshim open files.
if [ -z "$cloexec" ]; then
    echo "skipped: cloexec: a sanitizer build (a preloaded checker would come before its runtime)"
else
    LD_PRELOAD="$cloexec" SHIM_OUTPUT=cloexec.json SHIM_QUIET=1 SHIM_EVENTS=nopmu/x/ \
        timeout 60 "$target" cancel 20 >out 2>err
    expect "cloexec: the checker watched libshim's opens" sh -c \
        "grep -q 'cloexec_check: [1-9][0-9]* opens by libshim' err"
    expect "cloexec: every file libshim opened is close-on-exec" sh -c "! grep -q '^cloexec:' err"
fi
# 4. what shim changes in the process and when it gives it back (docs/host-process.md's
# table): taken before shim_start(), while observing and after shim_stop(), with a
# trace and an event (a perf event of the observer's), with BPF where with_tracefs.sh
# makes it available and without. at WHEN WHAT: the program's line for it.
at() { sed -n "s/^$1 $2 //p" inv.out; }
inventory() { # LABEL ENV...: one run and its checks
    label=$1
    shift
    env "$@" SHIM_OUTPUT=inv.json SHIM_QUIET=1 SHIM_TRACE=1M SHIM_EVENTS=task-clock         SHIM_EVENT_SCOPE=observer timeout 60 "$here/../with_tracefs.sh" "$target" inventory         >inv.out 2>inv.err
    expect "$label: the program ends, the profile is written" sh -c '[ $? -eq 0 ] && [ -s inv.json ]'
    for t in shim-observer shim-keeper shim-trace; do
        expect "$label: thread $t while observing, none after the stop" \
            sh -c "[ '$(at during "thread $t")' = 1 ] && [ '$(at after "thread $t")' = 0 ]"
    done
    expect "$label: thread shim-writer while observing, and after (for the process's life)" \
        sh -c "[ '$(at during "thread shim-writer")' = 1 ] && [ '$(at after "thread shim-writer")' = 1 ]"
    expect "$label: perf event and BPF descriptors while observing ($(at during perf-bpf)), none after" \
        sh -c "[ '$(at during perf-bpf)' -ge 1 ] && [ '$(at after perf-bpf)' = 0 ]"
    expect "$label: descriptors after the stop as before ($(at before descriptors), $(at during descriptors) while observing, $(at after descriptors))" \
        test "$(at before descriptors)" = "$(at after descriptors)"
    # growing the table of a process with threads waits for an RCU grace period (ms)
    expect "$label: the descriptor table not grown ($(at before fdsize) entries before, $(at during fdsize) while observing, the highest descriptor open $(at during highest))" \
        test "$(at during fdsize)" = "$(at before fdsize)"
    expect "$label: the environment unchanged throughout" \
        sh -c "[ '$(at before environment)' = '$(at during environment)' ] && [ '$(at before environment)' = '$(at after environment)' ]"
    for sig in SIGINT SIGTERM SIGHUP; do
        expect "$label: $sig default before, shim's handler while observing and after" \
            sh -c "[ '$(at before $sig)' = default ] && [ '$(at during $sig)' = handler ] && [ '$(at after $sig)' = handler ]"
    done
    expect "$label: the calling thread pinned to one CPU while observing ($(at during cpus)), its own mask after ($(at after cpus))" \
        sh -c "[ \$(echo '$(at during cpus)' | wc -w) = 1 ] && [ '$(at before cpus)' = '$(at after cpus)' ]"
    expect "$label: the calling thread's signal mask and cancellation state unchanged" \
        sh -c "[ '$(at before blocked)' = '$(at after blocked)' ] && [ '$(at during blocked)' = '$(at before blocked)' ] && [ '$(at after cancel)' = enabled ]"
}
inventory "inventory (BPF where available)"
inventory "inventory (SHIM_THREAD_ID=pinned)" SHIM_THREAD_ID=pinned
finish
