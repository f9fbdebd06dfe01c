#!/usr/bin/env python3
"""variant.py -- write a variant of a profile for the shimview tests.

    python3 variant.py IN OUT CHANGE...

CHANGE is one of:
  no-rates          no counters, so no rates: the profile a program without SHIM_COUNT writes
  tag=I:NAME        tag entry I (in file order) gets the value name NAME
  program=NAME      the program's name
  tiny-tag          one more tag entry, "tiny", with 0.05% of the samples
  big-dte           a long run's DTE counts (2,315,687 kept of 2,316,953 rated), whose
                    figures must still fit the legend
"""
import copy
import json
import sys


def no_rates(p):
    p["signals"]["counters"] = []
    p["config"]["counter_slots"] = []
    p["rates"] = []
    for t in p["tags"] + [p["other"]]:
        t["rates"] = []


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    p = copy.deepcopy(json.load(open(argv[1], encoding="utf-8")))
    for change in argv[3:]:
        key, _, value = change.partition("=")
        if key == "no-rates":
            no_rates(p)
        elif key == "tag":
            index, _, name = value.partition(":")
            p["tags"][int(index)]["names"][0] = name
        elif key == "tiny-tag":
            t = copy.deepcopy(p["tags"][-1])
            total = p["samples"]["total"] - p["samples"]["interrupted"]
            t["values"] = [99]
            t["names"] = ["tiny"]
            t["samples"] = max(1, int(total * 0.0005))
            t["share"] = t["samples"] / total
            t["cycles"] = t["samples"] * 100
            t["kept"] = min(t["kept"], t["samples"])
            p["tags"].append(t)
            p["samples"]["distinct_tags"] += 1
        elif key == "big-dte":
            s = p["samples"]
            s["kept"], s["discarded"] = 2315687, 1266
            s["rated"] = s["kept"] + s["discarded"]
            s["total"] = s["rated"] + s["thread_changes"] + s["interrupted"]
        elif key == "program":
            p["program"]["name"] = value
        else:
            sys.exit("variant.py: unknown change " + change)
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(p, f)


if __name__ == "__main__":
    main(sys.argv)
