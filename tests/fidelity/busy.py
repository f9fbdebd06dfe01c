#!/usr/bin/env python3
"""busy.py PROFILE -- after a failed fidelity run: was the machine too busy for it to say
anything about shim? Exit 0, with one line saying why, when another process took over 10%
of the observer's CPU (`cost.observer_cpu_share` under 0.9): while the observer is
preempted the program runs unobserved, and a rate or share measured around those
stretches is the load's, not shim's. Exit 1 otherwise (the failure stands)."""
import json
import sys

BUSY = 0.10


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        share = json.load(open(sys.argv[1], encoding="utf-8"))["cost"]["observer_cpu_share"]
    except (OSError, ValueError, KeyError, TypeError):
        return 1
    if isinstance(share, (int, float)) and share < 1 - BUSY:
        print("skipped: the observer had %.0f%% of its CPU (another process ran): this run "
              "measures the machine's load, not shim" % (100 * share))
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
