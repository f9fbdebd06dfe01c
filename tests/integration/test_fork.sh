#!/bin/sh
# fork() while observing: the child has no observer, says so, and may start its own;
# the parent's run is untouched. A test of its own because ThreadSanitizer cannot run a
# child of a multi-threaded process that starts threads (scripts/test excludes it there).
# Usage: test_fork.sh SHIM_TARGET WORKDIR
set -u
target=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir"
here=$(cd "$(dirname "$0")" && pwd)
cd "$dir" || exit 1
. "$here/lib.sh"

SHIM_OUTPUT=fork-%p.json SHIM_QUIET=1 "$target" fork >out10 2>err10
expect "fork: child is not observing" has out10 "child running: 0"
expect "fork: child's stop is ENOTSTARTED" has out10 "child stop: -3"
expect "fork: child restarts" has out10 "child start: 0"
expect "fork: child stopped cleanly" has out10 "child second stop: 0"
expect "fork: parent stopped cleanly" has out10 "parent stop: 0"
expect "fork: two profiles" test "$(ls fork-*.json | wc -l)" -eq 2

finish
