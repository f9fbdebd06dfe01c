#!/usr/bin/env python3
"""bench/realprog/run.py -- what shim costs a real, call-heavy program.

    bench/realprog/run.py [--quick]

The program is libxcrypt (Debian's libxcrypt-source, built by bench/realprog/build.sh
into BUILD/realprog/, never kept in this repository) driven by bench/realprog/driver.c:
a fixed number of iterations, each hashing one pass phrase with six methods. In one run,
interleaved, it times three configurations doing the same work:

  plain          built with -O2
  instrumented   built with -O2 -finstrument-functions, run alone: every function
                 entry and exit calls a hook, and the hooks resolve to glibc's empty
                 ones, so this is what the hooks alone cost
  shimrun        the instrumented build under shimrun: libshim preloaded, observing the
                 main thread from its start; the hooks resolve to libshim's where it
                 defines them (its calling-context runtime), else still to glibc's

and, once, the instrumented build with hooks that only count (count_calls.so, preloaded)
for the number of calls the hooks see: every function entry of libxcrypt and the
driver, with gcc's -finstrument-functions inlined functions included (clang's
-finstrument-functions-after-inlining reports about a sixth as many here). It reports
median times and their ratios to plain, and where the time goes in nanoseconds per
hooked call: the hooks (instrumented against plain) and shim's runtime and observer
(shimrun against instrumented). Which library's hooks each configuration ran is read
from the dynamic linker (LD_DEBUG=bindings), not assumed.
Each run's result checksum must equal the others' (and build.sh checks the plain build
against Debian's libcrypt), so all of them did the same work.

Writes realprog.csv (every run) into bench/results/ (--quick: bench/results/quick/).
bench/run runs it as its `realprog` step and puts the table in bench/README.md; run
alone, it builds libshim and shimrun first (into SHIM_BENCH_BUILD, default build/).
It is skipped, with one line saying why, when libxcrypt-source is not installed or the
build fails. --quick runs a short version (a build takes a few seconds from scratch,
well under a second when nothing changed).
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Iterations per run and interleaved repetitions. A full iteration is ~13 ms of hashing
# on the development machine, ~0.7 million calls.
FULL = {"iterations": 80, "runs": 11}
QUICK = {"iterations": 4, "runs": 3}

CONFIGS = ("plain", "instrumented", "shimrun")
LABELS = {"plain": "plain (`-O2`)",
          "instrumented": "`-finstrument-functions`, run alone",
          "shimrun": "`-finstrument-functions` under `shimrun`"}


def shown(path):
    """path as the summary shows it: relative to the checkout when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


class Skip(Exception):
    """The measurement cannot be made here; the message says why, in one line."""


def build_variant(build_dir, variant):
    """bench/realprog/build.sh VARIANT: (driver path, seconds it took)."""
    start = time.perf_counter()
    out = subprocess.run(["sh", os.path.join(HERE, "build.sh"), variant, build_dir],
                         capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        lines = [line for line in out.stderr.splitlines() if line.startswith("build.sh:")]
        raise Skip(lines[-1] if lines else f"build.sh {variant} failed")
    return out.stdout.splitlines()[-1], seconds


def run_driver(argv, env_extra=None):
    """One run: (the driver's own hashing seconds, the process's wall seconds, checksum,
    stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(env_extra or {})
    start = time.perf_counter()
    out = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    m = re.search(r"checksum ([0-9a-f]+), elapsed: ([0-9.]+) s", out.stdout)
    if out.returncode != 0 or not m:
        raise Skip(f"'{' '.join(argv)}' failed (exit {out.returncode}): "
                   f"{(out.stderr.strip().splitlines() or ['no output'])[-1]}")
    return float(m.group(2)), wall, m.group(1), out.stderr


def hooks_bound(argv, env_extra=None):
    """The library the dynamic linker bound the driver's __cyg_profile_func_enter to,
    in a one-iteration run of argv (its last argument is replaced by 1)."""
    _, _, _, err = run_driver(argv[:-1] + ["1"], dict(env_extra or {}, LD_DEBUG="bindings"))
    for line in err.splitlines():
        m = re.search(r"binding file \S*driver \[\d+\] to (\S+) .*`__cyg_profile_func_enter'",
                      line)
        if m:
            return m.group(1)
    return "none found"


def hooks_name(path):
    base = os.path.basename(path)
    if base.startswith("libc.so"):
        return "glibc's empty hooks"
    if base.startswith("libshim"):
        return "libshim's hooks"
    return base


def profile_summary(path):
    with open(path) as f:
        d = json.load(f)
    s = d["samples"]
    return {"median_period": d["period"]["median"],
            "kept_share": s["kept"] / s["rated"] if s["rated"] else 0.0}


def measure(build_dir, results_dir, quick):
    """The realprog step: a dict of results, or {"skipped": why}."""
    try:
        return _measure(build_dir, results_dir, quick)
    except Skip as e:
        return {"skipped": str(e)}


def _measure(build_dir, results_dir, quick):
    size = QUICK if quick else FULL
    shimrun = os.path.join(build_dir, "shimrun")
    if not os.path.exists(shimrun):
        raise Skip(f"no {shown(shimrun)}: build the project first")
    built = {}
    for variant in ("plain", "instrumented"):
        built[variant] = build_variant(build_dir, variant)
    plain, instrumented = built["plain"][0], built["instrumented"][0]
    counter = os.path.join(os.path.dirname(instrumented), "count_calls.so")
    n = str(size["iterations"])
    prof = os.path.join(tempfile.gettempdir(), f"shim-bench-realprog-{os.getpid()}.json")
    argv = {"plain": [plain, n], "instrumented": [instrumented, n],
            "shimrun": [shimrun, "-q", "-o", prof, "--", instrumented, n]}
    hooks = {c: hooks_bound(argv[c]) for c in ("instrumented", "shimrun")}
    counted_by = hooks_bound(argv["instrumented"], {"LD_PRELOAD": counter})
    if os.path.basename(counted_by) != "count_calls.so":
        raise Skip(f"the counting hooks were not the ones called ({counted_by} was)")

    rows, loop, wall, sums = [], {c: [] for c in CONFIGS}, {c: [] for c in CONFIGS}, set()
    for i in range(size["runs"]):  # interleaved: plain, instrumented, shimrun, plain, ...
        for c in CONFIGS:
            t, w, checksum, _ = run_driver(argv[c])
            loop[c].append(t)
            wall[c].append(w)
            sums.add(checksum)
            rows.append({"run": i, "config": c, "iterations": n, "loop_seconds": t,
                         "wall_seconds": w, "checksum": checksum, "calls": ""})
    observed = profile_summary(prof)
    os.unlink(prof)
    _, _, checksum, err = run_driver(argv["instrumented"], {"LD_PRELOAD": counter})
    sums.add(checksum)
    m = re.search(r"count_calls: (\d+) function entries", err)
    if not m:
        raise Skip("count_calls.so printed no count")
    calls = int(m.group(1))
    rows.append({"run": "", "config": "counting hooks", "iterations": n, "loop_seconds": "",
                 "wall_seconds": "", "checksum": checksum, "calls": calls})
    if len(sums) != 1:
        raise Skip(f"the runs did not all compute the same hashes (checksums {sorted(sums)})")
    with open(os.path.join(results_dir, "realprog.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)

    med = {c: statistics.median(loop[c]) for c in CONFIGS}
    medw = {c: statistics.median(wall[c]) for c in CONFIGS}
    pairs = {c: sorted(a / b for a, b in zip(loop[c], loop["plain"])) for c in CONFIGS}
    return {"iterations": size["iterations"], "runs": size["runs"], "calls": calls,
            "median": med, "median_wall": medw, "pairs": pairs,
            "calls_per_second": calls / med["plain"],
            "hook_ns": (med["instrumented"] - med["plain"]) / calls * 1e9,
            "shim_ns": (med["shimrun"] - med["instrumented"]) / calls * 1e9,
            "hooks": {c: hooks_name(p) for c, p in hooks.items()},
            "build_seconds": {v: built[v][1] for v in built},
            "observer": observed, "checksum": sums.pop(),
            "command": f"bench/realprog/driver {n} (libxcrypt, six hashing methods), "
                       f"{size['runs']} interleaved runs each"}


def summary(r):
    """Lines for bench/run's console summary."""
    if "skipped" in r:
        return [f"realprog: skipped: {r['skipped']}"]
    lines = [f"realprog: built plain in {r['build_seconds']['plain']:.1f} s, instrumented in "
             f"{r['build_seconds']['instrumented']:.1f} s; {r['calls']} hooked calls, "
             f"{r['calls_per_second'] / 1e6:.1f} million per second at plain speed"]
    for c in CONFIGS:
        hooks = f", {r['hooks'][c]}" if c in r["hooks"] else ""
        p = r["pairs"][c]
        lines.append(f"realprog {c:<13} median {r['median'][c]:.4f} s = "
                     f"{r['median'][c] / r['median']['plain']:.3f}x plain "
                     f"(pairs {p[0]:.3f}-{p[-1]:.3f}; wall {r['median_wall'][c]:.4f} s){hooks}"
                     f"   [{r['command']}]")
    lines.append(f"realprog: hooks {r['hook_ns']:+.2f} ns per hooked call, shim's runtime and "
                 f"observer {r['shim_ns']:+.2f} ns per call; observer's median period "
                 f"{r['observer']['median_period']:.0f} cycles, DTE kept "
                 f"{100 * r['observer']['kept_share']:.1f}%")
    return lines


def readme_lines(r):
    """The results block's lines for bench/README.md."""
    if "skipped" in r:
        return [f"A real program (libxcrypt) with and without shim: not measured: "
                f"{r['skipped']}."]
    lines = [f"A real program with and without shim ({r['command']}; "
             f"{r['calls']:,} calls seen by the hooks, inlined functions included: "
             f"{r['calls_per_second'] / 1e6:.1f} million per second at plain speed):", "",
             "| configuration | hooks called | median seconds | vs plain | single pairs "
             "| wall seconds |", "|---|---|---|---|---|---|"]
    for c in CONFIGS:
        p = r["pairs"][c]
        lines.append(f"| {LABELS[c]} | {r['hooks'].get(c, 'none: not instrumented')} | {r['median'][c]:.4f} | "
                     f"{r['median'][c] / r['median']['plain']:.3f} | "
                     f"{p[0]:.3f}-{p[-1]:.3f} | {r['median_wall'][c]:.4f} |")
    lines += ["", f"Per call: the hooks {r['hook_ns']:+.2f} ns (instrumented against plain), "
              f"shim's runtime and observer {r['shim_ns']:+.2f} ns (under shimrun against "
              f"instrumented alone); shimrun's observer sampled at a median "
              f"{r['observer']['median_period']:.0f} cycles, DTE kept "
              f"{100 * r['observer']['kept_share']:.1f}%."]
    return lines


def main():
    args = sys.argv[1:]
    if any(a != "--quick" for a in args):
        print(__doc__)
        return 2
    quick = "--quick" in args
    build_dir = os.path.abspath(os.environ.pop("SHIM_BENCH_BUILD", "") or os.path.join(ROOT, "build"))
    results = os.path.join(ROOT, "bench", "results", *(["quick"] if quick else []))
    os.makedirs(results, exist_ok=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2),
                    "--target", "shim", "shimrun"], check=True, stdout=subprocess.DEVNULL)
    r = measure(build_dir, results, quick)
    print("\n".join(summary(r)))
    if "skipped" not in r:
        print("\n".join(readme_lines(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
