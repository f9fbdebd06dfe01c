#!/bin/sh
# test_shimview.sh -- end-to-end tests of the shimview command line.
#
#     sh test_shimview.sh PATH/TO/shimview PATH/TO/tests/fixtures
#
# Runs the binary on the hand-written fixture profile, on variants of it generated here
# (tags out of order, an `other` row, many tags, two tag slots and two threads, a name
# that needs CSV quoting) and on every file in fixtures/bad/, and checks what a user and a
# script would rely on: row order, the CSV columns, shares that add up, one clear message
# and a plain failure status (never a signal) for a bad file, usage for every command.
# Needs python3 (to generate the variants and to read the CSV back with its csv module).
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ]; then
    echo "usage: sh test_shimview.sh SHIMVIEW FIXTURES_DIR" >&2
    exit 2
fi
GOOD="$FIXTURES/profile-v1.json"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/shimview-test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
SCRATCH=$TMP
. "$(dirname "$0")/lib.sh"

# ---- variants of the good fixture, written by python3 ----
python3 - "$GOOD" "$TMP" <<'EOF' || fail "generating variants"
import copy, json, os, sys
good = json.load(open(sys.argv[1]))
out = sys.argv[2]
def write(name, p):
    with open(os.path.join(out, name), "w") as f:
        json.dump(p, f)
# the expected report order, from the fixture itself
with open(os.path.join(out, "order.txt"), "w") as f:
    for t in sorted(good["tags"], key=lambda t: -t["samples"]):
        f.write(t["names"][0] + "\n")
# tags in reverse order: the reader must sort, not trust the file
p = copy.deepcopy(good); p["tags"].reverse(); write("shuffled.json", p)
# an `other` entry with samples
p = copy.deepcopy(good)
p["other"].update(samples=1000, share=0.0025, cycles=130000)
write("with-other.json", p)
# 30 tags, to exercise --top and --all
p = copy.deepcopy(good); base = good["tags"][0]; p["tags"] = []
for i in range(30):
    t = copy.deepcopy(base)
    t.update(values=[i + 1], names=["fn%02d" % (i + 1)], samples=3000 - 10 * i, kept=2000)
    t["rates"][0]["n"] = 2000
    p["tags"].append(t)
p["samples"]["distinct_tags"] = 30
write("many-tags.json", p)
# two tag slots (the second unnamed), two threads, a name that needs CSV quoting
p = copy.deepcopy(good)
p["signals"]["tags"].append({"slot": 3, "name": "slot3"})
p["config"]["tag_slots"] = [0, 3]
for t in p["tags"]:
    t["values"].append(7); t["names"].append(None)
p["tags"][0]["names"][0] = 'ev,al "x"'
t = copy.deepcopy(p["tags"][2]); t["thread"] = 4243; t["names"] = [None, None]
p["tags"].append(t)
# value 0, unnamed: what a thread's slot holds before it signals
t = copy.deepcopy(p["tags"][1]); t["thread"] = 4244; t["values"] = [0, 7]; t["names"] = [None, None]
p["tags"].append(t)
write("multi-slot.json", p)
EOF

# ---- report: the text table ----
run report "$GOOD"
expect_status "report exits 0 on the fixture" 0
grep -E '^(parse|eval|emit) ' "$TMP/out" | cut -d' ' -f1 >"$TMP/got-order.txt"
if cmp -s "$TMP/got-order.txt" "$TMP/order.txt" && [ "$(wc -l <"$TMP/order.txt")" -eq 3 ]; then
    pass "report lists parse/eval/emit in descending sample order"
else
    fail "report order: $(tr '\n' ' ' <"$TMP/got-order.txt") expected $(tr '\n' ' ' <"$TMP/order.txt")"
fi
for text in "AMD EPYC 7B13" "2450000000 Hz" "cpuid-hypervisor" "observer CPU 1" "observed CPU 0" \
    "shared-cache" "step 1 cycle" "items rate" "mean" "± 95% CI" "rated 386,482" "kept 359,825 (93.10%)" \
    "discarded 26,657" "thread changes 2" "tolerance" "median" "samples/s" "observer CPU 0.020 s"; do
    expect_in "$TMP/out" "$text" "report shows '$text'"
done
if grep -q '^other ' "$TMP/out"; then fail "report hides an empty other row"; else pass "report hides an empty other row"; fi

run report "$TMP/shuffled.json"
grep -E '^(parse|eval|emit) ' "$TMP/out" | cut -d' ' -f1 >"$TMP/got-order.txt"
if cmp -s "$TMP/got-order.txt" "$TMP/order.txt"; then pass "report sorts tags the file has out of order"; else fail "report does not sort tags"; fi

run report "$TMP/with-other.json"
if grep -qE '^other +1,000 ' "$TMP/out"; then pass "report shows a non-empty other row"; else fail "report misses the other row"; fi

# ---- report: --top and --all ----
run report "$TMP/many-tags.json"
rows=$(grep -cE '^fn[0-9]{2} ' "$TMP/out")
[ "$rows" -eq 20 ] && pass "report shows 20 rows by default" || fail "report shows $rows rows by default, expected 20"
expect_in "$TMP/out" "10 more rows hidden" "report says how many rows were hidden"
run report --all "$TMP/many-tags.json"
rows=$(grep -cE '^fn[0-9]{2} ' "$TMP/out")
[ "$rows" -eq 30 ] && pass "report --all shows every row" || fail "report --all shows $rows rows"
run report --top 5 "$TMP/many-tags.json"
rows=$(grep -cE '^fn[0-9]{2} ' "$TMP/out")
[ "$rows" -eq 5 ] && pass "report --top 5 shows 5 rows" || fail "report --top 5 shows $rows rows"
run report --csv "$TMP/many-tags.json"
rows=$(($(wc -l <"$TMP/out") - 1))
[ "$rows" -eq 30 ] && pass "report --csv prints every row" || fail "report --csv prints $rows rows"

# ---- report --csv ----
run report --csv "$GOOD"
expect_status "report --csv exits 0" 0
case $(head -n 1 "$TMP/out") in
thread,slot,value,name,samples,share*) pass "CSV header starts with thread,slot,value,name,samples,share" ;;
*) fail "CSV header: $(head -n 1 "$TMP/out")" ;;
esac
head -n 1 "$TMP/out" >"$TMP/header"
expect_in "$TMP/header" "mean_items,ci95_items,n_items,rate_items,rate_ci95_items" \
    "CSV header has mean_items and the other per-rate columns"
cp "$TMP/out" "$TMP/good.csv"
run report --csv "$TMP/with-other.json"
cp "$TMP/out" "$TMP/other.csv"
run report --csv "$TMP/multi-slot.json"
cp "$TMP/out" "$TMP/multi.csv"

# python3 reads the CSV back and prints one line per finding: "ok: ..." or "FAIL: ..."
python3 - "$TMP" "$GOOD" "$(dirname "$0")" >"$TMP/csv-results" <<'EOF' || echo "FAIL: the CSV checks did not run" >>"$TMP/csv-results"
import csv, json, os, sys
sys.path.insert(0, sys.argv[3])
import stats_ref
tmp = sys.argv[1]
good = json.load(open(sys.argv[2]))
def rows(name):
    with open(os.path.join(tmp, name), newline="") as f:
        return list(csv.DictReader(f))
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
r = rows("good.csv")
expect = len(good["tags"]) + (1 if good["other"]["samples"] > 0 else 0)
check(len(r) == expect, "CSV has one row per tag (+ other when non-empty): %d rows" % len(r))
check([x["name"] for x in r] == [t["names"][0] for t in sorted(good["tags"], key=lambda t: -t["samples"])],
      "CSV rows are sorted by samples")
check(abs(sum(float(x["share"]) for x in r) - 1) < 1e-3, "CSV shares sum to 1")
check(abs(sum(float(x["time_share"]) for x in r) - 1) < 1e-3, "CSV time shares sum to 1")
check(all(x["slot"] == "0" and x["thread"] == "4242" for x in r), "CSV slot and thread columns")
check(all(float(x["ci95_items"]) > 0 and float(x["rate_ci95_items"]) > 0 and int(x["n_items"]) > 0
          for x in r), "CSV has intervals and n")
ev = next((x for x in r if x["name"] == "eval"), None)
gr = next(t for t in good["tags"] if t["names"][0] == "eval")["rates"][0]
check(ev is not None and abs(float(ev["mean_items"]) - gr["mean"]) < 1e-6, "CSV mean matches the profile")
check(ev is not None and abs(float(ev["rate_items"]) - gr["rate"]) < 1e-6, "CSV rate matches the profile")
# the intervals, recomputed here from the sums as docs/profile-format.md defines them
n = gr["n"]
s = ((gr["sumsq"] - gr["sum"] ** 2 / n) / (n - 1)) ** 0.5
R, bbar = gr["sum_a"] / gr["sum_b"], gr["sum_b"] / n
cov = lambda xy, x, y: (gr[xy] - gr[x] * gr[y] / n) / (n - 1)
se = ((cov("sum_aa", "sum_a", "sum_a") - 2 * R * cov("sum_ab", "sum_a", "sum_b")
       + R * R * cov("sum_bb", "sum_b", "sum_b")) / (n * bbar * bbar)) ** 0.5
close = lambda got, want: abs(float(got) - want) <= 1e-4 * want
t = stats_ref.t95(n - 1)
check(ev is not None and close(ev["ci95_items"], t * s / n ** 0.5), "CSV ci95 is t(n-1)*s/sqrt(n)")
check(ev is not None and close(ev["rate_ci95_items"], t * se),
      "CSV rate_ci95 is the delta-method interval (the fixture has no time batches)")
check(ev is not None and ev["rate_basis_items"] == "independent" and ev["share_basis"] == "independent",
      "CSV says the intervals assume independent samples (no time batches)")
lo, hi = stats_ref.wilson95(next(t for t in good["tags"] if t["names"][0] == "eval")["samples"],
                            good["samples"]["total"] - good["samples"]["interrupted"])
check(ev is not None and close(ev["share_lo95"], lo) and close(ev["share_hi95"], hi),
      "CSV share interval is Wilson's")
o = rows("other.csv")
check(len(o) == len(good["tags"]) + 1, "CSV adds the other row when it has samples")
check(o[-1]["name"] == "other" and o[-1]["slot"] == "" and o[-1]["value"] == "" and o[-1]["samples"] == "1000",
      "CSV other row has empty slot and value")
m = rows("multi.csv")
check(all(x["slot"] == "0;3" for x in m), "CSV joins several slots with ';'")
check(any(x["name"] == 'ev,al "x"/slot3=7' and x["value"] == "2;7" for x in m),
      "CSV quotes a name with a comma and a quote (RFC 4180)")
check(any(x["thread"] == "4243" and x["name"] == "phase=3/slot3=7" for x in m),
      "CSV names unnamed values slot=value and keeps threads apart")
check(any(x["thread"] == "4244" and x["name"] == "(before the first signal)/slot3=7" for x in m),
      "CSV names an unnamed value 0 '(before the first signal)'")
EOF
tally "$TMP/csv-results"

run report "$TMP/multi-slot.json"
expect_in "$TMP/out" "thread" "report shows a thread column when several threads appear"
expect_in "$TMP/out" "phase=3/slot3=7" "report names unnamed values slot=value"
expect_in "$TMP/out" "(before the first signal)/slot3=7" "report names an unnamed value 0 '(before the first signal)'"
expect_not_in "$TMP/out" "phase=0" "report: no 'phase=0'"

# ---- bad profiles: a message naming the file (and what is wrong), status 1, no signal ----
for f in "$FIXTURES"/bad/*.json; do
    name=$(basename "$f")
    run report "$f"
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && grep -qF "$name" "$TMP/err" && [ ! -s "$TMP/out" ]; then
        pass "bad/$name is refused: $(head -n 1 "$TMP/err")"
    else
        fail "bad/$name: exit $rc, stderr: $(head -c 300 "$TMP/err")"
    fi
done
while IFS='|' read -r name text; do
    run report "$FIXTURES/bad/$name"
    expect_in "$TMP/err" "$text" "bad/$name names the problem"
done <<'EOF'
truncated.json|truncated.json:
wrong-format.json|format: expected "shim-profile"
version-99.json|version: 99 is newer
tags-not-array.json|tags: expected an array
negative-samples.json|tags[1].samples: expected a non-negative integer
nan-string.json|tags[0].rates[0].mean: expected a number
missing-member.json|machine.tsc.hz: missing
values-mismatch.json|tags[2].values
counts-inconsistent.json|samples: kept
huge-integer.json|too big integer
deep-nesting.json|depth
not-an-object.json|top level
rate-missing.json|tags[0].rates[0].rate: missing
rate-null-with-n.json|but rate is null
EOF
run report "$TMP/does-not-exist.json"
expect_status "a missing file exits 1" 1
expect_in "$TMP/err" "does-not-exist.json" "a missing file is named"

# ---- the command line ----
run --help
expect_status "--help exits 0" 0
sed -n '/^Commands:/,/^$/p' "$TMP/out" | awk 'NF && $1 != "Commands:" { print $1 }' >"$TMP/commands"
[ -s "$TMP/commands" ] && pass "--help lists commands" || fail "--help lists no commands"
while read -r cmd; do
    run "$cmd" --help
    if [ "$rc" -eq 0 ] && head -n 1 "$TMP/out" | grep -q "^usage: shimview $cmd"; then
        pass "shimview $cmd --help"
    else
        fail "shimview $cmd --help (exit $rc)"
    fi
    run help "$cmd"
    if [ "$rc" -eq 0 ] && head -n 1 "$TMP/out" | grep -q "^usage: shimview $cmd"; then
        pass "shimview help $cmd"
    else
        fail "shimview help $cmd (exit $rc)"
    fi
done <"$TMP/commands"
run --version
expect_status "--version exits 0" 0
expect_in "$TMP/out" "shimview" "--version names the program"
run frobnicate
expect_status "an unknown command exits 2" 2
expect_in "$TMP/err" "unknown command 'frobnicate'" "an unknown command is named"
run report --frobnicate "$GOOD"
expect_status "an unknown option exits 2" 2
expect_in "$TMP/err" "--frobnicate" "an unknown option is named"
run report --top many "$GOOD"
expect_status "a bad --top value exits 2" 2
run report
expect_status "report without a file exits 2" 2
run
expect_status "no command exits 2" 2

# standard input, and a file too large to be a profile (sparse: no disk is used)
"$SHIMVIEW" report - <"$GOOD" >"$TMP/out" 2>"$TMP/err"
rc=$?
expect_status "report - reads standard input" 0
expect_in "$TMP/out" "<stdin>" "report - names standard input"
truncate -s 1073741825 "$TMP/big.json"
run report "$TMP/big.json"
expect_status "a file over 1 GiB exits 1" 1
expect_in "$TMP/err" "larger than 1024 MiB; not a shim profile" "a file over 1 GiB is refused"
rm -f "$TMP/big.json"

finish
