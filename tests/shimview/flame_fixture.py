#!/usr/bin/env python3
"""flame_fixture.py -- two calling-context profiles with a planted difference, for the
differential flame graph.

    python3 flame_fixture.py IN A_OUT B_OUT [--batches]

Both are cct_fixture.py's profile (made from the fixture IN), with one more node in
thread 4243's tree: libm.so.6+0x2a10 called by visit (row 4). A has cct_fixture.py's
entries; B changes five of them (exclusive samples):
  main > eval @0x1150 > walk > visit   2000 -> 5000  (its inclusive share rises)
  main > eval @0x1150 > walk           3000 -> 1500  (its inclusive share still rises:
                                                      visit's samples are in it)
  walk (thread 4243)                    700 ->  100  (its inclusive share falls)
  main > eval @0x1170 > 0x7f00dead0000  100 ->    0  (only in A)
  walk > visit > libm (thread 4243)       0 ->  300  (only in B)
Everything else keeps its samples, so its share changes a little with B's total;
check_flame.py recomputes every share, change and interval from the two files.

With --batches both profiles get time batches (docs/profile-format.md): 16 batches, each
entry's samples spread over them with an alternating swing of a fifth, so that batch
means see more spread than independent samples would, and its rate sums with a smaller
swing of their own. Every entry has a detail record from its first sample, so each one
tells the design effect that a frame's intervals are widened by.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cct_fixture  # noqa: E402

THREADS = [(index, tid, nodes + ([[3, 4, 0x1420]] if tid == 4243 else []))
           for index, tid, nodes in cct_fixture.THREADS]


def changed(entries):
    out = []
    for thread, phase, fid, ctx, samples, rate in entries:
        if ctx == (0, 5) and phase == 2:
            samples = 5000
        elif ctx == (0, 4):
            samples = 1500
        elif ctx == (1, 2):
            samples = 100
        elif ctx == (0, 8):
            continue
        out.append((thread, phase, fid, ctx, samples, rate))
    return out + [(4243, 2, 4, (1, 4), 300, 4.0)]


NBATCHES = 16


def spread(total, swing, phase):
    """total split over NBATCHES batches, alternately above and below an even share by
    the fraction swing (phase: which comes first), in whole numbers adding up to it."""
    w = [1 + swing * (1 if (j + phase) % 2 else -1) for j in range(NBATCHES)]
    out = [int(total * x / sum(w)) for x in w]
    for j in range(total - sum(out)):
        out[j % NBATCHES] += 1
    return out


def add_batches(p, phase):
    """Time batches for every tag entry (a detail record from its first sample) and the
    run; `other` is in the run's batches only."""
    per_batch = [0] * NBATCHES
    for i, t in enumerate(p["tags"]):
        k = spread(t["samples"], 0.2, phase + i)
        b = {"first": 0, "samples": k, "a": [], "b": []}
        for r in t["rates"]:
            if not r.get("n"):
                b["a"].append([0.0] * NBATCHES)
                b["b"].append([0.0] * NBATCHES)
                continue
            wb = [x or 1 for x in k]
            wa = [x * (1 + 0.05 * (1 if (j + i) % 2 else -1)) for j, x in enumerate(wb)]
            b["b"].append([r["sum_b"] * x / sum(wb) for x in wb])
            b["a"].append([r["sum_a"] * x / sum(wa) for x in wa])
        t["detail"] = {"since": 0, "batches": b}
        per_batch = [x + y for x, y in zip(per_batch, k)]
    other = spread(p["other"]["samples"], 0, 0)
    per_batch = [x + y for x, y in zip(per_batch, other)]
    p["batches"] = {"cycles": 1 << 26, "count": NBATCHES, "samples": per_batch}


def make(src, dst, entries, batches=None):
    cct_fixture.THREADS = THREADS
    cct_fixture.ENTRIES = entries
    p = json.load(open(src, encoding="utf-8"))
    cct_fixture.build(p)
    if batches is not None:
        add_batches(p, batches)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--batches"):
        sys.exit(__doc__)
    batches = len(argv) == 5
    original = cct_fixture.ENTRIES
    make(argv[1], argv[2], original, 0 if batches else None)
    make(argv[1], argv[3], changed(original), 1 if batches else None)


if __name__ == "__main__":
    main(sys.argv)
