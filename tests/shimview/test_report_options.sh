#!/bin/sh
# test_report_options.sh -- `shimview report`'s sparklines and its second CSV table.
#
#     sh test_report_options.sh PATH/TO/shimview PATH/TO/tests/fixtures
#
# Sparklines: a profile generated here from the fixture has one tag whose histogram is
# known (samples in three buckets, at the start, the middle and the end of the range), so
# its sparkline is known to the character, in UTF-8 blocks and in the ASCII stand-in that
# LC_ALL=C gets; the column is there with --sparklines, on a terminal (script(1) gives the
# report a pseudo-terminal), and not with --no-sparklines, in a pipe, or in the CSV.
# --csv=period is read back with python3's csv module and held against the profile.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ]; then
    echo "usage: sh test_report_options.sh SHIMVIEW FIXTURES_DIR" >&2
    exit 2
fi
GOOD="$FIXTURES/profile-v1.json"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/shimview-options.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
SCRATCH=$TMP
. "$(dirname "$0")/lib.sh"

# The fixture with tag "shape": 500 buckets over [0, 4), 8 samples in bucket 0, 4 in
# bucket 250 and 1 in bucket 499. The range every row shares is then [0, 4) in 16 cells
# of 0.25, so the three buckets fall in cells 0, 8 and 15 at heights 8/8, 4/8 and 1/8.
python3 - "$GOOD" "$TMP" <<'EOF' || fail "generating the profile"
import copy, json, os, sys
p = json.load(open(sys.argv[1]))
t = copy.deepcopy(p["tags"][2])
t["values"] = [9]
t["names"] = ["shape"]
t["rates"][0]["hist"].update(counts=[[0, 8], [250, 4], [499, 1]], underflow=0, overflow=0, nan=0)
t["rates"][0]["n"] = 13
t["kept"] = 13
t["samples"] = 13
p["tags"].append(t)
p["samples"]["distinct_tags"] += 1
json.dump(p, open(os.path.join(sys.argv[2], "shape.json"), "w"))
EOF
UTF8_SHAPE="█       ▄      ▁"
ASCII_SHAPE="#       :      ."

# ---- sparklines ----
LC_ALL=C.UTF-8 "$SHIMVIEW" report --sparklines "$TMP/shape.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_status "report --sparklines exits 0" 0
expect_in "$TMP/out" "items histogram" "--sparklines adds the histogram column"
if grep -E '^shape ' "$TMP/out" | grep -qF "$UTF8_SHAPE"; then
    pass "the sparkline of a known histogram, in blocks: '$UTF8_SHAPE'"
else
    fail "shape's sparkline: $(grep -E '^shape ' "$TMP/out")"
fi
if grep -E '^(eval|parse|emit) ' "$TMP/out" | grep -q '[▁▂▃▄▅▆▇█]'; then
    pass "the fixture's tags have block sparklines"
else
    fail "no block characters in the fixture's rows"
fi
expect_in "$TMP/out" "16 cells over [0, 4)" "the legend gives the sparklines' range"

LC_ALL=C "$SHIMVIEW" report --sparklines "$TMP/shape.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_status "report --sparklines under LC_ALL=C exits 0" 0
if grep -E '^shape ' "$TMP/out" | grep -qF "$ASCII_SHAPE"; then
    pass "LC_ALL=C gives the ASCII sparkline '$ASCII_SHAPE'"
else
    fail "shape's ASCII sparkline: $(grep -E '^shape ' "$TMP/out")"
fi
# the column starts where its heading does (the table aligns code points)
if python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
col = next(l.index("items histogram") for l in lines if "items histogram" in l)
rows = [l[col:] for l in lines if l.split(" ")[0] in ("shape", "eval", "parse", "emit")]
sys.exit(0 if len(rows) == 4 and all(r.strip() and r.isascii() for r in rows) else 1)
' "$TMP/out"; then
    pass "LC_ALL=C sparklines are ASCII"
else
    fail "LC_ALL=C sparklines are not all ASCII: $(grep -E '^(eval|parse|emit) ' "$TMP/out")"
fi

run report "$TMP/shape.json"
expect_not_in "$TMP/out" "histogram" "no sparklines when standard output is not a terminal"
LC_ALL=C.UTF-8 "$SHIMVIEW" report --sparklines --no-sparklines "$TMP/shape.json" >"$TMP/out" 2>&1
expect_not_in "$TMP/out" "histogram" "--no-sparklines (the last one given wins)"
run report --csv --sparklines "$TMP/shape.json"
if head -n 1 "$TMP/out" | grep -q histogram || grep -q '█' "$TMP/out"; then
    fail "--csv has no sparkline column"
else
    pass "--csv has no sparkline column"
fi

if ! command -v script >/dev/null 2>&1; then
    echo "skipped: no script(1) to give the report a terminal"
elif ! script -qec true /dev/null </dev/null >/dev/null 2>&1; then
    echo "skipped: script(1) cannot open a pseudo-terminal here (no /dev/pts?) to give the report a terminal"
else
    LC_ALL=C.UTF-8 script -qec "\"$SHIMVIEW\" report \"$TMP/shape.json\"" /dev/null </dev/null >"$TMP/tty" 2>&1
    expect_in "$TMP/tty" "$UTF8_SHAPE" "a terminal gets sparklines by default"
    LC_ALL=C.UTF-8 script -qec "\"$SHIMVIEW\" report --no-sparklines \"$TMP/shape.json\"" /dev/null \
        </dev/null >"$TMP/tty" 2>&1
    expect_not_in "$TMP/tty" "histogram" "--no-sparklines on a terminal"
fi

# ---- --csv=period ----
run report --csv=period "$GOOD"
expect_status "report --csv=period exits 0" 0
python3 - "$TMP/out" "$GOOD" >"$TMP/csv-results" <<'EOF' || echo "FAIL: the CSV checks did not run" >>"$TMP/csv-results"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
p = json.load(open(sys.argv[2]))
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
check([r["unit"] for r in rows] == ["TSC cycles", "ns"], "--csv=period has a row per unit")
check(list(rows[0].keys()) == ["unit", "median", "p10", "p90", "mean", "min", "max"],
      "--csv=period columns")
per = p["period"]
check(all(abs(float(rows[0][k]) - per[k]) < 1e-6 for k in ("median", "p10", "p90", "mean", "min", "max")),
      "--csv=period cycles are the profile's, in full")
ns = 1e9 / p["machine"]["tsc"]["hz"]
check(all(abs(float(rows[1][k]) - per[k] * ns) < 1e-6 * per[k] * ns for k in ("median", "mean", "max")),
      "--csv=period converts to ns with the TSC frequency")
EOF
tally "$TMP/csv-results"
run report --csv=tags "$GOOD"
cp "$TMP/out" "$TMP/tags.csv"
run report --csv "$GOOD"
if cmp -s "$TMP/out" "$TMP/tags.csv"; then pass "--csv=tags is --csv"; else fail "--csv=tags differs from --csv"; fi
run report --csv=nosuch "$GOOD"
expect_status "--csv=nosuch exits 2" 2
expect_in "$TMP/err" "tags, period" "--csv=nosuch names the tables there are"

finish
