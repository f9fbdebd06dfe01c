#!/usr/bin/env python3
"""check_same_functions.py PROFILE_A PROFILE_B [--pp LIMIT]: each function's share of
the samples (the function signal, tag slot 8, over the samples of the program's own
threads) in two profiles of one program built two ways, held to LIMIT percentage points
(default 2) of each other: a signal that one build adds (the stack walk's context) must
not move a sample to another function. Prints a table, and B's walk counters; exits 1
when a function's shares differ by more than LIMIT, 2 when a file cannot be read."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_cct  # noqa: E402
import check_functions  # noqa: E402


def shares(path):
    d = json.load(open(path))
    count, total = check_functions.by_function(d, "samples")
    return {k: 100 * v / max(total, 1) for k, v in count.items()}, d.get("cct", {}).get("walk")


def main(argv):
    limit = check_cct.pp_limit(argv, __doc__)
    if limit is None:
        return 2
    try:
        a, _ = shares(argv[1])
        b, walk = shares(argv[2])
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"check_same_functions: {e}")
        return 2
    bad = 0
    print(f"{'function':<16} {'A%':>8} {'B%':>8}")
    for name in sorted(set(a) | set(b), key=lambda k: -max(a.get(k, 0), b.get(k, 0))):
        sa, sb = a.get(name, 0), b.get(name, 0)
        if max(sa, sb) < 0.5:
            continue
        ok = abs(sa - sb) <= limit
        bad += not ok
        print(f"{name:<16} {sa:8.2f} {sb:8.2f} {'ok' if ok else 'FAIL'}")
    print(f"limit: {limit} pp; B's walks: {walk}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
