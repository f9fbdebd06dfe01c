#!/bin/sh
# test_numbers.sh -- every number shimview prints is right to the precision it has.
#
#     sh test_numbers.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR
#
# From the fixture, writes profiles whose numbers used to print wrong (docs/statistics.md,
# "Precision of printed numbers" and "Small samples") and reads what shimview prints:
#  - tiny.json: every rate a billion times smaller (items per 10^12 cycles), a tag "rare"
#    of 3 samples (a share below 0.01%) with 3 kept periods, a tag "n41" with 41: no
#    figure of report, compare, merge, plot or functions may read 0.000000 or 0.00%, the
#    rates are in scientific notation to their intervals' precision, and the intervals of
#    few periods use Student's t (4.303 for 2 degrees of freedom, 2.021 for 40, where a
#    table used to jump to 1.96 after 30), a share's Wilson's interval stays above 0;
#  - slow.json: the rate marked slow: the legends say n counts spans;
#  - the fixture's period quantiles print to the precision of their buckets, 2 cycles
#    wide (117, not 117.0), one in a bucket 256 wide to its hundreds (10100, not 10111),
#    a quantile the profile marks exact prints exactly, in ns to a cycle's precision, and
#    the min and max as whole cycles.
# WORK_DIR is created if needed. Prints "N passed, N failed"; non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_numbers.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
    exit 2
fi
GOOD="$FIXTURES/profile-v1.json"
HERE=$(dirname "$0")
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"

# expect_row FILE NAME REGEX WHAT: the line of FILE that starts with NAME matches REGEX.
expect_row() {
    if grep -E "^$2 " "$1" | grep -qE -- "$3"; then pass "$4"; else fail "$4 ($2: $(grep -E "^$2 " "$1"))"; fi
}

python3 - "$GOOD" "$WORK" <<'EOF' || fail "generating the profiles"
import copy, json, os, sys
good = json.load(open(sys.argv[1]))
out = sys.argv[2]
def write(name, p):
    with open(os.path.join(out, name), "w") as f:
        json.dump(p, f)
def shrink(r, f):
    """rate r with every count f times smaller"""
    if "sum_a" not in r:
        return
    for k, e in (("sum_a", 1), ("sum_ab", 1), ("sum", 1), ("rate", 1), ("mean", 1), ("min", 1),
                 ("max", 1), ("sum_aa", 2), ("sumsq", 2)):
        r[k] *= f ** e
    h = r["hist"]
    h["counts"] = [[0, sum(c for _, c in h["counts"]) + h["overflow"]]]
    h["overflow"] = 0
def few(p, name, value, n):
    """a tag of n samples, all kept, rates 1, 2, ... (times the shrunk scale)"""
    t = copy.deepcopy(p["tags"][-1])
    t.update(values=[value], names=[name], samples=n, kept=n, cycles=1000 * n)
    r = t["rates"][0]
    a = [1e-9 * (1 + i % 3) * 1000 for i in range(n)]
    b = [1000.0] * n
    rs = [x / y for x, y in zip(a, b)]
    r.update(n=n, sum_a=sum(a), sum_b=sum(b), sum_aa=sum(x * x for x in a),
             sum_bb=sum(y * y for y in b), sum_ab=sum(x * y for x, y in zip(a, b)),
             sum=sum(rs), sumsq=sum(x * x for x in rs), mean=sum(rs) / n, min=min(rs), max=max(rs))
    r["rate"] = r["sum_a"] / r["sum_b"]
    r["hist"]["counts"], r["hist"]["overflow"] = [[0, n]], 0
    p["tags"].append(t)
    for k in ("total", "rated", "kept"):
        p["samples"][k] += n
tiny = copy.deepcopy(good)
for t in tiny["tags"] + [tiny["other"]]:
    shrink(t["rates"][0], 1e-9)
few(tiny, "rare", 5, 3)
few(tiny, "n41", 6, 41)
attributed = tiny["samples"]["total"] - tiny["samples"]["interrupted"]
for t in tiny["tags"]:
    t["share"] = t["samples"] / attributed
tiny["samples"]["distinct_tags"] = len(tiny["tags"])
write("tiny.json", tiny)
more = copy.deepcopy(tiny)  # eval's rate 1.5 times A's
for t in more["tags"]:
    if t["names"][0] == "eval":
        for k, e in (("sum_a", 1), ("sum_ab", 1), ("rate", 1), ("sum_aa", 2)):
            t["rates"][0][k] *= 1.5 ** e
write("more.json", more)
slow = copy.deepcopy(good)
slow["rates"][0]["slow"] = True
write("slow.json", slow)
exact = copy.deepcopy(good)
exact["period"]["p10"] = 103.0
exact["period"]["exact"] = ["p10"]
write("exact.json", exact)
wide = copy.deepcopy(good)
wide["period"]["buckets"] = [b for b in wide["period"]["buckets"] if b[1] <= 9984]
wide["period"]["buckets"].append([9984.0, 10240.0, 1])
wide["period"]["buckets"].sort()
wide["period"]["median"] = 10111.3
write("wide.json", wide)
# a tag whose counter never moved: "none", 50 kept periods without an event
none = copy.deepcopy(good)
few(none, "none", 7, 50)
r = none["tags"][-1]["rates"][0]
for k in ("sum_a", "sum_aa", "sum_ab", "sum", "sumsq", "mean", "min", "max", "rate"):
    r[k] = 0.0
write("none.json", none)
# the same with one more attributed sample: every share a hair smaller, a difference
# that rounds to zero at its interval's precision
hair = copy.deepcopy(none)
for k in ("total", "rated", "discarded"):
    hair["samples"][k] += 1
write("hair.json", hair)
EOF

# ---- a rate without events: 0, its interval one-sided (docs/statistics.md) ----
run report "$WORK/none.json"
expect_status "report of a tag without events" 0
expect_row "$WORK/out" none ' 0 +up to [0-9.e+-]+[~!]? ' "a rate without events prints as 0, up to a bound"
run report --csv "$WORK/none.json"
if python3 - "$WORK/out" "$HERE" <<'EOF'; then
import csv, sys
sys.path.insert(0, sys.argv[2])
import stats_ref
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r["name"] == "none")
want = stats_ref.zero_rate_hi(50 * 1000.0, scale=1000.0)  # items per 1000 cycles
got = float(row["rate_ci95_items"])
print("rate without events: 0 up to %g (%s), rule of three %g" % (got, row["rate_basis_items"], want))
sys.exit(0 if float(row["rate_items"]) == 0 and abs(got - want) <= 1e-6 * want else 1)
EOF
    pass "the CSV gives a rate without events the rule of three's bound"
else
    fail "the CSV's bound of a rate without events"
fi
another_run "$WORK/none.json" "$WORK/none2.json"
run merge "$WORK/none.json" "$WORK/none2.json"
expect_row "$WORK/out" none ' 0 +up to [0-9.e+-]+ *$' "merge prints a rate no run saw an event of as 0, up to a bound"
run merge --csv "$WORK/none.json" "$WORK/none2.json"
if python3 - "$WORK/out" "$HERE" <<'EOF'; then
import csv, sys
sys.path.insert(0, sys.argv[2])
import stats_ref
row = next(r for r in csv.DictReader(open(sys.argv[1])) if r["name"] == "none")
want = stats_ref.zero_rate_hi(2 * 50 * 1000.0, scale=1000.0)  # both runs' cycles
got = float(row["rate_items_ci95"])
print("merged rate without events: 0 up to %g, rule of three %g" % (got, want))
sys.exit(0 if float(row["rate_items_mean"]) == 0 and abs(got - want) <= 1e-6 * want else 1)
EOF
    pass "merge's CSV gives a rate no run saw an event of the rule of three's bound"
else
    fail "merge's bound of a rate without events"
fi
run compare "$WORK/none.json" "$WORK/hair.json"
expect_status "compare of a hair's difference" 0
if grep -qE -- ' [+-]0\.0*( |$)' "$WORK/out"; then
    fail "a difference that rounds to zero prints with a sign ($(grep -E -- ' [+-]0\.0*( |$)' "$WORK/out" | head -1))"
else
    pass "a difference that rounds to zero prints without a sign"
fi
if grep -qE '\+[0-9.]+e[+-][0-9]+/-[0-9.]+([ ~!]|$)|\+[0-9.]+/-[0-9.]+e' "$WORK/out"; then
    fail "an asymmetric interval mixes notations ($(grep -E '\+[0-9.e+-]+/-' "$WORK/out" | head -1))"
else
    pass "an asymmetric interval's two halves share one notation"
fi

# ---- tiny rates and shares: never 0.000000 or 0.00% ----
run report "$WORK/tiny.json"
expect_status "report of tiny rates" 0
cp "$WORK/out" "$WORK/tiny.txt"
expect_not_in "$WORK/tiny.txt" "0.000000" "report prints no rate as 0.000000"
expect_not_in "$WORK/tiny.txt" " 0.00%" "report prints no nonzero share as 0.00%"
expect_row "$WORK/tiny.txt" rare '<0\.01%' "a share of 3 samples prints as <0.01%"
expect_row "$WORK/tiny.txt" eval '8\.49[0-9]*e-10 +± [0-9.]+e-10' \
    "eval's tiny rate prints in scientific notation with its interval in the same exponent"
run compare "$WORK/tiny.json" "$WORK/more.json"
expect_status "compare of tiny rates" 0
cp "$WORK/out" "$WORK/cmp.txt"
expect_not_in "$WORK/cmp.txt" "0.000000" "compare prints no difference as 0.000000"
expect_row "$WORK/cmp.txt" eval '\+4\.2[0-9]*e-10 +± [0-9.]+e-10.*\*' \
    "compare prints eval's tiny rate difference in scientific notation, marked"
run merge "$WORK/tiny.json" "$WORK/more.json"
expect_status "merge of tiny rates" 0
expect_not_in "$WORK/out" "0.000000" "merge prints no rate as 0.000000"
expect_row "$WORK/out" eval 'e-(09|10) +± [0-9.]+e-(09|10)' "merge prints tiny rates in scientific notation"
expect_row "$WORK/out" rare ' 2e-09 +± 0' "merge prints a rate the runs agree on with an interval of 0"
run merge "$GOOD" "$WORK/tiny.json"
expect_row "$WORK/out" n41 ' 0\.01% +\+0\.067, down to 0 ' \
    "merge: a share whose interval would go below 0 prints +up, down to 0"
run plot -o "$WORK" "$WORK/tiny.json"
expect_status "plot of tiny rates" 0
expect_not_in "$WORK/tiny-hist.svg" "0.000000" "the figures' legends print no rate as 0.000000"
expect_in "$WORK/tiny-hist.svg" "e-10" "the figures' legends print tiny rates in scientific notation"
python3 "$HERE/cct_fixture.py" "$WORK/tiny.json" "$WORK/cct.json" >/dev/null 2>&1 &&
    python3 - "$WORK/cct.json" <<'EOF' || fail "shrinking the calling-context fixture"
import json, sys
p = json.load(open(sys.argv[1]))
for t in p["tags"] + [p["other"]]:
    r = t["rates"][0]
    for k, e in (("sum_a", 1), ("sum_ab", 1), ("sum", 1), ("rate", 1), ("mean", 1), ("min", 1),
                 ("max", 1), ("sum_aa", 2), ("sumsq", 2)):
        if k in r and r[k] is not None:
            r[k] *= 1e-9 ** e
json.dump(p, open(sys.argv[1], "w"))
EOF
run functions "$WORK/cct.json"
expect_status "functions of tiny rates" 0
expect_not_in "$WORK/out" "0.000000" "functions prints no rate as 0.000000"
expect_in "$WORK/out" "e-" "functions prints tiny rates in scientific notation"
run tree --rate items "$WORK/cct.json"
expect_status "tree of tiny rates" 0
expect_not_in "$WORK/out" "0.000000" "tree prints no rate as 0.000000"
# a function of 800 samples among 158 million (every other tuple 20,000 times larger), and
# main's own 200 samples among as many (main still holds nearly all of them inclusive)
python3 - "$WORK/cct.json" "$WORK" <<'EOF' || fail "making the tiny-share profiles"
import json, os, sys
for out, keep in (("tinyshare.json", "libm"), ("tinyexcl.json", "main")):
    p = json.load(open(sys.argv[1]))
    m = [t["slot"] for t in p["signals"]["tags"]].index(8)
    kept = next(f["address"] for f in p["functions"]
                if (f["module"] and keep in f["module"]) or f["name"] == keep)
    F, add = 20000, 0
    for t in p["tags"]:
        if t["values"][m] % 2**64 == kept % 2**64:
            continue
        add += t["samples"] * (F - 1)
        for k in ("samples", "cycles", "kept"):
            t[k] *= F
        for r in t["rates"]:
            for k in ("n", "periods", "sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab", "sum",
                      "sumsq"):
                if r.get(k) is not None:
                    r[k] *= F
    for k in ("total", "rated", "kept"):
        p["samples"][k] += add
    json.dump(p, open(os.path.join(sys.argv[2], out), "w"))
EOF
LIBM=libm.so.6+0x2a10
run functions "$WORK/tinyshare.json"
expect_row "$WORK/out" 'libm\.so\.6\+0x2a10' '<0\.01% +<0\.01% +800 +<0\.01%' "functions: a share of 800 in 158 million prints as <0.01%"
run tree --callers "$LIBM" --min-share 0 "$WORK/tinyshare.json"
expect_in "$WORK/out" "800 samples reached it, <0.01%; 800 of them in its own code, <0.01%" \
    "tree --callers: its heading's shares print as <0.01%"
run functions --focus "$LIBM" "$WORK/tinyshare.json"
expect_in "$WORK/out" "kept 800 of 158,000,810 attributed samples (<0.01%)" "a filter's line prints <0.01%"
run top "$WORK/tinyshare.json"
if grep -F "$LIBM" "$WORK/out" | grep -qE '<0\.01% +<0\.01%'; then
    pass "top: a share of 800 prints as <0.01%"
else
    fail "top: a share of 800: $(grep -F "$LIBM" "$WORK/out")"
fi
run flame -o "$WORK/tinyexcl.svg" "$WORK/tinyexcl.json"
expect_in "$WORK/tinyexcl.svg" "exclusive: 200 samples, &lt;0.01%" \
    "flame: the tooltip of main's 200 samples of its own says <0.01%"
if grep -qE '[1-9][0-9,]* samples, 0\.00%' "$WORK/tinyexcl.svg"; then
    fail "flame: a nonzero count's share prints as 0.00% ($(grep -oE '[1-9][0-9,]* samples, 0\.00%' "$WORK/tinyexcl.svg" | head -1))"
else
    pass "flame: no nonzero count's share prints as 0.00%"
fi

# ---- small samples: Student's t by degrees of freedom, Wilson for shares ----
run report --csv "$WORK/tiny.json"
cp "$WORK/out" "$WORK/tiny.csv"
python3 - "$WORK" "$HERE" >"$WORK/small.out" <<'EOF' || echo "FAIL: the small-sample checks did not run" >>"$WORK/small.out"
import csv, json, os, sys
sys.path.insert(0, sys.argv[2])
import stats_ref
work = sys.argv[1]
p = json.load(open(os.path.join(work, "tiny.json")))
rows = {r["name"]: r for r in csv.DictReader(open(os.path.join(work, "tiny.csv"), newline=""))}
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
for name, df, t in (("rare", 2, 4.303), ("n41", 40, 2.021)):
    r = next(x for x in p["tags"] if x["names"][0] == name)["rates"][0]
    se = stats_ref.ratio_se(r["n"], r["sum_a"], r["sum_b"], r["sum_aa"], r["sum_bb"], r["sum_ab"])
    got = float(rows[name]["rate_ci95_items"])
    check(abs(got - t * se) <= 2e-3 * t * se,
          "%s: %d kept periods: the rate's interval is t(%d) = %.3f times its se (%g, %g)"
          % (name, r["n"], df, t, got, t * se))
n = p["samples"]["total"] - p["samples"]["interrupted"]
lo, hi = stats_ref.wilson95(3, n)
check(float(rows["rare"]["share_lo95"]) > 0 and abs(float(rows["rare"]["share_lo95"]) / lo - 1) < 1e-5
      and abs(float(rows["rare"]["share_hi95"]) / hi - 1) < 1e-5,
      "rare: 3 samples: Wilson's interval of the share, above 0")
EOF
tally "$WORK/small.out"

# ---- slow rates: n counts spans ----
run report "$WORK/slow.json"
expect_in "$WORK/out" "spans for the slow rates" "report's legend says n counts spans for a slow rate"
expect_not_in "$WORK/out" "n: kept periods;" "report's legend does not call a slow rate's n kept periods"
expect_in "$WORK/out" "items) over their spans between reads of the slow counters" \
    "report's legend says a slow rate is over spans"
run report --sparklines "$WORK/slow.json"
expect_in "$WORK/out" "histogram: spans between reads of its slow counter" \
    "report's sparkline legend counts spans for a slow rate"
run compare "$WORK/slow.json" "$WORK/slow.json"
expect_in "$WORK/out" "kept periods, and for the slow rates (items) over their spans" \
    "compare's legend says a slow rate is over spans"
another_run "$WORK/slow.json" "$WORK/slow2.json"
run merge "$WORK/slow.json" "$WORK/slow2.json"
expect_in "$WORK/out" "and for the slow rates (items) over their spans" "merge's legend says so"
run threads "$WORK/slow.json"
expect_in "$WORK/out" "and for the slow rates (items) over their spans" "threads' legend says so"
python3 - "$WORK/cct.json" "$WORK/slowcct.json" <<'EOF' || fail "making the slow calling-context profile"
import json, sys
p = json.load(open(sys.argv[1]))
p["rates"][0]["slow"] = True
json.dump(p, open(sys.argv[2], "w"))
EOF
run functions "$WORK/slowcct.json"
expect_in "$WORK/out" "and for the slow rates (items) over their spans" "functions' legend says so"
run plot -o "$WORK" "$WORK/slow.json"
expect_in "$WORK/slow-hist.svg" "spans (a slow rate)" "the histogram's legend counts spans for a slow rate"

# ---- quantiles: to the precision of their buckets, exact values exactly ----
run report "$GOOD"
line=$(grep -E '^ +TSC cycles' "$WORK/out" | tr -s ' ')
case $line in
" TSC cycles 117 103 154 "*) pass "period quantiles print to the precision of their buckets: $line" ;;
*) fail "period quantiles: '$line', expected ' TSC cycles 117 103 154 ...'" ;;
esac
run report "$WORK/exact.json"
if grep -E '^ +TSC cycles' "$WORK/out" | tr -s ' ' | grep -q '^ TSC cycles 117 103 '; then
    pass "an exact quantile prints exactly"
else
    fail "exact p10: $(grep -E '^ +TSC cycles' "$WORK/out")"
fi
line=$(grep -E '^ +ns ' "$WORK/out" | tr -s ' ')
case $line in
" ns 47.8 42.0 "*) pass "an exact quantile in ns prints to a cycle's precision: $line" ;;
*) fail "exact p10 in ns: '$line', expected ' ns 47.8 42.0 ...' (103 cycles at 2.45 GHz)" ;;
esac
run report "$WORK/wide.json"
line=$(grep -E '^ +TSC cycles' "$WORK/out" | tr -s ' ')
case $line in
" TSC cycles 10100 103 154 "*" 98 "*) pass "a quantile in a bucket 256 cycles wide prints its hundreds, min and max whole: $line" ;;
*) fail "wide bucket: '$line', expected ' TSC cycles 10100 103 154 ... 98 ...'" ;;
esac

finish
