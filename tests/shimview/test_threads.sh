#!/bin/sh
# test_threads.sh -- the program's threads, other processes and idle in shimview.
#
#     sh test_threads.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR PATH/TO/thread_phases
#
# A planted fixture (threads_fixture.py: two threads of the program with tags, one that got
# no sample, three other processes and the idle task, `other` and interrupted periods) and
# its variants, then a real profile of thread_phases, whose two workers time-share the
# observed CPU (as the machine is, with a private tracefs mount, and, as root, in a PID
# namespace of its own, where BPF's thread ids are not gettid()'s). check_threads.py recomputes from each profile what `report` (merged and
# --per-thread, text and CSV), `threads` (text and CSV) and `html` must show: merged rows
# that add up to the attributed samples, merged rates equal to sum_a / sum_b of the parts,
# the rows of each thread named. Malformed thread members and bad command lines are
# refused with one line. Starts an observer (thread_phases): ctest runs it under the
# "observer" resource lock. Prints "N passed, N failed" and exits non-zero if anything
# failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
PHASES=$4
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ] || [ -z "$PHASES" ]; then
    echo "usage: sh test_threads.sh SHIMVIEW FIXTURES_DIR WORK_DIR THREAD_PHASES" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"
CHECK="$HERE/check_threads.py"
check() { check_with "$CHECK" "$@"; }
fixture() { python3 "$HERE/threads_fixture.py" "$FIXTURES/profile-v1.json" "$@" || exit 1; }

FX="$WORK/calc.json"
fixture "$FX"

# ---- report: the merged view ----
run report "$FX"
expect_status "report of a profile with threads" 0
cp "$WORK/out" "$WORK/report.txt"
check text "$FX" "$WORK/report.txt" 20
run report --top 1 "$FX"
cp "$WORK/out" "$WORK/top1.txt"
check text "$FX" "$WORK/top1.txt" 1
expect_in "$WORK/top1.txt" "(2 more rows hidden" "report --top 1: the program's other rows are hidden, the groups kept"
run report --csv "$FX"
expect_status "report --csv" 0
cp "$WORK/out" "$WORK/merged.csv"
check merged "$FX" "$WORK/merged.csv"

# ---- report --per-thread ----
run report --per-thread "$FX"
expect_status "report --per-thread" 0
expect_in "$WORK/out" "thread name" "report --per-thread has a thread name column"
if grep -qE '^ +4243  worker +eval ' "$WORK/out"; then pass "report --per-thread: worker's eval row"; else fail "report --per-thread: no worker eval row: $(head -c 900 "$WORK/out")"; fi
if grep -qE '^ +9001 +\(other processes\) ' "$WORK/out"; then pass "report --per-thread: another process's row by its tid"; else fail "report --per-thread: no row of 9001"; fi
run report --per-thread --csv "$FX"
expect_status "report --per-thread --csv" 0
cp "$WORK/out" "$WORK/per-thread.csv"
check per-thread "$FX" "$WORK/per-thread.csv"

# ---- threads ----
run threads "$FX"
expect_status "threads" 0
cp "$WORK/out" "$WORK/threads.txt"
check threads-text "$FX" "$WORK/threads.txt"
expect_in "$WORK/threads.txt" "in other (the tag table was full), of no known thread: 50 samples" \
    "threads: other's samples are counted under the table"
run threads --csv "$FX"
expect_status "threads --csv" 0
cp "$WORK/out" "$WORK/threads.csv"
check threads "$FX" "$WORK/threads.csv"
run threads --csv --rate items "$FX"
expect_status "threads --csv --rate items" 0
cp "$WORK/out" "$WORK/threads-items.csv"
check threads "$FX" "$WORK/threads-items.csv" items
run threads --top 1 "$FX"
expect_in "$WORK/out" "(2 more rows hidden" "threads --top 1 hides the program's other threads"
expect_in "$WORK/out" "(other processes)" "threads --top 1 keeps the other processes' row"

# ---- html: the merged tags and the threads ----
run html -o "$WORK/calc.html" "$FX"
expect_status "html of a profile with threads" 0
check html "$FX" "$WORK/calc.html"

# ---- other commands: the program's tags by name, the other processes as one ----
run export -f folded "$FX"
expect_in "$WORK/out" "(other processes) 1303" "export folded: the other processes are one stack"
run compare "$FX" "$FX"
expect_in "$WORK/out" "(other processes)" "compare: the other processes are one row"
if [ "$(grep -c '^eval ' "$WORK/out")" -eq 1 ]; then pass "compare: eval is one row over both threads"; else fail "compare: eval rows: $(grep '^eval ' "$WORK/out")"; fi

# ---- variants ----
fixture "$WORK/pinned.json" pinned
run report "$WORK/pinned.json"
cp "$WORK/out" "$WORK/pinned.txt"
check text "$WORK/pinned.json" "$WORK/pinned.txt" 20
fixture "$WORK/capped.json" capped
run report "$WORK/capped.json"
cp "$WORK/out" "$WORK/capped.txt"
check text "$WORK/capped.json" "$WORK/capped.txt" 20
fixture "$WORK/legacy.json" legacy
run report --csv "$WORK/legacy.json"
cp "$WORK/out" "$WORK/legacy.csv"
check merged "$WORK/legacy.json" "$WORK/legacy.csv"
expect_not_in "$WORK/legacy.csv" "(other processes)" "without placement.threads every thread is the program's"
run threads --csv "$WORK/legacy.json"
cp "$WORK/out" "$WORK/legacy-threads.csv"
check threads "$WORK/legacy.json" "$WORK/legacy-threads.csv"
run threads "$WORK/legacy.json"
expect_in "$WORK/out" "does not list the program's threads" "threads says when the profile has no list"

# ---- malformed thread members: one line naming the member, exit 1 ----
while IFS='|' read -r brk message; do
    fixture "$WORK/bad-$brk.json" "$brk"
    for cmd in report threads; do
        expect_refused "$cmd: $brk" "bad-$brk.json: $message" "$cmd" "$WORK/bad-$brk.json"
    done
done <<'EOF'
bad-tid|placement.threads[1].tid: 0 is the idle task, not a thread of the program
bad-threads|placement.threads: expected an array, found an object
bad-observer|placement.observers[0].observer_cpu: missing
bad-why|placement.thread_identity.why: expected a string, found 3
EOF

# ---- the command line ----
run threads --help
expect_status "threads --help" 0
expect_in "$WORK/out" "usage: shimview threads" "threads --help prints its usage"
run help threads
expect_in "$WORK/out" "usage: shimview threads" "help threads prints its usage"
run report --help
expect_in "$WORK/out" "--per-thread" "report --help names --per-thread"
run threads
expect_status "threads without a FILE" 2
expect_in "$WORK/err" "missing the profile FILE" "threads without a FILE says so"
run threads "$FX" "$FX"
expect_status "threads with two FILEs" 2
run threads --rate nosuch "$FX"
expect_status "threads --rate nosuch" 2
expect_in "$WORK/err" "no rate 'nosuch'" "threads --rate nosuch names the rate"
run threads --bogus "$FX"
expect_status "threads --bogus" 2
expect_in "$WORK/err" "unknown option '--bogus'" "threads --bogus is named"
run threads --top 1 --all "$FX"
expect_status "threads --top with --all" 2
run threads "$WORK/does-not-exist.json"
expect_status "threads of a missing file" 1
run report --per-thread=yes "$FX"
expect_status "report --per-thread takes no value" 2

# ---- a real profile: thread_phases, two workers time-sharing the observed CPU ----
# Run as the machine is (BPF thread identity or not: check_threads.py checks what each
# allows), and once more through with_tracefs.sh where that gives BPF a tracefs it lacks
# (as root, in a private mount namespace), so both paths are covered where they can be.
real_profile() { # LABEL [RUNNER...]
    label=$1
    shift
    dir="$WORK/real-$label"
    mkdir -p "$dir"
    REAL="$dir/phases.json"
    (cd "$dir" && SHIM_OUTPUT=phases.json "$@" "$PHASES" truth.txt 0.3 >phases.out 2>phases.err)
    if ! [ -s "$REAL" ] || ! [ -s "$dir/truth.txt" ]; then
        fail "$label: thread_phases wrote no profile ($(head -c 300 "$dir/phases.err"))"
        return
    fi
    source=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['placement']['thread_identity']['source'])" "$REAL")
    pass "$label: thread_phases wrote a profile (thread ids: $source)"
    run threads --csv "$REAL"
    expect_status "$label: threads of the real profile" 0
    cp "$WORK/out" "$dir/threads.csv"
    if [ "$label" = pidns ] && [ "$source" != bpf ]; then
        echo "skipped: $label: the profile's thread ids are not BPF's ($(head -c 200 "$dir/phases.err"))"
        return
    fi
    check real "$REAL" "$dir/threads.csv" "$dir/truth.txt"
    check threads "$REAL" "$dir/threads.csv"
    run report --csv "$REAL"
    expect_status "$label: report --csv of the real profile" 0
    cp "$WORK/out" "$dir/merged.csv"
    check merged "$REAL" "$dir/merged.csv"
    run report --csv --per-thread "$REAL"
    cp "$WORK/out" "$dir/per-thread.csv"
    check per-thread "$REAL" "$dir/per-thread.csv"
    run report "$REAL"
    cp "$WORK/out" "$dir/report.txt"
    check text "$REAL" "$dir/report.txt" 20
}
real_profile as-is
if ! [ -d /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1; then
    real_profile tracefs sh "$HERE/../with_tracefs.sh"
else
    echo "skipped: a second real profile with a private tracefs mount (tracefs is mounted already, or this is not root, or unshare is missing)"
fi
# In a PID namespace of its own (a container's), BPF reports the initial namespace's
# thread ids and gettid() another: the workers' samples must still be theirs.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
    unshare --pid --fork --mount-proc true 2>/dev/null; then
    real_profile pidns sh "$HERE/../with_tracefs.sh" unshare --pid --fork --mount-proc
else
    echo "skipped: a real profile in a PID namespace of its own (not root, or unshare --pid --fork --mount-proc is unavailable)"
fi

finish
