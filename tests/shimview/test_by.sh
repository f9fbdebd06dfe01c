#!/bin/sh
# test_by.sh -- one rate bucketed by another (a profile's `by`) in shimview.
#
#     sh test_by.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR PATH/TO/shim_target
#
# Two profiles: the fixture with `by` planted by by_fixture.py (every case: slots below and
# above the span, an empty bucket between full ones, buckets of fewer than 10 periods), and
# a real one, written by shim_target under SHIM_BY, where triples counts exactly 3 times
# loops, so Y in each bucket of X is known up to the one loop that may be in flight between
# the observer's two reads (a long period, so that is small beside a period's loops). Its
# span, 0 to 0.01 loops a cycle in 100 buckets of 0.0001, holds the loop's rate on CPUs
# that run it in 100 to 20,000 cycles (about 730 on an AMD EPYC VM). For each, `report`'s
# by table and its CSV are checked cell by cell against sum_a / sum_b of the profile's
# slots, and the figure of `plot` (read back with xml.etree) for its title, axis labels, tag names and one
# point per non-empty slot; `html` must hold the table and the figure. A profile without
# `by` gets neither, and malformed `by` members are refused with one line naming the member.
# Starts an observer (shim_target): ctest runs it under the "observer" resource lock.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
TARGET=$4
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ] || [ -z "$TARGET" ]; then
    echo "usage: sh test_by.sh SHIMVIEW FIXTURES_DIR WORK_DIR SHIM_TARGET" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
GOOD="$FIXTURES/profile-v1.json"
rm -rf "$WORK"
mkdir -p "$WORK/fx" "$WORK/top1" "$WORK/none" "$WORK/real" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"
CHECK="$HERE/check_by.py"

# check KIND ARGS...: check_by.py's lines, counted one by one
check() {
    python3 "$CHECK" "$@" >"$WORK/check.out" 2>&1 || echo "FAIL: check_by.py $1 ($(tail -n 3 "$WORK/check.out"))" >>"$WORK/check.out"
    tally "$WORK/check.out"
}

# ---- the planted fixture ----
FX="$WORK/fx/calc.json"
python3 "$HERE/by_fixture.py" "$GOOD" "$FX" || exit 1

run report "$FX"
expect_status "report of a profile with by" 0
cp "$WORK/out" "$WORK/report.txt"
check text "$FX" "$WORK/report.txt" 4
run report --top 1 "$FX"
check text "$FX" "$WORK/out" 1
expect_in "$WORK/out" "(4 slots without kept periods of these tags left out)" \
    "report: slots empty in every column are counted, not shown"

run report --csv=by "$FX"
expect_status "report --csv=by" 0
cp "$WORK/out" "$WORK/by.csv"
check csv "$FX" "$WORK/by.csv"
run report --csv=by --top 1 "$FX"
expect_status "report --csv=by --top 1" 0
cp "$WORK/out" "$WORK/by1.csv"
check csv "$FX" "$WORK/by1.csv" 1

run plot -o "$WORK/fx" "$FX"
expect_status "plot of a profile with by" 0
expect_in "$WORK/out" "$WORK/fx/calc-by.svg" "plot prints the path of calc-by.svg"
check svg "$FX" "$WORK/fx/calc-by.svg" 4
run plot --top 1 -o "$WORK/top1" "$FX"
expect_status "plot --top 1" 0
check svg "$FX" "$WORK/top1/calc-by.svg" 1

run html -o "$WORK/fx/calc.html" "$FX"
expect_status "html of a profile with by" 0
check html "$FX" "$WORK/fx/calc.html"

# ---- a profile without by: no figure, no table, and --csv=by says why ----
run plot -o "$WORK/none" "$GOOD"
expect_status "plot of a profile without by" 0
if [ -e "$WORK/none/profile-v1-by.svg" ]; then fail "no by figure without by"; else pass "no by figure without by"; fi
run report "$GOOD"
if grep -q "^by " "$WORK/out"; then fail "no by table without by"; else pass "no by table without by"; fi
run report --csv=by "$GOOD"
expect_status "report --csv=by without by" 2
expect_in "$WORK/err" "has no by table" "--csv=by without by says the profile has none"
run report --csv=nosuch "$GOOD"
expect_status "report --csv=nosuch" 2
expect_in "$WORK/err" "tags, period, by" "an unknown --csv table lists the tables"

# ---- malformed by: one line naming the member, exit 1 ----
while IFS='|' read -r brk message; do
    python3 "$HERE/by_fixture.py" "$GOOD" "$WORK/bad-$brk.json" "$brk" || exit 1
    run report "$WORK/bad-$brk.json"
    expect_status "malformed by ($brk) is refused" 1
    expect_in "$WORK/err" "bad-$brk.json: $message" "malformed by ($brk): the message names it"
    if [ "$(wc -l <"$WORK/err")" -eq 1 ]; then pass "malformed by ($brk): one line"; else fail "malformed by ($brk): $(wc -l <"$WORK/err") lines"; fi
done <<'EOF'
slots|tags[1].by: has 8 entries, expected 9 (buckets + 2 of the top-level by)
rate|by.rate: "nosuch" is not one of the profile's rates (items, bytes)
negative|tags[0].by[2][0]: expected a non-negative integer, found -3
sum|tags[0].by[3][2]: expected a non-negative number, found -1.5
tuple|tags[2].by[1]: expected an array [count, sum_a, sum_b], found an object
orphan|tags[0].by: expected nothing (the profile has no top-level by), found an array
missing|tags[2].by: missing, expected an array
too-many|tags[2].by: the slots hold 46762 periods, more than kept (33753)
buckets|by: buckets is 0, expected at least 1
EOF

# ---- a real profile: triples per cycle is 3 times loops per cycle ----
REAL="$WORK/real/by.json"
(cd "$WORK/real" && SHIM_OUTPUT=by.json SHIM_PERIOD=100000 SHIM_BY=triples:loops:100:0:0.01 "$TARGET" work 0.3 \
    >"$WORK/real/target.out" 2>"$WORK/real/target.err")
if [ -s "$REAL" ]; then
    pass "shim_target wrote a profile with SHIM_BY"
    run report "$REAL"
    expect_status "report of the real profile" 0
    cp "$WORK/out" "$WORK/real/report.txt"
    check text "$REAL" "$WORK/real/report.txt" 4
    run report --csv=by "$REAL"
    expect_status "report --csv=by of the real profile" 0
    cp "$WORK/out" "$WORK/real/by.csv"
    check csv "$REAL" "$WORK/real/by.csv"
    check truth "$WORK/real/by.csv" 3
    run plot -o "$WORK/real" "$REAL"
    expect_status "plot of the real profile" 0
    check svg "$REAL" "$WORK/real/by-by.svg" 4
else
    fail "shim_target wrote no profile with SHIM_BY ($(head -c 300 "$WORK/real/target.err"))"
fi

finish
