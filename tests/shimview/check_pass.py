#!/usr/bin/env python3
"""check_pass.py -- recompute what shimview's compiler-pass views must print from a
profile, and compare it with what they printed.

    python3 check_pass.py loops PROFILE CSV
    python3 check_pass.py paths PROFILE CSV [FUNCTION]
    python3 check_pass.py path PROFILE FUNCTION DIR     (DIR/ID.out: `shimview path` of ID)
    python3 check_pass.py report PROFILE CSV

Prints one line per check, "ok: WHAT" or "FAIL: WHAT (why)"; test_pass.sh counts them.
Paths are regenerated here from each function's table by the rule docs/compiler-pass.md
gives (from ENTRY, the edge with the largest val not above what remains, among edges to
nodes that reach EXIT), independently of shimview's code, and checked against the edges:
every step an edge of the table, from ENTRY to EXIT, the vals adding up to the id.
"""
import csv
import json
import os
import re
import sys

MASK = (1 << 48) - 1


def check(ok, what, why=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok or not why else " (%s)" % why))


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def load(path):
    p = json.load(open(path, encoding="utf-8"))
    total = p["samples"]["total"] - p["samples"]["interrupted"]
    cycles = sum(t["cycles"] for t in p["tags"]) + p["other"]["cycles"]
    by_addr = {f["address"]: f for f in p["functions"]}
    return p, total, cycles, by_addr


def add_up(entries, key):
    """Entries summed by key: samples, cycles, and rate 0's sums."""
    groups = {}
    for e in entries:
        g = groups.setdefault(key(e), {"samples": 0, "cycles": 0, "sum_a": 0.0, "sum_b": 0.0,
                                       "n": 0})
        g["samples"] += e["samples"]
        g["cycles"] += e["cycles"]
        r = e["rates"][0]
        if r["n"]:
            g["sum_a"] += r["sum_a"]
            g["sum_b"] += r["sum_b"]
            g["n"] += r["n"]
    return groups


def check_shares(row, g, total, cycles, what):
    """A CSV row's share, time share and rate against the sums of its group."""
    ok = (close(float(row["share"]), g["samples"] / total) and
          close(float(row["time_share"]), g["cycles"] / cycles) and
          close(float(row["rate_items"]), g["sum_a"] / g["sum_b"]))
    check(ok, what + ": share, time share, rate",
          "%s %s %s" % (row["share"], row["time_share"], row["rate_items"]))


def label(by_addr, address):
    f = by_addr.get(address)
    return f["name"] if f else "%#x" % address


def np_of(table):
    """Paths from each node to EXIT (-2) in the table's acyclic graph."""
    np = {-2: 1}

    def count(v):
        if v not in np:
            np[v] = sum(count(e[1]) for e in table["edges"] if e[0] == v)
        return np[v]

    for e in table["edges"]:
        count(e[0])
    return np


def regenerate(table, pid):
    """(blocks, first edge kind, last edge kind, edges taken) of path pid, or None."""
    np = np_of(table)
    node, rest, taken = -1, pid, []
    while node != -2:
        out = [e for e in table["edges"] if e[0] == node and e[2] <= rest and np.get(e[1], 0) > 0]
        if not out:
            return None
        e = max(out, key=lambda e: e[2])
        taken.append(e)
        rest -= e[2]
        node = e[1]
    if rest:
        return None
    return [e[1] for e in taken if e[1] >= 0], taken[0][3], taken[-1][3], taken


def span(table, blocks):
    lines = [l for b in blocks for l in table["blocks"][b]["lines"] if l]
    return (min(lines), max(lines)) if lines else (None, None)


# ---- loops ----

def check_loops(prof, out):
    p, total, cycles, by_addr = load(prof)
    col = [s["slot"] for s in p["signals"]["tags"]].index(10)
    groups = add_up(p["tags"], lambda t: t["values"][col] % (1 << 64))
    groups.pop(0, None)
    want = sorted(groups.items(), key=lambda kv: (-kv[1]["samples"], kv[0]))
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    check(len(rows) == len(want), "loops --csv: one row per loop signal but 0 (%d)" % len(want),
          "%d rows" % len(rows))
    for (value, g), row in zip(want, rows):
        fn = by_addr.get(value & MASK)
        loop = value >> 48
        what = "loops: %s loop %d" % (label(by_addr, value & MASK), loop)
        table = fn.get("pass") if fn else None
        lp = table["loops"][loop - 1] if table and loop else None
        want_row = {"function": label(by_addr, value & MASK), "loop": str(loop),
                    "line": str(lp["line"]) if lp else "",
                    "file": lp["file"] if lp else "",
                    "depth": str(lp["depth"]) if lp else ("0" if loop == 0 and fn else ""),
                    "parent": str(lp["parent"]) if lp else "",
                    "samples": str(g["samples"]), "n_items": str(g["n"])}
        bad = {k: (row.get(k), v) for k, v in want_row.items() if row.get(k) != v}
        check(not bad, what + ": function, loop, source, depth, samples", str(bad))
        check_shares(row, g, total, cycles, what)


# ---- paths ----

def check_paths(prof, out, only=None):
    p, total, cycles, by_addr = load(prof)
    entries = [e for e in p["paths"]["entries"]
               if only is None or label(by_addr, e["values"][0]) == only]
    groups = add_up(entries, lambda e: (e["values"][0], e["values"][1]))
    want = sorted(groups.items(), key=lambda kv: (-kv[1]["samples"], kv[0]))
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    check(len(rows) == len(want), "paths --csv%s: one row per (function, path) (%d)"
          % (" --function " + only if only else "", len(want)), "%d rows" % len(rows))
    for ((addr, pid), g), row in zip(want, rows):
        fn = by_addr.get(addr)
        what = "paths: %s path %d" % (label(by_addr, addr), pid)
        want_row = {"function": label(by_addr, addr), "path": str(pid),
                    "samples": str(g["samples"]), "n_items": str(g["n"])}
        table = fn.get("pass") if fn else None
        walk = regenerate(table, pid) if table else None
        if walk:
            blocks, first, last, _ = walk
            lo, hi = span(table, blocks)
            want_row.update({"blocks": str(len(blocks)), "first_line": str(lo),
                             "last_line": str(hi), "file": table["file"],
                             "start": "loop head" if first == "start" else "entry",
                             "end": "back edge" if last == "end" else "return"})
        else:
            want_row.update({"blocks": "", "start": "", "end": ""})
        bad = {k: (row.get(k), v) for k, v in want_row.items() if row.get(k) != v}
        check(not bad, what + ": samples, length, lines, start and end", str(bad))
        check_shares(row, g, total, cycles, what)


# ---- path, for every id ----

BLOCK = re.compile(r"^  block (\d+)(?: \((.*)\))?: (.*)$")
TEXT = re.compile(r"^    (.+):(\d+) +\| (.*)$")


def source_lines(prof, table):
    f = table["file"]
    for path in (f, os.path.join(os.path.dirname(prof), f)):
        if os.path.exists(path):
            return open(path, encoding="utf-8").read().split("\n")
    return None


def check_path_all(prof, name, outdir):
    p, total, cycles, by_addr = load(prof)
    fn = next(f for f in p["functions"] if f["name"] == name)
    table = fn["pass"]
    text = source_lines(prof, table)
    seen = {}
    for pid in range(table["paths"]):
        what = "path %s %d" % (name, pid)
        out = open(os.path.join(outdir, "%d.out" % pid), encoding="utf-8").read().split("\n")
        walk = regenerate(table, pid)
        if walk is None:
            check(False, what + ": regenerates here too")
            continue
        blocks, first, last, taken = walk
        got = [(int(m.group(1)), m.group(2) or "") for m in map(BLOCK.match, out) if m]
        want = [(b, table["blocks"][b]["name"]) for b in blocks]
        check(got == want, what + ": the blocks of the greedy walk", "%s, expected %s" % (got, want))
        valid = (taken[0][0] == -1 and taken[-1][1] == -2 and sum(e[2] for e in taken) == pid and
                 all(a[1] == b[0] for a, b in zip(taken, taken[1:])) and
                 all(e in table["edges"] for e in taken))
        check(valid, what + ": a path of the table's graph from ENTRY to EXIT whose vals add up")
        seen.setdefault(tuple(got), []).append(pid)
        check(out[0].startswith("path %d of %s" % (pid, name)), what + ": its heading", out[0])
        starts = [l for l in out if l.startswith("starts: ")]
        want_start = "at the head of loop" if first == "start" else "at the function's entry"
        check(starts and starts[0].startswith("starts: " + want_start), what + ": how it starts",
              str(starts))
        samples = sum(e["samples"] for e in p["paths"]["entries"]
                      if e["values"] == [fn["address"], pid])
        line = "samples: %s (" % format(samples, ",")
        check(any(l.startswith(line) for l in out), what + ": its samples (%d)" % samples)
        shown = [(int(m.group(2)), m.group(3)) for m in map(TEXT.match, out) if m]
        want_text = [(l, text[l - 1]) for b in blocks for l in table["blocks"][b]["lines"]
                     if text and 0 < l <= len(text)]
        check(shown == want_text, what + ": the source text of its lines",
              "%s, expected %s" % (shown[:3], want_text[:3]))
    dup = [ids for ids in seen.values() if len(ids) > 1]
    check(not dup and len(seen) == table["paths"],
          "path %s: all %d ids give distinct paths" % (name, table["paths"]), str(dup))


# ---- report's names ----

def loop_name(by_addr, value):
    if value == 0:
        return "(none)"
    fn = by_addr.get(value & MASK)
    loop = value >> 48
    name = label(by_addr, value & MASK)
    if loop == 0:
        return name + " (no loop)"
    table = fn.get("pass") if fn else None
    if table:
        lp = table["loops"][loop - 1]
        return "%s loop %d (%s:%d)" % (name, loop, os.path.basename(lp["file"]), lp["line"])
    return "%s loop %d" % (name, loop)


def check_report(prof, out):
    p, total, cycles, by_addr = load(prof)
    rows = {(r["thread"], r["value"]): r["name"] for r in csv.DictReader(open(out, encoding="utf-8"))}
    for t in p["tags"]:
        phase, fa, lv = t["values"]
        fname = "(none)" if fa == 0 else by_addr[fa]["name"] if fa in by_addr else \
            "function=%#x" % fa
        want = "%s/%s/%s" % (t["names"][0], fname, loop_name(by_addr, lv))
        got = rows.get((str(t["thread"]), "%d;%d;%d" % (phase, fa, lv)))
        check(got == want, "report names %s" % want, "got %s" % got)


def main(argv):
    modes = {"loops": (check_loops, 2), "paths": (check_paths, 2), "path": (check_path_all, 3),
             "report": (check_report, 2)}
    if len(argv) < 2 or argv[1] not in modes:
        sys.exit(__doc__)
    fn, nargs = modes[argv[1]]
    fn(*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
