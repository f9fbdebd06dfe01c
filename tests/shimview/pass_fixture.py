#!/usr/bin/env python3
"""pass_fixture.py -- a profile of a program built with the compiler pass, for the shimview
tests, made from the fixture.

    python3 pass_fixture.py IN OUT [BREAK]

Replaces the fixture's tag slots with slot 0 (phase), 8 (function) and 10 (loop), adds
`modules`, `functions` (three with a table from the compiler pass, one without, as a
library function would be), planted tag entries and `paths`, and no `cct`: a program
built with the pass alone. The tables describe the functions of pass_source.c (next to
this file) at their real lines:

  sum_positive  a loop with an if inside: blocks entry, for.cond, for.body, if.then,
                for.inc, for.end; 6 paths, numbered here by Ball and Larus's rule from the
                control-flow graph, as the pass numbers them
  classify      two nested loops, and no path numbering: the fallback (too many paths)
  checked_div   a block that ends in abort() (no path through it reaches EXIT), so two
                edges out of the entry block carry the same val; 1 path. Its file is the
                relative name "pass_source.c", found next to the profile or not at all
  helper        listed in `functions` without a table

The slot-10 entries cover each loop, each function's time outside its loops (loop 0), a
loop of helper (no table: shown by number), a loop of an address `functions` does not
list, and samples outside every instrumented function (0); sum_positive's loop is sampled
in two threads. Path entries cover every path of sum_positive (path 0 in two threads),
checked_div's path and one of helper's. Rates come from planted periods (cct_fixture.py).

BREAK makes the profile malformed in one way, for the error tests:
  cycle     sum_positive's edges go round a cycle
  paths     sum_positive's `paths` disagrees with its edges
  loopnum   two loops of classify have the same number
  header    a loop header is not a block
  kind      an edge has an unknown kind
  from      a "return" edge leaves ENTRY
  loopsig   a tag entry names loop 9 of sum_positive, which has one loop
  pathfn    a path entry names a function id `functions` does not have
  pathnum   a path entry names path 6 of sum_positive, which has 6 (0 to 5)
  address   a path entry's function is not at the address its values hold
"""
import os
import random
import sys

from cct_fixture import CYCLES_PER_PERIOD, fixture_main, rate_stats, set_tags

EXE = "/opt/pass/bin/pathdemo"
EXE_BASE = 0x555555554000
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pass_source.c")
UNLISTED = 0x7F0000001000

# name, offset, file, line, blocks [(name, [lines])], successors per block, returning blocks,
# loops [(line, parent, header)], fallback (None: numbered)
FUNCTIONS = {
    "sum_positive": (0x1150, SOURCE, 7,
                     [("entry", [9, 10]), ("for.cond", [10]), ("for.body", [11]),
                      ("if.then", [12]), ("for.inc", [10]), ("for.end", [15])],
                     [[1], [2, 5], [3, 4], [4], [1], []], [5],
                     [(10, 0, 1)], None),
    "classify": (0x11C0, SOURCE, 18,
                 [("entry", [20, 21]), ("for.cond", [21]), ("for.body", [22]),
                  ("for.cond1", [22]), ("for.body2", [23]), ("for.inc", [22]),
                  ("for.end", [21]), ("for.inc3", [21]), ("for.end4", [25])],
                 [[1], [2, 8], [3], [4, 6], [5], [3], [7], [1], []], [8],
                 [(21, 0, 1), (22, 1, 3)], "20 paths > 16"),
    "checked_div": (0x1240, "pass_source.c", 28,
                    [("entry", [30]), ("if.then", [31]), ("if.end", [33])],
                    [[1, 2], [], []], [2], [], None),
}
HELPER_OFFSET = 0x1300


def address(name):
    return EXE_BASE + (HELPER_OFFSET if name == "helper" else FUNCTIONS[name][0])


def back_edges(succ):
    """The back edges of a depth-first search from block 0 (iterative)."""
    state, back, stack = {0: 1}, set(), [(0, iter(succ[0]))]
    while stack:
        u, it = stack[-1]
        v = next(it, None)
        if v is None:
            state[u] = 2
            stack.pop()
        elif state.get(v) == 1:
            back.add((u, v))
        elif v not in state:
            state[v] = 1
            stack.append((v, iter(succ[v])))
    return back


def ball_larus(succ, returns):
    """The acyclic graph's edges [from, to, val, kind] and the number of paths."""
    back = back_edges(succ)
    edges = [[-1, 0, "entry"]]
    for u, vs in enumerate(succ):
        for v in vs:
            if (u, v) in back:
                edges += [[-1, v, "start"], [u, -2, "end"]]
            else:
                edges.append([u, v, "edge"])
    edges += [[r, -2, "return"] for r in returns]
    np = {-2: 1}

    def count(v):
        if v not in np:
            np[v] = sum(count(e[1]) for e in edges if e[0] == v)
        return np[v]

    total = count(-1)
    out, running = [], {}
    for f, t, kind in edges:  # val: the paths through the earlier edges out of f
        out.append([f, t, running.get(f, 0), kind])
        running[f] = running.get(f, 0) + count(t)
    return out, total


def table(name):
    offset, file, line, blocks, succ, returns, loops, fallback = FUNCTIONS[name]
    edges, paths = ball_larus(succ, returns)
    depth = {}
    for i, (_, parent, _) in enumerate(loops):
        depth[i + 1] = 1 + depth.get(parent, 0)
    return {"name": name, "file": file, "line": line,
            "paths": 0 if fallback else paths, "fallback": fallback,
            "loops": [{"loop": i + 1, "file": file, "line": l, "parent": parent,
                       "depth": depth[i + 1], "header": header}
                      for i, (l, parent, header) in enumerate(loops)],
            "blocks": [{"name": b, "file": file, "lines": lines} for b, lines in blocks],
            "edges": [] if fallback else edges}


def loop_value(name, loop):
    return (address(name) if name in FUNCTIONS or name == "helper" else name) | (loop << 48)


# thread, phase, function (None: outside; an int: an address `functions` lacks), loop,
# samples, items per 1000 cycles
ENTRIES = [
    (4242, 2, "sum_positive", 1, 3000, 1.5),
    (4243, 2, "sum_positive", 1, 1000, 1.7),
    (4242, 2, "sum_positive", 0, 400, 0.5),
    (4242, 1, "classify", 2, 2000, 2.5),
    (4242, 1, "classify", 1, 600, 0.9),
    (4242, 1, "classify", 0, 200, 0.4),
    (4242, 3, "checked_div", 0, 100, 3.0),
    (4242, 3, "helper", 1, 150, 2.0),
    (4242, 3, UNLISTED, 2, 50, 1.0),
    (4242, 1, None, 0, 80, 0.2),
]
OTHER_SAMPLES = 10

# thread, function, path, samples, items per 1000 cycles
PATH_ENTRIES = [
    (4242, "sum_positive", 0, 1000, 1.6),
    (4243, "sum_positive", 0, 500, 1.8),
    (4242, "sum_positive", 1, 700, 1.2),
    (4242, "sum_positive", 2, 100, 0.7),
    (4242, "sum_positive", 3, 900, 1.4),
    (4242, "sum_positive", 4, 500, 1.1),
    (4242, "sum_positive", 5, 50, 0.6),
    (4242, "checked_div", 0, 100, 3.0),
    (4242, "helper", 1, 40, 2.0),
]
OVERWRITTEN, PENDING = 120, 30


def entry(rng, template, thread, values, samples, rate, salt):
    kept = samples - samples // 10
    return {"thread": thread, "values": values, "samples": samples, "share": 0.0,
            "cycles": samples * CYCLES_PER_PERIOD + 7 * salt, "kept": kept,
            "rates": [rate_stats(rng, kept, rate, template)]}


def build(p):
    rng = random.Random(2015)
    template = p["tags"][0]["rates"][0]
    p["signals"]["tags"] = [{"slot": 0, "name": "phase"}, {"slot": 8, "name": "function"},
                            {"slot": 10, "name": "loop"}]
    p["config"]["tag_slots"] = [0, 8, 10]
    build_id = "8c1f0a6d2e4b4f7a9d3c5e6f708192a3b4c5d6e7"
    p["modules"] = [{"path": EXE, "build_id": build_id, "base": EXE_BASE}]
    names = list(FUNCTIONS) + ["helper"]
    p["functions"] = []
    for i, name in enumerate(names):
        f = {"id": i, "address": address(name), "module": EXE, "build_id": build_id,
             "offset": address(name) - EXE_BASE, "name": name}
        if name in FUNCTIONS:
            f["pass"] = table(name)
        p["functions"].append(f)
    p.pop("cct", None)
    tags = []
    for k, (thread, phase, fn, loop, samples, rate) in enumerate(ENTRIES):
        fa = 0 if fn is None else fn if isinstance(fn, int) else address(fn)
        e = entry(rng, template, thread, [phase, fa, fa | (loop << 48)], samples, rate, k)
        e["names"] = [{1: "read", 2: "solve", 3: "print"}[phase], None, None]
        tags.append(e)
    total = set_tags(p, tags, rng, template, OTHER_SAMPLES)
    entries = []
    for k, (thread, fn, path, samples, rate) in enumerate(PATH_ENTRIES):
        e = entry(rng, template, thread, [address(fn), path], samples, rate, k)
        e.update({"names": [], "path": path, "function": names.index(fn)})
        e["share"] = samples / total
        entries.append(e)
    entries.sort(key=lambda e: -e["samples"])
    resolved = sum(e["samples"] for e in entries)
    p["paths"] = {"ring": 2048, "resolved": resolved, "overwritten": OVERWRITTEN,
                  "pending": PENDING, "entries": entries}


def fn_table(p, name):
    return next(f["pass"] for f in p["functions"] if f["name"] == name)


def breakage(p, brk):
    sp = fn_table(p, "sum_positive")
    if brk == "cycle":
        sp["edges"].append([4, 1, 0, "edge"])
    elif brk == "paths":
        sp["paths"] = 7
    elif brk == "loopnum":
        fn_table(p, "classify")["loops"][1].update({"loop": 1, "parent": 0})
    elif brk == "header":
        sp["loops"][0]["header"] = 6
    elif brk == "kind":
        sp["edges"][2][3] = "sideways"
    elif brk == "from":
        ret = next(e for e in sp["edges"] if e[3] == "return")
        ret[0] = -1
    elif brk == "loopsig":
        t = next(t for t in p["tags"] if t["values"][2] == loop_value("sum_positive", 1))
        t["values"][2] = loop_value("sum_positive", 9)
    elif brk == "pathfn":
        p["paths"]["entries"][0]["function"] = 17
    elif brk == "pathnum":
        e = p["paths"]["entries"][0]
        e["values"][1] = e["path"] = 6
    elif brk == "address":
        p["paths"]["entries"][0]["values"][0] += 16
    else:
        sys.exit("pass_fixture.py: unknown BREAK " + brk)


if __name__ == "__main__":
    fixture_main(sys.argv, __doc__, build, breakage)
