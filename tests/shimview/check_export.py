#!/usr/bin/env python3
"""check_export.py -- read back what `shimview export` and `shimview timeline` wrote.

    python3 check_export.py KIND FILE EXPECT [ARGS...]

KIND is perfetto, pprof (ARGS: the pprof.proto to decode with), folded (ARGS: samples or
time, and the profile), csv or timeline; EXPECT is the .expect.json that make_trace.py
wrote beside the trace (or the profile itself, for pprof and folded). Each file is parsed
with a real parser (json, protoc, csv, xml.etree), and what it holds is compared with
what the generator counted. Prints one "ok: ..." or "FAIL: ..." line per check.
"""
import csv
import gzip
import json
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

# what shimview names an unnamed value 0 of a tag slot (shimview/tags.h)
UNSET = "(before the first signal)"

results = []


def check(what, cond, why=""):
    results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % why))


def perfetto(path, exp):
    doc = json.load(open(path, encoding="utf-8"))
    ev = doc.get("traceEvents")
    check("perfetto: a traceEvents array", isinstance(ev, list), type(ev))
    by_ph = {}
    for e in ev:
        by_ph.setdefault(e["ph"], []).append(e)
    nslots = len(exp["slot_names"])
    meta = by_ph.get("M", [])
    names = {(m["name"], m.get("tid")): m["args"].get("name") for m in meta}
    check("perfetto: the process is named", ("process_name", None) in names, names)
    for s, slot in enumerate(exp["slot_names"]):
        got = names.get(("thread_name", s + 1), "")
        check("perfetto: track %d is named after slot %s" % (s + 1, slot), slot in got, got)
    check("perfetto: a track for drops", names.get(("thread_name", nslots + 1)) ==
          "dropped periods", names)
    slices = by_ph.get("X", [])
    for s in range(nslots):
        mine = sorted((e for e in slices if e["tid"] == s + 1), key=lambda e: e["ts"])
        check("perfetto: slot %d has one slice per run (%d)" % (s, exp["runs"][s]),
              len(mine) == exp["runs"][s], len(mine))
        periods = sum(e["args"]["periods"] for e in mine)
        check("perfetto: slot %d's slices cover every attributed period" % s,
              periods == exp["attributed"], "%d != %d" % (periods, exp["attributed"]))
        overlap = [a for a, b in zip(mine, mine[1:]) if a["ts"] + a["dur"] > b["ts"] + 1e-6]
        check("perfetto: slot %d's slices do not overlap" % s, not overlap, overlap[:1])
        want = {exp["names"].get(v, UNSET if v == 0 else "%s=%s" % (exp["slot_names"][s], v))
                for v in exp["values"][s]}
        got = {e["name"] for e in mine}
        check("perfetto: slot %d's slices are named after the values" % s, got == want,
              "%s != %s" % (sorted(got), sorted(want)))
        time_us = {}
        for e in mine:
            time_us[e["name"]] = time_us.get(e["name"], 0) + e["dur"]
        for v, cycles in exp["values"][s].items():
            name = exp["names"].get(v, UNSET if v == 0 else "%s=%s" % (exp["slot_names"][s], v))
            us = cycles / exp["tsc_hz"] * 1e6
            check("perfetto: slot %d, %s lasts %.3f us" % (s, name, us),
                  abs(time_us.get(name, 0) - us) <= 1e-3 * (1 + len(mine)),
                  time_us.get(name))
    counters = by_ph.get("C", [])
    nrates = len(exp["rate_names"])
    limit = exp.get("max_events")
    if limit:
        for r in exp["rate_names"]:
            n = sum(1 for e in counters if e["name"] == r)
            check("perfetto: --max-events %d bounds rate %s's counters" % (limit, r),
                  0 < n <= limit + 1, n)
    else:
        check("perfetto: one counter event per rate per 10 us bin (%d)" %
              (exp["rate_bins"] * nrates), len(counters) == exp["rate_bins"] * nrates,
              len(counters))
    check("perfetto: counters hold finite values",
          all(math.isfinite(e["args"]["value"]) for e in counters))
    if not limit:
        first = exp["rate_names"][0] if exp["rate_names"] else None
        wrong = [(e["ts"], e["args"]["value"], exp["bin_means"].get(str(round(e["ts"] / 10))))
                 for e in counters if e["name"] == first]
        wrong = [w for w in wrong if w[2] is None or abs(w[1] - w[2]) > 1e-6 * max(1, abs(w[2]))]
        check("perfetto: each counter is its bin's rate weighted by the periods' cycles",
              not wrong, wrong[:3])
    check("perfetto: counters are named after the rates",
          {e["name"] for e in counters} <= set(exp["rate_names"]))
    instants = by_ph.get("i", [])
    gaps = [e for e in instants if e["name"] == "dropped periods"]
    check("perfetto: one instant per gap in seq (%d)" % exp["gaps"], len(gaps) == exp["gaps"],
          len(gaps))
    check("perfetto: the gaps add up to dropped_full",
          sum(e["args"]["periods"] for e in gaps) == exp["dropped_full"])
    full = [e for e in instants if e["name"] == "trace file full"]
    check("perfetto: an instant where the file was full",
          len(full) == (1 if exp["dropped_limit"] else 0) and
          (not full or full[0]["args"]["periods"] == exp["dropped_limit"]), full)
    end = max((e["ts"] + e.get("dur", 0) for e in ev if "ts" in e), default=0)
    check("perfetto: the events span the trace (%.3f ms)" % exp["span_ms"],
          abs(end / 1e3 - exp["span_ms"]) < 1e-5, end)


def pprof(path, profile, proto):
    raw = gzip.open(path).read()
    out = subprocess.run(["protoc", "--decode=pprof.Profile", "--proto_path=" +
                          proto.rsplit("/", 1)[0], proto], input=raw, capture_output=True)
    check("pprof: protoc decodes the gunzipped file", out.returncode == 0, out.stderr[:300])
    text = out.stdout.decode()
    strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
    check("pprof: string_table[0] is empty", strings[:1] == [""], strings[:3])
    p = json.load(open(profile, encoding="utf-8"))
    slots = [s["name"] for s in p["signals"]["tags"]]
    names = set()
    for t in p["tags"]:
        for s, (v, n) in enumerate(zip(t["values"], t["names"])):
            names.add(n if n is not None else UNSET if v == 0 else "%s=%d" % (slots[s], v))
    check("pprof: the string table has the value names %s" % sorted(names),
          names <= set(strings), strings)
    for want in ("samples", "count", "time", "nanoseconds", "thread"):
        check("pprof: the string table has %s" % want, want in strings)
    samples = re.findall(r"^sample \{\n(.*?)^\}", text, re.M | re.S)
    values = [[int(x) for x in re.findall(r"value: (-?\d+)", s)] for s in samples]
    depths = [len(re.findall(r"location_id:", s)) for s in samples]
    attributed = p["samples"]["total"] - p["samples"]["interrupted"]
    check("pprof: sample counts add up to the attributed samples (%d)" % attributed,
          sum(v[0] for v in values) == attributed, sum(v[0] for v in values))
    cycles = sum(t["cycles"] for t in p["tags"] + [p["other"]] if t["samples"])
    ns = cycles / p["machine"]["tsc"]["hz"] * 1e9
    check("pprof: times add up to the tags' cycles in ns",
          abs(sum(v[1] for v in values) - ns) <= len(values), sum(v[1] for v in values))
    check("pprof: each stack has one frame per slot (%d)" % len(slots),
          depths and all(d == len(slots) for d in depths), depths)
    check("pprof: period_type is time/nanoseconds",
          re.search(r"period_type \{\n  type: (\d+)\n  unit: (\d+)", text) is not None and
          [strings[int(i)] for i in re.search(r"period_type \{\n  type: (\d+)\n  unit: (\d+)",
                                               text).groups()] == ["time", "nanoseconds"])


def folded(path, profile, value):
    p = json.load(open(profile, encoding="utf-8"))
    lines = open(path, encoding="utf-8").read().splitlines()
    parsed = [re.fullmatch(r"(\S(?:.*\S)?) (\d+)", line) for line in lines]
    check("folded: every line is 'stack count'", all(parsed), lines[:3])
    key = "samples" if value == "samples" else "cycles"
    total = sum(t[key] for t in p["tags"] + [p["other"]])
    got = sum(int(m.group(2)) for m in parsed if m)
    check("folded: the counts add up to the %s (%d)" % (key, total), got == total, got)
    nslots = len(p["signals"]["tags"])
    check("folded: each stack has %d frames" % nslots,
          all(len(m.group(1).split(";")) == nslots for m in parsed if m))
    check("folded: one line per stack", len({m.group(1) for m in parsed if m}) == len(parsed))


def csv_file(path, exp):
    rows = list(csv.reader(open(path, newline="", encoding="utf-8")))
    header = ["seq", "start_ms", "cycles", "flags", "thread"] + exp["slot_names"] + \
        exp["rate_names"]
    check("csv: the header", rows[:1] == [header], rows[:1])
    data = rows[1:]
    check("csv: one row per record (%d)" % exp["records"], len(data) == exp["records"],
          len(data))
    seqs = [int(r[0]) for r in data]
    check("csv: seq increases", all(a < b for a, b in zip(seqs, seqs[1:])))
    gaps = sum(1 for a, b in zip(seqs, seqs[1:]) if b != a + 1)
    check("csv: the gaps in seq (%d)" % exp["gaps"], gaps == exp["gaps"], gaps)
    rated = sum(1 for r in data if r[-1] != "")
    check("csv: rates are empty where a period has none", rated == exp["rated"], rated)
    check("csv: start_ms starts at 0 and increases",
          float(data[0][1]) == 0 and all(float(a[1]) <= float(b[1]) for a, b in
                                          zip(data, data[1:])))


def timeline(path, exp):
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    check("timeline: an svg document", root.tag == ns + "svg", root.tag)

    def texts(klass):
        return ["".join(t.itertext()) for t in root.iter(ns + "text") if t.get("class") == klass]
    axis = texts("axis-label")
    check("timeline: the time axis is labelled in ms",
          "time since the first record (ms)" in axis, axis)
    for want in exp.get("axis", []):
        check("timeline: an axis label '%s'" % want, any(want in a for a in axis), axis)
    rows = texts("row-label")
    for slot in exp["slot_names"] + ["dropped"]:
        check("timeline: a row for %s" % slot, slot in rows, rows)
    legend = " | ".join(texts("legend"))
    for want in exp.get("legend", []):
        check("timeline: the legend names %s" % want, want in legend, legend[:300])
    caption = " | ".join(texts("caption"))
    for want in exp.get("caption", []):
        check("timeline: the caption says '%s'" % want, want in caption, caption[:300])
    bands = [g for g in root.iter(ns + "g") if g.get("class") == "band"]
    check("timeline: a band per slot and the dropped row",
          len(bands) == len(exp["slot_names"]) + 1, len(bands))


def main(argv):
    kind, path = argv[1], argv[2]
    if kind in ("pprof", "folded"):
        (pprof if kind == "pprof" else folded)(path, argv[3], argv[4])
    else:
        exp = json.load(open(argv[3], encoding="utf-8"))
        for extra in argv[4:]:  # KEY=JSON overrides, e.g. max_events=10
            k, _, v = extra.partition("=")
            exp[k] = json.loads(v)
        {"perfetto": perfetto, "csv": csv_file, "timeline": timeline}[kind](path, exp)
    print("\n".join(results))


if __name__ == "__main__":
    main(sys.argv)
