#!/bin/sh
# test_interval.sh -- the interval between two snapshots of one run (SHIM_SNAPSHOT):
# `shimview export --since` and `shimview top`.
#
#     sh test_interval.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO [SNAPSHOT_TARGET]
#
# interval_fixture.py makes four snapshots of one run from the fixture profile, each tag
# at its own pace. The pprof of each interval is decoded by protoc with shimview's
# pprof.proto (check_interval.py): its samples are the interval's, tuple by tuple, and
# every sample carries the labels a fleet profiler files it by (program, host, pid, the
# interval); folded stacks add up the same way. `top` on a profile that grows while it
# watches prints at least two intervals to a pipe, each tag's share of each interval as
# computed from the snapshots. Then mistakes: profiles of two runs, the two in the wrong
# order, a later one that counts less, --since where it does not apply, a missing file.
# With SNAPSHOT_TARGET (a program that observes itself, tests/integration), the same on a
# real run: its numbered snapshots exported interval by interval, and `top` watching it.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
PROTO=$4
TARGET=${5:-}
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ] || [ -z "$PROTO" ]; then
    echo "usage: sh test_interval.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO [SNAPSHOT_TARGET]" >&2
    exit 2
fi
case $SHIMVIEW in /*) ;; *) SHIMVIEW=$(pwd)/$SHIMVIEW ;; esac
case $TARGET in /* | "") ;; *) TARGET=$(pwd)/$TARGET ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK/f" "$WORK/real" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"
F=$WORK/f

python3 "$HERE/interval_fixture.py" make "$FIXTURES/profile-v1.json" "$F" || fail "interval_fixture.py make"

# ---- export --since: the interval, for fleet profilers ----
for k in 1 2 3; do
    n=$((k + 1))
    run export -f pprof --since "$F/stage$k.json" -o "$F/i$n.pb.gz" "$F/stage$n.json"
    expect_status "pprof of the interval from snapshot $k to $n" 0
    check_with "$HERE/check_interval.py" pprof "$F/i$n.pb.gz" "$PROTO" "$F/stage$k.json" "$F/stage$n.json"
done
run export -f folded --since "$F/stage2.json" "$F/stage3.json"
expect_status "folded stacks of an interval" 0
expect_python "the folded counts add up to the interval's samples" -c "
import json, sys
a, b = json.load(open('$F/stage2.json')), json.load(open('$F/stage3.json'))
got = sum(int(l.rsplit(' ', 1)[1]) for l in open('$SCRATCH/out'))
want = b['samples']['total'] - a['samples']['total']
sys.exit(0 if got == want else 'folded %d, interval %d' % (got, want))"

expect_refused "--since a profile of another run" "are not profiles of one run" \
    export -f pprof --since "$F/stage1.json" -o "$F/x.pb.gz" "$F/other-run.json"
expect_refused "--since a later profile" "is an earlier profile of the run" \
    export -f pprof --since "$F/stage3.json" -o "$F/x.pb.gz" "$F/stage2.json"
expect_refused "a later profile that counts less" "counts less in it" \
    export -f pprof --since "$F/stage3.json" -o "$F/x.pb.gz" "$F/shrunk.json"
expect_refused "--since a file that is not there" "no-such.json" \
    export -f pprof --since "$F/no-such.json" -o "$F/x.pb.gz" "$F/stage2.json"
if [ -e "$F/x.pb.gz" ]; then fail "a refused export leaves no file"; else pass "a refused export leaves no file"; fi
run export -f perfetto --since "$F/stage1.json" "$F/stage2.json"
expect_status "--since with a format that reads the trace" 2
expect_in "$SCRATCH/err" "--since applies to pprof and folded" "the message says where --since applies"

# ---- top: a profile that grows while it is watched ----
python3 "$HERE/interval_fixture.py" grow "$FIXTURES/profile-v1.json" "$F/growing.json" 0.1 "$F/top.out" &
grower=$!
"$SHIMVIEW" top --every 0.05 "$F/growing.json" >"$F/top.out" 2>"$F/top.err" | cat
rc=$?
wait "$grower"
if [ "$rc" -eq 0 ]; then pass "top ends by itself after the final profile"; else fail "top exited $rc: $(head -c 300 "$F/top.err")"; fi
check_with "$HERE/check_interval.py" top "$F/top.out" "$F/expected.json"
# another run's profile takes the file's place: the view starts again from it
cp "$F/stage1.json" "$F/restart.json"
"$SHIMVIEW" top --every 0.05 --count 2 "$F/restart.json" >"$F/restart.out" 2>"$F/restart.err" &
viewer=$!
i=0
while ! grep -q "snapshot 1 at" "$F/restart.out" 2>/dev/null && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
cp "$F/other-run.json" "$F/restart.tmp" && mv "$F/restart.tmp" "$F/restart.json"
wait "$viewer"
rc=$?
expect_status "top when another run's profile replaces the one it showed" 0
expect_in "$F/restart.err" "are not profiles of one run (pid 4242 and 4243" "it says why"
expect_in "$F/restart.err" "showing it from its start" "and that it starts again"
if [ "$(grep -c "the run so far" "$F/restart.out")" -eq 2 ]; then
    pass "its second block is the new run so far"
else
    fail "its second block is the new run so far: $(head -c 300 "$F/restart.out")"
fi
# on a terminal (script(1) gives it one): the screen cleared for each block, the keys
# read, and 'q' ends it, while the program (here: nobody) keeps the snapshot as it is
if ! command -v script >/dev/null 2>&1; then
    pass "skipped: no script(1) to give top a terminal"
elif ! script -qec true /dev/null >/dev/null 2>&1; then
    pass "skipped: script(1) cannot open a terminal here (no /dev/pts?) to give top one"
else
    rm -f "$F/tty.log"
    (
        i=0
        while ! grep -q "ends it" "$F/tty.log" 2>/dev/null && [ $i -lt 600 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        printf q
    ) | script -qfec "'$SHIMVIEW' top --every 0.05 '$F/stage2.json'" "$F/tty.log" >/dev/null 2>&1
    rc=$?
    expect_status "top on a terminal ends with q" 0
    if grep -q "$(printf '\033\[H\033\[2J')" "$F/tty.log"; then
        pass "it clears the screen for its block"
    else
        fail "it clears the screen for its block: $(head -c 300 "$F/tty.log")"
    fi
    expect_in "$F/tty.log" "(q or Ctrl-C ends it)" "it says how to end it"
fi
run top --count 1 "$F/stage2.json"
expect_status "top --count 1 on a snapshot" 0
expect_in "$SCRATCH/out" "the run so far" "its first block is the run so far"
run top --by functions "$F/stage2.json"
expect_status "top --by functions without calling contexts" 1
expect_in "$SCRATCH/err" "has no calling contexts" "the message says why"
run top --every 0 "$F/stage2.json"
expect_status "top --every 0" 2
run top -
expect_status "top on standard input" 2

# ---- a real run ----
if [ -n "$TARGET" ]; then
    cd "$WORK/real" || exit 1
    # the program runs on past its 3 s while `hold` exists, until top has shown two
    # intervals (a loaded machine can delay the snapshots), then stops
    : >hold
    SHIM_SNAPSHOT=0.5 SHIM_SNAPSHOT_KEEP=100 SHIM_QUIET=1 SHIM_OUTPUT=r.json "$TARGET" 3 hold \
        >target.out 2>target.err &
    pid=$!
    (
        i=0
        while [ "$(grep -c "^last interval " top.out 2>/dev/null)" -lt 2 ] && [ $i -lt 1200 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        rm -f hold
    ) &
    "$SHIMVIEW" top --every 0.05 -n 3 r.json >top.out 2>top.err | cat
    rc=$?
    wait "$pid"
    wait
    if [ "$rc" -eq 0 ]; then pass "top on a running program ends with it"; else fail "top on a running program exited $rc: $(head -c 300 top.err)"; fi
    n=$(grep -c "^last interval " top.out)
    if [ "$n" -ge 2 ]; then pass "top printed $n intervals of the running program to a pipe"
    else fail "top printed $n intervals of the running program: $(head -c 300 top.out)"; fi
    prev=
    for f in $(ls r.0*.json) r.json; do
        if [ -n "$prev" ]; then
            run export -f pprof --since "$prev" -o "${f%.json}.pb.gz" "$f"
            expect_status "pprof of the real interval $prev to $f" 0
            check_with "$HERE/check_interval.py" pprof "${f%.json}.pb.gz" "$PROTO" "$prev" "$f"
        fi
        prev=$f
    done
fi
finish
