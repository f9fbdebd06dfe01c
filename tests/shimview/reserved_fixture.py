#!/usr/bin/env python3
"""reserved_fixture.py -- a profile whose tag entries name all three reserved slots, and a
trace of it, for the shimview tests.

    python3 reserved_fixture.py PASS_PROFILE OUT_DIR STEM

PASS_PROFILE is pass_fixture.py's profile (slots 0, 8 function, 10 loop). This adds slot 9
(context), a function `main`, and a `cct` where main calls the function of each tag
entry that has one (a node per entry), as a program
built with both -finstrument-functions and the compiler pass has (a documented
combination), so that each such entry names three reserved values: its function, its
context and its loop. Writes OUT_DIR/STEM.json and OUT_DIR/STEM.json.trace, one record
per tag entry, in the format of docs/trace-format.md.
"""
import json
import os
import struct
import sys

HEADER = struct.Struct("<8sIIIIdQQ16x")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    p = json.load(open(sys.argv[1], encoding="utf-8"))
    out_dir, stem = os.path.abspath(sys.argv[2]), sys.argv[3]
    slots = [s["slot"] for s in p["signals"]["tags"]]
    at = slots.index(10)  # slot 9 goes before the loop slot, in slot order
    p["signals"]["tags"].insert(at, {"slot": 9, "name": "context"})
    p["config"]["tag_slots"] = slots[:at] + [9] + slots[at:]
    fn_slot = slots.index(8)
    ids = {f["address"]: f["id"] for f in p["functions"]}
    exe = p["functions"][0]
    main_id = max(ids.values()) + 1
    p["functions"].append({"id": main_id, "address": exe["address"] - 0x100,
                           "module": exe["module"], "build_id": exe["build_id"],
                           "offset": exe["offset"] - 0x100, "name": "main"})
    tids = sorted({t["thread"] for t in p["tags"]})
    # root, overflow, then main (node 2), which calls everything else
    nodes = {tid: [[0, None, None], [0, None, None], [0, main_id, None]] for tid in tids}
    for t in p["tags"]:
        fid = ids.get(t["values"][fn_slot])
        ctx = 0
        if fid is not None:
            index = tids.index(t["thread"])
            ctx = (index << 32) | len(nodes[t["thread"]])
            nodes[t["thread"]].append([2, fid, 0x1000 + len(nodes[t["thread"]])])
        t["values"].insert(at, ctx)
        t["names"].insert(at, None)
    p["cct"] = {"method_slot": 8, "cct_slot": 9, "threads": [
        {"index": i, "tid": tid, "overflow": 0, "nodes": nodes[tid]} for i, tid in enumerate(tids)]}

    hz, nrates, ntags = p["machine"]["tsc"]["hz"], len(p["rates"]), len(slots) + 1
    words = 5 + ntags + nrates
    rec = struct.Struct("<5Q%dQ%dd" % (ntags, nrates))
    trace = os.path.join(out_dir, stem + ".json.trace")
    t0 = 5_000_000_000
    with open(trace, "wb") as f:
        f.write(HEADER.pack(b"SHIMTRC1", 1, words, ntags, nrates, hz, t0, p["program"]["pid"]))
        for i, t in enumerate(p["tags"]):
            values = [v % 2**64 for v in t["values"]]
            f.write(rec.pack(i, t0 + 1000 * i, 1000, 7, t["thread"], *values, *([1.0] * nrates)))
    n = len(p["tags"])
    p["trace"] = {"path": trace, "records": n, "dropped_full": 0,
                  "dropped_limit": p["samples"]["total"] - n, "max_bytes": 64 + n * 8 * words,
                  "record_words": words}
    with open(os.path.join(out_dir, stem + ".json"), "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
