#!/usr/bin/env python3
"""check_snapshots.py -- the snapshots of one run and its final profile, in order: every
sample in exactly one interval.

    check_snapshots.py SNAPSHOT... FINAL

Each profile must count exactly the periods of its own cut: its tag entries and `other`
add up to its attributed samples (total - interrupted), and their kept periods to its
kept ones. Between two consecutive profiles nothing goes back: the totals, and each
tuple's samples, TSC cycles, kept periods and rated periods, only grow, and no tuple
disappears. So the intervals' deltas are each >= 0, and added up from nothing through
the final profile they give the final profile's totals, tuple by tuple. The `snapshot`
members number the profiles 1, 2, ... without a gap, only the last says final, and each
names the previous one's duration as its interval's start; the snapshot thread's CPU time
(cpu_seconds) never goes back.
Prints one line per failure; exit status 0 when all hold, 1 otherwise.
"""
import json
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def entries(d):
    """tuple key -> (samples, cycles, kept, periods of each rate)"""
    out = {}
    for t in d["tags"] + [dict(d["other"], other=True)]:
        key = "other" if t.get("other") else (t["thread"], tuple(t["values"]))
        if key in out:
            fail("%s: tuple %s listed twice" % (d["_file"], key))
        out[key] = (t["samples"], t["cycles"], t["kept"]) + tuple(r["periods"] for r in t["rates"])
    return out


def check_one(d):
    s = d["samples"]
    es = entries(d)
    attributed = s["total"] - s["interrupted"]
    summed = sum(v[0] for v in es.values())
    if summed != attributed:
        fail("%s: tag entries hold %d samples, the totals say %d attributed"
             % (d["_file"], summed, attributed))
    kept = sum(v[2] for v in es.values())
    if kept != s["kept"]:
        fail("%s: tag entries hold %d kept periods, the totals say %d" % (d["_file"], kept, s["kept"]))
    return es


def main(paths):
    docs = []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        d["_file"] = p
        if "snapshot" not in d:
            fail("%s: no snapshot member" % p)
            return 1
        docs.append(d)
    first = docs[0]["snapshot"]["number"]
    for i, d in enumerate(docs):
        sn = d["snapshot"]
        if sn["number"] != first + i:
            fail("%s: snapshot number %d, expected %d" % (d["_file"], sn["number"], first + i))
        if sn["final"] != (i == len(docs) - 1):
            fail("%s: final is %s" % (d["_file"], sn["final"]))
        if i and sn["previous_duration_ns"] != docs[i - 1]["run"]["duration_ns"]:
            fail("%s: previous_duration_ns %d, the one before lasted %d"
                 % (d["_file"], sn["previous_duration_ns"], docs[i - 1]["run"]["duration_ns"]))
        if not sn.get("cpu_seconds", -1) >= 0 or \
                (i and sn["cpu_seconds"] < docs[i - 1]["snapshot"]["cpu_seconds"]):
            fail("%s: cpu_seconds %s, the one before %s" % (d["_file"], sn.get("cpu_seconds"),
                                                           i and docs[i - 1]["snapshot"]["cpu_seconds"]))
        if d["program"]["pid"] != docs[0]["program"]["pid"] or \
                d["run"]["start_unix_ns"] != docs[0]["run"]["start_unix_ns"]:
            fail("%s: not the same run" % d["_file"])
    per = [check_one(d) for d in docs]
    # intervals: from nothing (or the first file given) to each next one
    total = dict(per[0]) if first == 1 else None
    for i in range(1, len(docs)):
        a, b = per[i - 1], per[i]
        da, db = docs[i - 1]["samples"], docs[i]["samples"]
        for k in ("total", "interrupted", "rated", "kept", "other"):
            if db[k] < da[k]:
                fail("%s: samples.%s went back from %d to %d" % (docs[i]["_file"], k, da[k], db[k]))
        for key, va in a.items():
            vb = b.get(key)
            if vb is None:
                fail("%s: tuple %s of %s is gone" % (docs[i]["_file"], key, docs[i - 1]["_file"]))
                continue
            if any(y < x for x, y in zip(va, vb)):
                fail("%s: tuple %s went back: %s then %s" % (docs[i]["_file"], key, va, vb))
        if total is not None:
            for key, vb in b.items():
                va = a.get(key, (0,) * len(vb))
                prev = total.get(key, (0,) * len(vb))
                total[key] = tuple(p + (y - x) for p, x, y in zip(prev, va, vb))
    if total is not None and total != per[-1]:
        fail("the intervals' deltas do not add up to the final profile's tuples")
    if not failures:
        print("ok: %d profiles (snapshots %d to %d), %d tuples in the last; every sample in "
              "exactly one interval" % (len(docs), first, first + len(docs) - 1, len(per[-1])))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print("usage: check_snapshots.py SNAPSHOT... FINAL", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
