#!/usr/bin/env python3
"""flame_fixture.py -- two calling-context profiles with a planted difference, for the
differential flame graph.

    python3 flame_fixture.py IN A_OUT B_OUT

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


def make(src, dst, entries):
    cct_fixture.THREADS = THREADS
    cct_fixture.ENTRIES = entries
    p = json.load(open(src, encoding="utf-8"))
    cct_fixture.build(p)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    original = cct_fixture.ENTRIES
    make(argv[1], argv[2], original)
    make(argv[1], argv[3], changed(original))


if __name__ == "__main__":
    main(sys.argv)
