#!/bin/sh
# fork() while observing: the child has no observer, says so, and may start its own,
# which reads the child's signals; it keeps none of the parent's descriptors; the
# parent's run is untouched. A test of its own because ThreadSanitizer cannot run a
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
# the child's thread keeps its signal block under its own id: its observer reads its tags
for f in fork-*.json; do
    expect "fork: $f has the signals of its own thread" json "$f" \
        "any(t['values'] == [1] and t['samples'] > 0 and str(t['thread']) in sys.argv[1] for t in d['tags'])"
done

# A child after fork holds none of the observing parent's descriptors (perf events, the
# BPF program where it attaches, the trace file): a daemon that forks away would keep
# them for its whole life. Restarted, the child writes its profile on SIGTERM.
SHIM_OUTPUT=again-%p.json SHIM_TRACE=again-%p.trace:1M SHIM_EVENTS=task-clock \
    SHIM_EVENT_SCOPE=thread SHIM_QUIET=1 \
    sh "$here/../with_tracefs.sh" "$target" fork-again again- >out11 2>err11
expect "fork: the child holds none of the parent's perf events, BPF objects, trace file" \
    has out11 "child inherited descriptors: 0"
expect "fork: the child restarts" has out11 "child start: 0"
expect "fork: SIGTERM ends the restarted child" has out11 "child ended by signal: 15"
child=$(sed -n 's/^child pid: //p' out11)
expect "fork: the restarted child wrote its profile on SIGTERM" json "again-$child.json" \
    "any(t['values'] == [1] and t['samples'] > 0 for t in d['tags'])"
expect "fork: the parent stopped cleanly after" has out11 "parent stop: 0"
grep "child inherited:" out11

finish
