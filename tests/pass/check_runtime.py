#!/usr/bin/env python3
"""Checks the path ring tests/pass/runtime.c filled while work() ran.

  check_runtime.py DUMP.json runtime.c

The ring must hold exactly the paths completed, numbered 1..head in order: for each of
the ten iterations the leaf called (then_leaf or else_leaf, path 0: they have no branch),
then the work() path that ran that iteration, which regenerates (by the side table read
in the running program) to blocks holding the line of the arm taken; the first work()
path starts at the function's entry, later ones at the loop header (a "start" edge), and
only the last ends with the return.
"""
import sys

from sidetable import Failures, load_dump, lines_of, marked_lines, regenerate, tables_by_fn

PATTERN = [1, 0, 0, 1, 0, 0, 1, 1, 0, 1]  # runtime.c's pattern[]


def main():
    dump = load_dump(sys.argv[1])
    marks = marked_lines(sys.argv[2], ("then", "else"))
    t = Failures()
    if not t.check(set(marks) == {"then", "else"}, f"MARK lines in {sys.argv[2]}: {marks}"):
        return t.finish()
    anchors = dump["anchors"]
    tables = tables_by_fn(dump)
    t.check(all(r["magic"] and r["length"] for r in dump["records"]),
            "every record has the magic word and its text's length")
    for name in ("work", "then_leaf", "else_leaf", "nested", "main"):
        t.check(anchors[name] in tables and tables[anchors[name]]["name"] == name,
                f"a side-table record for {name} at its run-time address")
    work = tables[anchors["work"]]
    t.check(len(work["loops"]) == 1 and work["loops"][0]["line"] > 0, "work has one loop, with a line")
    nested = tables[anchors["nested"]]
    t.check([(l["loop"], l["parent"], l["depth"]) for l in nested["loops"]] == [(1, 0, 1), (2, 1, 2)],
            "nested's loops: 1 outermost, 2 inside it")

    ring = dump["ring"]
    entries = ring["entries"]
    t.check(ring["head"] == len(entries), f"head {ring['head']} = number of entries {len(entries)}")
    t.check([e[0] for e in entries] == list(range(1, len(entries) + 1)),
            "entries numbered 1, 2, ... in order")

    leaf = {anchors["then_leaf"]: "then", anchors["else_leaf"]: "else"}
    tokens, work_paths = [], []
    for seq, fn, path in entries:
        if fn in leaf:
            t.check(path == 0, f"entry {seq}: {leaf[fn]}_leaf's only path is 0 (got {path})")
            tokens.append("leaf:" + leaf[fn])
            continue
        if not t.check(fn == anchors["work"], f"entry {seq}: a function of work's run ({fn:#x})"):
            continue
        r = regenerate(work, path)
        if not t.check(r is not None, f"entry {seq}: work path {path} regenerates"):
            continue
        work_paths.append(r)
        lines = lines_of(work, r[0])
        for arm in ("then", "else"):
            tokens += ["work:" + arm] * lines.count(marks[arm])
    want = [x for p in PATTERN for x in ("leaf:" + ("then" if p else "else"),
                                         "work:" + ("then" if p else "else"))]
    t.check(tokens == want, f"leaf paths and work's arms alternate as the pattern: {tokens}")
    if work_paths:
        t.check(work_paths[0][1] == "entry", "work's first path starts at the entry")
        t.check(all(p[1] == "start" for p in work_paths[1:]), "later paths start at the loop header")
        t.check(work_paths[-1][2] == "return", "the last path ends with the return")
        t.check(all(p[2] == "end" for p in work_paths[:-1]), "earlier paths end at the back edge")
        t.check(len(work_paths) in (len(PATTERN), len(PATTERN) + 1),
                f"one path per iteration (and one for the last test at -O0): {len(work_paths)}")
    if t.failed == 0:
        t.ok(f"{len(entries)} ring entries: leaf and work paths in order, each regenerated")
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
