#!/usr/bin/env python3
"""interval_fixture.py -- snapshots of one run made from a profile, for the tests of
`shimview export --since` and `shimview top` (test_interval.sh).

    interval_fixture.py make PROFILE DIR
        DIR/stage1.json .. DIR/stage4.json: the run at four cuts, the last one final,
        each tag at its own pace (WEIGHTS: a tag's counts at stage k are its counts in
        PROFILE times WEIGHTS[tag][k], so an interval's shares differ from the run's);
        DIR/other-run.json (stage 4 of another pid), DIR/shrunk.json (stage 4 with a
        tag counting less than at stage 3), DIR/expected.json (what each interval holds).
    interval_fixture.py grow PROFILE PATH DELAY [SHOWN]
        writes stage 1, 2, 3 and 4 to PATH one after another, DELAY seconds apart, each
        atomically (a temporary file renamed), as SHIM_SNAPSHOT does; with SHOWN (what
        `shimview top` prints), each stage only once SHOWN has the block of the one
        before (at most a minute), so that a loaded machine cannot make it miss one.
"""
import copy
import json
import os
import sys
import time

WEIGHTS = [[0.1, 0.2, 0.6, 1.0], [0.4, 0.8, 0.9, 1.0], [0.25, 0.5, 0.75, 1.0]]
STAGES = 4


def scaled(t, w):
    t = copy.deepcopy(t)
    for k in ("samples", "cycles", "kept"):
        t[k] = int(t[k] * w)
    t["detail"] = None  # no distribution: it cannot be scaled
    for r in t["rates"]:
        r["periods"] = int(r.pop("n") * w)
        for k in ("sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab"):
            if k in r:
                r[k] = r[k] * w
        for k in ("mean", "sum", "sumsq", "min", "max"):
            r.pop(k, None)
        r["hist"] = None
    return t


def stage(p, k):
    d = copy.deepcopy(p)
    d["tags"] = [scaled(t, WEIGHTS[i % len(WEIGHTS)][k]) for i, t in enumerate(p["tags"])]
    total = sum(t["samples"] for t in d["tags"]) + d["other"]["samples"]
    kept = sum(t["kept"] for t in d["tags"]) + d["other"]["kept"]
    d["samples"].update(total=total, interrupted=0, rated=total, kept=kept,
                        discarded=total - kept, thread_changes=0, straddled=0, other=0)
    for t in d["tags"]:
        t["share"] = t["samples"] / total
    span = p["run"]["duration_ns"]
    d["run"]["duration_ns"] = span * (k + 1)
    d["run"]["tsc_cycles"] = p["run"]["tsc_cycles"] * (k + 1)
    d["snapshot"] = {"number": k + 1, "every_seconds": 1.0, "keep": 0, "final": k == STAGES - 1,
                     "previous_duration_ns": span * k}
    return d


def write(d, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(d, f)
    os.rename(tmp, path)


def main():
    mode, src = sys.argv[1], sys.argv[2]
    p = json.load(open(src))
    if mode == "make":
        out = sys.argv[3]
        stages = [stage(p, k) for k in range(STAGES)]
        for k, d in enumerate(stages):
            write(d, os.path.join(out, "stage%d.json" % (k + 1)))
        other = copy.deepcopy(stages[-1])
        other["program"]["pid"] += 1
        write(other, os.path.join(out, "other-run.json"))
        shrunk = copy.deepcopy(stages[-1])
        shrunk["tags"][0] = copy.deepcopy(stages[2]["tags"][0])
        shrunk["tags"][0]["samples"] -= 1
        write(shrunk, os.path.join(out, "shrunk.json"))
        expected = []
        for k in range(1, STAGES):
            a, b = stages[k - 1], stages[k]
            tags = {t["names"][0]: t["samples"] - u["samples"] for t, u in zip(b["tags"], a["tags"])}
            expected.append({"from": "stage%d.json" % k, "to": "stage%d.json" % (k + 1),
                             "samples": b["samples"]["total"] - a["samples"]["total"],
                             "tags": tags,
                             "start": a["run"]["start_unix_ns"] + a["run"]["duration_ns"],
                             "end": b["run"]["start_unix_ns"] + b["run"]["duration_ns"]})
        write(expected, os.path.join(out, "expected.json"))
    else:
        path, delay = sys.argv[3], float(sys.argv[4])
        shown = sys.argv[5] if len(sys.argv) > 5 else None
        for k in range(STAGES):
            write(stage(p, k), path)
            time.sleep(delay)
            until = time.monotonic() + 60
            while shown and not block_shown(shown, k + 1) and time.monotonic() < until:
                time.sleep(0.02)


def block_shown(path, number):
    """Whether `top`'s output at path has the block of profile `number`."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return False
    return ("snapshot %d at" % number) in text or ("final profile %d at" % number) in text


if __name__ == "__main__":
    main()
