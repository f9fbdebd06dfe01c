#!/usr/bin/env python3
"""variant.py -- write a variant of a profile for the shimview tests.

    python3 variant.py IN OUT CHANGE...

CHANGE is one of:
  no-rates          no counters, so no rates: the profile a program without SHIM_COUNT writes
  tag=I:NAME        tag entry I (in file order) gets the value name NAME
  program=NAME      the program's name
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
        elif key == "program":
            p["program"]["name"] = value
        else:
            sys.exit("variant.py: unknown change " + change)
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(p, f)


if __name__ == "__main__":
    main(sys.argv)
