#!/usr/bin/env python3
"""busy.py PROFILE [TRUTH] -- after a failed fidelity run: was the machine too busy for it
to say anything about shim? Exit 0, with one line saying why, when another process took
over 10% of the observer's CPU (`cost.observer_cpu_share` under 0.9) or, where the
program's truth file ends with "# lost-cpu F", of the program's (F over 0.1): while the
observer is preempted the program runs unobserved, while the program is, the observer
sees it stand still, and a rate or share measured around those stretches is the load's,
not shim's. Exit 1 otherwise (the failure stands)."""
import json
import sys

BUSY = 0.10


def lost_cpu(truth):
    """the truth file's "# lost-cpu F", 0 without"""
    try:
        for line in open(truth, encoding="utf-8"):
            if line.startswith("# lost-cpu "):
                return float(line.split()[2])
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    try:
        share = json.load(open(sys.argv[1], encoding="utf-8"))["cost"]["observer_cpu_share"]
    except (OSError, ValueError, KeyError, TypeError):
        return 1
    if not isinstance(share, (int, float)):
        share = 1.0
    lost = lost_cpu(sys.argv[2]) if len(sys.argv) == 3 else 0.0
    if share < 1 - BUSY or lost > BUSY:
        print("busy: the program lost its CPU for %.0f%% of its time and the observer had "
              "%.0f%% of its own (another process ran): this run measures the machine's load, "
              "not shim; it does not count" % (100 * lost, 100 * share))
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
