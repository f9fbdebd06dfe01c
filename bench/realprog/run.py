#!/usr/bin/env python3
"""bench/realprog/run.py -- what shim costs a real, call-heavy program.

    bench/realprog/run.py [--quick] [--program libxcrypt|lua|sqlite|tcc] [--pass MODES]... [--period CYCLES]

Four programs nobody wrote for shim, each built from Debian's sources and never kept in
this repository (PROGRAMS below):

  libxcrypt  (the default) Debian's libxcrypt-source, built by bench/realprog/build.sh
             into BUILD/realprog/, driven by bench/realprog/driver.c: a fixed number of
             iterations, each hashing one pass phrase with six methods; 8-52 million
             calls per second
  lua        Lua 5.4, Debian's lua5.4 source package fetched and built by
             bench/realprog/lua/build.sh into BUILD/realprog-lua/, driven by
             bench/realprog/lua/driver.c running bench/realprog/lua/workload.lua: a
             bytecode interpreter, call-dense (hundreds of millions of calls per second)
  sqlite     SQLite 3, Debian's sqlite3 source package fetched and built by
             bench/realprog/sqlite/build.sh into BUILD/realprog-sqlite/, driven by
             bench/realprog/sqlite/driver.c: a database engine (SQL compiled to bytecode
             for its virtual machine, B-trees, a sorter) running a fixed SQL workload
  tcc        TinyCC, Debian's tcc source package fetched and built by
             bench/realprog/tcc/build.sh into BUILD/realprog-tcc/, driven by
             bench/realprog/tcc/driver.c: a C compiler (preprocessor, parser, x86-64
             code generator) compiling a fixed translation unit in memory

Each is built in the variants of bench/realprog/variants.sh. For the program, in one
run, interleaved, it times three configurations doing the same work for each compiler:

  plain          built by gcc with -O2
  instrumented   built with -O2 -finstrument-functions, run alone: every function
                 entry and exit, inlined functions included, calls a hook, and the hooks
                 resolve to glibc's empty ones, so this is what the hooks alone cost
  shimrun        the instrumented build under shimrun: libshim preloaded, observing the
                 main thread from its start; the hooks resolve to libshim's where it
                 defines them (its calling-context runtime), else still to glibc's

and clang-plain, clang-instrumented and clang-shimrun, the same built by the pass's clang with
-O2 and -finstrument-functions-after-inlining (hooks only in the functions left after
inlining; skipped, with one line saying why, without the pass's clang). Once per compiler, the
instrumented build runs with hooks that only count (count_calls.so, preloaded) for the
number of calls the hooks see. It reports median times, their ratios to the same
compiler's plain build against the target (<= 1.3x under shimrun), and where the time
goes in nanoseconds per hooked call: the hooks (instrumented against plain) and shim's
runtime and observer (shimrun against instrumented). Which library's hooks each
configuration ran is read from the dynamic linker (LD_DEBUG=bindings), not assumed.
Each run's result checksum must equal the others' (and build.sh checks the plain build
against Debian's libcrypt), so all of them did the same work.

Then, for the compiler pass (docs/compiler-pass.md), interleaved in the same way and
against the same compiler without the pass: clang-plain, built by the pass's clang with -O2,
and for each pass mode M (PASS_MODES, or each --pass M given: a value of SHIM_PASS)
the build with the pass and SHIM_PASS=M (variant pass-M, commas written as dashes) in
two configurations, M-alone (run alone: the stores go to libshim's dummy block and
ring) and M-observed (under shimrun: the stores go to the observed block and ring,
which the observer reads). By default:

  method-loop-*               SHIM_PASS=method,loop: every function stores its loop word
                              (slot 10: the function and its loop)
  method-loop-context-*       SHIM_PASS=method,loop,context, the pass's defaults: its
                              frame too (slot 11), from which the observer walks the stack
  method-loop-path-context-*  every completed Ball-Larus path appended to the thread's
                              ring too
  method-loop-pcc-*           the encoded context's prototype instead of the frame

with medians, ratios to clang-plain and the targets beside them (PASS_TARGETS: method
and loop signals within 3%, contexts within 10% alone and 25% observed, path signals
within 25%), and,
from each observed configuration's last profile, the samples, the functions, loops and
paths seen and how the periods found their paths. The checksums of these runs must all
be equal too, and the build scripts check clang-plain's against plain's.

Writes PROGRAM.csv and PROGRAM_pass.csv (realprog.csv and realprog_pass.csv for
libxcrypt, lua.csv and lua_pass.csv for Lua, sqlite.csv and sqlite_pass.csv for SQLite,
tcc.csv and tcc_pass.csv for TinyCC; every run, the profile's figures on the
run they were read from) into bench/results/ (--quick: bench/results/quick/). bench/run
runs both for every program as its `realprog`, `realprog pass`, `lua`, `lua pass`,
`sqlite`, `sqlite pass`, `tcc` and `tcc pass` steps and puts their tables in bench/README.md; run alone, it builds libshim, shimrun
and the pass's plugin first (into SHIM_BENCH_BUILD, default build/). Each is skipped,
with one line saying why, when the program's sources cannot be had or a build fails;
the pass's, also when there is no clang of the pass's version or no plugin (the project builds it where
clang/LLVM 14 to 19 are installed; SHIM_PASS_PLUGIN names another). --quick runs a short
version (a build takes seconds from scratch, well under a second when nothing changed;
the first builds of Lua and SQLite also fetch their sources). --period CYCLES observes every run under
shimrun at that sample period (`shimrun -p`) instead of the default, and writes into
bench/results/period-CYCLES/: one point of the observer's share against the period
(docs/calling-contexts.md), M-observed over M-alone.
"""
import csv
import functools
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

# The programs: the name shown, the script that builds a variant, the arguments the
# driver takes before the iterations, the iterations per run and interleaved repetitions (full and quick),
# the name of the step (its console lines and CSV files) and the command in words.
PROGRAMS = {
    # A full iteration is ~13 ms of hashing on the development machine, ~0.7 million calls.
    "libxcrypt": {"name": "libxcrypt", "build": os.path.join(HERE, "build.sh"), "args": [],
                  "full": {"iterations": 80, "runs": 11},
                  "quick": {"iterations": 4, "runs": 3}, "step": "realprog",
                  "command": "bench/realprog/driver {n} (libxcrypt, six hashing methods)"},
    # An iteration is ~0.8 ms of Lua on the development machine, ~0.3 million calls (gcc's
    # hooks, inlined copies included): a full run ~1.2 s at -O2.
    "lua": {"name": "Lua", "build": os.path.join(HERE, "lua", "build.sh"),
            "args": [os.path.join(HERE, "lua", "workload.lua")],
            "full": {"iterations": 1500, "runs": 7},
            "quick": {"iterations": 100, "runs": 3}, "step": "lua",
            "command": "bench/realprog/lua/driver workload.lua {n} (Lua 5.4: recursion, "
                       "methods, sorting with a Lua comparator, strings)"},
    # An iteration is ~3-5 ms of SQL on the development machine: a full run ~1 s at -O2.
    "sqlite": {"name": "SQLite", "build": os.path.join(HERE, "sqlite", "build.sh"), "args": [],
               "full": {"iterations": 250, "runs": 7},
               "quick": {"iterations": 20, "runs": 3}, "step": "sqlite",
               "command": "bench/realprog/sqlite/driver {n} (SQLite 3: an in-memory table "
                          "of 2,000 rows filled, grouped, sorted, joined and updated)"},
    # An iteration is ~2.4 ms of compiling on the development machine: a full run ~1.2 s.
    "tcc": {"name": "TinyCC", "build": os.path.join(HERE, "tcc", "build.sh"), "args": [],
            "full": {"iterations": 500, "runs": 7},
            "quick": {"iterations": 40, "runs": 3}, "step": "tcc",
            "command": "bench/realprog/tcc/driver {n} (TinyCC compiling 400 small C functions "
                       "in memory, a fresh compiler each time)"},
}

# Each compiler's three configurations; the first is the others' baseline.
COMPILERS = {"gcc": ("plain", "instrumented", "shimrun"),
             "clang": ("clang-plain", "clang-instrumented", "clang-shimrun")}
CONFIGS = COMPILERS["gcc"] + COMPILERS["clang"]
BASE = {c: configs[0] for configs in COMPILERS.values() for c in configs}
VARIANT = {"plain": "plain", "instrumented": "instrumented", "shimrun": "instrumented",
           "clang-plain": "clang-plain", "clang-instrumented": "clang-instrumented",
           "clang-shimrun": "clang-instrumented"}
LABELS = {"plain": "gcc `-O2` (plain)",
          "instrumented": "gcc `-finstrument-functions`, run alone",
          "shimrun": "gcc `-finstrument-functions` under `shimrun`",
          "clang-plain": "clang `-O2`",
          "clang-instrumented": "clang `-finstrument-functions-after-inlining`, run alone",
          "clang-shimrun": "clang `-finstrument-functions-after-inlining` under `shimrun`"}
# The calling-context issue's target for a program under shim's runtime and observer.
TARGET = (1.3, "≤ 1.3× under shim's calling-context runtime and observer (Ammons et al.: "
               "1.6× on SPEC95 for contexts and hardware counters)")


def shown(path):
    """path as the summary shows it: relative to the checkout when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


class Skip(Exception):
    """The measurement cannot be made here; the message says why, in one line."""


def build_variant(prog, build_dir, variant):
    """The program's build script for VARIANT: (driver path, seconds it took)."""
    start = time.perf_counter()
    out = subprocess.run(["sh", prog["build"], variant, build_dir],
                         capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        lines = [line for line in out.stderr.splitlines() if line.startswith("build.sh:")]
        raise Skip(lines[-1] if lines else f"build.sh {variant} failed")
    return out.stdout.splitlines()[-1], seconds


def run_driver(argv, env_extra=None):
    """One run: (the driver's own hashing seconds, the process's wall seconds, checksum,
    stderr). The compiler pass's settings (SHIM_PASS, SHIM_PASS_PLUGIN) are build.sh's,
    not the program's: libshim would warn about names it does not know."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith("SHIM_PASS")}
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


def interleaved(argv, configs, runs, n, blank=None):
    """runs rounds of one run of each of configs, in turn (A B C A B C ...), so that a
    change in the machine's load falls on all of them alike: (CSV rows with the columns
    of blank left empty, driver seconds and wall seconds by configuration, the set of
    checksums)."""
    rows, loop, wall, sums = [], {c: [] for c in configs}, {c: [] for c in configs}, set()
    for i in range(runs):
        for c in configs:
            t, w, checksum, _ = run_driver(argv[c])
            loop[c].append(t)
            wall[c].append(w)
            sums.add(checksum)
            rows.append(dict({"run": i, "config": c, "iterations": n, "loop_seconds": t,
                              "wall_seconds": w, "checksum": checksum}, **(blank or {})))
    return rows, loop, wall, sums


def against(loop, wall, base):
    """Medians of the driver's and the wall seconds, and each configuration's single-pair
    ratios to its base (sorted; base: {config: its base}): the pairs are runs of the
    same round."""
    med = {c: statistics.median(v) for c, v in loop.items()}
    medw = {c: statistics.median(v) for c, v in wall.items()}
    pairs = {c: sorted(a / b for a, b in zip(v, loop[base[c]])) for c, v in loop.items()}
    return med, medw, pairs


def write_rows(path, rows):
    """rows (dicts) as CSV, the header from the row with the most columns."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(max(rows, key=len)))
        w.writeheader()
        w.writerows(rows)


def skippable(step):
    """step, returning {"skipped": why} instead of its results when it cannot be made;
    the results name the program's step either way."""
    @functools.wraps(step)
    def run(build_dir, results_dir, quick, program="libxcrypt", **options):
        try:
            r = step(build_dir, results_dir, quick, PROGRAMS[program], **options)
        except Skip as e:
            r = {"skipped": str(e)}
        return dict(r, step=PROGRAMS[program]["step"], program=PROGRAMS[program]["name"])
    return run


def prepare(prog, build_dir, quick, variants):
    """What a step starts from: its size, shimrun, and each of variants built, in order
    ({variant: (driver path, seconds the build took)})."""
    shimrun = os.path.join(build_dir, "shimrun")
    if not os.path.exists(shimrun):
        raise Skip(f"no {shown(shimrun)}: build the project first")
    return (prog["quick" if quick else "full"], shimrun,
            {v: build_variant(prog, build_dir, v) for v in variants})


def source_version(driver):
    """The version of the sources a driver was built from, as its build script wrote it
    (the first line of the Debian package's changelog: its name and version)."""
    try:
        with open(os.path.join(os.path.dirname(driver), "version")) as f:
            line = f.read().strip()
    except OSError:
        return "version unknown"
    m = re.match(r"(\S+) \(([^)]+)\)", line)
    return f"{m.group(1)} {m.group(2)}" if m else line


PERIOD = []  # shimrun's -p CYCLES where --period was given


def observed_at():
    """How the observed runs sampled, in words, where --period chose it."""
    return f", observed every {PERIOD[1]} cycles" if PERIOD else ""


def commands(prog, shimrun, n, drivers, observed):
    """Each configuration's command line ({config: argv}) and the profiles the observed
    ones write ({config: path}): a driver run for n iterations, alone or, where
    observed(config), under shimrun."""
    profs, argv = {}, {}
    for c, driver in drivers.items():
        run = [driver] + prog["args"] + [n]
        if observed(c):
            profs[c] = os.path.join(tempfile.gettempdir(),
                                    f"shim-bench-{prog['step']}-{c}-{os.getpid()}.json")
            argv[c] = [shimrun, "-q", "-o", profs[c]] + PERIOD + ["--"] + run
        else:
            argv[c] = run
    return profs, argv


def count_calls(counter, argv):
    """Function entries the hooks see in a run of argv, with the counting hooks preloaded:
    (count, checksum)."""
    _, _, checksum, err = run_driver(argv, {"LD_PRELOAD": counter})
    m = re.search(r"count_calls: (\d+) function entries", err)
    if not m:
        raise Skip("count_calls.so printed no count")
    return int(m.group(1)), checksum


@skippable
def measure(build_dir, results_dir, quick, prog):
    """The realprog step for the program: a dict of results, or {"skipped": why}. gcc's
    configurations always; clang's too where the pass's clang builds them (else "clang_skipped"
    says why)."""
    size, shimrun, built = prepare(prog, build_dir, quick, ("plain", "instrumented"))
    clang_skipped = None
    try:
        built.update({v: build_variant(prog, build_dir, v)
                      for v in ("clang-plain", "clang-instrumented")})
    except Skip as e:
        clang_skipped = str(e)
    configs = CONFIGS if clang_skipped is None else COMPILERS["gcc"]
    counter = os.path.join(os.path.dirname(built["instrumented"][0]), "count_calls.so")
    n = str(size["iterations"])
    profs, argv = commands(prog, shimrun, n, {c: built[VARIANT[c]][0] for c in configs},
                           lambda c: c.endswith("shimrun"))
    instrumented = [c for c in configs if c != BASE[c]]
    hooks = {c: hooks_bound(argv[c]) for c in instrumented}
    counted_by = hooks_bound(argv["instrumented"], {"LD_PRELOAD": counter})
    if os.path.basename(counted_by) != "count_calls.so":
        raise Skip(f"the counting hooks were not the ones called ({counted_by} was)")

    rows, loop, wall, sums = interleaved(argv, configs, size["runs"], n, {"calls": ""})
    observed = {c: profile_summary(p) for c, p in profs.items()}
    for p in profs.values():
        os.unlink(p)
    calls = {}
    for compiler, (base, alone, _) in COMPILERS.items():
        if alone in argv:
            calls[base], checksum = count_calls(counter, argv[alone])
            sums.add(checksum)
            rows.append({"run": "", "config": f"{alone}, counting hooks", "iterations": n,
                         "loop_seconds": "", "wall_seconds": "", "checksum": checksum,
                         "calls": calls[base]})
    if len(sums) != 1:
        raise Skip(f"the runs did not all compute the same result (checksums {sorted(sums)})")
    write_rows(os.path.join(results_dir, f"{prog['step']}.csv"), rows)

    med, medw, pairs = against(loop, wall, BASE)
    per_call = {compiler: {"hook_ns": (med[alone] - med[base]) / calls[base] * 1e9,
                           "shim_ns": (med[run] - med[alone]) / calls[base] * 1e9}
                for compiler, (base, alone, run) in COMPILERS.items() if base in calls}
    return {"iterations": size["iterations"], "runs": size["runs"], "configs": configs,
            "calls": calls, "median": med, "median_wall": medw, "pairs": pairs,
            "calls_per_second": {b: calls[b] / med[b] for b in calls},
            "per_call": per_call, "clang_skipped": clang_skipped,
            "hooks": {c: hooks_name(p) for c, p in hooks.items()},
            "build_seconds": {v: built[v][1] for v in built},
            "observer": observed, "checksum": sums.pop(),
            "version": source_version(built["plain"][0]),
            "command": f"{prog['command'].format(n=n)}, {size['runs']} interleaved runs each"
                       f"{observed_at()}"}


def timing(r, c, base, cells=False):
    """Configuration c's times against base: in words for the console, or as the table
    cells median seconds | ratio | single pairs | wall seconds."""
    p, ratio = r["pairs"][c], r["median"][c] / r["median"][base]
    if cells:
        return (f"{r['median'][c]:.4f} | {ratio:.3f} | {p[0]:.3f}-{p[-1]:.3f} | "
                f"{r['median_wall'][c]:.4f}")
    return (f"median {r['median'][c]:.4f} s = {ratio:.3f}x {base} (pairs {p[0]:.3f}-"
            f"{p[-1]:.3f}; wall {r['median_wall'][c]:.4f} s)")


def verdict(r, c):
    """A configuration under shimrun against the target; '-' for the others."""
    if not c.endswith("shimrun"):
        return "-"
    ratio = r["median"][c] / r["median"][BASE[c]]
    return f"≤ {TARGET[0]:.1f}: {'met' if ratio <= TARGET[0] else 'missed'}"


def per_call_line(r, compiler):
    """Where the time goes per hooked call, for one compiler's builds."""
    base, _, run = COMPILERS[compiler]
    k, o = r["per_call"][compiler], r["observer"][run]
    return (f"{compiler}'s builds, per hooked call: the hooks {k['hook_ns']:+.2f} ns (run alone "
            f"against {base}), shim's runtime and observer {k['shim_ns']:+.2f} ns (under "
            f"shimrun against alone); the observer sampled at a median "
            f"{o['median_period']:.0f} cycles, DTE kept {100 * o['kept_share']:.1f}%")


def summary(r):
    """Lines for bench/run's console summary."""
    step = r["step"]
    if "skipped" in r:
        return [f"{step}: skipped: {r['skipped']}"]
    built = ", ".join(f"{v} in {s:.1f} s" for v, s in r["build_seconds"].items())
    lines = [f"{step}: {r['program']} ({r['version']}), built {built}; hooked calls: "
             + ", ".join(f"{b} {r['calls'][b]} ({r['calls_per_second'][b] / 1e6:.1f} million "
                         f"per second at {b} speed)" for b in r["calls"])]
    if r["clang_skipped"]:
        lines.append(f"{step}: clang's builds skipped: {r['clang_skipped']}")
    for c in r["configs"]:
        hooks = f", {r['hooks'][c]}" if c in r["hooks"] else ""
        lines.append(f"{step} {c:<18} {timing(r, c, BASE[c])}{hooks}, target "
                     f"{verdict(r, c)}   [{r['command']}]")
    lines += [f"{step}: {per_call_line(r, b)}" for b in r["per_call"]]
    return lines


def readme_lines(r):
    """The results block's lines for bench/README.md."""
    if "skipped" in r:
        return [f"A real program ({r['program']}) with and without shim: not measured: "
                f"{r['skipped']}."]
    lines = [f"A real program, {r['program']} ({r['version']}), with and without shim "
             f"({r['command']}; calls seen by the "
             f"hooks: " + ", ".join(f"{r['calls'][b]:,} in the {b} build "
                                    f"({r['calls_per_second'][b] / 1e6:.1f} million per "
                                    f"second at its speed)" for b in r["calls"])
             + f"); target {TARGET[1]}:", "",
             "| configuration | hooks called | median seconds | vs the same compiler's `-O2` "
             "| single pairs | wall seconds | target |", "|---|---|---|---|---|---|---|"]
    for c in r["configs"]:
        lines.append(f"| {LABELS[c]} | {r['hooks'].get(c, 'none: not instrumented')} | "
                     f"{timing(r, c, BASE[c], cells=True)} | {verdict(r, c)} |")
    lines.append("")
    if r["clang_skipped"]:
        lines.append(f"clang's builds: not measured: {r['clang_skipped']}.")
    lines += [f"- {per_call_line(r, b)}." for b in r["per_call"]]
    return lines

# The compiler pass's measurement: each build, and each pass build run alone (its stores
# go to libshim's dummy block and ring) and observed under shimrun, against the same
# compiler without the pass. The modes measured, each a value of SHIM_PASS (the variant
# pass-MODE of bench/realprog/variants.sh builds with it): a new mode of the pass is
# measured by adding its name here (or by --pass MODE).
PASS_MODES = ("method,loop", "method,loop,context", "method,loop,path,context", "method,loop,pcc")
# The targets: at most these ratios to clang-plain, run alone and observed. A mode's
# target is that of the first signal in this list that it contains; a mode with none
# of them has none.
PASS_TARGETS = (("path", 1.25, 1.25, "path signals ≤ 25% alone and observed (Ammons et "
                                     "al.: 32% on SPEC95 for path profiling alone)"),
                ("context", 1.10, 1.25, "calling contexts ≤ 10% alone, ≤ 25% observed "
                                        "(docs/calling-contexts.md)"),
                ("pcc", 1.10, 1.25, "the encoded-context prototype, held to the targets of "
                                    "calling contexts"),
                ("loop", 1.03, 1.03, "method and loop signals ≤ 3% alone and observed (the "
                                     "SHIM paper: ~1% on Jikes RVM)"),
                ("method", 1.03, 1.03, "method and loop signals ≤ 3% alone and observed "
                                       "(the SHIM paper: ~1% on Jikes RVM)"))
PASS_PROFILE_COLUMNS = ("samples", "median_period", "functions_seen", "loops_seen",
                        "loops_in_functions_seen", "paths_seen", "paths_resolved",
                        "paths_overwritten", "paths_pending", "paths_dropped", "paths_none")


def pass_target(mode):
    """(limit alone, limit observed, words) for a pass mode, or None."""
    signals = mode.split(",")
    return next((t[1:] for t in PASS_TARGETS if t[0] in signals), None)


def pass_configs(modes):
    """The pass step's configurations in order and each one's (variant, SHIM_PASS or
    None): clang-plain, then per mode M its build alone and observed, M-alone and
    M-observed (commas written as dashes)."""
    configs = {"clang-plain": ("clang-plain", None)}
    for mode in modes:
        slug = mode.replace(",", "-")
        for run in ("alone", "observed"):
            configs[f"{slug}-{run}"] = (f"pass-{slug}", mode)
    return configs


def pass_profile_summary(path):
    """What a profile of a pass build says about its signals: the samples, the functions
    (slot 8) and loops (slot 10 with a loop number) seen, the loops the pass numbered in
    those functions, the paths seen and how the attributed periods found their path."""
    with open(path) as f:
        d = json.load(f)
    names = [t["name"] for t in d["signals"]["tags"]]
    fn, lp = names.index("function"), names.index("loop")
    words = [[v % 2 ** 64 for v in t["values"]] for t in d["tags"]]
    paths = d.get("paths") or {}
    s = d["samples"]
    return {"samples": s["total"], "median_period": d["period"]["median"],
            "functions_seen": len({w[fn] for w in words if w[fn]}),
            "loops_seen": len({w[lp] for w in words if w[lp] >> 48}),
            "loops_in_functions_seen": sum(len(f["pass"]["loops"])
                                           for f in d.get("functions", []) if f.get("pass")),
            "paths_seen": len({tuple(e["values"]) for e in paths.get("entries", [])}),
            **{f"paths_{k}": paths.get(k, 0)
               for k in ("resolved", "overwritten", "pending", "dropped", "none")}}


@skippable
def measure_pass(build_dir, results_dir, quick, prog, modes=PASS_MODES):
    """The compiler pass on the program: a dict of results, or {"skipped": why}."""
    configs = pass_configs(modes)
    # The pass builds first: without clang/LLVM 14 to 19 or the plugin they say so.
    variants = list(dict.fromkeys(v for v, _ in configs.values() if v != "clang-plain"))
    size, shimrun, built = prepare(prog, build_dir, quick, variants + ["clang-plain"])
    n = str(size["iterations"])
    profs, argv = commands(prog, shimrun, n, {c: built[v][0] for c, (v, _) in configs.items()},
                           lambda c: c.endswith("-observed"))

    blank = {k: "" for k in PASS_PROFILE_COLUMNS}
    rows, loop, wall, sums = interleaved(argv, list(configs), size["runs"], n, blank)
    if len(sums) != 1:
        raise Skip(f"the runs did not all compute the same result (checksums {sorted(sums)})")
    profiles = {}
    for c, prof in profs.items():  # each profile is that of the configuration's last run
        profiles[c] = pass_profile_summary(prof)
        os.unlink(prof)
        last = max(i for i, row in enumerate(rows) if row["config"] == c)
        rows[last].update(profiles[c])
    write_rows(os.path.join(results_dir, f"{prog['step']}_pass.csv"), rows)

    med, medw, pairs = against(loop, wall, dict.fromkeys(configs, "clang-plain"))
    return {"iterations": size["iterations"], "runs": size["runs"], "median": med,
            "median_wall": medw, "pairs": pairs, "profiles": profiles, "configs": configs,
            "modes": list(modes), "build_seconds": {v: built[v][1] for v in built},
            "checksum": sums.pop(), "version": source_version(built["clang-plain"][0]),
            "command": f"{prog['command'].format(n=n)} built by the pass's clang -O2 with and "
                       f"without the pass, {size['runs']} interleaved runs each"
                       f"{observed_at()}"}


def pass_targets_words(r):
    """The targets of the modes measured, in words."""
    words = [pass_target(m) for m in r["modes"]]
    return "; ".join(dict.fromkeys(t[-1] for t in filter(None, words))) or "none"


def pass_verdict(r, c):
    """The configuration's median ratio to clang-plain against its mode's target."""
    mode = r["configs"][c][1]
    target = pass_target(mode) if mode else None
    if not target:
        return "-"
    limit = target[1] if c.endswith("-observed") else target[0]
    ratio = r["median"][c] / r["median"]["clang-plain"]
    return f"≤ {limit:.2f}: {'met' if ratio <= limit else 'missed'}"


def pass_run(r, c):
    """How a configuration ran, in words."""
    mode = r["configs"][c][1]
    if not mode:
        return "alone"
    if c.endswith("-observed"):
        return "observed under `shimrun`"
    ring = " and ring" if "path" in mode.split(",") else ""
    return f"alone (stores to libshim's dummy block{ring})"


def pass_profile_line(r, c):
    """One observed configuration's profile in a sentence."""
    p = r["profiles"][c]
    variant, mode = r["configs"][c]
    note = "" if "path" in mode.split(",") else " (a build without the path signal)"
    return (f"{variant} under shimrun, last run: {p['samples']} samples, median "
            f"period {p['median_period']:.0f} cycles; {p['functions_seen']} functions, "
            f"{p['loops_seen']} of the {p['loops_in_functions_seen']} loops in them, "
            f"{p['paths_seen']} paths seen; attributed periods' paths{note}: "
            f"{p['paths_resolved']} resolved, {p['paths_overwritten']} overwritten, "
            f"{p['paths_pending']} pending, {p['paths_dropped']} dropped, "
            f"{p['paths_none']} without a ring")


def pass_summary(r):
    """Lines for bench/run's console summary."""
    step = f"{r['step']} pass"
    if "skipped" in r:
        return [f"{step}: skipped: {r['skipped']}"]
    built = ", ".join(f"{v} in {s:.1f} s" for v, s in r["build_seconds"].items())
    lines = [f"{step}: {r['program']} ({r['version']}), built {built}; targets: "
             f"{pass_targets_words(r)}"]
    for c in r["configs"]:
        lines.append(f"{step} {c:<24} {timing(r, c, 'clang-plain')}, "
                     f"target {pass_verdict(r, c)}   [{r['command']}]")
    lines += [f"{step}: {pass_profile_line(r, c)}" for c in r["profiles"]]
    return lines


def pass_readme_lines(r):
    """The results block's lines for bench/README.md."""
    if "skipped" in r:
        return [f"The compiler pass on {r['program']}: not measured: {r['skipped']}."]
    lines = [f"The compiler pass on {r['program']} ({r['version']}; {r['command']}); targets: "
             f"{pass_targets_words(r)}:", "",
             "| build | signals | run | median seconds | vs clang `-O2` | single pairs "
             "| wall seconds | target |", "|---|---|---|---|---|---|---|---|"]
    for c, (variant, mode) in r["configs"].items():
        signals = mode.replace(",", ", ") if mode else "none (no pass)"
        lines.append(f"| {variant} | {signals} | {pass_run(r, c)} | "
                     f"{timing(r, c, 'clang-plain', cells=True)} | {pass_verdict(r, c)} |")
    lines += [""] + [f"- {pass_profile_line(r, c)}." for c in r["profiles"]]
    return lines


def main():
    args, quick, program, modes = sys.argv[1:], False, "libxcrypt", []
    while args:
        a = args.pop(0)
        if a == "--quick":
            quick = True
        elif a == "--program" and args and args[0] in PROGRAMS:
            program = args.pop(0)
        elif a == "--pass" and args and args[0]:
            modes.append(args.pop(0))
        elif a == "--period" and args and args[0].isdigit() and int(args[0]) > 0:
            PERIOD[:] = ["-p", args.pop(0)]
        else:
            print(__doc__)
            return 2
    build_dir = os.path.abspath(os.environ.pop("SHIM_BENCH_BUILD", "") or os.path.join(ROOT, "build"))
    results = os.path.join(ROOT, "bench", "results", *(["quick"] if quick else []),
                           *([f"period-{PERIOD[1]}"] if PERIOD else []))
    os.makedirs(results, exist_ok=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2),
                    "--target", "shim", "shimrun"], check=True, stdout=subprocess.DEVNULL)
    # The plugin is a target only where clang/LLVM 14 to 19 were found; without it the pass's
    # measurement says it was skipped.
    subprocess.run(["cmake", "--build", build_dir, "--target", "shim-pass"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = measure(build_dir, results, quick, program)
    print("\n".join(summary(r)))
    if "skipped" not in r:
        print("\n".join(readme_lines(r)))
    r = measure_pass(build_dir, results, quick, program, modes=tuple(modes) or PASS_MODES)
    print("\n".join(pass_summary(r)))
    if "skipped" not in r:
        print("\n".join(pass_readme_lines(r)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
