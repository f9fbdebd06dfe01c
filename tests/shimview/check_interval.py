#!/usr/bin/env python3
"""check_interval.py -- reads back what `shimview export --since` and `shimview top` wrote
(test_interval.sh), one "ok: ..." or "FAIL: ..." line per check.

    check_interval.py pprof FILE.pb.gz PPROF_PROTO EARLIER LATER
        the pprof file gunzipped and decoded by protoc: its samples add up to LATER's
        attributed samples less EARLIER's, and so do each tuple's; every sample has the
        labels program, host, pid, thread, interval_start and interval_end (nanoseconds),
        the interval being LATER's run less EARLIER's, which time_nanos and
        duration_nanos say too.
    check_interval.py top OUTPUT EXPECTED.json
        the blocks `top` printed to a pipe: at least two with an interval, each tag's
        share of an interval as EXPECTED.json (interval_fixture.py) computes it.
"""
import gzip
import json
import re
import subprocess
import sys


def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " (%s)" % str(detail)[:300]))


def attributed(d):
    return d["samples"]["total"] - d["samples"]["interrupted"]


def decode(path, proto):
    raw = gzip.open(path).read()
    out = subprocess.run(["protoc", "--decode=pprof.Profile", "--proto_path=" +
                          proto.rsplit("/", 1)[0], proto], input=raw, capture_output=True)
    check("protoc decodes the gunzipped file", out.returncode == 0, out.stderr[:300])
    return out.stdout.decode()


def pprof(path, proto, earlier, later):
    text = decode(path, proto)
    a, b = json.load(open(earlier)), json.load(open(later))
    strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
    samples = re.findall(r"^sample \{\n(.*?)^\}", text, re.M | re.S)
    values = [[int(x) for x in re.findall(r"^  value: (-?\d+)", s, re.M)] for s in samples]
    want = attributed(b) - attributed(a)
    got = sum(v[0] for v in values)
    check("the samples add up to the interval's (%d)" % want, got == want, got)
    # each tuple's own delta: a sample per tuple that gained samples, with its count
    key = lambda t: (t["thread"], tuple(t["values"] or ()))
    before = {key(t): t["samples"] for t in a["tags"] + [a["other"]]}
    deltas = sorted(t["samples"] - before.get(key(t), 0) for t in b["tags"] + [b["other"]])
    deltas = [d for d in deltas if d]
    check("one sample per tuple that gained, each with its own count",
          sorted(v[0] for v in values) == deltas, (sorted(v[0] for v in values)[:8], deltas[:8]))
    start = a["run"]["start_unix_ns"] + a["run"]["duration_ns"]
    end = b["run"]["start_unix_ns"] + b["run"]["duration_ns"]
    tn = re.search(r"^time_nanos: (\d+)$", text, re.M)
    dn = re.search(r"^duration_nanos: (\d+)$", text, re.M)
    check("time_nanos is the interval's start (%d)" % start, tn and int(tn.group(1)) == start,
          tn and tn.group(1))
    check("duration_nanos is the interval's length (%d)" % (end - start),
          dn and int(dn.group(1)) == end - start, dn and dn.group(1))
    want_labels = {"program": ("str", b["program"]["name"]), "host": ("str", b["machine"]["hostname"]),
                   "pid": ("num", b["program"]["pid"]), "interval_start": ("num", start),
                   "interval_end": ("num", end)}
    bad = []
    for s in samples:
        labels = {}
        for lab in re.findall(r"^  label \{\n(.*?)^  \}", s, re.M | re.S):
            k = strings[int(re.search(r"key: (\d+)", lab).group(1))]
            st, num = re.search(r"str: (\d+)", lab), re.search(r"num: (-?\d+)", lab)
            unit = re.search(r"num_unit: (\d+)", lab)
            labels[k] = (("str", strings[int(st.group(1))]) if st else ("num", int(num.group(1)) if num else 0),
                         strings[int(unit.group(1))] if unit else None)
        for k, v in want_labels.items():
            if k not in labels or labels[k][0] != v:
                bad.append((k, labels.get(k), v))
        if "thread" not in labels:
            bad.append(("thread", None))
        for k in ("interval_start", "interval_end"):
            if labels.get(k, (0, None))[1] != "nanoseconds":
                bad.append((k, "unit", labels.get(k)))
    check("every sample has the labels program, host, pid, thread and the interval", samples and not bad,
          bad[:3])


def top(path, expected):
    out = open(path).read()
    exp = json.load(open(expected))
    blocks = [b for b in out.split("\n\n") if b.strip()]
    intervals = [b for b in blocks if "\nlast interval " in b]
    check("at least two intervals printed (%d blocks, %d intervals)" % (len(blocks), len(intervals)),
          len(intervals) >= 2, out[:300])
    check("the last block is the final profile", blocks and "final profile 4" in blocks[-1],
          blocks[-1][:200] if blocks else "")
    for b in intervals:
        m = re.search(r"(snapshot|final profile) (\d+) at", b)
        n = int(m.group(2)) if m else 0
        e = next((x for x in exp if x["to"] == "stage%d.json" % n), None)
        if not e:
            check("block of profile %d has an expected interval" % n, False, b[:200])
            continue
        for tag, k in e["tags"].items():
            row = re.search(r"^%s\s+([\d.]+)%%\s+([\d.]+)%%" % re.escape(tag), b, re.M)
            want = 100.0 * k / e["samples"]
            check("interval to profile %d: %s has %.2f%% of it" % (n, tag, want),
                  row and abs(float(row.group(1)) - want) <= 0.006, row and row.group(0))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "pprof":
        pprof(*sys.argv[2:6])
    elif mode == "top":
        top(*sys.argv[2:4])
    else:
        sys.exit("usage: check_interval.py pprof|top ...")
