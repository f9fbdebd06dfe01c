#!/usr/bin/env python3
"""check_contexts.py -- every calling context of many_contexts.c kept in its own tuple.

    python3 check_contexts.py PROFILE MIN_CONTEXTS

The leaf function of many_contexts.c is reached through 131,072 calling contexts. In the
profile, the tuples whose function (slot 8) is the leaf must name at least MIN_CONTEXTS
distinct contexts (slot 9), and no sample may have gone to `other`: the store held every
tuple the run reached. Prints "ok: ..." / "FAIL: ..." lines and "N passed, N failed".
"""
import json
import sys


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    d = json.load(open(argv[1], encoding="utf-8"))
    want = int(argv[2])
    results = []

    def check(what, cond, why=""):
        results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % why))

    slots = [t["slot"] for t in d["signals"]["tags"]]
    fn, ctx = slots.index(8), slots.index(9)
    leaf = [f["address"] for f in d.get("functions", []) if f["name"] == "leaf"]
    check("the profile lists the leaf function", len(leaf) == 1, leaf)
    leaf_addr = leaf[0] % 2**64 if leaf else None
    contexts = {t["values"][ctx] for t in d["tags"] if t["values"][fn] % 2**64 == leaf_addr}
    s = d["samples"]
    check("at least %d distinct contexts of the leaf have a tuple of their own" % want,
          len(contexts) >= want, len(contexts))
    check("no sample went to other", s["other"] == 0 and d["other"]["samples"] == 0,
          (s["other"], s.get("other_why")))
    check("distinct_tags counts the tuples written", s["distinct_tags"] == len(d["tags"]),
          (s["distinct_tags"], len(d["tags"])))
    print("\n".join(results))
    print("%d distinct leaf contexts, %d tuples, %d bytes per entry" %
          (len(contexts), len(d["tags"]), d["cost"].get("tag_entry_bytes", 0)))
    failed = sum(1 for r in results if r.startswith("FAIL"))
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
