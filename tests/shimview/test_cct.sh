#!/bin/sh
# test_cct.sh -- shimview's calling-context views: functions, contexts, tree, the folded
# and pprof exports of real call paths, the names report gives the reserved slots, html,
# and the flame graph of the real profile (test_flame.sh has the planted ones); on the
# real profile, the filters (--focus, --ignore) and the callers view too.
#
#     sh test_cct.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO SHIMRUN PLAIN_TARGET
#
# Two profiles. cct_fixture.py plants one with every case: recursion folded back to its
# node (walk > visit > walk), a function called from two call sites, an unnamed function
# of a library and one in no module, two threads, samples outside every instrumented
# function, in the overflow node, in a thread with no tree, and in `other`, with rates.
# check_cct.py recomputes every expected number from the file and reads shimview's
# output back (csv, protoc, html.parser). Then plain_target, built with
# -finstrument-functions, runs under shimrun: main calls light() and heavy(), which does
# three times light's work, and its real profile must say so (within the band
# check_cct.py explains). Malformed calling contexts are refused with one line naming
# the member. Starts an observer (shimrun): ctest runs it under the "observer" resource
# lock.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
PROTO=$4
SHIMRUN=$5
PLAIN=$6
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ] || [ -z "$PROTO" ] ||
    [ -z "$SHIMRUN" ] || [ -z "$PLAIN" ]; then
    echo "usage: sh test_cct.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO SHIMRUN PLAIN_TARGET" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
GOOD="$FIXTURES/profile-v1.json"
rm -rf "$WORK"
mkdir -p "$WORK/real" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"

# check KIND PROFILE FILE ARGS...: check_cct.py's lines, counted one by one
check() {
    python3 "$HERE/check_cct.py" "$@" >"$WORK/check.out" 2>&1 ||
        echo "FAIL: check_cct.py $1 crashed: $(tail -n 3 "$WORK/check.out")" >>"$WORK/check.out"
    tally "$WORK/check.out"
}

# ---- the planted fixture ----
FX="$WORK/calc.json"
python3 "$HERE/cct_fixture.py" "$GOOD" "$FX" || exit 1

run functions --csv "$FX"
expect_status "functions --csv" 0
cp "$WORK/out" "$WORK/functions.csv"
check functions "$FX" "$WORK/functions.csv"
run functions "$FX"
expect_status "functions (text)" 0
expect_in "$WORK/out" "libm.so.6+0x2a10" "functions: an unnamed function is MODULE+0xOFFSET"
expect_in "$WORK/out" "0x7f00dead0000" "functions: a function in no module is its address"
expect_in "$WORK/out" "outside instrumented functions (slot 8 held 0): 80 samples" \
    "functions: samples outside instrumented functions are counted"
expect_in "$WORK/out" "does not list" "functions: samples in unlisted functions are counted"
run functions --sort excl --top 2 --csv "$FX"
expect_status "functions --sort excl --top 2" 0
python3 - "$WORK/out" >"$WORK/check.out" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r["function"] for r in rows] == ["walk", "visit"]
print(("ok: " if ok else "FAIL: ") + "functions --sort excl: walk, visit first (%s)" % rows[:2])
EOF
tally "$WORK/check.out"
run functions --rate items "$FX"
expect_status "functions --rate items" 0
expect_in "$WORK/out" "items incl" "functions --rate: the rate's inclusive column"

run contexts --csv "$FX"
expect_status "contexts --csv" 0
cp "$WORK/out" "$WORK/contexts.csv"
check contexts "$FX" "$WORK/contexts.csv"
run contexts "$FX"
expect_status "contexts (text)" 0
expect_in "$WORK/out" "main > eval @0x1150 > walk > visit" "contexts: a path, its call sites told apart"
expect_in "$WORK/out" "main > eval @0x1170" "contexts: the other call site"
expect_in "$WORK/out" "without a context" "contexts: samples without a context are counted"

LC_ALL=C.UTF-8 "$SHIMVIEW" tree "$FX" >"$WORK/tree.txt" 2>"$WORK/err"
rc=$?
expect_status "tree (UTF-8)" 0
check tree "$FX" "$WORK/tree.txt" utf8 0.5
LC_ALL=C "$SHIMVIEW" tree --min-share 0 --rate items "$FX" >"$WORK/tree0.txt" 2>"$WORK/err"
rc=$?
expect_status "tree --min-share 0 (ASCII)" 0
check tree "$FX" "$WORK/tree0.txt" ascii 0
expect_in "$WORK/tree0.txt" "items incl" "tree --rate: the rate's columns"
LC_ALL=C "$SHIMVIEW" tree --min-share 20 "$FX" >"$WORK/tree20.txt" 2>"$WORK/err"
rc=$?
expect_status "tree --min-share 20" 0
check tree "$FX" "$WORK/tree20.txt" ascii 20
run tree --depth 1 "$FX"
expect_status "tree --depth 1" 0
expect_not_in "$WORK/out" "eval" "tree --depth 1: nothing below the first level"
expect_in "$WORK/out" "more" "tree --depth 1: the deeper contexts are folded"

run export --format folded "$FX"
expect_status "export --format folded" 0
cp "$WORK/out" "$WORK/calc.folded"
check folded "$FX" "$WORK/calc.folded"
expect_in "$WORK/calc.folded" "main;eval;walk;visit;solve 2000" \
    "folded: the path, then the phase (a slot that varies)"
run export --format pprof -o "$WORK/calc.pb.gz" "$FX"
expect_status "export --format pprof" 0
check pprof "$FX" "$WORK/calc.pb.gz" "$PROTO"

run report "$FX"
expect_status "report of a calling-context profile" 0
expect_in "$WORK/out" "solve/walk/main > eval > walk" "report: functions and contexts by name"
expect_in "$WORK/out" "read/(none)/(outside instrumented functions)" "report: the root by name"
expect_not_in "$WORK/out" "context=4294967298" "report: no raw context numbers"
run report --csv "$FX"
expect_in "$WORK/out" "solve/visit/walk > visit" "report --csv: names in the name column"

run html -o "$WORK/calc.html" "$FX"
expect_status "html of a calling-context profile" 0
check html "$FX" "$WORK/calc.html"

# ---- a profile without a calling context ----
for cmd in functions contexts tree; do
    run "$cmd" "$GOOD"
    expect_status "$cmd of a profile without cct" 1
    expect_in "$WORK/err" "has no calling context" "$cmd says the profile has no calling context"
    run "$cmd" --help
    expect_status "$cmd --help" 0
    expect_in "$WORK/out" "usage: shimview $cmd" "$cmd --help prints the usage"
    run --help
    expect_in "$WORK/out" "$cmd" "shimview --help lists $cmd"
done
run html -o "$WORK/plain.html" "$GOOD"
expect_not_in "$WORK/plain.html" "Calling-context tree" "html: no tree without cct"

# ---- bad options ----
run functions --sort both "$FX"
expect_status "functions --sort both" 2
run contexts --sort excl "$FX"
expect_status "contexts --sort" 2
run functions --rate nosuch "$FX"
expect_status "functions --rate nosuch" 2
expect_in "$WORK/err" "items" "an unknown rate lists the rates"
run tree --min-share abc "$FX"
expect_status "tree --min-share abc" 2
run tree --min-share 150 "$FX"
expect_status "tree --min-share 150" 2
run tree --depth 0 "$FX"
expect_status "tree --depth 0" 2
run functions --all --top 3 "$FX"
expect_status "functions --all --top 3" 2
run tree
expect_status "tree without FILE" 2

# ---- malformed calling contexts: one line naming the member, exit 1 ----
while IFS='|' read -r brk message; do
    python3 "$HERE/cct_fixture.py" "$GOOD" "$WORK/bad-$brk.json" "$brk" || exit 1
    run functions "$WORK/bad-$brk.json"
    expect_status "malformed cct ($brk) is refused" 1
    expect_in "$WORK/err" "bad-$brk.json: $message" "malformed cct ($brk): the message names it"
    if [ "$(wc -l <"$WORK/err")" -eq 1 ]; then pass "malformed cct ($brk): one line"; else fail "malformed cct ($brk): $(wc -l <"$WORK/err") lines"; fi
done <<'EOF'
parent|cct.threads[0].nodes[5][0]: parent 7 is not an earlier row (this is row 5)
function|cct.threads[0].nodes[3][1]: function id 9 is not the id of any entry of functions
unfolded|cct.threads[0].nodes[9]: function id 2 (walk) is already on its path, at row 4
root|cct.threads[0].nodes[0]: expected [0, null, null] (row 0 is the root node)
slot|cct.cct_slot: slot 9 is not among signals.tags
node|tags[9].values[2]: context 0x28 names node 40 of thread index 0, whose tree has 9 nodes
thread|tags[7].values[2]: context 0x500000002 names thread index 5, which cct.threads does not have
dup-id|functions[1].id: 0 is also functions[0]'s id
module|functions[4].module: "/nowhere/lib.so" is not the path of any entry of modules
EOF

# ---- a real profile: plain_target under shimrun ----
REAL="$WORK/real/plain.json"
(cd "$WORK/real" && "$SHIMRUN" -o plain.json "$PLAIN" 0.3 >target.out 2>target.err)
if [ -s "$REAL" ] && python3 -c "import json,sys; sys.exit('cct' not in json.load(open('$REAL')))"; then
    pass "plain_target under shimrun wrote a calling-context profile"
    run functions --csv "$REAL"
    expect_status "functions of the real profile" 0
    cp "$WORK/out" "$WORK/real/functions.csv"
    check real "$REAL" "$WORK/real/functions.csv"
    check functions "$REAL" "$WORK/real/functions.csv"
    run contexts --csv "$REAL"
    cp "$WORK/out" "$WORK/real/contexts.csv"
    check contexts "$REAL" "$WORK/real/contexts.csv"
    LC_ALL=C.UTF-8 "$SHIMVIEW" tree "$REAL" >"$WORK/real/tree.txt" 2>"$WORK/err"
    rc=$?
    expect_status "tree of the real profile" 0
    expect_in "$WORK/real/tree.txt" "└─ main" "tree: main under the thread's root"
    expect_in "$WORK/real/tree.txt" "─ heavy" "tree: heavy under main"
    expect_in "$WORK/real/tree.txt" "─ light" "tree: light under main"
    check tree "$REAL" "$WORK/real/tree.txt" utf8 0.5
    run export --format folded "$REAL"
    expect_status "folded export of the real profile" 0
    cp "$WORK/out" "$WORK/real/plain.folded"
    check real-folded "$REAL" "$WORK/real/plain.folded"
    check folded "$REAL" "$WORK/real/plain.folded"
    run export --format pprof -o "$WORK/real/plain.pb.gz" "$REAL"
    expect_status "pprof export of the real profile" 0
    check pprof "$REAL" "$WORK/real/plain.pb.gz" "$PROTO"
    run html -o "$WORK/real/plain.html" "$REAL"
    expect_status "html of the real profile" 0
    check html "$REAL" "$WORK/real/plain.html"
    # the filters and the callers view on a real profile, recounted from it
    run functions --csv --focus heavy "$REAL"
    expect_status "functions --focus heavy of the real profile" 0
    cp "$WORK/out" "$WORK/real/focus.csv"
    CHECK_FILTER="focus=heavy" && export CHECK_FILTER
    check functions "$REAL" "$WORK/real/focus.csv"
    CHECK_FILTER="ignore=heavy" && export CHECK_FILTER
    run export --format folded --ignore heavy "$REAL"
    cp "$WORK/out" "$WORK/real/ignore.folded"
    check folded "$REAL" "$WORK/real/ignore.folded"
    expect_not_in "$WORK/real/ignore.folded" "heavy" "export --ignore heavy: no stack holds heavy"
    unset CHECK_FILTER
    LC_ALL=C "$SHIMVIEW" tree --callers light --min-share 0 "$REAL" >"$WORK/real/callers.txt" 2>"$WORK/err"
    rc=$?
    expect_status "tree --callers light of the real profile" 0
    check callers "$REAL" "$WORK/real/callers.txt" light
    expect_in "$WORK/real/callers.txt" "\`- main" "tree --callers light: main calls light"
    run flame -o "$WORK/real/plain-flame.svg" "$REAL"
    expect_status "flame of the real profile" 0
    check_with "$HERE/check_flame.py" flame "$REAL" "$WORK/real/plain-flame.svg" hash
else
    fail "plain_target under shimrun wrote no calling-context profile ($(head -c 300 "$WORK/real/target.err"))"
fi

finish
