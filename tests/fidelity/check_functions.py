#!/usr/bin/env python3
"""check_functions.py PROFILE TRUTH [--pp LIMIT] [--lost-max SHARE]: each function the
truth file names ("function cycles" lines, or "function low high" where the program knows
its time to lie between two measures, and "all cycles": the whole measured loop), its
share of the time in shim's profile against the share (or the span of shares) the program
measured itself with the TSC.

A function's share in the profile is the TSC cycles of the tag entries whose function
(tag slot 8, the method signal) is it, over the cycles of all the program's entries (the
time the CPU gave to other processes is theirs, where the thread word says). Prints a
table. Also checks that no sample pairs a function with another's context
(check_cct.torn), where the hooks' tree gives contexts. Exits 1 when a share is off by
more than LIMIT percentage points (default 2) or a sample is torn, or where the stack
walks' contexts were lost (cct.walk: unsteady, full or without a stack) in more than
SHARE of the walks, 2 when the files cannot be read."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_cct  # noqa: E402


def by_function(d, field):
    """Sums of an entry field ("cycles", "samples") per function named by tag slot 8,
    over the entries of the program's own threads (where the thread word says), and
    their total."""
    names = {f["address"] % 2**64: f["name"] for f in d["functions"]}
    slot = [t["slot"] for t in d["signals"]["tags"]].index(8)
    ours = {t["tid"] for t in d["placement"].get("threads", [])}
    sums, total = {}, 0
    for e in d["tags"]:
        if ours and e["thread"] not in ours:
            continue
        total += e[field]
        v = e["values"][slot] % 2**64
        name = names.get(v, hex(v))
        sums[name] = sums.get(name, 0) + e[field]
    return sums, total


def main(argv):
    limit = check_cct.pp_limit(argv, __doc__)
    if limit is None:
        return 2
    try:
        d = json.load(open(argv[1]))
        truth = {}
        for line in open(argv[2]):
            if line.strip() and not line.startswith("#"):
                name, low, *high = line.split()
                truth[name] = (float(low), float(high[0] if high else low))
        everything = truth.pop("all")[0]
        cycles, total = by_function(d, "cycles")
        total += d["other"]["cycles"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"check_functions: {e}")
        return 2
    bad = 0
    print(f"{'function':<16} {'truth%':>13} {'shim%':>8}")
    for name, (low, high) in sorted(truth.items()):
        lo, hi = 100 * low / everything, 100 * high / everything
        s = 100 * cycles.get(name, 0) / max(total, 1)
        ok = lo - limit <= s <= hi + limit
        bad += not ok
        t = f"{lo:.2f}" if low == high else f"{lo:.2f}-{hi:.2f}"
        print(f"{name:<16} {t:>13} {s:8.2f} {'ok' if ok else 'FAIL'}")
    print(f"limit: {limit} pp")
    if "cct" in d and d["cct"].get("source") == "hooks":
        bad += check_cct.torn_report(argv[1])
    if "--lost-max" in argv:
        most = float(argv[argv.index("--lost-max") + 1])
        lost, walks = check_cct.walks_lost(d)
        share = lost / max(walks, 1)
        ok = share <= most and walks > 0
        bad += not ok
        print(f"walks whose context was lost: {lost} of {walks} "
              f"({100 * share:.3f}%, at most {100 * most:g}%) {'ok' if ok else 'FAIL'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
