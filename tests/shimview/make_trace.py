#!/usr/bin/env python3
"""make_trace.py -- write a shim trace (docs/trace-format.md) and a profile naming it.

    python3 make_trace.py PROFILE_IN OUT_DIR STEM [OPTION...]

writes OUT_DIR/STEM.json (PROFILE_IN with a `trace` member), OUT_DIR/STEM.json.trace and
OUT_DIR/STEM.expect.json, which holds what a correct reader finds in the trace, counted
here while the records are made: records, runs per slot, gaps in seq, rated periods, the
counter bins of `export --format perfetto`, and so on.

The records imitate a program in phases (slot 0: parse, eval, emit and a value the
profile never names) with, optionally, a loop tag in slot 1; some periods are discarded
by DTE, interrupted, or of another thread, and some runs of periods are dropped (gaps in
seq). Every period the profile counts and the trace does not hold is in dropped_limit,
so records + dropped_full + dropped_limit == samples.total, as the format says.

Options:
  --records N   records to write (default 20000)
  --slots 2     add tag slot 1 ("loop") to the profile and the records
  --seed S      random seed (default 1)
  --path MODE   how the profile names the trace: abs (default), rel (its file name,
                relative to the profile's directory), missing (a file that is not there)
  --damage D    spoil the trace: magic, version, short (40 bytes), partial (a trailing
                partial record, which readers ignore), words (record_words in the
                header disagrees), pid (another process wrote it)
  --weighted    instead of phases: two kept periods of 100 and 300 cycles with rates 1
                and 3, then an interrupted period of a million cycles; their mean
                weighted by cycles is 2.5 (2 without weights), in the expect file as
                weighted_mean

Every expect file also holds, per 10 us counter bin of `export --format perfetto`, the
mean of its records' rates weighted by their cycles (bin_means).
"""
import argparse
import copy
import json
import math
import os
import random
import struct
import sys

HEADER = struct.Struct("<8sIIIIdQQ16x")
PHASES = [(1, "parse", 1.2), (2, "eval", 2.0), (3, "emit", 3.0), (4, None, 0.5)]
LOOPS = [(7, "inner"), (9, None)]


def two_slots(p):
    p["signals"]["tags"].append({"slot": 1, "name": "loop"})
    p["config"]["tag_slots"] = [0, 1]
    for i, t in enumerate(p["tags"]):
        value, name = LOOPS[0] if i < 2 else LOOPS[1]
        t["values"].append(value)
        t["names"].append(name)


def grow(p, n):
    """Count n more periods in the profile, discarded by DTE and attributed to `other`,
    so that it stays consistent with a trace longer than the run it came from."""
    sm = p["samples"]
    for key in ("total", "rated", "discarded", "other"):
        sm[key] += n
    p["other"]["samples"] += n
    attributed = sm["total"] - sm["interrupted"]
    for t in p["tags"] + [p["other"]]:
        t["share"] = t["samples"] / attributed


def make_records(rng, n, nslots, hz):
    """The records, and what a reader should find in them."""
    t, seq = 5_000_000_000, 0
    first_start = t
    records = []
    exp = {"records": n, "gaps": 0, "dropped_full": 0, "rated": 0, "runs": [0] * nslots,
           "attributed": 0, "interrupted": 0, "values": [dict() for _ in range(nslots)]}
    phase_left = loop_left = 0
    phase = PHASES[0]
    loop = LOOPS[0]
    prev = None  # (thread, values, attributed) of the previous record
    bin_cycles = 10e-6 * hz
    bins = {}  # bin -> [sum of rate x cycles, cycles]
    for i in range(n):
        if phase_left == 0:
            phase = rng.choices(PHASES, weights=[4, 5, 2, 1])[0]
            phase_left = rng.randint(20, 400)
        if loop_left == 0:
            loop = LOOPS[rng.randrange(2)]
            loop_left = rng.randint(5, 50)
        phase_left -= 1
        loop_left -= 1
        values = [phase[0], loop[0]][:nslots]
        cycles = rng.randint(90, 170)
        thread = 4242
        roll = rng.random()
        if roll < 0.001:  # the observer was interrupted
            cycles, flags = 30000, 0
        elif roll < 0.0015:  # another thread at one end: no rate
            thread, flags = 4243, 1
        elif rng.random() < 0.92:
            flags = 1 | 2 | 4
        else:
            flags = 1 | 2  # discarded by DTE
        rate = phase[2] + rng.gauss(0, 0.15) if flags & 4 else math.nan
        dropped = seq if i == 0 else 0
        if i > 0 and rng.random() < 0.002:  # the ring was full: periods lost
            gap = rng.randint(1, 40)
            exp["gaps"] += 1
            exp["dropped_full"] += gap
            dropped = gap
            for _ in range(gap):
                t += rng.randint(90, 170)
            seq += gap
        attributed = bool(flags & 1)
        exp["attributed"] += attributed
        exp["interrupted"] += not attributed
        for s in range(nslots):
            continues = (prev is not None and dropped == 0 and attributed and prev[2]
                         and prev[0] == thread and prev[1][s] == values[s])
            if attributed and not continues:
                exp["runs"][s] += 1
            if attributed:
                key = str(values[s])
                exp["values"][s][key] = exp["values"][s].get(key, 0) + cycles
        if not math.isnan(rate):
            exp["rated"] += 1
            b = bins.setdefault(int((t - first_start) / bin_cycles), [0.0, 0.0])
            b[0] += rate * cycles
            b[1] += cycles
        records.append((seq, t, cycles, flags, thread, values, rate))
        prev = (thread, values, attributed)
        t += cycles
        seq += 1
    exp["rate_bins"] = len(bins)
    exp["bin_means"] = {str(k): s / w for k, (s, w) in bins.items()}
    exp["span_ms"] = (t - first_start) / hz * 1e3
    return records, exp


def weighted_records(nslots, hz):
    """Two kept periods of different lengths and rates, then an interrupted one."""
    t = 5_000_000_000
    records = [(0, t, 100, 7, 4242, [2, 7][:nslots], 1.0),
               (1, t + 100, 300, 7, 4242, [2, 7][:nslots], 3.0),
               (2, t + 400, 1_000_000, 0, 4242, [2, 7][:nslots], math.nan)]
    exp = {"records": 3, "gaps": 0, "dropped_full": 0, "rated": 2, "runs": [1] * nslots,
           "attributed": 2, "interrupted": 1, "values": [{"2": 400}, {"7": 400}][:nslots],
           "rate_bins": 1, "bin_means": {"0": 2.5}, "weighted_mean": 2.5,
           "span_ms": 1_000_400 / hz * 1e3}
    return records, exp


def write_trace(path, records, nslots, nrates, hz, damage):
    words = 5 + nslots + nrates
    version, pid, header_words = 1, 4242, words
    magic = b"SHIMTRC1"
    if damage == "magic":
        magic = b"NOTATRC1"
    elif damage == "version":
        version = 2
    elif damage == "words":
        header_words = words + 1
    elif damage == "pid":
        pid = 999
    rec = struct.Struct("<5Q%dQ%dd" % (nslots, nrates))
    with open(path, "wb") as f:
        f.write(HEADER.pack(magic, version, header_words, nslots, nrates, hz * 0.9999,
                            records[0][1] if records else 0, pid))
        for seq, start, cycles, flags, thread, values, rate in records:
            f.write(rec.pack(seq, start, cycles, flags, thread, *values, *([rate] * nrates)))
        if damage == "partial":
            f.write(b"\x01" * (3 * 8 + 5))
    if damage == "short":
        with open(path, "r+b") as f:
            f.truncate(40)


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("profile")
    ap.add_argument("out_dir")
    ap.add_argument("stem")
    ap.add_argument("--records", type=int, default=20000)
    ap.add_argument("--slots", type=int, default=1, choices=[1, 2])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--path", default="abs", choices=["abs", "rel", "missing"])
    ap.add_argument("--damage", choices=["magic", "version", "short", "partial", "words", "pid"])
    ap.add_argument("--weighted", action="store_true")
    a = ap.parse_args()

    p = copy.deepcopy(json.load(open(a.profile, encoding="utf-8")))
    if a.slots == 2:
        two_slots(p)
    hz = p["machine"]["tsc"]["hz"]
    nrates = len(p["rates"])
    if a.weighted:
        records, exp = weighted_records(a.slots, hz)
    else:
        records, exp = make_records(random.Random(a.seed), a.records, a.slots, hz)
    out_dir = os.path.abspath(a.out_dir)
    trace = os.path.join(out_dir, a.stem + ".json.trace")
    write_trace(trace, records, a.slots, nrates, hz, a.damage)

    total = p["samples"]["total"]
    if len(records) + exp["dropped_full"] > total:  # more periods than the profile counts
        grow(p, len(records) + exp["dropped_full"] - total)
        total = p["samples"]["total"]
    named = {"abs": trace, "rel": os.path.basename(trace),
             "missing": os.path.join(out_dir, "no-such-file.trace")}[a.path]
    p["trace"] = {"path": named, "records": len(records), "dropped_full": exp["dropped_full"],
                  "dropped_limit": total - len(records) - exp["dropped_full"],
                  "max_bytes": 64 + len(records) * 8 * (5 + a.slots + nrates),
                  "record_words": 5 + a.slots + nrates}
    exp["dropped_limit"] = p["trace"]["dropped_limit"]
    exp["tsc_hz"] = hz
    exp["slot_names"] = [s["name"] for s in p["signals"]["tags"]]
    exp["rate_names"] = [r["name"] for r in p["rates"]]
    exp["names"] = {"1": "parse", "2": "eval", "3": "emit", "7": "inner"}
    with open(os.path.join(out_dir, a.stem + ".json"), "w", encoding="utf-8") as f:
        json.dump(p, f, indent=1)
    with open(os.path.join(out_dir, a.stem + ".expect.json"), "w", encoding="utf-8") as f:
        json.dump(exp, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
