#!/usr/bin/env python3
"""check_alloc.py PROFILE TRUTH [--pct LIMIT] [--zero-pct LIMIT]: shim's allocation
signal against the truth alloc_phases measured itself.

For each phase, shim's `alloc` rate is the ratio of sums over the phase's tag entries
(the rate's sum_a / sum_b: bytes x 1000 over TSC cycles); the truth is the bytes jemalloc
counted for the thread in that phase, x 1000, over the phase's TSC cycles. A phase that
allocates must agree within LIMIT percent (default 5); one that allocates nothing (its
truth is 0) must read below ZERO-LIMIT percent (default 1) of the smallest non-zero
truth, since a period that straddles the switch to the next phase carries a little of
that phase's allocation. The profile must also describe the counter as the format says.
Prints a table; exits 1 on a failed check, 2 when the files cannot be read."""
import json
import sys


def option(argv, name, default):
    return float(argv[argv.index(name) + 1]) if name in argv else default


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    limit, zero_limit = option(argv, "--pct", 5.0), option(argv, "--zero-pct", 1.0)
    try:
        d = json.load(open(argv[1]))
        truth = {}
        for line in open(argv[2]):
            if line.strip():
                name, allocated, cycles = line.split()
                truth[name] = 1000 * int(allocated) / int(cycles)
    except (OSError, ValueError) as e:
        print(f"check_alloc: {e}")
        return 2
    bad = 0

    def check(ok, what):
        nonlocal bad
        bad += not ok
        print(f"{'ok' if ok else 'FAIL'}: {what}")

    counters = [c for c in d["signals"]["counters"] if c.get("source") == "jemalloc"]
    check([(c["name"], c["kind"], c["slot"], c["width"]) for c in counters]
          == [("allocated", "software", 0, 64)],
          "one jemalloc counter: allocated, software, slot 0, 64 bits")
    names = [r["name"] for r in d["rates"]]
    rate = d["rates"][names.index("alloc")] if "alloc" in names else {}
    check(rate.get("counter") == "allocated" and rate.get("unit") == "per 1000 cycles"
          and rate.get("scale") == 1000 and "per" not in rate,
          "rate alloc: allocated per 1000 TSC cycles")
    check(d["config"].get("alloc") == "on", "config.alloc is on")
    if bad:
        return 1

    slot = [t["name"] for t in d["signals"]["tags"]].index("phase")
    at = names.index("alloc")
    sums = {}
    for e in d["tags"]:
        r = e["rates"][at]
        s = sums.setdefault(e["names"][slot], [0.0, 0.0])
        s[0] += r.get("sum_a", 0.0)
        s[1] += r.get("sum_b", 0.0)
    smallest = min(t for t in truth.values() if t > 0)
    print(f"{'phase':<10} {'truth':>10} {'shim':>10}  (bytes per 1000 cycles)")
    for name, want in truth.items():
        a, b = sums.get(name, (0.0, 0.0))
        got = a / b if b else float("nan")
        if want > 0:
            ok = abs(got - want) <= limit / 100 * want
            how = f"within {limit}%"
        else:
            ok = 0 <= got <= zero_limit / 100 * smallest
            how = f"below {zero_limit}% of {smallest:.1f}"
        bad += not ok
        print(f"{name:<10} {want:10.2f} {got:10.2f}  {'ok' if ok else 'FAIL'} ({how})")
    # The truth is wall-clock TSC cycles; where the profile tells the threads on the
    # observed CPU apart, time another thread took there is in the truth's cycles and
    # not in shim's, and a phase interrupted by another thread is not the phase the
    # program measured: the two then disagree for reasons of the machine, not of shim.
    tid = d["placement"]["observed_tid"]
    total = sum(e["cycles"] for e in d["tags"]) + d["other"]["cycles"]
    foreign = sum(e["cycles"] for e in d["tags"] if e["thread"] != tid)
    if bad and total and foreign / total > 0.01:
        print(f"other threads ran on the observed CPU for {100 * foreign / total:.1f}% of "
              "the run: the truth counts that time, shim does not (run on a quiet machine)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
