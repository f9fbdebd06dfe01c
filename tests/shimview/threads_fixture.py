#!/usr/bin/env python3
"""threads_fixture.py -- a profile of a program whose threads shared the observed CPU with
other processes, for the shimview tests, made from the fixture.

    python3 threads_fixture.py IN OUT [VARIANT]

Keeps the fixture's tag slot 0 (phase) and its rate `items`, and plants what the observer
writes when it learns the running thread from BPF: `placement.threads` lists main (4242),
worker (4243) and waiter (4244, which never ran on the CPU: no sample), thread ids came
from BPF, one observer. main and worker both ran eval, so the merged report adds the two
up; each has phases of its own too. Three other processes (tids 9001 to 9003) and the
idle task (tid 0) ran there as well: their entries hold slot values of 0, as the
observer reads no signal block of theirs. `other` (the tag table was full) has samples,
and some periods were interrupted. Each entry's `items` rate comes from planted periods,
so its sums agree with one another; check_threads.py recomputes every expected number
from the file.

VARIANT changes one thing:
  pinned        thread ids pinned to the observed thread (with why), two observers
  capped        more threads joined than the list holds
  legacy        no placement.threads (nor the members that come with it): every thread
                counts as the program's
  bad-tid       a listed tid of 0 (refused: that is the idle task)
  bad-threads   placement.threads is an object
  bad-observer  an observer without observer_cpu
  bad-why       thread_identity.why is a number
"""
import random
import sys

from cct_fixture import fixture_main, rate_stats, set_tags

PHASES = {1: "parse", 2: "eval", 3: "emit"}
THREADS = [(4242, "main"), (4243, "worker"), (4244, "waiter")]
# thread, phase (0: an entry of another process or idle, whose values read 0), samples,
# items per 1000 cycles
ENTRIES = [
    (4242, 1, 1500, 3.0),
    (4242, 2, 3000, 0.8),
    (4243, 2, 2500, 1.4),
    (4243, 3, 700, 2.0),
    (4243, 1, 200, 3.5),
    (9001, 0, 900, 0.5),
    (9002, 0, 400, 0.7),
    (9003, 0, 3, 0.6),
    (0, 0, 600, 0.05),
]
OTHER_SAMPLES = 50
INTERRUPTED = 37
CYCLES_PER_PERIOD = 1000


def build(p):
    rng = random.Random(2015)
    template = p["tags"][0]["rates"][0]
    tags = []
    for thread, phase, samples, rate in ENTRIES:
        kept = samples - samples // 8
        tags.append({"thread": thread, "values": [phase],
                     "names": [PHASES.get(phase)], "samples": samples,
                     "share": 0.0, "cycles": samples * CYCLES_PER_PERIOD + 11 * thread % 97,
                     "kept": kept, "rates": [rate_stats(rng, kept, rate, template)]})
    set_tags(p, tags, rng, template, OTHER_SAMPLES)
    s = p["samples"]
    s["total"] += INTERRUPTED
    s["interrupted"] = INTERRUPTED
    pl = p["placement"]
    pl["observed_tid"] = THREADS[0][0]
    pl["threads"] = [{"tid": tid, "name": name} for tid, name in THREADS]
    pl["threads_attached"] = len(THREADS) - 1
    pl["thread_identity"] = {"source": "bpf", "why": None}
    pl["observers"] = [{"observed_cpu": pl["observed_cpu"], "observer_cpu": pl["observer_cpu"],
                        "relation": pl["relation"], "shared": pl["shared"],
                        "samples": s["total"]}]


def variant(p, name):
    pl = p["placement"]
    if name == "pinned":
        # libshim's whole sentence, as written where tracefs is not mounted
        pl["thread_identity"] = {
            "source": "pinned",
            "why": "BPF is not available: attaching to the sched/sched_switch tracepoint failed "
                   "with ENOENT (no such tracepoint: the kernel needs tracing (CONFIG_FTRACE) "
                   "and tracefs mounted: mount -t tracefs nodev /sys/kernel/tracing)"}
        first = pl["observers"][0]
        pl["observers"] = [dict(first, samples=first["samples"] - 1000),
                           {"observed_cpu": 3, "observer_cpu": 2, "relation": "smt-sibling",
                            "shared": "core", "samples": 1000}]
    elif name == "capped":
        pl["threads_attached"] = 1500
    elif name == "legacy":
        for k in ("threads", "threads_attached", "thread_identity", "observers"):
            del pl[k]
    elif name == "bad-tid":
        pl["threads"][1]["tid"] = 0
    elif name == "bad-threads":
        pl["threads"] = {"tid": 4242}
    elif name == "bad-observer":
        del pl["observers"][0]["observer_cpu"]
    elif name == "bad-why":
        pl["thread_identity"]["why"] = 3
    else:
        sys.exit("threads_fixture.py: unknown VARIANT " + name)


if __name__ == "__main__":
    fixture_main(sys.argv, __doc__, build, variant)
