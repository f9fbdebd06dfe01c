#!/bin/sh
# test_flame.sh -- shimview flame: the flame graph of a calling-context profile, its
# icicle and one-thread forms, the same graph in the html page, and the differential
# flame graph of `flame --diff` and `compare --flame`.
#
#     sh test_flame.sh SHIMVIEW FIXTURES_DIR WORK_DIR
#
# cct_fixture.py plants a calling-context profile with every case (recursion, two call
# sites, two threads, samples outside every function, in the overflow node, without a
# context and in `other`, with a rate); flame_fixture.py makes two of them with a planted
# difference, without time batches and (--batches) with them. check_flame.py parses every
# SVG with xml.etree and recomputes from the JSON where each frame must be, how wide, what
# its tooltip says (its intervals too, with the design effect of a profile with time
# batches) and what colour it has.
# Then the errors: a profile without contexts, files that are not profiles, bad options.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_flame.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
    exit 2
fi
case $SHIMVIEW in /*) ;; *) SHIMVIEW=$(pwd)/$SHIMVIEW ;; esac # it runs from $WORK too
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
GOOD="$FIXTURES/profile-v1.json"
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"
CHECK="$HERE/check_flame.py"

FX="$WORK/calc.json"
python3 "$HERE/cct_fixture.py" "$GOOD" "$FX" || exit 1
python3 "$HERE/flame_fixture.py" "$GOOD" "$WORK/a.json" "$WORK/b.json" || exit 1
python3 "$HERE/flame_fixture.py" "$GOOD" "$WORK/ta.json" "$WORK/tb.json" --batches || exit 1

# ---- one profile ----
(cd "$WORK" && "$SHIMVIEW" flame calc.json >out 2>err)
rc=$?
expect_status "flame FILE" 0
expect_in "$WORK/out" "calc-flame.svg" "flame: prints the path of the file it wrote"
if [ -s "$WORK/calc-flame.svg" ]; then pass "flame: writes STEM-flame.svg by default"; else fail "flame: no calc-flame.svg"; fi
check_with "$CHECK" flame "$FX" "$WORK/calc-flame.svg" hash
expect_in "$WORK/calc-flame.svg" "<script" "flame: the zoom script is inline"
expect_not_in "$WORK/calc-flame.svg" "href=\"http" "flame: nothing is fetched"

run flame --rate items -o "$WORK/items.svg" "$FX"
expect_status "flame --rate items" 0
check_with "$CHECK" flame "$FX" "$WORK/items.svg" rate

run flame --icicle -o "$WORK/icicle.svg" "$FX"
expect_status "flame --icicle" 0
check_with "$CHECK" icicle "$FX" "$WORK/icicle.svg"
expect_in "$WORK/icicle.svg" "Icicle graph" "flame --icicle: the title says so"
expect_in "$WORK/icicle.svg" "a frame hangs below its caller" "flame --icicle: the legend says where a callee is"
expect_in "$WORK/calc-flame.svg" "a frame sits on its caller" "flame: the legend says where a callee is"

for tid in 4242 4243; do
    run flame --tid "$tid" -o "$WORK/tid-$tid.svg" "$FX"
    expect_status "flame --tid $tid" 0
    check_with "$CHECK" flame "$FX" "$WORK/tid-$tid.svg" hash "$tid"
done

run flame -o - "$FX"
expect_status "flame -o - (standard output)" 0
expect_python "flame -o -: standard output is the SVG and nothing else" - "$WORK/out" <<'EOF'
import sys, xml.etree.ElementTree as ET
ET.parse(sys.argv[1])
EOF
"$SHIMVIEW" flame -o "$WORK/stdin.svg" - <"$FX" >"$WORK/out" 2>"$WORK/err"
rc=$?
expect_status "flame reads the profile from standard input" 0
check_with "$CHECK" flame "$FX" "$WORK/stdin.svg" hash

check_with "$CHECK" zoom "$WORK/calc-flame.svg"

# ---- the page ----
run html -o "$WORK/calc.html" "$FX"
expect_status "html of a calling-context profile" 0
check_with "$CHECK" html "$FX" "$WORK/calc.html"
check_with "$CHECK" sort "$WORK/calc.html"
run html -o "$WORK/plain.html" "$GOOD"
expect_status "html of a profile without contexts" 0
expect_not_in "$WORK/plain.html" 'href="#flame"' "html: no flame graph without contexts"
expect_in "$WORK/plain.html" 'href="#tags"' "html: the contents of a page without contexts"

# ---- the difference ----
(cd "$WORK" && "$SHIMVIEW" flame --diff a.json b.json >out 2>err)
rc=$?
expect_status "flame --diff A B" 0
expect_in "$WORK/out" "a-vs-b-flame.svg" "flame --diff: writes STEMA-vs-STEMB-flame.svg"
check_with "$CHECK" diff "$WORK/a.json" "$WORK/b.json" "$WORK/a-vs-b-flame.svg" planted
run compare "$WORK/a.json" "$WORK/b.json" --flame "$WORK/compare-flame.svg"
expect_status "compare --flame" 0
expect_in "$WORK/out" "share A" "compare --flame: the table first"
expect_in "$WORK/out" "compare-flame.svg" "compare --flame: then the graph's path"
if cmp -s "$WORK/compare-flame.svg" "$WORK/a-vs-b-flame.svg"; then
    pass "compare --flame draws what flame --diff draws"
else
    fail "compare --flame and flame --diff differ"
fi
# with time batches: the intervals widened by each run's design effect ('~')
run flame --diff -o "$WORK/batches-diff.svg" "$WORK/ta.json" "$WORK/tb.json"
expect_status "flame --diff of two profiles with time batches" 0
check_with "$CHECK" diff "$WORK/ta.json" "$WORK/tb.json" "$WORK/batches-diff.svg" planted
run flame --rate items -o "$WORK/batches-items.svg" "$WORK/tb.json"
expect_status "flame --rate items of a profile with time batches" 0
check_with "$CHECK" flame "$WORK/tb.json" "$WORK/batches-items.svg" rate
run flame --diff --icicle -o "$WORK/diff-icicle.svg" "$WORK/a.json" "$WORK/b.json"
expect_status "flame --diff --icicle" 0
expect_in "$WORK/diff-icicle.svg" "Differential icicle graph" "flame --diff --icicle: the title"

# ---- errors ----
run flame "$GOOD"
expect_status "flame of a profile without contexts" 1
expect_in "$WORK/err" "has no calling context" "flame: says the profile has no calling context"
run flame --diff "$GOOD" "$FX"
expect_status "flame --diff with a profile without contexts" 1
expect_in "$WORK/err" "profile-v1.json has no calling context" "flame --diff: names the profile"
run compare "$GOOD" "$FX" --flame "$WORK/none.svg"
expect_status "compare --flame with a profile without contexts" 1
expect_not_in "$WORK/out" "share A" "compare --flame: refused before the table"
# files that are not profiles: exit 1, one line naming the file (its wording is the
# reader's, shared by every command), and no SVG
: >"$WORK/empty.json"
printf '{"a": 1}\n' >"$WORK/foreign.json"
for bad in empty.json foreign.json missing.json; do
    run flame -o "$WORK/bad.svg" "$WORK/$bad"
    expect_status "flame of $bad" 1
    expect_in "$WORK/err" "$bad" "flame of $bad: the message names the file"
    if [ -e "$WORK/bad.svg" ]; then fail "flame of $bad left bad.svg"; else pass "flame of $bad writes nothing"; fi
    run flame --diff -o "$WORK/bad.svg" "$FX" "$WORK/$bad"
    expect_status "flame --diff with $bad as B" 1
    expect_in "$WORK/err" "$bad" "flame --diff with $bad: the message names the file"
done
run flame --tid 99 "$FX"
expect_status "flame --tid of no thread" 2
expect_in "$WORK/err" "4242, 4243" "flame --tid: names the threads there are"
run flame --rate nosuch "$FX"
expect_status "flame --rate nosuch" 2
expect_in "$WORK/err" "items" "flame --rate: names the rates there are"
while IFS='|' read -r what args message; do
    # shellcheck disable=SC2086
    run flame $args
    expect_status "flame $what" 2
    expect_in "$WORK/err" "$message" "flame $what: the message names it"
done <<EOF
--tid abc|--tid abc $FX|--tid expects a thread id
--tid -1|--tid -1 $FX|--tid expects a thread id
--diff with one profile|--diff $FX|--diff expects two profiles
--diff --rate|--diff --rate items $FX $FX|neither --rate nor --tid
--diff --tid|--diff --tid 4242 $FX $FX|neither --rate nor --tid
two profiles without --diff|$FX $FX|expects one FILE, got 2
no profile||missing the profile FILE
an unknown option|--bogus $FX|--bogus
-o without a name|-o|-o
EOF
run flame --diff - - <"$FX"
expect_status "flame --diff - -" 2
run compare --csv --flame "$WORK/x.svg" "$WORK/a.json" "$WORK/b.json"
expect_status "compare --csv --flame" 2
run compare --runs 2 --flame "$WORK/x.svg" "$WORK/a.json" "$WORK/a.json" "$WORK/b.json" "$WORK/b.json"
expect_status "compare --runs --flame" 2
expect_in "$WORK/err" "--runs and --flame" "compare --runs --flame: the message names both"
run flame --help
expect_status "flame --help" 0
expect_in "$WORK/out" "usage: shimview flame" "flame --help prints the usage"
run --help
expect_in "$WORK/out" "flame" "shimview --help lists flame"

finish
