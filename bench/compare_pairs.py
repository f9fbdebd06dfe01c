#!/usr/bin/env python3
"""compare_pairs.py -- what `shimview compare` marks between runs of one program.

    bench/compare_pairs.py [--build DIR] [--out DIR] [--pairs N] [--seconds S]
                           [--planted ITEMS] [--group K] [--quiet PCT] [--no-count]

Runs bench/planted_shift (the planted-phase demo) in interleaved triples of groups of K
runs (default 1): A, B, A', where A and A' have the same settings and B plants more work
in eval (--eval-items ITEMS, default 65 against 60: about 2 percentage points more of the
time). Then compares each pair with `shimview compare --csv` (with K > 1,
`compare --runs K`: each side pooled over its runs, intervals across them):

  - A against A' (the same program and settings): of the tags with a share of 1% or
    more, how many have their share difference marked, and their rate difference; the
    target (docs/statistics.md) is at most 5% of them over the pairs;
  - A against B (the planted change): whether eval's share difference is marked, and the
    change the program measured itself (its truth files) against the one shim saw;
  - in every pair, whether each phase's interval of the difference holds the difference
    the program measured itself (the truth, pooled over a group's runs as shim pools
    them): the coverage a 95% interval should have;
  - how many of A/A''s tags the program's own measurement would mark: its difference
    between the two runs larger than the interval's half-width (the runs really differed),
    and for how many of them shim's mark agrees (marked by both, by shim only, by the
    program's own difference only);
  - the program's own share of eval over runs not observed (SHIM_DISABLE=1, one per
    triple, before it) against the observed A and A' runs: how much observing the program
    moves it, and how much that varies from run to run.

With --no-count the program stores no counter per item (planted_shift --no-count): its
only signal is the phase word, stored three times a round.

Before each triple it waits until the machine is quiet: the CPUs busy less than PCT% of a
second (default 10) while nothing of this script runs, for up to a minute. Prints a line
per triple (with how busy the machine was) and a summary; writes the profiles, truths and
a CSV of the per-pair figures (pairs.csv) to DIR (default build/compare-pairs). A
measurement, not a test: nothing is asserted.
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import time


NO_COUNT = []  # ["--no-count"] with --no-count


def run(build, out, name, seconds, eval_items, observed=True):
    """one run: its profile, and the truth as (samples-weighted) phase shares; not observed
    (SHIM_DISABLE=1): the truth only"""
    profile = os.path.join(out, name + ".json")
    truth = os.path.join(out, name + ".truth")
    env = dict(os.environ, SHIM_OUTPUT=profile) if observed else dict(os.environ, SHIM_DISABLE="1")
    subprocess.run([os.path.join(build, "bench", "planted_shift"), "--seconds", str(seconds),
                    "--eval-items", str(eval_items), "--truth", truth] + NO_COUNT, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shares = dict((line.split()[0], float(line.split()[1])) for line in open(truth))
    if not observed:
        return shares
    p = json.load(open(profile))
    return profile, shares, p["samples"]["total"] - p["samples"]["interrupted"]


def group_truth(runs):
    """the runs' truths pooled as shim pools shares: weighted by attributed samples"""
    total = sum(n for _, _, n in runs)
    return {k: sum(t[k] * n for _, t, n in runs) / total for k in runs[0][1]}


def compare(build, a, b):
    args = ["--runs", str(len(a))] if len(a) > 1 else []
    out = subprocess.run([os.path.join(build, "shimview", "shimview"), "compare", "--csv"] + args +
                         [r[0] for r in a] + [r[0] for r in b],
                         check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def busy(seconds=1.0):
    """the share of the CPUs' time spent busy over the next seconds (/proc/stat)"""
    def sample():
        v = [int(x) for x in open("/proc/stat").readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait
    t0, i0 = sample()
    time.sleep(seconds)
    t1, i1 = sample()
    return 1 - (i1 - i0) / max(1, t1 - t0)


def wait_quiet(limit):
    """waits up to a minute for a second with the CPUs busy below limit; the last busy"""
    for _ in range(60):
        b = busy()
        if b < limit:
            break
    return b


def covered(row, truth_a, truth_b):
    """whether the CSV row's interval of the share difference holds the truth's"""
    if row["name"] not in truth_a or not row["share_diff_lo95"]:
        return None
    d = truth_b[row["name"]] - truth_a[row["name"]]
    return float(row["share_diff_lo95"]) <= d <= float(row["share_diff_hi95"])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("--build", default=os.path.join(os.path.dirname(here), "build"))
    ap.add_argument("--out")
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--planted", type=int, default=65)
    ap.add_argument("--group", type=int, default=1)
    ap.add_argument("--quiet", type=float, default=10)
    ap.add_argument("--no-count", action="store_true")
    a = ap.parse_args()
    if a.no_count:
        NO_COUNT.append("--no-count")
    out = a.out or os.path.join(a.build, "compare-pairs")
    os.makedirs(out, exist_ok=True)
    rows = []
    same_tags = same_share = same_rate = planted_marked = held = checked = truth_marks = 0
    both = shim_only = truth_only = 0
    own_unobserved, own_observed = [], []
    for i in range(a.pairs):
        quiet = wait_quiet(a.quiet / 100)
        own_unobserved.append(run(a.build, out, "u%02d" % i, a.seconds, 60, False)["eval"])
        ga, gb, gc = [], [], []
        for k in range(a.group):  # interleaved: A, B, A' run by run
            ga.append(run(a.build, out, "a%02d-%d" % (i, k), a.seconds, 60))
            gb.append(run(a.build, out, "b%02d-%d" % (i, k), a.seconds, a.planted))
            gc.append(run(a.build, out, "c%02d-%d" % (i, k), a.seconds, 60))
        ta, tb, tc = group_truth(ga), group_truth(gb), group_truth(gc)
        own_observed += [r[1]["eval"] for r in ga + gc]
        marks_s = marks_r = tags = 0
        for r in compare(a.build, ga, gc):
            if r["name"] == "other" or max(float(r["share_a"] or 0), float(r["share_b"] or 0)) < 0.01:
                continue
            tags += 1
            marks_s += r["share_sig"] == "*"
            marks_r += any(r[k] == "*" for k in r if k.startswith("rate_") and k.endswith("_sig"))
            c = covered(r, ta, tc)
            held += c is True
            checked += c is not None
            if r["name"] in ta and r["share_diff_lo95"]:
                half = (float(r["share_diff_hi95"]) - float(r["share_diff_lo95"])) / 2
                real = abs(tc[r["name"]] - ta[r["name"]]) > half
                marked = r["share_sig"] == "*"
                truth_marks += real
                both += real and marked
                shim_only += marked and not real
                truth_only += real and not marked
        ab = compare(a.build, ga, gb)
        for r in ab:
            c = covered(r, ta, tb)
            held += c is True
            checked += c is not None
        ev = next(r for r in ab if r["name"] == "eval")
        same_tags += tags
        same_share += marks_s
        same_rate += marks_r
        planted_marked += ev["share_sig"] == "*"
        rows.append({"pair": i, "busy": quiet, "tags": tags, "share_marked": marks_s,
                     "rate_marked": marks_r, "planted_truth_pp": 100 * (tb["eval"] - ta["eval"]),
                     "planted_shim_pp": 100 * float(ev["share_diff"]),
                     "planted_ci_pp": 100 * float(ev["share_diff_ci95"] or "nan"),
                     "planted_marked": ev["share_sig"] == "*", "basis": ev["share_basis"]})
        r = rows[-1]
        print("%2d  busy %3.0f%%  A/A': %d of %d tags' shares marked, %d rates  |  A/B eval: "
              "truth %+.2f pp, shim %+.2f ± %.2f pp %s" %
              (i, 100 * quiet, marks_s, tags, marks_r, r["planted_truth_pp"], r["planted_shim_pp"],
               r["planted_ci_pp"], "marked" if r["planted_marked"] else "not marked"), flush=True)
    with open(os.path.join(out, "pairs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    what = "runs" if a.group == 1 else "groups of %d runs" % a.group
    print("\nA/A' (%s of the same program and settings): %d of %d tags with >= 1%% share marked "
          "(%.1f%%); rates marked for %d (%.1f%%)" %
          (what, same_share, same_tags, 100 * same_share / max(1, same_tags), same_rate,
           100 * same_rate / max(1, same_tags)))
    print("A/A': the program's own measurement differs by more than the interval's half-width "
          "for %d of the %d tags; marked by both %d, by shim only %d, by the program's own "
          "difference only %d" % (truth_marks, same_tags, both, shim_only, truth_only))
    print("A/B (eval planted %d items against 60): marked in %d of %d pairs" %
          (a.planted, planted_marked, a.pairs))
    print("intervals of the share difference holding the truth's difference: %d of %d (%.1f%%)" %
          (held, checked, 100 * held / max(1, checked)))
    print("the program's own eval share: %.2f%% (SD %.3f pp over %d runs) not observed, %.2f%% "
          "(SD %.3f pp over %d runs, %.2f%% to %.2f%%) observed" %
          (100 * statistics.mean(own_unobserved), 100 * statistics.stdev(own_unobserved),
           len(own_unobserved), 100 * statistics.mean(own_observed),
           100 * statistics.stdev(own_observed), len(own_observed), 100 * min(own_observed),
           100 * max(own_observed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
