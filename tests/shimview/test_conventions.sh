#!/bin/sh
# test_conventions.sh -- what every shimview command does alike: where -o puts its output
# (a file, or a directory that takes the file under its default name, made when it does
# not exist), --json beside --csv, --sort on every table, the --tid, --focus and
# --ignore filters, and the callers view.
#
#     sh test_conventions.sh SHIMVIEW FIXTURES_DIR WORK_DIR
#
# Every number a filtered or sorted table shows is recomputed from the profile's JSON by
# check_conventions.py (with check_cct.py's reading of a calling context), so a filter
# that kept the wrong samples, or a JSON table that differs from its CSV, fails here.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_conventions.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
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

finish
