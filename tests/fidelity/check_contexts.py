#!/usr/bin/env python3
"""check_contexts.py -- every calling context of many_contexts.c kept in its own tuple.

    python3 check_contexts.py PROFILE MIN_CONTEXTS

The leaf function of many_contexts.c is reached through 131,072 calling contexts. In the
profile, the tuples whose function (slot 8) is the leaf must name at least MIN_CONTEXTS
distinct contexts (slot 9), and no sample may have gone to `other`: the store held every
tuple the run reached. Beyond SHIM_INLINE_MAX entries the profile keeps the rest in its
table file, read here through protoc. Prints "ok: ..." / "FAIL: ..." lines and "N passed,
N failed".
"""
import json
import os
import subprocess
import sys


def table_entries(d, path):
    """The entries a large profile keeps in its table file (docs/profile-format.md, "Large
    profiles"), decoded by protoc, as dicts with thread, values and samples."""
    t = d.get("table")
    if not t:
        return []
    proto = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "formats",
                         "profile_table.proto")
    table = os.path.join(os.path.dirname(os.path.abspath(path)), t["file"])
    text = subprocess.run(["protoc", "--decode=shim_table.Table",
                           "--proto_path=" + os.path.dirname(proto), proto],
                          stdin=open(table, "rb"), capture_output=True, check=True).stdout
    out, cur, depth = [], None, 0
    for line in text.decode().splitlines():
        line = line.strip()
        if line.endswith("{"):
            depth += 1
            if depth == 1 and line.startswith("entries"):
                cur = {"values": [], "samples": 0, "thread": 0}
        elif line == "}":
            depth -= 1
            if depth == 0 and cur is not None:
                out.append(cur)
                cur = None
        elif cur is not None and depth == 1:
            key, value = line.split(":", 1)
            if key == "values":
                cur["values"].append(int(value))
            elif key in ("samples", "thread"):
                cur[key] = int(value)
    return out


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    d = json.load(open(argv[1], encoding="utf-8"))
    want = int(argv[2])
    tags = d["tags"] + table_entries(d, argv[1])
    results = []

    def check(what, cond, why=""):
        results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % why))

    slots = [t["slot"] for t in d["signals"]["tags"]]
    fn, ctx = slots.index(8), slots.index(9)
    leaf = [f["address"] for f in d.get("functions", []) if f["name"] == "leaf"]
    check("the profile lists the leaf function", len(leaf) == 1, leaf)
    leaf_addr = leaf[0] % 2**64 if leaf else None
    contexts = {t["values"][ctx] for t in tags if t["values"][fn] % 2**64 == leaf_addr}
    s = d["samples"]
    check("at least %d distinct contexts of the leaf have a tuple of their own" % want,
          len(contexts) >= want, len(contexts))
    check("no sample went to other", s["other"] == 0 and d["other"]["samples"] == 0,
          (s["other"], s.get("other_why")))
    check("distinct_tags counts the tuples written (JSON and table file)",
          s["distinct_tags"] == len(tags), (s["distinct_tags"], len(tags)))
    print("\n".join(results))
    print("%d distinct leaf contexts, %d tuples, %d bytes per entry" %
          (len(contexts), len(tags), d["cost"].get("tag_entry_bytes", 0)))
    failed = sum(1 for r in results if r.startswith("FAIL"))
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
