#!/bin/sh
# test_conventions.sh -- what every shimview command does alike: where -o puts its output
# (a file, or a directory that takes the file under its default name, made when it does
# not exist), --json beside --csv, --sort on every table, the --tid, --focus and
# --ignore filters, and the callers view.
#
#     sh test_conventions.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO
#
# Every number a filtered or sorted table shows is recomputed from the profile's JSON by
# check_conventions.py (with check_cct.py's reading of a calling context), so a filter
# that kept the wrong samples, or a JSON table that differs from its CSV, fails here.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
PROTO=$4
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ] || [ -z "$PROTO" ]; then
    echo "usage: sh test_conventions.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO" >&2
    exit 2
fi
case $SHIMVIEW in /*) ;; *) SHIMVIEW=$(pwd)/$SHIMVIEW ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
GOOD="$FIXTURES/profile-v1.json"
rm -rf "$WORK"
mkdir -p "$WORK/cwd" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"

# ---- -o: a file, or a directory taking the default name; directories made ----
python3 "$HERE/make_trace.py" "$GOOD" "$WORK" traced --records 500 >/dev/null || fail "make_trace.py"
TRACED="$WORK/traced.json"
O="$WORK/o"
# each line: the command's words, -o's value, the file that must be written (under $O)
while IFS='|' read -r words given want; do
    # shellcheck disable=SC2086 # the command's words
    run $words -o "$O/$given" "$TRACED"
    expect_status "$words -o $given" 0
    if [ -s "$O/$want" ]; then pass "$words -o $given writes $want"; else fail "$words -o $given: no $want ($(ls -R "$O" | head -c 300))"; fi
    expect_in "$WORK/out" "$O/$want" "$words -o $given prints the path written"
done <<'EOF'
html|new/page.html|new/page.html
html|html-dir/|html-dir/traced.html
timeline|a/b/c/t.svg|a/b/c/t.svg
timeline|tl-dir/|tl-dir/traced-timeline.svg
export --format folded|ex/stacks.txt|ex/stacks.txt
export --format folded|ex/|ex/traced.folded
export --format pprof|ex/|ex/traced.pb.gz
export --format perfetto|ex/|ex/traced-perfetto.json
export --format csv|ex/deeper/|ex/deeper/traced-trace.csv
plot|plots/run1|plots/run1/traced-sampling.svg
plot|plots/run2/|plots/run2/traced-hist.svg
EOF
mkdir -p "$O/existing"
run html -o "$O/existing" "$TRACED"
expect_status "html -o an existing directory" 0
if [ -s "$O/existing/traced.html" ]; then pass "html -o DIR (existing, no '/'): DIR/STEM.html"; else fail "html -o DIR: no DIR/traced.html"; fi
run compare -o "$O/cmp" "$GOOD" "$TRACED"
expect_status "compare -o a new directory" 0
if [ -s "$O/cmp/profile-v1-vs-traced-hist.svg" ]; then pass "compare -o DIR: made, the figures in it"; else fail "compare -o DIR: $(ls "$O/cmp" 2>&1)"; fi
(cd "$WORK/cwd" && "$SHIMVIEW" html "$TRACED" >/dev/null 2>&1)
if [ -s "$WORK/cwd/traced.html" ]; then pass "html without -o: STEM.html in the current directory"; else fail "html without -o"; fi
run html -o - "$TRACED"
expect_in "$WORK/out" "<!DOCTYPE html>" "html -o -: the page on standard output"
run plot -o - "$TRACED"
expect_status "plot -o - exits 2" 2
expect_in "$WORK/err" "-o needs a directory" "plot -o -: says -o is a directory"
: >"$O/plainfile"
run html -o "$O/plainfile/page.html" "$TRACED"
expect_status "-o under a file that is not a directory exits 1" 1
expect_in "$WORK/err" "plainfile/page.html: Not a directory" "-o under a file: the path and the reason"

# ---- the planted profiles every table is read from ----
CCT="$WORK/calc.json"
another_run "$GOOD" "$WORK/good2.json" # merge pools different runs only
GOOD2="$WORK/good2.json"
PASS="$WORK/pass.json"
THREADS="$WORK/threads.json"
BY="$WORK/by.json"
python3 "$HERE/cct_fixture.py" "$GOOD" "$CCT" &&
    python3 "$HERE/pass_fixture.py" "$GOOD" "$PASS" &&
    python3 "$HERE/threads_fixture.py" "$GOOD" "$THREADS" &&
    python3 "$HERE/by_fixture.py" "$GOOD" "$BY" || fail "planting the fixtures"

# check KIND ARGS...: check_conventions.py's lines, counted one by one
check() { check_with "$HERE/check_conventions.py" "$@"; }

# ---- --json: the CSV's table as an array of objects ----
# each line: a label, then the command's words (the profile last)
while IFS='|' read -r label words; do
    # shellcheck disable=SC2086 # the command's words
    run $words --csv
    expect_status "$label --csv" 0
    cp "$WORK/out" "$WORK/t-$label.csv"
    # shellcheck disable=SC2086
    run $words --json
    expect_status "$label --json" 0
    cp "$WORK/out" "$WORK/t-$label.json"
    check json "$WORK/t-$label.csv" "$WORK/t-$label.json" "$label"
done <<EOF
functions|functions $CCT
contexts|contexts $CCT
threads|threads $THREADS
loops|loops $PASS
paths|paths $PASS
compare|compare $GOOD $CCT
merge|merge $GOOD $GOOD2
EOF
for table in tags period; do
    run report "--csv=$table" "$THREADS"
    cp "$WORK/out" "$WORK/report-$table.csv"
    run report "--json=$table" "$THREADS"
    expect_status "report --json=$table" 0
    cp "$WORK/out" "$WORK/report-$table.json"
    check json "$WORK/report-$table.csv" "$WORK/report-$table.json" "report $table"
done
run report --csv=by "$BY"
cp "$WORK/out" "$WORK/report-by.csv"
run report --json=by "$BY"
cp "$WORK/out" "$WORK/report-by.json"
check json "$WORK/report-by.csv" "$WORK/report-by.json" "report by"
run report --json --per-thread "$THREADS"
cp "$WORK/out" "$WORK/report-pt.json"
run report --csv --per-thread "$THREADS"
cp "$WORK/out" "$WORK/report-pt.csv"
check json "$WORK/report-pt.csv" "$WORK/report-pt.json" "report --per-thread"
run functions --json --top 2 "$CCT"
expect_python "functions --json --top 2: two objects" -c \
    'import json,sys; sys.exit(len(json.load(open(sys.argv[1]))) != 2)' "$WORK/out"
run functions --csv --json "$CCT"
expect_status "--csv --json exits 2" 2
expect_in "$WORK/err" "--csv and --json exclude each other" "--csv --json: says why"
run report --json=tagz "$GOOD"
expect_status "report --json=tagz exits 2" 2
expect_in "$WORK/err" "did you mean 'tags'" "report --json=tagz: did you mean"
run compare --json -o "$WORK/cmp-json" "$GOOD" "$CCT"
expect_status "compare --json -o exits 2" 2

# ---- --sort: every table, every key; the rows in the key's order ----
# each line: a label, the command's words (the profile last), the key, then the order
# check_conventions.py checks (its "sorted" KEYs)
while IFS='|' read -r label words key order; do
    # shellcheck disable=SC2086 # the command's words and the order's keys
    run $words --sort "$key" --csv
    expect_status "$label --sort $key" 0
    cp "$WORK/out" "$WORK/s-$label-$key.csv"
    # shellcheck disable=SC2086
    check sorted "$WORK/s-$label-$key.csv" $order
done <<EOF
functions|functions $CCT|incl|-incl_samples -excl_samples
functions|functions $CCT|excl|-excl_samples -incl_samples
functions|functions $CCT|name|~function
contexts|contexts $CCT|samples|-samples
contexts|contexts $CCT|time|-time_share
contexts|contexts $CCT|name|~context
threads|threads $THREADS|samples|!groups -samples
threads|threads $THREADS|time|!groups -time_share
threads|threads $THREADS|tid|!groups +thread
threads|threads $THREADS|name|!groups ~name
loops|loops $PASS|samples|-samples
loops|loops $PASS|time|-time_share
loops|loops $PASS|function|~function +loop
paths|paths $PASS|samples|-samples
paths|paths $PASS|time|-time_share
paths|paths $PASS|function|~function +path
report|report $THREADS|samples|!groups -samples
report|report $THREADS|time|!groups -time_share
report|report $THREADS|name|!groups ~name
compare|compare $GOOD $CCT|a|!groups -share_a -share_b
compare|compare $GOOD $CCT|b|!groups -share_b -share_a
compare|compare $GOOD $CCT|change|!groups -change
compare|compare $GOOD $CCT|name|!groups ~name
merge|merge $GOOD $CCT $GOOD2|share|!groups -share_mean
merge|merge $GOOD $CCT $GOOD2|runs|!groups -runs -share_mean
merge|merge $GOOD $CCT $GOOD2|name|!groups ~name
EOF
# the group rows stay after the program's, whatever the order
run threads --sort name --csv "$THREADS"
expect_python "threads --sort name: other processes and idle stay last" -c '
import csv, sys
names = [r["name"] for r in csv.DictReader(open(sys.argv[1]))]
sys.exit(names[-2:] != ["(other processes)", "(idle)"])' "$WORK/out"
run functions --sort name --top 3 --csv "$CCT"
expect_python "functions --sort name --top 3: the first three names A to Z" -c '
import csv, sys
got = [r["function"] for r in csv.DictReader(open(sys.argv[1]))]
every = sorted(r["function"] for r in csv.DictReader(open(sys.argv[2])))
sys.exit(got != every[:3])' "$WORK/out" "$WORK/s-functions-name.csv"
run report --sort time "$THREADS"
expect_status "report --sort time (text)" 0
# every table's --help names its keys, and a bad key lists the same ones
for words in "functions $CCT" "contexts $CCT" "threads $THREADS" "loops $PASS" "paths $PASS" \
    "report $GOOD" "compare $GOOD $GOOD" "merge $GOOD"; do
    cmd=${words%% *}
    keys=$("$SHIMVIEW" "$cmd" --help | sed -n 's/.*(keys: \([a-z, ]*\)).*/\1/p')
    if [ -n "$keys" ]; then pass "$cmd --help names the --sort keys ($keys)"; else fail "$cmd --help: no '(keys: ...)'"; fi
    # shellcheck disable=SC2086
    run $words --sort bogus
    expect_status "$cmd --sort bogus exits 2" 2
    expect_in "$WORK/err" "--sort expects one of: $keys; not 'bogus'" "$cmd --sort bogus lists the keys --help names"
done
run functions --sort exl "$CCT"
expect_in "$WORK/err" "did you mean 'excl'?" "functions --sort exl: did you mean 'excl'"

# ---- --tid, --focus, --ignore: the numbers of the samples kept, recomputed ----
# check_cct.py recounts from the profile what the filter keeps (CHECK_FILTER), so every
# row, share, rate, stack and tree line must be the filtered profile's.
# cct_check FILTER KIND FILE ARGS...: check_cct.py's lines for output FILE under FILTER
cct_check() {
    CHECK_FILTER=$1
    export CHECK_FILTER
    kind=$2
    file=$3
    shift 3
    check_with "$HERE/check_cct.py" "$kind" "$CCT" "$file" "$@"
    unset CHECK_FILTER
}
# each line: check_cct.py's filter, then shimview's options for it
while IFS='|' read -r filter options; do
    # shellcheck disable=SC2086 # the options' words
    run functions --csv $options "$CCT"
    expect_status "functions $options" 0
    cp "$WORK/out" "$WORK/f.csv"
    cct_check "$filter" functions "$WORK/f.csv"
    # shellcheck disable=SC2086
    run contexts --csv $options "$CCT"
    expect_status "contexts $options" 0
    cp "$WORK/out" "$WORK/c.csv"
    cct_check "$filter" contexts "$WORK/c.csv"
    # shellcheck disable=SC2086
    LC_ALL=C "$SHIMVIEW" tree --min-share 0 $options "$CCT" >"$WORK/t.txt" 2>"$WORK/err"
    rc=$?
    expect_status "tree $options" 0
    cct_check "$filter" tree "$WORK/t.txt" ascii 0
    # shellcheck disable=SC2086
    run export --format folded $options "$CCT"
    expect_status "export --format folded $options" 0
    cp "$WORK/out" "$WORK/f.folded"
    cct_check "$filter" folded "$WORK/f.folded"
    # shellcheck disable=SC2086
    run export --format pprof -o "$WORK/f.pb.gz" $options "$CCT"
    expect_status "export --format pprof $options" 0
    cct_check "$filter" pprof "$WORK/f.pb.gz" "$PROTO"
done <<'EOF'
focus=walk|--focus walk
ignore=walk|--ignore walk
tid=4243|--tid 4243
tid=4242;tid=4244|--tid 4242 --tid 4244
focus=visit;ignore=libm.so.6+0x2a10|--focus visit --ignore libm.so.6+0x2a10
focus=eval;focus=visit;ignore=walk|--focus eval --focus visit --ignore walk
tid=4242;focus=main|--tid 4242 --focus main
EOF
run functions --focus walk "$CCT"
expect_in "$WORK/out" "filter: --focus walk: kept 7,600 of 8,710 attributed samples (87.26%); shares are of all of them" \
    "functions --focus: a line says what the filter kept"
run functions --focus walk --csv "$CCT"
expect_not_in "$WORK/out" "filter:" "functions --focus --csv: nothing but the table"
# a FUNCTION is any name shimview shows it by: the label, or the address
addr=$(python3 -c 'import json,sys; print(hex(next(f["address"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "walk")))' "$CCT")
run export --format folded --focus "$addr" "$CCT"
cp "$WORK/out" "$WORK/addr.folded"
run export --format folded --focus walk "$CCT"
if cmp -s "$WORK/out" "$WORK/addr.folded"; then pass "--focus $addr is --focus walk"; else fail "--focus by address differs"; fi

# ---- the callers view: tree --callers, bottom up ----
while IFS='|' read -r filter options; do
    # shellcheck disable=SC2086
    LC_ALL=C "$SHIMVIEW" tree --min-share 0 $options "$CCT" >"$WORK/callers.txt" 2>"$WORK/err"
    rc=$?
    expect_status "tree $options" 0
    cct_check "$filter" callers "$WORK/callers.txt" "${options##* }"
done <<'EOF'
|--callers visit
|--callers walk
|--callers libm.so.6+0x2a10
|--callers main
tid=4242|--tid 4242 --callers visit
ignore=eval|--ignore eval --callers walk
EOF
LC_ALL=C.UTF-8 "$SHIMVIEW" tree --callers visit --rate items "$CCT" >"$WORK/callers.txt" 2>&1
expect_in "$WORK/callers.txt" "callers of visit: 3,900 samples reached it, 44.78%; 3,100 of them in its own code, 35.59%" \
    "tree --callers: a line says how many samples reached the function"
expect_in "$WORK/callers.txt" "└─ walk" "tree --callers: the caller under the function (UTF-8)"
expect_in "$WORK/callers.txt" "items total" "tree --callers --rate: the rate over the total"
run tree --callers visit --depth 1 "$CCT"
expect_not_in "$WORK/out" "eval" "tree --callers --depth 1: only the direct callers"

# ---- what the filters refuse ----
run functions --focus wlak "$CCT"
expect_status "--focus of an unknown function exits 2" 2
expect_in "$WORK/err" "--focus wlak: no function of that name in $CCT (close names: " \
    "--focus of an unknown function: named, with the close names"
expect_in "$WORK/err" "walk" "--focus wlak: walk is a close name"
run tree --callers nosuch "$CCT"
expect_status "tree --callers of an unknown function exits 2" 2
expect_in "$WORK/err" "--callers nosuch: no function of that name" "tree --callers nosuch: says so"
run contexts --tid 99 "$CCT"
expect_status "--tid of an unknown thread exits 2" 2
expect_in "$WORK/err" "--tid 99: no thread of that id in $CCT (threads with samples: 4242" \
    "--tid 99: named, with the threads the profile has"
run functions --tid abc "$CCT"
expect_status "--tid abc exits 2" 2
run export --format folded --focus walk "$GOOD"
expect_status "--focus on a profile without functions exits 1" 1
expect_in "$WORK/err" "has no functions to filter by" "--focus without functions: says why"
run export --format csv --tid 4242 "$TRACED"
expect_status "--tid with a trace format exits 2" 2
expect_in "$WORK/err" "apply to pprof and folded" "--tid with a trace format: says where it applies"
run threads --focus walk "$THREADS"
expect_status "threads --focus (a table without filters) exits 2" 2

finish
