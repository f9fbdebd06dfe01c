#!/usr/bin/env python3
"""Checks a profile of tests/fidelity/thread_phases.c against the truth it measured.

  check_threads.py PROFILE TRUTH [TOLERANCE_PP]

For each (thread, tag) of the truth, shim's share of the cycles of the samples
attributed to that thread and tag, over all four, against the share of the running time
the thread measured itself; each within TOLERANCE_PP percentage points (default 2).
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    prof = json.load(open(sys.argv[1]))
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0
    truth = {}
    for line in open(sys.argv[2]):
        tid, tag, cycles = line.split()
        truth[(int(tid), int(tag))] = int(cycles)
    slots = [s["slot"] for s in prof["signals"]["tags"]]
    i = slots.index(0)
    got = dict.fromkeys(truth, 0)
    for e in prof["tags"]:
        key = (e["thread"], e["values"][i])
        if key in got:
            got[key] += e["cycles"]
    tsum, ssum = sum(truth.values()), sum(got.values())
    if ssum == 0:
        raise SystemExit(f"no samples of the two threads' phases (threads in the profile: "
                         f"{sorted({e['thread'] for e in prof['tags']})})")
    bad = []
    for key in sorted(truth):
        t, s = 100.0 * truth[key] / tsum, 100.0 * got[key] / ssum
        ok = abs(t - s) <= tol
        print(f"thread {key[0]} tag {key[1]}: truth {t:6.2f}%  shim {s:6.2f}%  "
              f"{'ok' if ok else 'FAIL'}")
        if not ok:
            bad.append(key)
    if bad:
        raise SystemExit(f"outside {tol} pp: {bad}")


main()
