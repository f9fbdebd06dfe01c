#!/bin/sh
# test_pass.sh -- shimview's views of what the compiler pass adds to a profile: `loops`,
# `paths`, `path`, the names slots 8 and 10 get wherever tags are named, and the
# loader's checks of the pass tables and `paths`.
#
#     sh test_pass.sh SHIMVIEW FIXTURES_DIR WORK_DIR
#
# pass_fixture.py plants a profile of a program built with the pass alone (no `cct`):
# three functions of pass_source.c with tables (a loop with an if inside and 6 paths
# numbered by Ball and Larus's rule, two nested loops with no path numbering, a block
# that ends in abort()), one without, tag entries for every loop, and path entries.
# check_pass.py recomputes every expected number from the file, regenerates every path
# independently and reads shimview's output back (python's csv). Every path id of the
# numbered functions goes through `shimview path`: each must give a distinct, valid path
# with the text of its source lines. Malformed tables and path entries are refused with
# one line naming the member; bad command lines with status 2.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_pass.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
    exit 2
fi
case $SHIMVIEW in /*) ;; *) SHIMVIEW="$(pwd)/$SHIMVIEW" ;; esac # one test runs elsewhere
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
GOOD="$FIXTURES/profile-v1.json"
rm -rf "$WORK"
mkdir -p "$WORK/elsewhere" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"

# check KIND ARGS...: check_pass.py's lines, counted one by one
check() { check_with "$HERE/check_pass.py" "$@"; }

FX="$WORK/pass.json"
python3 "$HERE/pass_fixture.py" "$GOOD" "$FX" || exit 1
# checked_div's table names its file relatively: found next to the profile
cp "$HERE/pass_source.c" "$WORK/pass_source.c" || exit 1

# ---- loops ----
run loops --csv "$FX"
expect_status "loops --csv" 0
cp "$WORK/out" "$WORK/loops.csv"
check loops "$FX" "$WORK/loops.csv"
run loops "$FX"
expect_status "loops (text)" 0
expect_in "$WORK/out" "pass_source.c:22" "loops: a loop's file:line"
expect_in "$WORK/out" "(outside loops)" "loops: a function's time outside its loops"
expect_in "$WORK/out" "0x7f0000001000" "loops: a function the profile does not list, by address"
expect_in "$WORK/out" "outside instrumented functions (slot 10 held 0): 80 samples" \
    "loops: samples outside instrumented functions are counted"
python3 - "$WORK/out" >"$WORK/check.out" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l[:1].isalpha() or l.startswith("0x")]
first = [r[:4] for r in rows[1:4]]
want = [["sum_positive", "1", "pass_source.c:10", "1"], ["classify", "2", "pass_source.c:22", "2"],
        ["classify", "1", "pass_source.c:21", "1"]]
print(("ok: " if first == want else "FAIL: ") + "loops: sorted by samples, with depth (%s)" % first)
EOF
tally "$WORK/check.out"
run loops --top 2 --rate items "$FX"
expect_status "loops --top 2 --rate items" 0
expect_in "$WORK/out" "6 more rows hidden" "loops --top: the rows left out are counted"

# ---- paths ----
run paths --csv "$FX"
expect_status "paths --csv" 0
cp "$WORK/out" "$WORK/paths.csv"
check paths "$FX" "$WORK/paths.csv"
run paths --csv --function sum_positive "$FX"
expect_status "paths --function" 0
cp "$WORK/out" "$WORK/paths-sp.csv"
check paths "$FX" "$WORK/paths-sp.csv" sum_positive
run paths "$FX"
expect_status "paths (text)" 0
expect_in "$WORK/out" "paths: 3,890 samples resolved to a path" "paths: the samples resolved"
expect_in "$WORK/out" "120 overwritten" "paths: the samples overwritten"
expect_in "$WORK/out" "30 pending" "paths: the samples pending"
expect_in "$WORK/out" "pass_source.c:10-12" "paths: a path's source span"
expect_in "$WORK/out" "loop head  back edge" "paths: how a path starts and ends"

# ---- path: every id of the numbered functions ----
for fn in sum_positive checked_div; do
    mkdir -p "$WORK/$fn"
    n=$(python3 -c "import json,sys; print(next(f['pass']['paths'] for f in json.load(open(sys.argv[1]))['functions'] if f['name'] == sys.argv[2]))" "$FX" "$fn")
    id=0
    while [ "$id" -lt "$n" ]; do
        run path "$FX" "$fn" "$id"
        [ "$rc" -eq 0 ] || fail "path $fn $id (exit $rc: $(head -c 200 "$WORK/err"))"
        cp "$WORK/out" "$WORK/$fn/$id.out"
        id=$((id + 1))
    done
    check path "$FX" "$fn" "$WORK/$fn"
done
expect_in "$WORK/sum_positive/3.out" "pass_source.c:11 |         if (a[i] > 0) {" \
    "path: the text of a source line"
expect_in "$WORK/sum_positive/3.out" "starts: at the head of loop 1 (pass_source.c:10)" \
    "path: a path that starts at a loop's head names the loop"
expect_in "$WORK/sum_positive/2.out" "ends: with a return" "path: a path that returns"
run path - sum_positive 0 <"$FX"
expect_status "path - reads standard input" 0
run path "$FX" 0x555555555150 5
expect_status "path: a function by its address" 0
expect_in "$WORK/out" "block 5 (for.end)" "path: by address, the same table"

# the relative source name, where no file has it: line numbers only, and why
cp "$FX" "$WORK/elsewhere/pass.json"
(cd "$WORK/elsewhere" && "$SHIMVIEW" path pass.json checked_div 0 >out 2>err)
rc=$?
expect_status "path: a source file that cannot be read" 0
expect_in "$WORK/elsewhere/out" "block 2 (if.end): pass_source.c line 33" \
    "path: without the file, its line numbers"
expect_not_in "$WORK/elsewhere/out" " | " "path: without the file, no text"
expect_in "$WORK/elsewhere/out" "source text not shown: pass_source.c" \
    "path: says the source text could not be read"

# a FIFO where the source file should be: not waited on, and said
mkdir -p "$WORK/fifo" && cp "$FX" "$WORK/fifo/pass.json" && mkfifo "$WORK/fifo/pass_source.c" ||
    fail "mkfifo"
(cd "$WORK/fifo" && timeout 20 "$SHIMVIEW" path pass.json checked_div 0 >out 2>err)
rc=$?
expect_status "path: a FIFO named as the source file (124: it waited)" 0
expect_in "$WORK/fifo/out" "source text not shown: pass_source.c: not a regular file" \
    "path: says the source is not a regular file"

# ---- errors ----
run path "$FX" sum_positive 6
expect_status "path: an id beyond the function's paths exits 2" 2
expect_in "$WORK/err" "sum_positive has 6 paths, numbered 0 to 5: 6 is not one of them" \
    "path: an id beyond the paths is explained"
run path "$FX" sum_positiv 1
expect_status "path: an unknown function exits 2" 2
expect_in "$WORK/err" "no function 'sum_positiv'" "path: the unknown function is named"
expect_in "$WORK/err" "close names: sum_positive" "path: close names are offered"
run path "$FX" classify 0
expect_status "path: a function without path numbering exits 1" 1
expect_in "$WORK/err" "classify has no path numbering: 20 paths > 16" \
    "path: the fallback's reason is given"
run path "$FX" helper 0
expect_status "path: a function without a table exits 1" 1
expect_in "$WORK/err" "helper has no table from the compiler pass" "path: no table is said"
run path "$FX" sum_positive x
expect_status "path: an id that is not a number exits 2" 2
run path "$FX" sum_positive
expect_status "path: a missing id exits 2" 2
run path --frobnicate "$FX" sum_positive 1
expect_status "path: an unknown option exits 2" 2
run paths --function nothing "$FX"
expect_status "paths --function: an unknown function exits 2" 2
run loops --sort excl "$FX"
expect_status "loops: --sort is not its option" 2
run loops "$GOOD"
expect_status "loops: a profile without a loop signal exits 1" 1
expect_in "$WORK/err" "has no loop signal" "loops: no loop signal is said"
run paths "$GOOD"
expect_status "paths: a profile without paths exits 1" 1
expect_in "$WORK/err" "has no paths" "paths: no paths is said"
expect_in "$WORK/err" "not one of its defaults: SHIM_PASS=method,loop,path,context" \
    "paths: and how to get them (the pass's defaults have none)"
for cmd in loops paths path; do
    run "$cmd" --help
    expect_status "$cmd --help" 0
    expect_in "$WORK/out" "usage: shimview $cmd" "$cmd --help prints its usage"
done

# ---- names: slot 8 by function, slot 10 by loop, wherever tags are named ----
# (--per-thread: a row per entry, which the check looks up by thread and values)
run report --csv --per-thread "$FX"
expect_status "report --csv of a compiler-pass profile" 0
cp "$WORK/out" "$WORK/report.csv"
check report "$FX" "$WORK/report.csv"
run export -f folded "$FX"
expect_status "export -f folded of a compiler-pass profile" 0
expect_in "$WORK/out" "solve;sum_positive;sum_positive loop 1 (pass_source.c:10) 4000" \
    "export folded: a loop is a frame under its function, the threads added up"
run compare "$FX" "$FX"
expect_status "compare matches loops by name" 0
expect_in "$WORK/out" "read/classify/classify loop 2 (pass_source.c:22)" "compare: a loop's name"

# a slot no entry signalled (the phase slot of a program built with the pass alone) is
# left out of the names; a name too long for its column keeps its start and its end
python3 - "$FX" "$WORK/silent.json" <<'PY' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
for t in p["tags"]:
    t["values"][0] = 0
    if t.get("names"):
        t["names"][0] = None
json.dump(p, open(sys.argv[2], "w"))
PY
run report "$WORK/silent.json"
expect_status "report of a profile whose phase slot was never signalled" 0
expect_not_in "$WORK/out" "before the first signal" "report: a slot never signalled is left out of names"
expect_in "$WORK/out" "classify/classify loop 2 (pass_source.c:22)" "report: the function and loop name the row"
expect_in "$WORK/out" "sum_positive/sum_posit...op 1 (pass_source.c:10)" \
    "report: a long name is cut in its middle, its loop and line kept"
# compared with a run that signalled the slot once, the rows still match by name
python3 - "$WORK/silent.json" "$WORK/silent2.json" <<'PY' || exit 1
import json, sys
p = json.load(open(sys.argv[1]))
p["tags"][-1]["values"][0] = 5
json.dump(p, open(sys.argv[2], "w"))
PY
run compare "$WORK/silent.json" "$WORK/silent2.json"
expect_status "compare: one run never signalled a slot, the other once" 0
if grep -F "(before the first signal)/classify/classify loop 2 (pass_source.c:22)" "$WORK/out" |
    grep -Eq '\) +26\.35% +26\.35%'; then
    pass "compare: a slot one run signalled names both runs' rows alike, and they match"
else
    fail "compare: a slot one run signalled names both runs' rows alike, and they match"
fi

# ---- malformed tables and path entries: one line naming the member, status 1 ----
while IFS='|' read -r brk member; do
    python3 "$HERE/pass_fixture.py" "$GOOD" "$WORK/bad-$brk.json" "$brk" || exit 1
    expect_refused "malformed ($brk)" "bad-$brk.json: $member" loops "$WORK/bad-$brk.json"
done <<'EOF'
cycle|functions[0].pass.edges: the edges go round a cycle
paths|functions[0].pass.paths: 7, but its edges make 6 paths
loopnum|functions[1].pass.loops[1].loop: 1 is the number of another loop too
header|functions[0].pass.loops[0].header: 6 is not a block index
kind|functions[0].pass.edges[2][3]: "sideways" is not an edge kind
from|functions[0].pass.edges[9][0]: -1: an edge of kind "return" leaves a block index
loopsig|tags[0].values[2]: 0x9555555555150 names loop 9 of sum_positive, whose table has 1 loop
pathfn|paths.entries[0].function: 17 is not the id of any entry of functions
pathnum|paths.entries[0].values[1]: 6 is not a path of sum_positive
address|paths.entries[0].function: function 0 is at 0x555555555150
EOF

finish
