#!/usr/bin/env python3
"""check_cct.py PROFILE TRUTH [--pp LIMIT] [--lost-max SHARE] [--vs PROFILE2 TRUTH2]: each
planted calling context's share of the time in shim's profile against the share the
program measured itself with the TSC. With --vs, instead, the shares of two runs of the program (two
builds: the hooks' contexts and the stack walks', say) against each other: each
context's difference between the two profiles must be within LIMIT points of the
difference between the two truths.

A context's share in the profile is the TSC cycles of the tag entries whose context
signal (tag slot 9) names it, over the cycles of all the program's entries (where the
thread word says which thread ran, the time the CPU gave to other processes is theirs,
and the program's own measurement does not see it); the truth is its own exclusive
cycles over the loop's. Prints a table; exits 1 when a share is off by more
than LIMIT percentage points (default 2), 2 when the files cannot be read.

A profile whose contexts come from stack walks says how many walks lost their context
(cct.walk: the thread left the frames while they were read; their functions are kept):
those samples could be any context's, so a context may fall short of its share by that
many points on top of LIMIT (with --vs, each profile's lost share widens the side it
can move), and no more than --lost-max SHARE of the walks (default 0.06) may be lost.
Where a cache miss is slow the walks take longer and lose more, most of them in the
shortest frames (3.5% of cct_phases' walks, recurse 2.1 points short, on a 2-vCPU VM).

Also checks that the function and the context of every sample were read together: the
function a tag entry's slot 8 holds is the function of the context node its slot 9 names
(the node's own function; rows 0 and 1 name none, and a function of 0 is a thread
outside its instrumented functions, whose context is the node of the moment shim
started), and, where the loop word (slot 10) is read, the function it names. A sample
read between the hooks' two stores used to pair the callee with the caller's context
(signals/signal_block.h), a walk's function read apart from its frame another function's
(signals/stackwalk.h), and a walk's function the loop word read before it, another's;
any such sample fails the check."""
import json
import sys


def shares(profile, truth_file):
    """{context path: (truth %, shim %)} of one run."""
    d = json.load(open(profile))
    truth = dict(line.split() for line in open(truth_file)
                 if line.strip() and not line.startswith("#"))
    names = {f["id"]: f["name"] or hex(f["offset"]) for f in d["functions"]}
    slot = [t["slot"] for t in d["signals"]["tags"]].index(d["cct"]["cct_slot"])
    paths = {}
    for th in d["cct"]["threads"]:
        rows = th["nodes"]
        for i, (parent, fn, _site) in enumerate(rows):
            chain, j = [], i
            while j >= 2:
                chain.append(names[rows[j][1]])
                j = rows[j][0]
            paths[(th["index"] << 32) | i] = ">".join(reversed(chain))
    ours = {t["tid"] for t in d["placement"].get("threads", [])}
    cycles = {}
    for e in d["tags"] + [d["other"]]:
        if e["values"] is None or (ours and e["thread"] not in ours):
            continue
        p = paths.get(e["values"][slot] % 2**64, "?")
        cycles[p] = cycles.get(p, 0) + e["cycles"]
    total = sum(cycles.values()) + d["other"]["cycles"]
    everything = float(truth.pop("all"))
    return {path: (100 * float(c) / everything, 100 * cycles.get(path, 0) / total)
            for path, c in truth.items()}


def torn(profile):
    """(samples whose function is not their context's, or not their loop word's, samples
    with a context node)"""
    d = json.load(open(profile))
    address = {f["id"]: f["address"] % 2**64 for f in d["functions"]}
    tags = [t["slot"] for t in d["signals"]["tags"]]
    fslot, cslot = tags.index(d["cct"]["method_slot"]), tags.index(d["cct"]["cct_slot"])
    lslot = tags.index(10) if 10 in tags else None
    node_fn = {}
    for th in d["cct"]["threads"]:
        for i, (_parent, fn, _site) in enumerate(th["nodes"]):
            if i >= 2:
                node_fn[(th["index"] << 32) | i] = address.get(fn)
    bad = seen = 0
    for e in d["tags"]:
        want = node_fn.get(e["values"][cslot] % 2**64)
        fn = e["values"][fslot] % 2**64
        loop_fn = e["values"][lslot] % 2**48 if lslot is not None else 0
        if fn == 0 or (want is None and loop_fn == 0):
            continue
        seen += e["samples"]
        if (want is not None and fn != want) or (loop_fn and loop_fn != fn):
            bad += e["samples"]
    return bad, seen


def torn_report(profile):
    """Prints torn()'s count for the profile; 1 when a sample is torn, else 0."""
    t, seen = torn(profile)
    print(f"{profile}: {t} of {seen} samples pair a function with another's context"
          f" ({'FAIL' if t else 'ok'})")
    return int(t > 0)


def walks_lost(d):
    """(walks whose context was lost, walks) of a loaded profile; (0, 0) without walks"""
    w = d.get("cct", {}).get("walk") or {}
    return w.get("unsteady", 0) + w.get("full", 0) + w.get("no_stack", 0), w.get("walks", 0)


def pp_limit(argv, doc):
    """The --pp LIMIT of a checker's PROFILE TRUTH [--pp LIMIT] command line (default 2);
    None, having printed the usage, without PROFILE and TRUTH."""
    if len(argv) < 3:
        print(doc)
        return None
    return float(argv[argv.index("--pp") + 1]) if "--pp" in argv else 2.0


def main(argv):
    limit = pp_limit(argv, __doc__)
    if limit is None:
        return 2
    try:
        a = shares(argv[1], argv[2])
        b = shares(argv[argv.index("--vs") + 1], argv[argv.index("--vs") + 2]) \
            if "--vs" in argv else None
        most = float(argv[argv.index("--lost-max") + 1]) if "--lost-max" in argv else 0.06
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"check_cct: {e}")
        return 2
    profiles = [argv[1]] + ([argv[argv.index("--vs") + 1]] if b is not None else [])
    bad = 0
    lost = []
    for f in profiles:
        n, walks = walks_lost(json.load(open(f)))
        share = 100 * n / walks if walks else 0.0
        lost.append(share)
        if walks:
            ok = share <= 100 * most
            bad += not ok
            print(f"{f}: {share:.2f}% of {walks} walks lost their context (at most "
                  f"{100 * most:g}%) {'ok' if ok else 'FAIL'}")
    if b is None:
        print(f"{'context':<26} {'truth%':>8} {'shim%':>8}")
        for path, (t, s) in sorted(a.items()):
            ok = -limit - lost[0] <= s - t <= limit
            bad += not ok
            print(f"{path:<26} {t:8.2f} {s:8.2f} {'ok' if ok else 'FAIL'}")
    else:
        print(f"{'context':<26} {'truth%':>8} {'shim%':>8} {'truth2%':>8} {'shim2%':>8}")
        for path in sorted(set(a) | set(b)):
            (t1, s1), (t2, s2) = a.get(path, (0, 0)), b.get(path, (0, 0))
            ok = -limit - lost[0] <= (s1 - s2) - (t1 - t2) <= limit + lost[1]
            bad += not ok
            print(f"{path:<26} {t1:8.2f} {s1:8.2f} {t2:8.2f} {s2:8.2f} {'ok' if ok else 'FAIL'}")
    lost_text = ", ".join(f"{x:.2f}" for x in lost)
    print(f"limit: {limit} pp" + (f"; below, {limit} pp and the lost share ({lost_text})"
                                  if any(lost) else ""))
    for f in profiles:
        bad += torn_report(f)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
