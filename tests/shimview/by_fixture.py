#!/usr/bin/env python3
"""by_fixture.py -- a profile with `by` for the shimview tests, made from the fixture.

    python3 by_fixture.py IN OUT [BREAK]

Adds a second rate, `bytes` (per cycle), and `by`: bytes in each of 7 buckets of items
(per 1000 cycles) over [0.5, 4), plus the slot below 0.5 and the slot at 4 and above, to
every tag entry and `other`. The slots are planted so the figure and the tables have
every case to show: a tag with periods below the span and one above it, an empty bucket
between two full ones, buckets of fewer than 10 periods, and `other` with none. Y in a
slot is its planted value exactly: sum_b is 1250 cycles per period and sum_a = Y * sum_b.

BREAK makes the profile malformed in one way, for the error tests:
  slots      tags[1].by has one slot too few
  rate       by.rate names a rate the profile does not have
  negative   tags[0].by[2] has a negative count
  sum        tags[0].by[3] has a negative sum_b
  tuple      tags[2].by[1] is not a [count, sum_a, sum_b] array
  orphan     the top-level by is removed, the entries keep theirs
  missing    tags[2] has no by
  too-many   tags[2].by holds more periods than the entry kept
  buckets    by.buckets is 0
"""
import json
import sys

BUCKETS, LO, HI = 7, 0.5, 4.0
CYCLES = 1250.0

# per tag in file order (eval, parse, emit): {slot: (periods, bytes per cycle)}
PLANTED = [
    {0: (30000, 1.2), 1: (120000, 2.0), 2: (28000, 2.6), 3: (6, 3.1), 5: (2, 0.9)},
    {5: (30000, 0.8), 6: (100000, 0.6), 7: (17000, 0.5), 8: (200, 0.3)},
    {2: (9, 1.4), 3: (20000, 1.0), 4: (13000, 1.1)},
]


def slots(planted):
    out = []
    for k in range(BUCKETS + 2):
        n, y = planted.get(k, (0, 0.0))
        out.append([n, y * n * CYCLES, n * CYCLES])
    return out


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    p = json.load(open(argv[1], encoding="utf-8"))
    p["signals"]["counters"].append(
        {"slot": 1, "name": "bytes", "kind": "software", "scale": 1.0, "width": 64})
    p["config"]["counter_slots"].append(1)
    p["rates"].append({"name": "bytes", "counter": "bytes", "unit": "per cycle", "scale": 1.0})
    p["by"] = {"rate": "bytes", "by": "items", "buckets": BUCKETS, "lo": LO, "hi": HI}
    for i, t in enumerate(p["tags"] + [p["other"]]):
        t["rates"].append(json.loads(json.dumps(t["rates"][0])))
        t["by"] = slots(PLANTED[i] if i < len(PLANTED) else {})
    brk = argv[3] if len(argv) == 4 else None
    if brk == "slots":
        p["tags"][1]["by"].pop()
    elif brk == "rate":
        p["by"]["rate"] = "nosuch"
    elif brk == "negative":
        p["tags"][0]["by"][2][0] = -3
    elif brk == "sum":
        p["tags"][0]["by"][3][2] = -1.5
    elif brk == "tuple":
        p["tags"][2]["by"][1] = {"count": 1}
    elif brk == "orphan":
        del p["by"]
    elif brk == "missing":
        del p["tags"][2]["by"]
    elif brk == "too-many":
        p["tags"][2]["by"][3][0] = p["tags"][2]["kept"]
    elif brk == "buckets":
        p["by"]["buckets"] = 0
    elif brk is not None:
        sys.exit("by_fixture.py: unknown BREAK " + brk)
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(p, f)


if __name__ == "__main__":
    main(sys.argv)
