#!/usr/bin/env python3
"""Checks a profile of tests/fidelity/pass_phases.c against the truth it measured.

  check_pass.py PROFILE TRUTH SOURCE [TOLERANCE_PP [PATH_TOLERANCE_PP]]

Loops: the time shares of the three loops (two_paths's, other_loop's, main's), among
the three, from the loop signal's tag entries (slot 10: function address + loop << 48),
against the program's own TSC measurement. Paths: the two paths of two_paths's loop
body, recognised by the source lines marked LINE_LONG and LINE_SHORT in SOURCE after
regenerating each path number from the function's side table (the greedy walk of
docs/compiler-pass.md), their time shares between the two against the truth. Loops within
TOLERANCE_PP percentage points (default 2), paths within PATH_TOLERANCE_PP (default the
same).
"""
import json
import sys

LOOP_SHIFT = 48


def regenerate(pass_table, path):
    """The blocks of path number `path`, by the greedy walk over the edge values."""
    out = {}
    for frm, to, val, _kind in pass_table["edges"]:
        out.setdefault(frm, []).append((val, to))
    node, left, blocks = -1, path, []
    for _ in range(100000):
        if node == -2:
            break
        best = max((e for e in out.get(node, []) if e[0] <= left), default=None)
        if best is None:
            raise SystemExit(f"path {path}: no edge out of {node} with value <= {left}")
        left -= best[0]
        node = best[1]
        if node >= 0:
            blocks.append(node)
    if node != -2 or left != 0:
        raise SystemExit(f"path {path} does not regenerate (node {node}, left {left})")
    return blocks


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    prof = json.load(open(sys.argv[1]))
    truth = {}
    for line in open(sys.argv[2]):
        kind, name, value = line.split()
        truth[(kind, name)] = int(value)
    marks = {}
    for n, line in enumerate(open(sys.argv[3]), 1):
        for m in ("LINE_LONG", "LINE_SHORT"):
            if "enum { " + m in line:
                marks[m] = n
    tol = float(sys.argv[4]) if len(sys.argv) > 4 else 2.0
    path_tol = float(sys.argv[5]) if len(sys.argv) > 5 else tol
    fns = {f["address"] % 2**64: f for f in prof.get("functions", [])}
    by_name = {f["name"]: f for f in prof.get("functions", []) if f.get("name")}
    failures = []

    # loops
    slots = [s["slot"] for s in prof["signals"]["tags"]]
    if 10 not in slots:
        raise SystemExit("the loop slot (10) was not read")
    li = slots.index(10)
    loop_cycles = {}
    for e in prof["tags"]:
        v = e["values"][li] % 2**64
        fn, loop = v & (2**LOOP_SHIFT - 1), v >> LOOP_SHIFT
        f = fns.get(fn)
        if f and loop == 1:
            loop_cycles[f["name"]] = loop_cycles.get(f["name"], 0) + e["cycles"]
    names = ["two_paths", "other_loop", "main"]
    tsum = sum(truth[("loop", n)] for n in names)
    ssum = sum(loop_cycles.get(n, 0) for n in names)
    if ssum == 0:
        raise SystemExit(f"no samples in the three loops: {loop_cycles}")
    for n in names:
        t, s = 100.0 * truth[("loop", n)] / tsum, 100.0 * loop_cycles.get(n, 0) / ssum
        ok = abs(t - s) <= tol
        print(f"loop {n:<10} truth {t:6.2f}%  shim {s:6.2f}%  {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(n)

    # paths
    f = by_name.get("two_paths")
    if not f or "pass" not in f or not f["pass"].get("paths"):
        raise SystemExit("two_paths has no path numbering in the profile")
    table = f["pass"]
    path_cycles = {"LINE_LONG": 0, "LINE_SHORT": 0}
    for e in prof["paths"]["entries"]:
        if e["function"] != f["id"]:
            continue
        lines = set()
        for b in regenerate(table, e["path"]):
            lines.update(table["blocks"][b]["lines"])
        for m in path_cycles:
            if marks[m] in lines:
                path_cycles[m] += e["cycles"]
    tsum = truth[("path", "long")] + truth[("path", "short")]
    ssum = sum(path_cycles.values())
    if ssum == 0:
        raise SystemExit("no samples on the two paths")
    for m, t in (("LINE_LONG", truth[("path", "long")]), ("LINE_SHORT", truth[("path", "short")])):
        t, s = 100.0 * t / tsum, 100.0 * path_cycles[m] / ssum
        ok = abs(t - s) <= path_tol
        print(f"path {m:<10} truth {t:6.2f}%  shim {s:6.2f}%  {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(m)
    p = prof["paths"]
    print(f"paths: resolved {p['resolved']}, overwritten {p['overwritten']}, "
          f"pending {p['pending']}, dropped {p['dropped']}")
    if failures:
        raise SystemExit(f"outside the tolerance ({tol} pp for loops, {path_tol} for paths): "
                         f"{', '.join(failures)}")


main()
