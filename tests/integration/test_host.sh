#!/bin/sh
# What a host program does to the libraries it links, done to shim: the program must
# never hang, nor be made to do what its user could not (docs/host-process.md).
# Usage: test_host.sh HOST_TARGET WORKDIR [CLOEXEC_CHECK] (none in sanitizer builds)
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
finish
