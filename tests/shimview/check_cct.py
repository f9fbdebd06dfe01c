#!/usr/bin/env python3
"""check_cct.py -- read back what shimview's calling-context views wrote.

    python3 check_cct.py KIND PROFILE FILE [ARGS...]

Every expected number is recomputed here from the profile's JSON, independently of
shimview: a tag entry's function is the entry of `functions` whose address slot 8 held,
its context the node slot 9 named, and a function's inclusive samples are those of every
entry whose context's path holds it, counted once per entry (a set of functions per
path). KIND says what FILE is:

  functions   `functions --csv` output: every function's samples, shares and rates
  contexts    `contexts --csv` output: every context's path, samples, shares and rates
  folded      `export --format folded` output: the stacks and their counts
  pprof       `export --format pprof` output (ARGS: pprof.proto): decoded by protoc
  tree        `tree` text output (ARGS: utf8 or ascii, the min share in %)
  html        `html` output: the functions table and the tree, parsed by html.parser
  callers     `tree --callers F --min-share 0` text output, ASCII (ARGS: F): F's callers
              bottom up, each line's total and self shares and its place in the tree
  real        `functions --csv` output of plain_target, whose heavy() does 3x light()'s work
  real-folded `export --format folded` output of plain_target

With CHECK_FILTER set ("tid=4242;focus=walk;ignore=eval", each key any number of times)
FILE is the output of the same command given --tid, --focus and --ignore: the entries
counted are those the filter keeps (a thread's; a stack, its context's path and slot 8's
function, that holds a focus function and no ignored one), `other` only without --tid
and --focus, and shares stay shares of every attributed sample.

Prints one "ok: ..." or "FAIL: ..." line per check.
"""
import csv
import gzip
import html.parser
import io
import json
import math
import os
import re
import subprocess
import sys

# what shimview names an unnamed value 0 of a tag slot (shimview/tags.h)
UNSET = "(before the first signal)"

results = []
ROOT, OVERFLOW = "(outside instrumented functions)", "(context lost)"


def check(what, cond, why=""):
    results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % (why,)))


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


class Profile:
    """The profile's calling context, looked up the plain way."""

    def __init__(self, path):
        self.d = d = json.load(open(path, encoding="utf-8"))
        slots = [t["slot"] for t in d["signals"]["tags"]]
        self.m, self.c = slots.index(d["cct"]["method_slot"]), slots.index(d["cct"]["cct_slot"])
        self.by_address = {f["address"] % 2**64: f for f in d["functions"]}
        self.by_id = {f["id"]: f for f in d["functions"]}
        self.threads = {t["index"]: t for t in d["cct"]["threads"]}
        self.by_tid = {t["tid"]: t for t in d["cct"]["threads"]}
        s = d["samples"]
        self.attributed = s["total"] - s["interrupted"]
        self.cycles = sum(t["cycles"] for t in d["tags"]) + d["other"]["cycles"]
        self.all_entries = d["tags"]
        self.other = d["other"]["samples"]
        self.nrates = len(d["rates"])
        # The observer files a sample under whatever thread ran on the CPU it watched: the
        # program's are the tids placement.threads lists (all, in a profile without it).
        listed = d["placement"].get("threads")
        self.tids = None if listed is None else {t["tid"] for t in listed}
        self.program = sum(t["samples"] for t in d["tags"] if self.group(t) is None)
        spec = {"tid": [], "focus": [], "ignore": []}
        for item in filter(None, os.environ.get("CHECK_FILTER", "").split(";")):
            k, _, v = item.partition("=")
            spec[k].append(int(v) if k == "tid" else v)
        self.entries = [e for e in d["tags"] if self.keeps(e, spec)]
        if spec["tid"] or spec["focus"]:
            self.other = 0  # `other` has no thread and no stack
        self.kept = sum(e["samples"] for e in self.entries) + self.other

    def stack(self, e):
        """The labels of the functions on entry e's stack: its path's and slot 8's."""
        ctx = self.context(e)
        out = {self.node_label(ctx[0], n) for n in self.path(*ctx)} if ctx else set()
        f = self.function(e)
        return (out | {self.label(f)} if f else out) - {ROOT, OVERFLOW}

    def keeps(self, e, spec):
        if spec["tid"] and e["thread"] not in spec["tid"]:
            return False
        s = self.stack(e)
        return (not spec["focus"] or s & set(spec["focus"])) and not s & set(spec["ignore"])

    def group(self, e):
        """The one frame shimview gives an entry of another thread than the program's (its
        tags are not the program's), or None for the program's."""
        if self.tids is None or e["thread"] in self.tids:
            return None
        return "(idle)" if e["thread"] == 0 else "(other processes)"

    def label(self, f):
        if f["name"]:
            return f["name"]
        if f["module"] is None:
            return "%#x" % f["address"]
        return "%s+%#x" % (os.path.basename(f["module"]), f["offset"])

    def context(self, e):
        """(thread, node) of entry e, or None."""
        v = e["values"][self.c] % 2**64
        if v == 0:
            t = self.by_tid.get(e["thread"])
            return (t, 0) if t else None
        return self.threads[v >> 32], v & 0xFFFFFFFF

    def path(self, t, node):
        """The nodes from the root's child to node."""
        out = []
        while node != 0:
            out.append(node)
            node = t["nodes"][node][0]
        return out[::-1]

    def node_label(self, t, node):
        if node == 0:
            return ROOT
        f = t["nodes"][node][1]
        return OVERFLOW if f is None else self.label(self.by_id[f])

    def function(self, e):
        return self.by_address.get(e["values"][self.m] % 2**64)


def empty():
    return {"samples": 0, "cycles": 0, "rates": [[0, 0.0, 0.0] for _ in range(P.nrates)]}


def add(acc, e):
    acc["samples"] += e["samples"]
    acc["cycles"] += e["cycles"]
    for r, s in enumerate(e["rates"]):
        if s["n"]:
            acc["rates"][r][0] += s["n"]
            acc["rates"][r][1] += s["sum_a"]
            acc["rates"][r][2] += s["sum_b"]


def expected_functions():
    excl, incl = {}, {}
    for f in P.d["functions"]:
        excl[f["id"]], incl[f["id"]] = empty(), empty()
    for e in P.entries:
        f = P.function(e)
        if f:
            add(excl[f["id"]], e)
        ctx = P.context(e)
        on_path = set()
        if ctx and ctx[1] != 0:
            t, node = ctx
            on_path = {t["nodes"][n][1] for n in P.path(t, node)} - {None}
        if f:  # the function executing is inside itself, whatever its context says
            on_path.add(f["id"])
        for fid in on_path:  # a set: once per entry, whatever the path
            add(incl[fid], e)
    return excl, incl


def check_rate(what, row, col, acc, r):
    n, sa, sb = acc["rates"][r]
    got = row.get(col, "")
    if n == 0 or sb <= 0:
        check(what + " is empty without kept periods", got == "", got)
    else:
        check(what + " is sum_a / sum_b (%.6g)" % (sa / sb), got != "" and close(float(got), sa / sb),
              got)


def check_functions(path):
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    excl, incl = expected_functions()
    labels = {P.label(f): f["id"] for f in P.d["functions"]}
    want = [lab for lab, fid in labels.items() if excl[fid]["samples"] or incl[fid]["samples"]]
    check("functions: one row per function with samples (%d)" % len(want),
          sorted(r["function"] for r in rows) == sorted(want), [r["function"] for r in rows])
    order = [int(r["incl_samples"]) for r in rows]
    check("functions: sorted by inclusive samples", order == sorted(order, reverse=True), order)
    rate = P.d["rates"][0]["name"] if P.nrates else None
    for r in rows:
        fid = labels.get(r["function"])
        if fid is None:
            continue
        f = P.by_id[fid]
        name = r["function"]
        for kind, acc in (("excl", excl[fid]), ("incl", incl[fid])):
            check("functions: %s %s samples %d" % (name, kind, acc["samples"]),
                  int(r[kind + "_samples"]) == acc["samples"], r[kind + "_samples"])
            check("functions: %s %s share" % (name, kind),
                  close(float(r[kind + "_share"]), acc["samples"] / P.attributed), r[kind + "_share"])
            check("functions: %s %s time share" % (name, kind),
                  close(float(r[kind + "_time_share"]), acc["cycles"] / P.cycles),
                  r[kind + "_time_share"])
            if rate:
                check_rate("functions: %s %s %s" % (name, kind, rate), r,
                           "rate_%s_%s" % (rate, kind), acc, 0)
                check("functions: %s %s n" % (name, kind),
                      int(r["n_%s_%s" % (rate, kind)]) == acc["rates"][0][0], r)
        check("functions: %s module and offset" % name,
              r["module"] == (f["module"] or "") and int(r["offset"]) == f["offset"],
              (r["module"], r["offset"]))


def expected_contexts():
    out = {}
    for e in P.entries:
        ctx = P.context(e)
        if ctx:
            key = (ctx[0]["index"], ctx[1])
            out.setdefault(key, empty())
            add(out[key], e)
    return out


def check_contexts(path):
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    want = expected_contexts()
    got = {(int(r["index"]), int(r["node"])): r for r in rows}
    check("contexts: one row per context with samples (%d)" % len(want),
          set(got) == set(want), sorted(got))
    order = [int(r["samples"]) for r in rows]
    check("contexts: sorted by samples", order == sorted(order, reverse=True), order)
    rate = P.d["rates"][0]["name"] if P.nrates else None
    for (index, node), acc in want.items():
        r = got.get((index, node))
        if not r:
            continue
        t = P.threads[index]
        labels = [P.node_label(t, n) for n in P.path(t, node)] or [ROOT]
        name = " > ".join(labels)
        check("contexts: (%d, %d) is the path %s" % (index, node, name), r["context"] == name,
              r["context"])
        check("contexts: %s has %d samples" % (name, acc["samples"]),
              int(r["samples"]) == acc["samples"], r["samples"])
        check("contexts: %s thread is its tid" % name, int(r["thread"]) == t["tid"], r["thread"])
        site = t["nodes"][node][2] if node > 1 else None
        check("contexts: %s call site" % name, r["call_site"] == ("" if site is None else str(site)),
              r["call_site"])
        check("contexts: %s share" % name, close(float(r["share"]), acc["samples"] / P.attributed),
              r["share"])
        if rate:
            check_rate("contexts: %s %s" % (name, rate), r, "rate_" + rate, acc, 0)


def share_text(f):
    """A share as shimview prints it (docs/statistics.md, "Precision of printed numbers")."""
    return "<0.01%" if 0 < f < 0.00005 else ">99.99%" if 0.99995 <= f < 1 else "%.2f%%" % (100 * f)


LOOP_SLOT = 10  # the pass's loop word: the function's address, the loop number above bit 48


def loop_name(v):
    """A loop word as shimview names it: FUNCTION (no loop), or FUNCTION loop N (FILE:LINE)
    from the function's table of the compiler pass; (none) before any function stored one."""
    if v == 0:
        return "(none)"
    fn, loop = v % 2**48, v >> 48
    f = P.by_address.get(fn)
    name = P.label(f) if f else "%#x" % fn
    if loop == 0:
        return name + " (no loop)"
    table = (f or {}).get("pass") or {}
    l = next((l for l in table.get("loops", []) if l["loop"] == loop), None)
    where = ""
    if l:
        path, line = l.get("file") or table.get("file"), l.get("line")
        where = ("%s:%d" % (os.path.basename(path), line) if path and line else
                 "line %d" % line if line else os.path.basename(path) if path else "")
    return "%s loop %d%s" % (name, loop, " (%s)" % where if where else "")


def expected_folded():
    """The stacks: the context's path, then the user slots whose value varies."""
    user = [i for i in range(len(P.d["signals"]["tags"])) if i not in (P.m, P.c) and
            len({e["values"][i] for e in P.all_entries}) > 1]
    out = {}
    for e in P.entries:
        if not e["samples"]:
            continue
        ctx = P.context(e)
        frames = [P.node_label(ctx[0], n) for n in P.path(*ctx)] if ctx and ctx[1] else [ROOT]
        for i in user if not P.group(e) else []:
            v = e["values"][i] % 2**64
            if P.d["signals"]["tags"][i]["slot"] == LOOP_SLOT and not e["names"][i]:
                frames.append(loop_name(v))
                continue
            frames.append(e["names"][i] or (UNSET if v == 0 else "%s=%d" % (
                P.d["signals"]["tags"][i]["name"], v)))
        key = ";".join(f.replace(";", "_") for f in ([P.group(e)] if P.group(e) else frames))
        out[key] = out.get(key, 0) + e["samples"]
    if P.other:
        out["other"] = out.get("other", 0) + P.other
    return out


def parse_folded(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    got, bad = {}, []
    for line in lines:
        m = re.fullmatch(r"(.+) (\d+)", line)
        if not m:
            bad.append(line)
            continue
        got[m.group(1)] = got.get(m.group(1), 0) + int(m.group(2))
    check("folded: every line is 'frames count'", not bad and lines, bad[:3])
    check("folded: one line per stack", len(got) == len(lines), len(lines))
    return got


def check_folded(path):
    got = parse_folded(path)
    want = expected_folded()
    check("folded: the stacks are the contexts' paths (then the varying slots)",
          set(got) == set(want), sorted(set(got) ^ set(want)))
    for k, v in want.items():
        check("folded: %s has %d samples" % (k, v), got.get(k) == v, got.get(k))
    check("folded: counts add up to the samples kept (%d)" % P.kept,
          sum(got.values()) == P.kept, sum(got.values()))


def decode_pprof(path, proto):
    raw = gzip.open(path).read()
    out = subprocess.run(["protoc", "--decode=pprof.Profile", "--proto_path=" +
                          os.path.dirname(os.path.abspath(proto)), os.path.basename(proto)],
                         input=raw, capture_output=True, check=True).stdout.decode()
    return out


def blocks(text, name):
    """The top-level `name { ... }` blocks of protoc's text format, as dicts of lists."""
    out, cur, depth = [], None, 0
    for line in text.splitlines():
        s = line.strip()
        if depth == 0 and s == name + " {":
            cur, depth = {}, 1
            continue
        if cur is None:
            continue
        if s.endswith("{"):
            depth += 1
            cur.setdefault(s[:-1].strip(), []).append({})
        elif s == "}":
            depth -= 1
            if depth == 0:
                out.append(cur)
                cur = None
        elif depth == 1:
            k, _, v = s.partition(": ")
            cur.setdefault(k, []).append(v.strip('"'))
        elif depth == 2 and ":" in s:
            k, _, v = s.partition(": ")
            key = list(cur)[-1]
            cur[key][-1][k] = v
    return out


def check_pprof(path, proto):
    text = decode_pprof(path, proto)
    strings = [json.loads('"%s"' % s) if s else "" for s in
               re.findall(r'^string_table: "(.*)"$', text, re.M)]
    functions = {int(f["id"][0]): f for f in blocks(text, "function")}
    locations = {int(l["id"][0]): l for l in blocks(text, "location")}
    mappings = {int(m["id"][0]): m for m in blocks(text, "mapping")}
    names = {strings[int(f["name"][0])] for f in functions.values()}
    used = set()
    for e in P.entries:
        ctx = P.context(e)
        if ctx and ctx[1] > 1:
            used |= {P.node_label(ctx[0], n) for n in P.path(*ctx)}
    check("pprof: the functions of the contexts are named", used <= names, sorted(used - names))
    files = {strings[int(m["filename"][0])] for m in mappings.values()}
    modules = {P.by_id[P.threads[i]["nodes"][n][1]]["module"] for i in P.threads
               for n in range(2, len(P.threads[i]["nodes"]))} - {None}
    labels = {P.label(f): f for f in P.d["functions"]}
    used_modules = {labels[n]["module"] for n in used if n in labels} - {None}
    check("pprof: a mapping per module of a function of the stacks",
          used_modules <= files <= modules, (files, used_modules, modules))
    for f in P.d["functions"]:
        loc = next((l for l in locations.values()
                    if strings[int(functions[int(l["line"][0]["function_id"])]["name"][0])] ==
                    P.label(f)), None)
        if loc is None or P.label(f) not in used:
            continue
        check("pprof: %s is at its offset %#x" % (P.label(f), f["offset"]),
              int(loc.get("address", ["0"])[0]) == f["offset"], loc)
        fn = functions[int(loc["line"][0]["function_id"])]
        fname = strings[int(fn["filename"][0])] if "filename" in fn else ""
        check("pprof: %s's file is its module" % P.label(f), fname == (f["module"] or ""), fname)
        if f["module"]:
            m = mappings.get(int(loc.get("mapping_id", ["0"])[0]))
            check("pprof: %s's location is in its module's mapping" % P.label(f),
                  m and strings[int(m["filename"][0])] == f["module"], m)
    stacks = {}
    for s in blocks(text, "sample"):
        frames = [strings[int(functions[int(locations[int(i)]["line"][0]["function_id"])]
                              ["name"][0])] for i in s["location_id"]][::-1]
        key = ";".join(frames)
        stacks[key] = stacks.get(key, 0) + int(s["value"][0])
    check("pprof: the samples add up to the samples kept (%d)" % P.kept,
          sum(stacks.values()) == P.kept, sum(stacks.values()))
    want = expected_folded()
    check("pprof: the stacks are folded's stacks, leaf last", stacks == want,
          sorted(set(stacks.items()) ^ set(want.items()))[:4])


def check_tree(path, style, min_share):
    text = open(path, encoding="utf-8").read()
    lines = text.splitlines()
    min_share = float(min_share) / 100
    branch, last, more = ("├─ ", "└─ ", "…") if style == "utf8" else ("|- ", "`- ", "...")
    other = "`- " if style == "utf8" else "└─ "
    check("tree: %s connectors" % style, branch in text or last in text, text[:200])
    check("tree: no connectors of the other style", other not in text, text[:200])
    folded = 0
    for t in P.threads.values():
        incl = {}
        for e in P.entries:
            ctx = P.context(e)
            if ctx and ctx[0] is t:
                for n in [0] + P.path(t, ctx[1]):
                    incl[n] = incl.get(n, 0) + e["samples"]
        root = next((l for l in lines if l.endswith("  thread %d" % t["tid"])), None)
        if not incl.get(0):
            check("tree: no tree for thread %d, which has no samples" % t["tid"], root is None)
            continue
        check("tree: a tree for thread %d" % t["tid"], root is not None, text[:300])
        if root is None:
            continue
        column = root.index("thread %d" % t["tid"])  # where the tree column starts
        for n, s in sorted(incl.items()):
            if n == 0:
                continue
            path = P.path(t, n)
            if any(incl[a] / P.attributed < min_share for a in path):
                folded += incl[n] / P.attributed < min_share and \
                    all(incl[a] / P.attributed >= min_share for a in path[:-1])
                continue
            name, share = P.node_label(t, n), share_text(s / P.attributed)
            pat = re.compile(r"^\s*%s\s.*?(%s|%s)%s( @0x[0-9a-f]+)?$" %
                             (re.escape(share), re.escape(branch), re.escape(last),
                              re.escape(name)), re.M)
            m = pat.search(text)
            check("tree: %s at %s" % (name, share), m, text[:400])
            if m:
                indent = m.start(1) - m.start(0) - column
                check("tree: %s indented for depth %d" % (name, len(path)),
                      indent == 3 * (len(path) - 1), indent)
    check("tree: %d light contexts folded into '%sN more' lines" % (folded, more),
          (folded > 0) == (more + "1 more" in text or re.search(re.escape(more) + r"\d+ more", text)
                           is not None), text[-500:])


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.h2, self.cells, self.tree, self.cur, self.klass = [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("h2", "td"):
            self.cur, self.klass = [], a.get("class", "")
            self.tag = tag

    def handle_data(self, data):
        if self.cur is not None:
            self.cur.append(data)

    def handle_endtag(self, tag):
        if self.cur is None or tag != self.tag:
            return
        text = "".join(self.cur)
        if tag == "h2":
            self.h2.append(text)
        elif "tree" in (self.klass or ""):
            self.tree.append(text)
        else:
            self.cells.append(text)
        self.cur = None


def check_html(path):
    page = Page()
    page.feed(open(path, encoding="utf-8").read())
    check("html: a Functions section", "Functions" in page.h2, page.h2)
    check("html: a calling-context tree section", "Calling-context tree" in page.h2, page.h2)
    excl, incl = expected_functions()
    for f in P.d["functions"]:
        if incl[f["id"]]["samples"] or excl[f["id"]]["samples"]:
            check("html: %s in the functions table" % P.label(f), P.label(f) in page.cells,
                  page.cells[:20])
    names = [re.sub(r" @0x[0-9a-f]+$", "", re.sub(r"^[\s│├└─|`-]*", "", c)) for c in page.tree]
    heavy = set()  # contexts of 5% and more: shown at the default --min-share of 0.5%
    for e in P.entries:
        ctx = P.context(e)
        if ctx and ctx[1] > 1 and e["samples"] / P.attributed >= 0.05:
            heavy |= {P.node_label(ctx[0], n) for n in P.path(*ctx)}
    check("html: the tree's rows name the heavy contexts", heavy <= set(names),
          sorted(heavy - set(names)))
    check("html: the tree has a row per thread's root",
          all("thread %d" % t["tid"] in names for t in P.threads.values()), names)


def expected_callers(fname):
    """Per chain of callers of fname (a tuple, nearest caller first; () for fname itself):
    [samples that reached fname through it, those of them in fname's own code]."""
    out = {}
    for e in P.entries:
        ctx = P.context(e)
        if not ctx or ctx[1] < 2:
            continue
        labels = [P.node_label(ctx[0], n) for n in P.path(*ctx)]
        at = [i for i, lab in enumerate(labels) if lab == fname]
        if not at:
            continue
        k = at[-1]
        chain = tuple(reversed(labels[:k]))
        for d in range(len(chain) + 1):
            acc = out.setdefault(chain[:d], [0, 0])
            acc[0] += e["samples"]
            acc[1] += e["samples"] if k == len(labels) - 1 else 0
    return out


def check_callers(path, fname):
    lines = open(path, encoding="utf-8").read().splitlines()
    want = {k: v for k, v in expected_callers(fname).items() if v[0]}
    head = next((i for i, l in enumerate(lines) if l.split()[:3] == ["total", "self", "caller"]),
                None)
    check("callers: a table headed total, self, caller", head is not None, lines[:4])
    if head is None:
        return
    column = lines[head].index("caller")
    got, stack = {}, []
    for l in lines[head + 2:]:
        if not l.strip():
            break
        shares, tree = l[:column].split(), l[column:]
        name = tree.lstrip("|` -")
        depth = (len(tree) - len(name)) // 3
        stack[depth:] = [name]
        got[tuple(stack[1:])] = shares
    check("callers: the root line is %s" % fname, () in got and stack[:1] == [fname], lines[:6])
    check("callers: one line per chain of callers (%d)" % len(want), set(got) == set(want),
          sorted(set(got) ^ set(want))[:4])
    for k, (total, own) in want.items():
        shares = [share_text(total / P.attributed), share_text(own / P.attributed)]
        check("callers: %s total %d, self %d" % (" < ".join((fname,) + k), total, own),
              got.get(k) == shares, got.get(k))


def check_real(path):
    rows = {r["function"]: r for r in csv.DictReader(open(path, encoding="utf-8"))}
    for name in ("main", "light", "heavy"):
        check("real: %s is a row" % name, name in rows, sorted(rows))
    if not all(n in rows for n in ("main", "light", "heavy")):
        return
    main, light, heavy = rows["main"], rows["light"], rows["heavy"]
    s = int(main["incl_samples"])
    check("real: incl(main) >= excl(heavy) + excl(light)",
          s >= int(heavy["excl_samples"]) + int(light["excl_samples"]), (s, heavy, light))
    # heavy() runs three times as many iterations of the same loop as light(). Alone, the
    # program's own TSC readings give 2.97 +- 0.05; while an observer busy-loops on the
    # other CPU of these machines they give anything from 2.1 to 5.2 from run to run (and
    # shim's shares follow them), so the band is wide: it asks for "about 3", not for 3.
    ratio = float(heavy["excl_share"]) / max(float(light["excl_share"]), 1e-12)
    check("real: heavy's exclusive share is about 3x light's (%.2f, in 1.5..8)" % ratio,
          1.5 <= ratio <= 8, ratio)
    # Other processes that ran on the observed CPU have samples of their own, outside main.
    share = int(main["incl_samples"]) / max(P.program, 1)
    check("real: main holds nearly every sample of the program's threads (%.4f > 0.9)" % share,
          share > 0.9, (main, P.program))


def check_real_folded(path):
    got = parse_folded(path)
    check("real folded: counts add up to the attributed samples (%d)" % P.attributed,
          sum(got.values()) == P.attributed, sum(got.values()))
    instrumented = sum(e["samples"] for e in P.entries
                       if P.context(e) and P.context(e)[1] != 0)
    under = sum(v for k, v in got.items()
                if k.split(";")[0] not in (ROOT, "other", "(other processes)", "(idle)"))
    check("real folded: the stacks of instrumented contexts hold their samples (%d)" %
          instrumented, under == instrumented, under)
    check("real folded: main;heavy and main;light are stacks",
          "main;heavy" in got and "main;light" in got, sorted(got))
    check("real folded: no frame is a raw context or function number",
          not any(re.search(r"(context|function)=", k) for k in got), sorted(got))


def main(argv):
    global P
    if len(argv) < 4:
        sys.exit(__doc__)
    kind, profile, path = argv[1:4]
    P = Profile(profile)
    {"functions": check_functions, "contexts": check_contexts, "folded": check_folded,
     "pprof": check_pprof, "tree": check_tree, "html": check_html, "real": check_real,
     "callers": check_callers,
     "real-folded": check_real_folded}[kind](path, *argv[4:])
    print("\n".join(results))


if __name__ == "__main__":
    main(sys.argv)
