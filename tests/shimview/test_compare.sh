#!/bin/sh
# test_compare.sh -- end-to-end tests of `shimview compare` and `shimview merge`.
#
#     sh test_compare.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR
#
# Writes two profiles from the fixture whose differences are known (a.json: the fixture
# and a tag "init" only it has; b.json: "eval" with fewer samples and a 20% higher rate,
# "parse" with more, a tag "flush" only it has, and "emit" split over two threads, which
# must fold back into A's "emit"), a profile with an extra rate, and one whose rate has
# another unit; and three profiles with time batches (docs/statistics.md): e.json and
# f.json, whose shares and rates swing between batches and differ by less than that
# swing explains, and g.json, whose eval share is 20 points higher. Then reads the
# output back as a script would: the CSV with python3's csv module (every share,
# difference and interval recomputed here from the JSON with stats_ref.py: Wilson's
# intervals and MOVER's difference without batches, batch means with them; the marks
# where the differences are large, none for a profile compared with itself, none where
# only independent-sample intervals would see a difference, and a tag one profile lacks
# compared as 0 samples; with --runs 2, each side pooled over its runs with the interval
# across them), the figures with xml.etree (both file names in the legend),
# merge of three copies (the same estimates, intervals of width 0) and of two runs
# (pooled, Student's t), and the statuses and messages for missing files, files that
# are not profiles and bad command lines.
# WORK_DIR is created if needed; only the files this script writes there are touched.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_compare.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
    exit 2
fi
GOOD="$FIXTURES/profile-v1.json"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
FIGS="$WORK/figures"
rm -rf "$FIGS"
mkdir -p "$FIGS" || exit 1

SCRATCH=$WORK
. "$(dirname "$0")/lib.sh"

# ---- the profiles ----
python3 - "$GOOD" "$WORK" <<'EOF' || fail "generating the profiles"
import copy, json, os, sys
good = json.load(open(sys.argv[1]))
out = sys.argv[2]
def write(name, p):
    with open(os.path.join(out, name), "w") as f:
        json.dump(p, f)
def tag(p, name):
    return next(t for t in p["tags"] if t["names"][0] == name)
def scale_rate(r, f, fa=1.0):
    """r as if it covered a fraction f of its periods, its counts a times fa"""
    r["n"] = int(round(r["n"] * f))
    for k, e in (("sum_b", 0), ("sum_bb", 0), ("sum_a", 1), ("sum_ab", 1), ("sum", 1),
                 ("sum_aa", 2), ("sumsq", 2)):
        r[k] *= f * fa ** e
    r["rate"] = r["sum_a"] / r["sum_b"]
    r["mean"] = r["sum"] / r["n"]
    r["min"] *= fa
    r["max"] *= fa
    h, counts = r["hist"], {}
    h["overflow"] = int(round(h["overflow"] * f))
    for i, c in h["counts"]:
        j, c = int(round(i * fa)), int(round(c * f))
        if c and j >= h["buckets"]:
            h["overflow"] += c
        elif c:
            counts[j] = counts.get(j, 0) + c
    h["counts"] = [[j, c] for j, c in sorted(counts.items())]
def new_tag(p, value, name, samples, kept):
    t = copy.deepcopy(tag(p, "emit"))
    t.update(values=[value], names=[name], samples=samples, kept=kept, cycles=samples * 120)
    scale_rate(t["rates"][0], kept / t["rates"][0]["n"])
    p["tags"].append(t)
def finish(p):
    for t in p["tags"]:
        t["share"] = t["samples"] / p["samples"]["total"]
    p["tags"].sort(key=lambda t: -t["samples"])
    p["samples"]["distinct_tags"] = len(p["tags"])

a = copy.deepcopy(good)
tag(a, "parse")["samples"] -= 500
new_tag(a, 5, "init", 500, 400)
finish(a)
write("a.json", a)

b = copy.deepcopy(good)
ev = tag(b, "eval")
ev.update(samples=150000, kept=140000)
scale_rate(ev["rates"][0], 140000 / ev["rates"][0]["n"], 1.2)
tag(b, "parse").update(samples=199822, kept=185172)
new_tag(b, 4, "flush", 1000, 900)
em = tag(b, "emit")
em2 = copy.deepcopy(em)
em2["thread"] = 5000
em["samples"], em2["samples"] = 20000, em["samples"] - 20000
em["kept"], em2["kept"] = 19000, em["kept"] - 19000
em["cycles"], em2["cycles"] = em["cycles"] // 2, em["cycles"] - em["cycles"] // 2
r, r2 = em["rates"][0], em2["rates"][0]
f = 19000 / r["n"]
for k in ("sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab", "sum", "sumsq"):
    r[k], r2[k] = r[k] * f, r[k] * (1 - f)
r["n"], r2["n"] = 19000, r["n"] - 19000
for x in (r, r2):
    x["rate"], x["mean"] = x["sum_a"] / x["sum_b"], x["sum"] / x["n"]
halves = [(i, c // 2, c - c // 2) for i, c in r["hist"]["counts"]]
r["hist"]["counts"] = [[i, h] for i, h, _ in halves if h]
r2["hist"]["counts"] = [[i, h] for i, _, h in halves if h]
ov = r["hist"]["overflow"]
r["hist"]["overflow"], r2["hist"]["overflow"] = ov // 2, ov - ov // 2
b["tags"].append(em2)
finish(b)
write("b.json", b)

# c.json: the fixture with a second rate; d.json: its rate in another unit
c = copy.deepcopy(good)
extra = copy.deepcopy(c["rates"][0])
extra["name"] = "items2"
c["rates"].append(extra)
for t in c["tags"] + [c["other"]]:
    t["rates"].append(copy.deepcopy(t["rates"][0]))
write("c.json", c)
d = copy.deepcopy(good)
d["rates"][0].update(unit="per cycle", scale=1.0)
write("d.json", d)

# e, f, g: time batches. 20 batches of 20,000 samples; in each, eval takes its share plus
# a swing of +-6 points (alternating, so neighbours are not alike), parse the rest but
# 5,000, emit 5,000. Items per cycle swing with the share. f is e with the swing's sign
# flipped and eval 0.5 points higher; g has eval 20 points higher.
def batched(eval_share, sign, emit_per=5000):
    p = copy.deepcopy(good)
    nb, per = 20, 20000
    p["samples"].update(total=nb * per, interrupted=0, other=0, rated=nb * per, kept=nb * per,
                        discarded=0, thread_changes=0, straddled=0)
    p["batches"] = {"cycles": 1 << 26, "count": nb, "samples": [per] * nb}
    for t in p["tags"]:
        t["detail"] = {"since": 0, "batches": {"first": 0, "samples": [], "a": [[]], "b": [[]]}}
    ev, pa, em = (tag(p, n) for n in ("eval", "parse", "emit"))
    for j in range(nb):
        swing = 0.06 * sign * (1 if j % 2 else -1)
        k = {"eval": int(round(per * (eval_share + swing))), "emit": emit_per}
        k["parse"] = per - k["eval"] - k["emit"]
        for name, t in (("eval", ev), ("parse", pa), ("emit", em)):
            bt = t["detail"]["batches"]
            bt["samples"].append(k[name])
            cyc = k[name] * 1000.0
            bt["b"][0].append(cyc)
            bt["a"][0].append(cyc * 0.001 * (1 + 3 * swing))
    for t in p["tags"]:
        bt = t["detail"]["batches"]
        t["samples"] = sum(bt["samples"])
        t["kept"] = t["samples"]
        t["cycles"] = int(sum(bt["b"][0]))
        r = t["rates"][0]
        r.update(n=t["kept"], periods=t["kept"], sum_a=sum(bt["a"][0]), sum_b=sum(bt["b"][0]))
        r["sum_aa"] = sum(x * x for x in bt["a"][0]) / 1000
        r["sum_bb"] = sum(x * x for x in bt["b"][0]) / 1000
        r["sum_ab"] = sum(x * y for x, y in zip(bt["a"][0], bt["b"][0])) / 1000
        r["rate"] = r["sum_a"] / r["sum_b"]
    finish(p)
    return p
write("e.json", batched(0.45, 1))
write("f.json", batched(0.455, -1))
write("g.json", batched(0.65, 1))
# h: emit rare (2 samples a batch: 40 in all); k: emit's record given in batch 10, after
# every one of its samples (none in the batches the record covers)
write("h.json", batched(0.45, 1, emit_per=2))
k = batched(0.45, 1)
em = tag(k, "emit")
em["detail"] = {"since": em["samples"], "batches": {"first": 10, "samples": [0] * 20,
                                                    "a": [[0.0] * 20], "b": [[0.0] * 20]}}
write("k.json", k)
# m: emit's kept periods (its rate's denominator) all in batch 3
m = batched(0.45, 1)
bt = tag(m, "emit")["detail"]["batches"]
for j in range(len(bt["b"][0])):
    if j != 3:
        bt["a"][0][j] = bt["b"][0][j] = 0.0
write("m.json", m)
EOF
printf 'this is not a profile\n' >"$WORK/not-a-profile.json"
# what the python3 checks below share: each prints "ok: WHAT" or "FAIL: WHAT" (tally).
cat >"$WORK/checks.py" <<'EOF'
import csv, json, os, sys
def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
def rows(name):
    """the records of a CSV file in the work directory (sys.argv[1])"""
    with open(os.path.join(sys.argv[1], name), newline="") as f:
        return list(csv.DictReader(f))
def load(name):
    return json.load(open(os.path.join(sys.argv[1], name)))
EOF
A="$WORK/a.json"
B="$WORK/b.json"

# ---- compare: the text table ----
run compare "$A" "$B"
expect_status "compare A B" 0
expect_in "$WORK/out" "a.json" "the text names profile A"
expect_in "$WORK/out" "b.json" "the text names profile B"
expect_in "$WORK/out" "Δ share" "the text has the share difference column"
expect_in "$WORK/out" "items A" "the text has the rate of A"
expect_in "$WORK/out" "Tags are matched by name; the thread word is ignored" "the text states the matching rule"
expect_in "$WORK/out" "compare several runs a side (--runs N)" "one run a side: the text says a mark is about the two runs, and points to --runs"
if grep -E '^eval ' "$WORK/out" | grep -qF '*'; then pass "the text marks eval's large differences"; else fail "no mark on eval: $(grep -E '^eval ' "$WORK/out")"; fi
if grep -E '^emit ' "$WORK/out" | grep -qF '*'; then fail "emit is marked: $(grep -E '^emit ' "$WORK/out")"; else pass "emit (the same in both, over two threads in B) is not marked"; fi
grep -E '^(eval|parse|emit|init|flush) ' "$WORK/out" | cut -d' ' -f1 | tr '\n' ' ' >"$WORK/order"
if [ "$(cat "$WORK/order")" = "eval parse emit init flush " ]; then pass "rows sorted by A's share, B-only tags last"; else fail "row order: $(cat "$WORK/order")"; fi

run compare "$GOOD" "$GOOD"
expect_status "compare of a profile with itself" 0
if sed -n '/^----/,/^$/p' "$WORK/out" | grep -qF '*'; then fail "a profile compared with itself has marks"; else pass "a profile compared with itself has no mark"; fi

run compare --top 1 "$A" "$B"
rows=$(grep -cE '^(eval|parse|emit|init|flush) ' "$WORK/out")
[ "$rows" -eq 1 ] && pass "compare --top 1 shows one row" || fail "compare --top 1 shows $rows rows"
expect_in "$WORK/out" "4 more rows hidden" "compare --top says how many rows are hidden"

# ---- compare --csv, read back and recomputed ----
run compare --csv "$A" "$B"
expect_status "compare --csv" 0
cp "$WORK/out" "$WORK/ab.csv"
run compare --csv "$GOOD" "$GOOD"
cp "$WORK/out" "$WORK/same.csv"
run compare --csv "$A" "$WORK/c.json"
cp "$WORK/out" "$WORK/ac.csv"
cp "$WORK/err" "$WORK/ac.err"
run compare --csv "$WORK/c.json" "$WORK/d.json"
cp "$WORK/out" "$WORK/cd.csv"
cp "$WORK/err" "$WORK/cd.err"
run compare --csv --rate items "$A" "$WORK/c.json"
cp "$WORK/out" "$WORK/rate.csv"
run compare --csv "$WORK/e.json" "$WORK/f.json"
expect_status "compare of two profiles with time batches" 0
cp "$WORK/out" "$WORK/ef.csv"
run compare --csv "$WORK/e.json" "$WORK/g.json"
cp "$WORK/out" "$WORK/eg.csv"
run compare "$WORK/e.json" "$WORK/f.json"
expect_in "$WORK/out" "batch means over the run's 20 time batches" "the text says the intervals are batch means"
run report --csv "$WORK/h.json"
cp "$WORK/out" "$WORK/h.csv"
run report --csv "$WORK/k.json"
cp "$WORK/out" "$WORK/k.csv"
run report --csv "$WORK/m.json"
cp "$WORK/out" "$WORK/m.csv"
python3 - "$WORK" "$(dirname "$0")" >"$WORK/csv-results" <<'EOF' || echo "FAIL: the CSV checks did not run" >>"$WORK/csv-results"
import json, math, os, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from checks import check, rows, load
import stats_ref
work = sys.argv[1]
def folded(p, name):
    """samples and rate sums of a name, threads added up"""
    ts = [t for t in p["tags"] if t["names"][0] == name]
    if not ts:
        return None
    r = [t["rates"][0] for t in ts]
    s = {k: sum(x[k] for x in r) for k in ("n", "sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab")}
    s["samples"] = sum(t["samples"] for t in ts)
    s["rate"] = r[0]["rate"] if len(r) == 1 else s["sum_a"] / s["sum_b"]
    return s
def ratio_ci(s):
    n = s["n"]
    R, bbar = s["sum_a"] / s["sum_b"], s["sum_b"] / n
    cov = lambda xy, x, y: (s[xy] - s[x] * s[y] / n) / (n - 1)
    var = (cov("sum_aa", "sum_a", "sum_a") - 2 * R * cov("sum_ab", "sum_a", "sum_b")
           + R * R * cov("sum_bb", "sum_b", "sum_b")) / (n * bbar * bbar)
    return stats_ref.t95(n - 1) * math.sqrt(max(var, 0))
def wilson_diff(ka, na, kb, nb):
    (la, ha), (lb, hb) = stats_ref.wilson95(ka, na), stats_ref.wilson95(kb, nb)
    return stats_ref.mover(ka / na, la, ha, kb / nb, lb, hb)
near = lambda x, y, tol=1e-9: abs(x - y) <= tol * max(1.0, abs(y))

a, b = load("a.json"), load("b.json")
na = a["samples"]["total"] - a["samples"]["interrupted"]
nb = b["samples"]["total"] - b["samples"]["interrupted"]
r = rows("ab.csv")
by = {x["name"]: x for x in r}
check(list(r[0].keys())[:12] == ["name", "in", "samples_a", "samples_b", "share_a", "share_b",
                                 "share_diff", "share_diff_ci95", "share_sig", "share_diff_lo95",
                                 "share_diff_hi95", "share_basis"],
      "CSV columns start name,in,samples_a,samples_b,share_a,share_b,share_diff,share_diff_ci95,"
      "share_sig,share_diff_lo95,share_diff_hi95,share_basis")
check([k for k in r[0] if k.startswith("rate_")] ==
      ["rate_items_a", "rate_items_b", "rate_items_diff", "rate_items_diff_ci95", "rate_items_sig",
       "rate_items_diff_lo95", "rate_items_diff_hi95", "rate_items_basis"],
      "CSV has the eight rate_items_ columns")
check([x["name"] for x in r] == ["eval", "parse", "emit", "init", "flush"],
      "CSV rows sorted by A's share, B-only tags last: %s" % [x["name"] for x in r])
for name in ("eval", "parse", "emit"):
    x, fa, fb = by[name], folded(a, name), folded(b, name)
    pa, pb = fa["samples"] / na, fb["samples"] / nb
    check(x["in"] == "both" and int(x["samples_a"]) == fa["samples"] and int(x["samples_b"]) == fb["samples"],
          name + ": present in both, samples of A and B (B's threads added up)")
    check(near(float(x["share_a"]), pa) and near(float(x["share_b"]), pb),
          name + ": shares are samples over attributed samples")
    check(near(float(x["share_diff"]), float(x["share_b"]) - float(x["share_a"]), 1e-12),
          name + ": share_diff is share_b - share_a")
    lo, hi = wilson_diff(fa["samples"], na, fb["samples"], nb)
    d = pb - pa
    check(near(float(x["share_diff_lo95"]), lo, 1e-5) and near(float(x["share_diff_hi95"]), hi, 1e-5)
          and near(float(x["share_diff_ci95"]), max(hi - d, d - lo), 1e-5) and x["share_basis"] == "independent",
          name + ": the share difference's interval is MOVER's from the two Wilson intervals "
          "(no time batches: independent)")
    check(near(float(x["rate_items_a"]), fa["rate"], 1e-9) and near(float(x["rate_items_b"]), fb["rate"], 1e-9),
          name + ": rates are sum_a / sum_b of A and of B")
    check(near(float(x["rate_items_diff"]), float(x["rate_items_b"]) - float(x["rate_items_a"]), 1e-9),
          name + ": rate_items_diff is B - A")
    check(near(float(x["rate_items_diff_ci95"]), math.hypot(ratio_ci(fa), ratio_ci(fb)), 1e-4),
          name + ": rate_items_diff_ci95 adds the two delta-method variances")
ev, pa_, em = by["eval"], by["parse"], by["emit"]
check(float(ev["share_diff"]) < -0.10 and ev["share_sig"] == "*", "eval's share fell by 10 points: marked *")
check(float(pa_["share_diff"]) > 0.10 and pa_["share_sig"] == "*", "parse's share rose by 10 points: marked *")
check(near(float(ev["rate_items_b"]) / float(ev["rate_items_a"]), 1.2, 1e-6) and ev["rate_items_sig"] == "*",
      "eval's rate is 1.2 times A's: marked *")
check(pa_["rate_items_sig"] == "" and abs(float(pa_["rate_items_diff"])) < 1e-9,
      "parse's rate is unchanged: not marked")
check(float(em["share_diff"]) == 0 and em["share_sig"] == "" and em["rate_items_sig"] == "",
      "emit, over two threads in B, matches A's emit: no difference, no mark")
ini, fl = by["init"], by["flush"]
check(ini["in"] == "a" and ini["share_b"] == "" and ini["samples_b"] == "" and ini["rate_items_b"] == ""
      and ini["rate_items_diff"] == "", "init (only in A): B's side and the rate difference empty")
lo, hi = wilson_diff(500, na, 0, nb)
check(near(float(ini["share_diff"]), -500 / na, 1e-9) and near(float(ini["share_diff_lo95"]), lo, 1e-5)
      and near(float(ini["share_diff_hi95"]), hi, 1e-5) and ini["share_sig"] == "*",
      "init (only in A): compared with 0 samples in B, with the interval 0 samples have; marked")
check(fl["in"] == "b" and fl["share_a"] == "" and fl["rate_items_a"] == ""
      and near(float(fl["share_b"]), 1000 / nb) and near(float(fl["share_diff"]), 1000 / nb, 1e-9)
      and fl["share_sig"] == "*", "flush (only in B): A's side empty, compared with 0 samples in A")

s = rows("same.csv")
check(len(s) == 3 and all(x["share_sig"] == "" and x["rate_items_sig"] == "" for x in s),
      "a profile compared with itself: no mark")
check(all(float(x["share_diff"]) == 0 and float(x["rate_items_diff"]) == 0 for x in s),
      "a profile compared with itself: differences are 0")

ac = rows("ac.csv")
check(not any("items2" in k for k in ac[0]), "a rate only B has is left out of the table")
check("items2" in open(os.path.join(work, "ac.err")).read() and
      "left out" in open(os.path.join(work, "ac.err")).read(), "the rate left out is named on stderr")
check(len(open(os.path.join(work, "ac.err")).read().splitlines()) == 1, "the rates left out take one line")
cd = rows("cd.csv")
check(not any(k.startswith("rate_") for k in cd[0]), "a rate in another unit is not compared")
check("units differ" in open(os.path.join(work, "cd.err")).read(), "stderr says the units differ")
check([k for k in rows("rate.csv")[0] if k.startswith("rate_")][0] == "rate_items_a", "--rate items picks the rate")

# time batches: batch means, recomputed here
def batch_interval(p, name, what):
    t = next(t for t in p["tags"] if t["names"][0] == name)
    bt, top = t["detail"]["batches"], p["batches"]["samples"]
    if what == "share":
        x, y, total, v = bt["samples"], top, sum(top), t["samples"] / sum(top)
    else:
        x, y, total = bt["a"][0], bt["b"][0], t["rates"][0]["sum_b"]
        v = t["rates"][0]["sum_a"] / total
    se, df = stats_ref.batch_se(x, y, len(top), total)
    h = stats_ref.t95(df) * se
    return v, max(0, v - h) if what == "share" else v - h, v + h
e, f, g = load("e.json"), load("f.json"), load("g.json")
ef, eg = {x["name"]: x for x in rows("ef.csv")}, {x["name"]: x for x in rows("eg.csv")}
for name in ("eval", "parse", "emit"):
    for what, col in (("share", "share"), ("rate", "rate_items")):
        a_, b_ = batch_interval(e, name, what), batch_interval(f, name, what)
        lo, hi = stats_ref.mover(*a_, *b_)
        x = ef[name]
        check(near(float(x[col + "_diff_lo95"]), lo, 1e-5) and near(float(x[col + "_diff_hi95"]), hi, 1e-5)
              and x[col + "_basis"] == "batches",
              "%s %s: the interval of the difference comes from the two runs' batch means" % (name, what))
for name, label in (("h", "a rare tuple (40 samples)"),
                    ("k", "a tuple whose samples all came before its record")):
    em = next(r for r in rows(name + ".csv") if r["name"] == "emit")
    v, lo, hi = float(em["share"]), float(em["share_lo95"]), float(em["share_hi95"])
    check(em["share_basis"] != "batches" and 0 < lo < v < hi,
          "%s: no batch-means share interval, but one inside (0, 1) around it (%s %g [%g, %g])"
          % (label, em["share_basis"], v, lo, hi))
    check(abs((hi - v) - (v - lo)) > 1e-9 * v, "%s: Wilson's interval, not symmetric" % label)
em = next(r for r in rows("m.csv") if r["name"] == "emit")
check(em["rate_basis_items"] != "batches" and float(em["rate_ci95_items"]) > 0,
      "a rate whose kept periods are all in one batch: no batch-means interval (of width 0), "
      "the scaled one (%s ± %s %s)" % (em["rate_items"], em["rate_ci95_items"], em["rate_basis_items"]))
ev = ef["eval"]
check(abs(float(ev["share_diff"]) - 0.005) < 1e-4 and ev["share_sig"] == "",
      "a 0.5-point difference within the runs' swing between batches is not marked")
check(ev["rate_items_sig"] == "", "neither is the rate that swings with it")
ke = next(t for t in e["tags"] if t["names"][0] == "eval")["samples"]
kf = next(t for t in f["tags"] if t["names"][0] == "eval")["samples"]
check(wilson_diff(ke, 400000, kf, 400000)[0] > 0, "(independent samples would have marked it)")
check(eg["eval"]["share_sig"] == "*" and float(eg["eval"]["share_diff"]) > 0.19,
      "a 20-point difference is marked")
EOF
tally "$WORK/csv-results"

run compare --rate nosuch "$A" "$B"
expect_status "compare --rate with an unknown rate" 2
expect_in "$WORK/err" "nosuch" "the unknown rate is named"
expect_in "$WORK/err" "items" "the rates both have are listed"

# ---- compare -o: the overlaid figures ----
run compare -o "$FIGS" "$A" "$B"
expect_status "compare -o DIR" 0
for f in hist cdf; do
    if [ -s "$FIGS/a-vs-b-$f.svg" ]; then pass "a-vs-b-$f.svg written"; else fail "a-vs-b-$f.svg missing"; fi
    expect_in "$WORK/out" "$FIGS/a-vs-b-$f.svg" "compare prints the path of a-vs-b-$f.svg"
done
python3 - "$FIGS" >"$WORK/svg-results" <<'EOF' || echo "FAIL: the SVG checks did not run" >>"$WORK/svg-results"
import os, sys
import xml.etree.ElementTree as ET
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from checks import check
NS = "{http://www.w3.org/2000/svg}"
for fig in ("hist", "cdf"):
    path = os.path.join(sys.argv[1], "a-vs-b-%s.svg" % fig)
    try:
        root = ET.parse(path).getroot()
    except Exception as e:
        check(False, "%s parses as XML: %s" % (fig, e))
        continue
    texts = lambda k: ["".join(t.itertext()) for t in root.iter(NS + "text") if t.get("class") == k]
    legend = texts("legend")
    check(root.tag == NS + "svg", fig + ": an svg document")
    check(any("a.json" in t for t in legend) and any("b.json" in t for t in legend),
          fig + ": the legend names both files")
    check(any("A and B" in t for t in texts("title")), fig + ": the title says A and B")
    check(any("items per 1000 cycles" in t for t in texts("axis-label")), fig + ": the x axis names the rate and its unit")
    if fig == "hist":
        panels = [g.find(NS + "title").text for g in root.iter(NS + "g") if g.get("class") == "panel"]
        check(panels == ["eval", "parse", "emit", "init"], "hist: a panel for each of the first 4 rows: %s" % panels)
        check(any(t.startswith("B: not in this profile") for t in legend), "hist: a tag B lacks says so")
        fills = {p.get("fill") for p in root.iter(NS + "path")} | {p.get("stroke") for p in root.iter(NS + "path")}
        check({"#0072b2", "#d55e00"} <= fills, "hist: A and B drawn in two colours")
    else:
        check(sum(1 for t in legend if t.startswith("n = ")) == 2, "cdf: two curves in the legend")
EOF
tally "$WORK/svg-results"
if grep -qiE '<script|<image|<style|href=|url\(' "$FIGS"/*.svg; then fail "figures are self-contained"; else pass "figures are self-contained"; fi

# ---- compare --runs: several runs a side, intervals across runs ----
run compare --runs 2 --csv "$A" "$WORK/e.json" "$B" "$WORK/f.json"
expect_status "compare --runs 2 of four profiles" 0
cp "$WORK/out" "$WORK/runs.csv"
run compare --runs 2 "$A" "$WORK/e.json" "$B" "$WORK/f.json"
expect_in "$WORK/out" "A2" "compare --runs names each side's runs (A1, A2, B1, B2)"
expect_in "$WORK/out" "interval across its runs" "compare --runs says the intervals are across runs"
if grep -qF "One run a side" "$WORK/out"; then fail "compare --runs speaks of one run a side"; else pass "compare --runs does not speak of one run a side"; fi
another_run "$A" "$WORK/a2.json"
another_run "$WORK/a2.json" "$WORK/a3.json"
run compare --runs 2 --csv "$A" "$A" "$A" "$A"
expect_status "compare --runs with one run given twice on a side exits 2" 2
expect_in "$WORK/err" "are the same run" "compare --runs says a run was given twice"
run compare --runs 2 --csv "$A" "$WORK/a2.json" "$WORK/a3.json" "$A"
cp "$WORK/out" "$WORK/runs-same.csv"
python3 - "$WORK" "$(dirname "$0")" >"$WORK/runs-results" <<'EOF' || echo "FAIL: the --runs checks did not run" >>"$WORK/runs-results"
import math, os, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from checks import check, rows, load
import stats_ref
runs = [load(n) for n in ("a.json", "e.json", "b.json", "f.json")]
attr = lambda p: p["samples"]["total"] - p["samples"]["interrupted"]
def pooled(side, name, what):
    """the side's pooled estimate over its runs and its 95% interval across them"""
    pairs = []
    for p in side:
        ts = [t for t in p["tags"] if t["names"][0] == name]
        if what == "share":
            pairs.append((sum(t["samples"] for t in ts), attr(p)))
        elif ts and ts[0]["rates"][0].get("sum_b"):
            r = [t["rates"][0] for t in ts]
            pairs.append((sum(x["sum_a"] for x in r), sum(x["sum_b"] for x in r)))
    sa, sb, n = sum(a for a, _ in pairs), sum(b for _, b in pairs), len(pairs)
    v = sa / sb
    h = stats_ref.t95(n - 1) * math.sqrt(n / (n - 1) * sum((a - v * b) ** 2 for a, b in pairs)) / sb
    return v, max(0, v - h) if what == "share" else v - h, v + h
near = lambda x, y: abs(x - y) <= 1e-5 * max(1e-9, abs(y))
rs = {x["name"]: x for x in rows("runs.csv")}
for name in ("eval", "parse", "emit"):
    for what, col in (("share", "share"), ("rate", "rate_items")):
        a, b = pooled(runs[:2], name, what), pooled(runs[2:], name, what)
        lo, hi = stats_ref.mover(*a, *b)
        x = rs[name]
        check(near(float(x[col + "_a"]), a[0]) and near(float(x[col + "_b"]), b[0]),
              "%s %s: each side pooled over its two runs, as merge pools them" % (name, what))
        check(near(float(x[col + "_diff_lo95"]), lo) and near(float(x[col + "_diff_hi95"]), hi)
              and x[col + "_basis"] == "runs",
              "%s %s: the difference's interval from the two sides' intervals across runs" % (name, what))
same = rows("runs-same.csv")
check(all(x["share_sig"] == "" and float(x["share_diff"]) == 0 for x in same),
      "four copies of one profile, two a side: no difference, no mark")
EOF
tally "$WORK/runs-results"
run compare --runs 1 "$A" "$B" "$A"
expect_status "compare --runs 1 exits 2" 2
expect_in "$WORK/err" "at least 2" "compare --runs 1 says a side needs two runs"
run compare --runs 2 "$A" "$A" "$B"
expect_status "compare --runs 2 with one profile of B exits 2" 2
expect_in "$WORK/err" "at least 2 of B" "compare --runs says B needs two runs"
run compare --runs 2 -o "$FIGS" "$A" "$A" "$B" "$B"
expect_status "compare --runs with -o exits 2" 2

# ---- merge ----
run merge --csv "$A" "$WORK/a2.json" "$A"
expect_status "merge of one run given twice exits 2" 2
expect_in "$WORK/err" "a.json and $WORK/a.json are the same run" "merge names the two files of one run"
python3 - "$A" "$WORK" <<'EOF' || fail "writing two snapshots of one run"
import json, os, sys
p = json.load(open(sys.argv[1]))
for k in (1, 2):  # the run so far: the second has more samples
    p["snapshot"] = {"number": k, "every_seconds": 1, "keep": 2}
    p["tags"][0]["samples"] += 1000
    p["samples"]["total"] += 1000
    p["samples"]["rated"] += 1000
    p["samples"]["kept"] += 1000
    json.dump(p, open(os.path.join(sys.argv[2], "snap%d.json" % k), "w"))
EOF
run merge "$WORK/snap1.json" "$WORK/snap2.json"
expect_status "merge of two snapshots of one run exits 2" 2
expect_in "$WORK/err" "are snapshots 1 and 2 of one run" "merge says the two files are snapshots of one run"
run merge --csv "$A" "$WORK/a2.json" "$WORK/a3.json"
expect_status "merge of three runs with the same numbers" 0
cp "$WORK/out" "$WORK/three.csv"
run merge --csv "$A" "$B"
cp "$WORK/out" "$WORK/two.csv"
run merge --csv "$A"
expect_status "merge of one file" 0
cp "$WORK/out" "$WORK/one.csv"
expect_in "$WORK/err" "a confidence interval needs at least two runs" "merge of one file says a CI needs two runs"
python3 - "$WORK" "$(dirname "$0")" >"$WORK/merge-results" <<'EOF' || echo "FAIL: the merge checks did not run" >>"$WORK/merge-results"
import json, math, os, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from checks import check, rows
import stats_ref
work = sys.argv[1]
a, b = (json.load(open(os.path.join(work, n))) for n in ("a.json", "b.json"))
attr = lambda p: p["samples"]["total"] - p["samples"]["interrupted"]
share = lambda p, name: sum(t["samples"] for t in p["tags"] if t["names"][0] == name) / attr(p)
t3 = rows("three.csv")
check(list(t3[0].keys()) == ["name", "runs", "share_mean", "share_sd", "share_ci95", "rate_items_mean",
                             "rate_items_sd", "rate_items_ci95", "rate_items_runs"],
      "merge CSV columns: %s" % list(t3[0].keys()))
check([x["name"] for x in t3] == [t["names"][0] for t in a["tags"]], "merge rows sorted by share")
for x in t3:
    t = next(t for t in a["tags"] if t["names"][0] == x["name"])
    check(x["runs"] == "3" and x["rate_items_runs"] == "3", x["name"] + ": in 3 runs")
    same = lambda got, want: abs(float(got) - want) <= 1e-9 * abs(want)  # the CSV's 10 digits
    check(same(x["share_mean"], share(a, x["name"])), x["name"] + ": pooled share of 3 copies is the share")
    r0 = t["rates"][0]
    check(same(x["rate_items_mean"], r0["sum_a"] / r0["sum_b"]),
          x["name"] + ": pooled rate of 3 copies is the rate (sum_a / sum_b)")
    check(float(x["share_ci95"]) == 0 and float(x["rate_items_ci95"]) == 0 and float(x["share_sd"]) == 0,
          x["name"] + ": 3 copies give intervals of width 0")
t2 = {x["name"]: x for x in rows("two.csv")}
check(t2["init"]["runs"] == "1" and t2["flush"]["runs"] == "1" and t2["eval"]["runs"] == "2",
      "merge counts the runs that have each tag")
ka = lambda p, name: sum(t["samples"] for t in p["tags"] if t["names"][0] == name)
check(abs(float(t2["init"]["share_mean"]) - ka(a, "init") / (attr(a) + attr(b))) < 1e-12,
      "a run without the tag counts with 0 samples: the share is pooled over both runs' samples")
sa, sb = share(a, "eval"), share(b, "eval")
sd = abs(sa - sb) / math.sqrt(2)
check(abs(float(t2["eval"]["share_sd"]) - sd) < 1e-6 * sd, "merge share_sd is the sample sd of the runs' shares")
pooled = (ka(a, "eval") + ka(b, "eval")) / (attr(a) + attr(b))
check(abs(float(t2["eval"]["share_mean"]) - pooled) < 1e-9, "merge pools the share: samples over attributed samples")
ks, ns = [ka(a, "eval"), ka(b, "eval")], [attr(a), attr(b)]
se = stats_ref.ratio_se(2, sum(ks), sum(ns), sum(k * k for k in ks), sum(n * n for n in ns),
                        sum(k * n for k, n in zip(ks, ns)))
check(abs(float(t2["eval"]["share_ci95"]) - 12.7062047 * se) < 1e-5 * se,
      "merge share_ci95: the runs as units of a ratio estimator, Student's t with 1 degree of freedom")
ra = [next(t for t in p["tags"] if t["names"][0] == "eval")["rates"][0] for p in (a, b)]
check(abs(float(t2["eval"]["rate_items_mean"]) - sum(r["sum_a"] for r in ra) / sum(r["sum_b"] for r in ra)) < 1e-9,
      "merge pools the rate: every run's counts over every run's cycles (weighted by cycles)")
check(t2["init"]["rate_items_runs"] == "1" and t2["init"]["rate_items_ci95"] == "",
      "a rate in one run has a mean but no interval")
one = rows("one.csv")
check(all(x["share_ci95"] == "" and x["share_mean"] != "" for x in one), "merge of one file: means, no intervals")
EOF
tally "$WORK/merge-results"

run merge "$A" "$B"
expect_status "merge as text" 0
expect_in "$WORK/out" "± 95% CI" "merge text has interval columns"
expect_in "$WORK/out" "Student's t" "merge text says how the interval is formed"
expect_in "$WORK/out" "weighted by its cycles" "merge text says how runs are weighted"
run merge --top 2 "$A" "$B"
rows=$(grep -cE '^(eval|parse|emit|init|flush) ' "$WORK/out")
[ "$rows" -eq 2 ] && pass "merge --top 2 shows two rows" || fail "merge --top 2 shows $rows rows"
run merge "$A" "$WORK/c.json"
expect_in "$WORK/err" "items2" "merge names a rate not every run has"

# ---- bad files and bad command lines ----
for cmd in compare merge; do
    run $cmd "$A" "$WORK/no-such-profile.json"
    expect_status "$cmd: a missing file exits 1" 1
    expect_in "$WORK/err" "no-such-profile.json" "$cmd: the missing file is named"
    run $cmd "$A" "$WORK/not-a-profile.json"
    expect_status "$cmd: a file that is not a profile exits 1" 1
    expect_in "$WORK/err" "not-a-profile.json" "$cmd: the file that is not a profile is named"
    run $cmd "$FIXTURES/bad/missing-member.json" "$A"
    expect_status "$cmd: an invalid profile exits 1" 1
    expect_in "$WORK/err" "machine.tsc.hz: missing" "$cmd: the loader's message says what is wrong"
    run $cmd --help
    expect_status "$cmd --help" 0
    expect_in "$WORK/out" "usage: shimview $cmd" "$cmd --help prints the usage"
    run help $cmd
    expect_in "$WORK/out" "usage: shimview $cmd" "help $cmd prints the usage"
    run --help
    expect_in "$WORK/out" "$cmd" "shimview --help lists $cmd"
    run $cmd --bogus "$A" "$B"
    expect_status "$cmd: an unknown option exits 2" 2
    run $cmd --top x "$A" "$B"
    expect_status "$cmd: --top x exits 2" 2
done
run compare "$A"
expect_status "compare with one file exits 2" 2
expect_in "$WORK/err" "expects two profiles" "compare with one file says it needs two"
run compare "$A" "$B" "$A"
expect_status "compare with three files exits 2" 2
run merge
expect_status "merge without files exits 2" 2
run compare --csv -o "$FIGS" "$A" "$B"
expect_status "compare --csv with -o exits 2" 2

finish
