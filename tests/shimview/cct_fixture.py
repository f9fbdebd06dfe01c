#!/usr/bin/env python3
"""cct_fixture.py -- a calling-context profile for the shimview tests, made from the fixture.

    python3 cct_fixture.py IN OUT [BREAK]

Adds the reserved slots 8 (function) and 9 (context) to the fixture's tag slot 0
(phase), `modules`, `functions` and `cct`, and replaces the tag entries with planted
ones. Thread 4242 runs main > eval > walk > visit, where visit calls walk again: the
recursion folds back to walk's node, so walk's inclusive samples count visit's once.
visit calls an unnamed function of libm (shown as libm.so.6+0x2a10), eval is called from
two call sites of main (two contexts, told apart by their sites), and the second eval
calls a function in no module (shown by its address). Thread 4243 starts in walk. One
entry sits outside every instrumented function, one in the overflow node with a
function `functions` does not list, one in a thread with no tree (no context), and
`other` has samples. Each entry's `items` rate comes from planted periods, so its sums
agree with one another. check_cct.py recomputes every expected number from the file.

BREAK makes the profile malformed in one way, for the error tests:
  parent      a node's parent is not an earlier row
  function    a node names a function id `functions` does not have
  unfolded    a path holds walk twice (recursion not folded)
  root        row 0 is not [0, null, null]
  slot        slot 9 is not among signals.tags
  node        a tag entry's context names a node beyond its tree
  thread      a tag entry's context names a thread index no tree has
  dup-id      two functions share an id
  module      a function's module is not in `modules`
"""
import json
import random
import sys

EXE, LIBM = "/opt/calc/bin/calc", "/usr/lib/x86_64-linux-gnu/libm.so.6"
EXE_BASE, LIBM_BASE = 0x555555554000, 0x7F1234560000

# id, module, offset, name (None: no symbol)
FUNCTIONS = [
    (0, EXE, 0x1100, "main"),
    (1, EXE, 0x1200, "eval"),
    (2, EXE, 0x1300, "walk"),
    (3, EXE, 0x1400, "visit"),
    (4, LIBM, 0x2A10, None),
    (5, None, 0x7F00DEAD0000, None),
]

# per thread: index, tid, nodes [parent, function id, site] after the root and overflow
THREADS = [
    (0, 4242, [[0, 0, 0x29D90],   # 2 main
               [2, 1, 0x1150],    # 3 eval, first call site
               [3, 2, 0x1250],    # 4 walk
               [4, 3, 0x1350],    # 5 visit (visit's call of walk folds back to 4)
               [5, 4, 0x1420],    # 6 libm+0x2a10
               [2, 1, 0x1170],    # 7 eval, second call site
               [7, 5, None]]),    # 8 the function in no module
    (1, 4243, [[0, 2, None],      # 2 walk
               [2, 3, 0x1360]]),  # 3 visit
]

PHASES = {1: "read", 2: "solve", 3: "print"}
UNLISTED = 0x7F00BEEF0000

# thread, phase, function id (None: 0; "unlisted"), context (thread index, node) or 0,
# samples, items per 1000 cycles
ENTRIES = [
    (4242, 2, 2, (0, 4), 3000, 1.5),
    (4242, 2, 3, (0, 5), 2000, 2.5),
    (4242, 1, 3, (0, 5), 500, 0.5),
    (4242, 2, 4, (0, 6), 800, 4.0),
    (4242, 2, 1, (0, 3), 400, 1.0),
    (4242, 3, 1, (0, 7), 300, 3.0),
    (4242, 3, 5, (0, 8), 100, 2.0),
    (4242, 1, 0, (0, 2), 200, 0.8),
    (4242, 1, None, 0, 50, 0.2),
    (4242, 1, "unlisted", (0, 1), 20, 1.0),
    (4243, 2, 2, (1, 2), 700, 1.2),
    (4243, 2, 3, (1, 3), 600, 2.2),
    (4244, 1, None, 0, 30, 0.3),
]
OTHER_SAMPLES = 10
CYCLES_PER_PERIOD = 1000


def address(fid):
    fid_, module, offset, _ = FUNCTIONS[fid]
    if module is None:
        return offset
    return (EXE_BASE if module == EXE else LIBM_BASE) + offset


def rate_stats(rng, n, rate, template):
    """A rate object over n planted periods of about CYCLES_PER_PERIOD cycles."""
    sa = sb = saa = sbb = sab = s = ss = 0.0
    lo, hi = None, None
    counts = {}
    h = template["hist"]
    width = (h["hi"] - h["lo"]) / h["buckets"]
    for _ in range(n):
        b = float(rng.randint(CYCLES_PER_PERIOD - 200, CYCLES_PER_PERIOD + 200))
        a = round(b * rate / 1000 * rng.uniform(0.5, 1.5)) * 1000.0  # items × scale 1000
        r = a / b
        sa, sb, saa, sbb, sab = sa + a, sb + b, saa + a * a, sbb + b * b, sab + a * b
        s, ss = s + r, ss + r * r
        lo = r if lo is None else min(lo, r)
        hi = r if hi is None else max(hi, r)
        k = int((r - h["lo"]) / width)
        counts[k] = counts.get(k, 0) + 1
    over = sum(c for k, c in counts.items() if k >= h["buckets"])
    hist = {"buckets": h["buckets"], "lo": h["lo"], "hi": h["hi"], "underflow": 0,
            "overflow": over, "nan": 0,
            "counts": [[k, c] for k, c in sorted(counts.items()) if k < h["buckets"]]}
    if n == 0:
        return {"n": 0, "hist": hist}
    return {"n": n, "rate": sa / sb, "sum_a": sa, "sum_b": sb, "sum_aa": saa, "sum_bb": sbb,
            "sum_ab": sab, "mean": s / n, "sum": s, "sumsq": ss, "min": lo, "max": hi,
            "hist": hist}


def build(p):
    rng = random.Random(1997)
    template = p["tags"][0]["rates"][0]
    p["signals"]["tags"] = [{"slot": 0, "name": "phase"}, {"slot": 8, "name": "function"},
                            {"slot": 9, "name": "context"}]
    p["config"]["tag_slots"] = [0, 8, 9]
    p["modules"] = [
        {"path": EXE, "build_id": "3d66db2e642493e62461ac7f4d877ab7396ded07", "base": EXE_BASE},
        {"path": "linux-vdso.so.1", "build_id": "", "base": 0x7FFF00000000},
        {"path": LIBM, "build_id": "", "base": LIBM_BASE},
    ]
    p["functions"] = [
        {"id": fid, "address": address(fid), "module": module,
         "build_id": None if module is None else
         next(m["build_id"] for m in p["modules"] if m["path"] == module),
         "offset": offset, "name": name}
        for fid, module, offset, name in FUNCTIONS]
    p["cct"] = {"method_slot": 8, "cct_slot": 9, "threads": [
        {"index": index, "tid": tid, "overflow": 20 if index == 0 else 0,
         "nodes": [[0, None, None], [0, None, None]] + [list(n) for n in nodes]}
        for index, tid, nodes in THREADS]}
    tags = []
    for thread, phase, fid, ctx, samples, rate in ENTRIES:
        fn = 0 if fid is None else UNLISTED if fid == "unlisted" else address(fid)
        cv = 0 if ctx == 0 else (ctx[0] << 32) | ctx[1]
        kept = samples - samples // 10
        tags.append({"thread": thread, "values": [phase, fn, cv],
                     "names": [PHASES[phase], None, None], "samples": samples,
                     "share": 0.0, "cycles": samples * CYCLES_PER_PERIOD + 7 * phase,
                     "kept": kept, "rates": [rate_stats(rng, kept, rate, template)]})
    set_tags(p, tags, rng, template, OTHER_SAMPLES)


def set_tags(p, tags, rng, template, other_samples):
    """The tag entries, sorted, an `other` entry with other_samples, and the sample counts
    and shares that agree with them. The fixture scripts of the other views share it."""
    other = {"thread": None, "values": None, "names": None, "samples": other_samples,
             "share": 0.0, "cycles": other_samples * CYCLES_PER_PERIOD, "kept": 0,
             "rates": [rate_stats(rng, 0, 0, template)]}
    total = sum(t["samples"] for t in tags) + other_samples
    for t in tags + [other]:
        t["share"] = t["samples"] / total
    tags.sort(key=lambda t: -t["samples"])
    p["tags"], p["other"] = tags, other
    kept = sum(t["kept"] for t in tags)
    p["samples"].update({"total": total, "interrupted": 0, "rated": total, "kept": kept,
                         "discarded": total - kept, "thread_changes": 0,
                         "other": other_samples, "distinct_tags": len(tags)})
    return total


def entry_at(p, ctx):
    """The tag entry whose context is (thread index, node)."""
    cv = (ctx[0] << 32) | ctx[1]
    return next(t for t in p["tags"] if t["values"][2] == cv)


def breakage(p, brk):
    nodes0 = p["cct"]["threads"][0]["nodes"]
    if brk == "parent":
        nodes0[5][0] = 7
    elif brk == "function":
        nodes0[3][1] = 9
    elif brk == "unfolded":
        nodes0.append([5, 2, 0x1450])  # row 9: walk under visit under walk
    elif brk == "root":
        nodes0[0] = [0, 1, None]
    elif brk == "slot":
        p["signals"]["tags"].pop()
        p["config"]["tag_slots"].pop()
        for t in p["tags"]:
            t["values"].pop()
            t["names"].pop()
    elif brk == "node":
        entry_at(p, (0, 8))["values"][2] = 40
    elif brk == "thread":
        entry_at(p, (0, 7))["values"][2] = (5 << 32) | 2
    elif brk == "dup-id":
        p["functions"][1]["id"] = 0
    elif brk == "module":
        p["functions"][4]["module"] = "/nowhere/lib.so"
    else:
        sys.exit("cct_fixture.py: unknown BREAK " + brk)


def fixture_main(argv, doc, build_fn, break_fn):
    """IN OUT [BREAK]: the fixture IN made over by build_fn, broken by break_fn, in OUT.
    The fixture scripts of the other views share it."""
    if len(argv) not in (3, 4):
        sys.exit(doc)
    p = json.load(open(argv[1], encoding="utf-8"))
    build_fn(p)
    if len(argv) == 4:
        break_fn(p, argv[3])
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)


if __name__ == "__main__":
    fixture_main(sys.argv, __doc__, build, breakage)
