#!/usr/bin/env python3
"""The layering CONTRIBUTING.md describes, checked on the built objects and the sources.

From the objects' symbols (nm): which file calls which. A file may call only files of its
own layer or of a layer below it:
  the runtime   signals < observer < libshim
  shimview      base < model < analysis < render < export < cmd
and the largest circle of files that call each other (a strongly connected component of
that graph) may hold at most --max-runtime-circle files in the runtime and
--max-shimview-circle in shimview.

From the sources: every #include of a header of the tree names its path from the root
("signals/cct.h"; scripts/qualify-includes writes them so), and reaches only its own
layer or one below: formats/ (the on-disk formats) from anywhere, signals from signals,
observer from observer and libshim, libshim from libshim, shimview's layers downwards,
and nothing of the runtime from shimview. Every shimview source lies in one of its
layers.

From the headers: each function a header declares is defined where the header says.
A header sectioned by "/* ---- FILE.c ---- */" lines declares, in each section, only
functions FILE.c defines, and none outside those sections; any other header X.h declares
only functions X.c defines.

Usage: check_structure.py --source DIR [--nm NM] --runtime-objects "A.o;B.o"
       --shimview-objects "C.o;D.o" [--max-runtime-circle N] [--max-shimview-circle N]
Prints what it measured, one "ok:" or "FAIL:" line per check, and exits 1 on a failure.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

RUNTIME_LAYERS = ["signals", "observer", "libshim"]
SHIMVIEW_LAYERS = ["base", "model", "analysis", "render", "export", "cmd"]
SOURCES = (".c", ".h", ".cpp")

passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok: " + msg)


def bad(msg):
    global failed
    failed += 1
    print("FAIL: " + msg)


def layer_of(path):
    """(group, rank) of a source path from the root: the runtime or shimview."""
    parts = path.split("/")
    if parts[0] in RUNTIME_LAYERS:
        return "runtime", RUNTIME_LAYERS.index(parts[0])
    if parts[0] == "shimview" and len(parts) > 2 and parts[1] in SHIMVIEW_LAYERS:
        return "shimview", SHIMVIEW_LAYERS.index(parts[1])
    if parts[0] == "formats":
        return "formats", -1
    return None, None


def layer_name(path):
    parts = path.split("/")
    return "shimview/" + parts[1] if parts[0] == "shimview" else parts[0]


# ---- the objects ----

def object_source(obj, prefix):
    """The source path from the root of an object CMake built: .../NAME.dir/REL.c.o."""
    rel = obj.split(".dir/", 1)[1]
    rel = rel[: -len(".o")] if rel.endswith(".o") else rel
    return prefix + rel


def read_symbols(nm, objects, prefix):
    defined, used = {}, collections.defaultdict(set)
    defined_in = collections.defaultdict(set)
    for obj in objects:
        src = object_source(obj, prefix)
        out = subprocess.run([nm, obj], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRVWC":
                defined[f[2]] = src
                defined_in[src].add(f[2])
            elif len(f) == 2 and f[0] == "U":
                used[src].add(f[1])
    calls = collections.defaultdict(dict)  # caller -> callee -> [symbols]
    for src, syms in used.items():
        for s in sorted(syms):
            d = defined.get(s)
            if d and d != src:
                calls[src].setdefault(d, []).append(s)
    files = sorted(set(defined_in) | set(used))
    return files, calls, defined_in


def circles(files, calls):
    """The strongly connected components, largest first (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in files:
        if root in index:
            continue
        work = [(root, iter(sorted(calls.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(calls.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return sorted(out, key=len, reverse=True)


def check_objects(name, files, calls, limit):
    upward = []
    for caller in files:
        g, r = layer_of(caller)
        for callee, syms in sorted(calls.get(caller, {}).items()):
            g2, r2 = layer_of(callee)
            if g is None or g2 is None:
                continue
            if g2 != g or r2 > r:
                upward.append(f"{caller} calls {callee} ({', '.join(syms[:4])}) in "
                              f"{layer_name(callee)}, above {layer_name(caller)}")
    if upward:
        for u in upward:
            bad(u)
    else:
        ok(f"{name}: {len(files)} files, every call goes to the caller's layer or one below")
    outside = [f for f in files if layer_of(f)[0] is None and not f.endswith(".pb-c.c")]
    for f in outside:
        bad(f"{f} is in no layer of {name} (CONTRIBUTING.md, \"Layers\")")
    comps = circles(files, calls)
    big = comps[0] if comps else []
    print(f"{name}: largest circle of files that call each other: {len(big)} "
          f"({', '.join(big)})")
    if len(big) <= limit:
        ok(f"{name}: largest circle {len(big)} <= {limit}")
    else:
        for c in comps:
            if len(c) > limit:
                bad(f"{name}: {len(c)} files call each other in a circle (at most {limit}): "
                    + ", ".join(c))


# ---- the sources ----

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def product_sources(src):
    """The product's source paths, relative to src."""
    return [os.path.relpath(os.path.join(d, n), src)
            for top in RUNTIME_LAYERS + ["formats", "shimview"]
            for d, _, names in os.walk(os.path.join(src, top))
            for n in sorted(names) if n.endswith(SOURCES)]


def check_includes(src):
    protos = set()
    for d, _, names in os.walk(os.path.join(src, "shimview")):
        for n in names:
            if n.endswith(".proto"):
                protos.add(os.path.relpath(os.path.join(d, n[: -len(".proto")] + ".pb-c.h"), src))
    headers = {p for p in product_sources(src) if p.endswith(".h")} | protos
    by_name = {os.path.basename(h) for h in headers}
    bare, upward, nolayer = [], [], []
    nfiles = 0
    for path in product_sources(src):
        nfiles += 1
        g, r = layer_of(path)
        if path.startswith("shimview/") and g is None:
            nolayer.append(path)
        text = open(os.path.join(src, path), encoding="utf-8").read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            line = text.count("\n", 0, m.start()) + 1
            where = f"{path}:{line}"
            if name == "shim.h":
                if path.startswith("shimview/"):
                    upward.append(f"{where}: shimview includes the runtime's shim.h")
                continue
            if name not in headers:
                if os.path.basename(name) in by_name and not name.startswith("llvm/"):
                    bare.append(f"{where}: \"{name}\" is not named by its path from the root")
                continue
            if path.startswith("signals/pass/") and name.startswith("signals/"):
                continue  # the compiler pass is the signals' own
            g2, r2 = layer_of(name)
            if g2 == "formats":
                continue
            if g != g2 or g is None or r2 > r:
                upward.append(f"{where}: includes {name}, of {layer_name(name)}, "
                              f"above {layer_name(path)}")
    for b in bare:
        bad(b + " (scripts/qualify-includes names it)")
    if not bare:
        ok(f"includes: every header of the tree is named by its path from the root ({nfiles} files)")
    for u in upward:
        bad(u)
    if not upward:
        ok("includes: signals <- observer <- libshim, shimview's layers downwards, "
           "formats/ from anywhere, nothing of the runtime in shimview")
    for f in nolayer:
        bad(f"{f} is in none of shimview's layers ({', '.join(SHIMVIEW_LAYERS)})")


# ---- the headers ----

SECTION = re.compile(r"^/\* ---- (.*?) ---- \*/$", re.M)


def strip(text):
    """Comments, preprocessor lines and brace blocks out; what is left is declarations."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.M)
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            if depth == 0:
                out.append(" {} ;")
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 or ch == "\n":  # keep the lines where they were
            out.append(ch)
    return "".join(out)


PROTOTYPE = re.compile(r"^(?:extern\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\(([^()]|\([^()]*\))*\)"
                       r"\s*(?:__attribute__\s*\(\(.*\)\))?\s*$", re.S)


def declared_functions(text):
    """[(name, line)] of the functions declared (not defined) in a header's text."""
    found = []
    body = strip(text)
    pos = 0
    for stmt in body.split(";"):
        start = pos
        pos += len(stmt) + 1
        s = stmt.strip()
        if not s or s.startswith(("static", "typedef", "struct", "enum", "union")) or "{}" in s:
            continue
        if "(*" in s.replace(" ", ""):
            continue
        m = PROTOTYPE.match(s)
        if m:
            line = body.count("\n", 0, start + len(stmt) - len(stmt.lstrip())) + 1
            found.append((m.group(1), line))
    return found


def check_headers(src, defined_in):
    checked, problems = 0, []
    for path in product_sources(src):
        if not path.endswith(".h"):
            continue
        text = open(os.path.join(src, path), encoding="utf-8").read()
        here = os.path.dirname(path)
        own = path[:-2] + ".c"
        sections = [(m.start(), m.group(1)) for m in SECTION.finditer(text)]
        if not any(re.fullmatch(r"[\w.]+\.c", t) for _, t in sections):
            sections = []  # headings, not files: an ordinary header
        for name, line in declared_functions(text):
            offset = len("\n".join(text.split("\n")[: line - 1]))
            owner = None
            if sections:
                before = [s for s in sections if s[0] <= offset]
                title = before[-1][1] if before else None
                if title and re.fullmatch(r"[\w.]+\.c", title):
                    owner = os.path.join(here, title)
                else:
                    problems.append(f"{path}:{line}: {name} is declared outside a section "
                                    "naming the file that defines it")
                    continue
            elif own in defined_in:
                owner = own
            else:
                continue  # a header of inline functions and types, or of a program
            checked += 1
            if name not in defined_in.get(owner, ()):
                real = [f for f, syms in defined_in.items() if name in syms]
                problems.append(f"{path}:{line}: {name} is declared as {os.path.basename(owner)}'s "
                                f"but defined in {', '.join(real) or 'no object'}")
    for p in problems:
        bad(p)
    if not problems:
        ok(f"headers: each of the {checked} functions declared is defined by the file its "
           "header or section names")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--runtime-objects", required=True)
    ap.add_argument("--shimview-objects", required=True)
    ap.add_argument("--max-runtime-circle", type=int, default=2)
    ap.add_argument("--max-shimview-circle", type=int, default=3)
    a = ap.parse_args()
    lib = [o for o in a.runtime_objects.split(";") if o]
    view = [o for o in a.shimview_objects.split(";") if o]
    for o in lib + view:
        if not os.path.exists(o):
            bad(f"{o}: no such object (build first)")
            return 1
    files, calls, lib_defs = read_symbols(a.nm, lib, "")
    check_objects("the runtime", files, calls, a.max_runtime_circle)
    files, calls, view_defs = read_symbols(a.nm, view, "shimview/")
    check_objects("shimview", files, calls, a.max_shimview_circle)
    check_includes(a.source)
    check_headers(a.source, {**lib_defs, **view_defs})
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
