#!/bin/sh
# What a host program does to the libraries it links, done to shim: the program must
# never hang, nor be made to do what its user could not (docs/host-process.md).
# Usage: test_host.sh HOST_TARGET WORKDIR
set -u
target=$1 dir=$2
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
finish
