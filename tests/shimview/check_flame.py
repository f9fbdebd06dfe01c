#!/usr/bin/env python3
"""check_flame.py -- read back the flame graphs shimview drew, parsed with xml.etree.

    python3 check_flame.py KIND ARGS...

Every expected number is recomputed here from the profiles' JSON (check_cct.py's lookups),
independently of shimview: the frames (a root "all", a frame per thread, the contexts by
the names of their paths, the samples without a context as frames of their own), their
inclusive and exclusive samples, shares and rate sums, and so the width and place each
frame must have, and its intervals (stats_ref.py): a frame adds up tuples, so its share
has Wilson's interval and its rates the delta method's, widened in a profile with time
batches by the design effect recomputed here from the batches. KIND says what is checked:

  flame PROFILE SVG [hash|rate] [TID]   a flame graph: every frame drawn where it must be
                                        (inside its caller), as wide as its inclusive
                                        samples, its tooltip's numbers, its label, its
                                        colour (by name, or the rate's viridis colour);
                                        with TID only that thread's frames
  icicle PROFILE SVG                    the same, upside down
  diff A B SVG [planted]                a difference from A to B: frames merged by name,
                                        threads folded, widths, colours by the change of
                                        share, outlines where its 95% interval excludes
                                        0, A's frames hatched; with `planted`, what
                                        flame_fixture.py planted
  html PROFILE PAGE                     the page's table of contents, its flame graph (as
                                        `flame --rate`, the page's rate), its sorting script
  zoom SVG                              the flame graph's script, run by node on a small
                                        stand-in for the DOM: a click zooms and the root
                                        zooms out (skipped when node is not installed)
  sort PAGE                             the page's sorting script, the same way: which
                                        tables it sorts, and how

Prints one "ok: ..." or "FAIL: ..." line per check.
"""
import html.parser
import json
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_cct  # noqa: E402
import stats_ref  # noqa: E402
from check_cct import ROOT, OVERFLOW  # noqa: E402

NS = "{http://www.w3.org/2000/svg}"
MARGIN, ROW = 10.0, 18.0
TOL = 0.11  # coordinates are written to a tenth of a pixel
MIN_WIDTH = 0.3
OUTLINE_MIN = 3.0  # px: a significant change is outlined on frames at least this wide
HATCH = "url(#flame-only-a)"
GREY, NO_RATE = "#d2d2d2", "#ececec"
VIRIDIS = [(68, 1, 84), (71, 45, 123), (59, 82, 139), (44, 114, 142), (33, 145, 140),
           (40, 174, 128), (94, 201, 98), (173, 220, 48), (253, 231, 37)]
NO_CONTEXT = "(no calling context)"

results = []
ATTR = []  # each side's attributed samples: side 0 (B), side 1 (A)


def check(what, cond, why=""):
    results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % (why,)))


# ---- the expected frames ----

class Frame:
    def __init__(self, path, nsides, nrates):
        self.path = path
        self.incl = [0] * nsides
        self.excl = [0] * nsides
        self.rates = [[[0.0] * 6 for _ in range(nrates)] for _ in range(2)]  # incl, excl
        self.kids = []


def sums_add(acc, e):
    for r, s in enumerate(e["rates"]):
        if s["n"]:
            for k, name in enumerate(("n", "sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab")):
                acc[r][k] += s[name]


def node_names(P, t, node, sites):
    """The names of the frames from the thread's root's child to node."""
    out = []
    for n in P.path(t, node):
        name = P.node_label(t, n)
        parent, fid, site = t["nodes"][n]
        twin = n > 1 and fid is not None and any(
            m != n and m > 1 and t["nodes"][m][0] == parent and t["nodes"][m][1] == fid
            for m in range(len(t["nodes"])))
        if sites and twin and site is not None:
            name += " @%#x" % site
        out.append(name)
    return out


def entry_path(P, e, diff):
    """The path of frame names an entry's samples are exclusive to."""
    ctx = P.context(e) if not e.get("is_other") else None
    if ctx is None:
        if e.get("is_other"):
            return ("all", "other")
        return ("all", P.group(e) or NO_CONTEXT)
    t, node = ctx
    names = tuple(node_names(P, t, node, not diff))
    if diff:
        return ("all",) + (names if node else (ROOT,))
    return ("all", "thread %d" % t["tid"]) + names


def expected(profiles, diff):
    """The frames, by path, of one profile or (diff) of B (side 0) and A (side 1)."""
    nrates = len(profiles[0].d["rates"])
    frames = {}

    def get(path):
        if path not in frames:
            frames[path] = Frame(path, len(profiles), nrates)
            if len(path) > 1:
                get(path[:-1]).kids.append(frames[path])
        return frames[path]

    get(("all",))
    for s, P in enumerate(profiles):
        entries = [dict(e) for e in P.entries]
        if P.d["other"]["samples"]:
            entries.append(dict(P.d["other"], is_other=True))
        for e in entries:
            if not e["samples"]:
                continue
            path = entry_path(P, e, diff)
            f = get(path)
            f.excl[s] += e["samples"]
            if s == 0:
                sums_add(f.rates[1], e)
            for k in range(1, len(path) + 1):
                g = get(path[:k])
                g.incl[s] += e["samples"]
                if s == 0:
                    sums_add(g.rates[0], e)
    return frames


def median_at_least_1(v):
    v = sorted(v)
    m = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
    return max(m, 1.0)


def design_effects(P):
    """The profile's design effects (docs/statistics.md), recomputed from its batches: for
    the share and each rate, the median (at least 1) over the tuples with 64 samples or
    more and 8 covered batches or more of (batch-means variance / independent variance).
    None without time batches (or without a tuple to tell)."""
    d = P.d
    if not d.get("batches"):
        return None
    nb, total = d["batches"]["count"], P.attributed
    share, rates = [], [[] for _ in d["rates"]]
    for t in d["tags"]:
        b = (t.get("detail") or {}).get("batches")
        if not b:
            continue
        start = b["first"] + (1 if t["detail"].get("since", 0) > 0 else 0)
        if t["samples"] < 64 or nb - start < 8:
            continue
        q = t["samples"] / total
        se, _ = stats_ref.batch_se(b["samples"][start:], d["batches"]["samples"][start:], nb,
                                   total)
        if q * (1 - q) > 0 and not math.isnan(se) and sum(b["samples"][start:]) > 0:
            share.append(se * se / (q * (1 - q) / total))
        for r, s in enumerate(t["rates"]):
            if not s.get("n") or not s.get("sum_b", 0) > 0:
                continue
            rse, _ = stats_ref.batch_se(b["a"][r][start:], b["b"][r][start:], nb, s["sum_b"])
            ise = stats_ref.ratio_se(s.get("periods") or s["n"], s["sum_a"], s["sum_b"],
                                     s["sum_aa"], s["sum_bb"], s["sum_ab"])
            if ise > 0 and not math.isnan(rse):
                rates[r].append(rse * rse / (ise * ise))
    if not share:
        return None
    ds = median_at_least_1(share)
    return ds, [median_at_least_1(v) if v else ds for v in rates]


DEFF = [None, None]  # each side's design effects: side 0 (B, or the one profile), side 1 (A)
SCALE = []  # each rate's scale: what one event adds to its sum_a


def ratio(acc, side=0, r=0):
    """A frame's rate over the sums acc and its 95% half-width: the independent interval
    (delta method, Student's t), widened by the profile's design effect when it has time
    batches, as a sum over tuples is."""
    n, sa, sb, saa, sbb, sab = acc
    if n == 0 or sb <= 0:
        return None, None
    R = sa / sb
    if n < 2:
        return R, None
    deff = DEFF[side][1][r] if DEFF[side] else 1.0
    if sa == 0 and saa == 0:  # no event: from 0 up to the rule of three's bound
        return 0.0, stats_ref.zero_rate_hi(sb, SCALE[r] if r < len(SCALE) else 1.0, deff)
    se = stats_ref.ratio_se(n, sa, sb, saa, sbb, sab)
    return R, stats_ref.t95(max(1.0, n / deff - 1)) * se * math.sqrt(deff)


def mark_of(P):
    """The mark of a frame's intervals: a frame is a sum over tuples, so without batches
    of its own: '~' (widened by the design effect) in a profile with time batches, '!'
    (independent samples) in one without."""
    return "~" if P.d.get("batches") else "!"


# ---- the drawn frames ----

def parse_svg(root):
    frames = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "frame":
            continue
        rect, text, title = g.find(NS + "rect"), g.find(NS + "text"), g.find(NS + "title")
        frames.append({"x": float(rect.get("x")), "w": float(rect.get("width")),
                       "y": float(rect.get("y")), "fill": rect.get("fill"),
                       "stroke": rect.get("stroke"), "stroke_width": rect.get("stroke-width"),
                       "title": title.text if title is not None else "",
                       "name": (title.text or "").split("\n")[0],
                       "label": text.text or "" if text is not None else None,
                       "label_fill": text.get("fill") if text is not None else None})
    return frames


def link(frames, icicle):
    """Depths from the rows, each frame's caller from geometry: the frame one row nearer
    the root whose span holds it. Returns the frames by path, and the failures."""
    ys = [f["y"] for f in frames]
    base = min(ys) if icicle else max(ys)
    for f in frames:
        f["depth"] = round((f["y"] - base) / ROW if icicle else (base - f["y"]) / ROW)
    by_depth = {}
    for f in frames:
        by_depth.setdefault(f["depth"], []).append(f)
    roots = by_depth.get(0, [])
    check("one root frame", len(roots) == 1, [f["name"] for f in roots])
    bad = []
    for d in sorted(by_depth):
        for f in by_depth[d]:
            if d == 0:
                f["path"] = (f["name"],)
                continue
            callers = [c for c in by_depth.get(d - 1, []) if c["x"] - TOL <= f["x"] and
                       f["x"] + f["w"] <= c["x"] + c["w"] + TOL]
            if len(callers) != 1 or "path" not in callers[0]:
                bad.append((f["name"], d, [c["name"] for c in callers]))
                f["path"] = ("?",) * d + (f["name"],)
                continue
            f["path"] = callers[0]["path"] + (f["name"],)
            f["caller"] = callers[0]
    check("every frame is inside exactly one frame of the row below it (its caller)", not bad,
          bad[:4])
    return {f["path"]: f for f in frames}


def layout(want, root, width, extent):
    """Each frame's x and width, placed as shimview places them: callees left to right by
    inclusive samples in side 0, then by share in side 1, then by name."""
    out = {}
    graph = width - 2 * MARGIN

    def share1(f):
        return f.incl[1] / ATTR[1] if len(ATTR) > 1 else 0

    def key(f):
        return (-f.incl[0], -share1(f), f.path[-1].encode())

    def place(f, x, w):
        out[f.path] = (x, w)
        cx = x
        for k in sorted(f.kids, key=key):
            kw = extent(k) * graph / extent(root) if extent(root) else 0
            if kw >= MIN_WIDTH and w >= MIN_WIDTH:
                place(k, cx, kw)
            cx += kw

    place(root, MARGIN, graph)
    return out


def check_geometry(drawn, want, places):
    check("the frames drawn are the expected frames (%d)" % len(places),
          set(drawn) == set(places), sorted(set(drawn) ^ set(places))[:6])
    for path, (x, w) in places.items():
        f = drawn.get(path)
        if not f:
            continue
        name = " > ".join(path[1:]) or path[0]
        check("%s: width %.1f px" % (name, w), abs(f["w"] - w) <= TOL, f["w"])
        check("%s: at x %.1f" % (name, x), abs(f["x"] - x) <= TOL, f["x"])


def check_number(what, text, pattern, value, decimals_from=None):
    m = re.search(pattern, text)
    if not m:
        check(what, False, "no match for %r in %r" % (pattern, text))
        return None
    got = m.group(1).replace(",", "")
    dec = len(got.split(".")[1]) if "." in got else 0
    check(what + " (%s)" % got, abs(float(got) - value) <= 0.5 * 10 ** -dec + 1e-9, value)
    return m


def check_share(what, text, pattern, value):
    """A share printed as shimview prints it: to 0.01%, <0.01% and >99.99% at the ends."""
    m = re.search(pattern, text)
    if not m:
        check(what, False, "no match for %r in %r" % (pattern, text))
        return
    check(what + " (%s)" % m.group(1), m.group(1) == check_cct.share_text(value), value)


def check_rate_text(what, text, value, ci, mark):
    """'V ± C' and the interval's mark (or V alone) against the recomputed rate and
    interval."""
    if value is None:
        check(what + " has no kept period", text == "no period kept", text)
        return
    m = re.match(r"(-?[0-9.e+-]+)(?: (?:± |(up to ))([0-9.e+-]+)([~!]?))?$", text)
    if not m:
        check(what, False, text)
        return
    if m.group(2):  # "0 up to C": a rate without events
        check(what + ": up to, only for a rate of 0", value == 0, text)
        if ci is not None:
            c = m.group(3)
            dec = len(c.split(".")[1]) if "." in c and "e" not in c else 0
            tol = 0.5 * 10 ** -dec + 1e-9 if "e" not in c else ci * 1e-2
            check(what + " up to %.4g" % ci, abs(float(c) - ci) <= tol, c)
        check(what + ": the interval is marked %r" % mark, m.group(4) == mark, text)
        return
    m = re.match(r"(-?[0-9.e+-]+)(?: ± ([0-9.e+-]+)([~!]?))?$", text)
    v = m.group(1)
    dec = len(v.split(".")[1]) if "." in v and "e" not in v else 0
    tol = 0.5 * 10 ** -dec + 1e-9 if "e" not in v else abs(value) * 1e-3
    check(what + " is %.6g (%s)" % (value, v), abs(float(v) - value) <= tol, v)
    if m.group(2) is not None:
        check(what + ": the interval is marked %r" % mark, m.group(3) == mark, text)
    if m.group(2) is not None and ci is not None:
        check(what + " ± %.4g" % ci, abs(float(m.group(2)) - ci) <= 0.5 * 10 ** -dec + 1e-9,
              m.group(2))


def check_tooltip(P, f, w, kinds):
    name = " > ".join(w.path[1:]) or "all"
    t = f["title"]
    lines = t.split("\n")
    check("%s: the tooltip's first line is the name" % name, lines[0] == w.path[-1], lines[0])
    check_number("%s: inclusive samples" % name, t, r"\ninclusive: ([0-9,]+) samples", w.incl[0])
    check_share("%s: inclusive share" % name, t, r"\ninclusive: [0-9,]+ samples, ([<>]?[0-9.]+%)",
                w.incl[0] / ATTR[0])
    check_number("%s: exclusive samples" % name, t, r"\nexclusive: ([0-9,]+) samples", w.excl[0])
    check_share("%s: exclusive share" % name, t, r"\nexclusive: [0-9,]+ samples, ([<>]?[0-9.]+%)",
                w.excl[0] / ATTR[0])
    caller = w.path[-2] if len(w.path) > 2 and kinds.get(w.path[:-1]) == "context" else None
    if caller:
        check("%s: called from %s" % (name, caller), "\ncalled from %s\n" % caller in t, t)
    for r, rate in enumerate(P.d["rates"]):
        m = re.search(r"^%s: inclusive (.*?), exclusive (.*?)(?: \(.*)?$" % re.escape(rate["name"]),
                      t, re.M)
        check("%s: a line for rate %s" % (name, rate["name"]), m, t)
        if m:
            check_rate_text("%s: %s inclusive" % (name, rate["name"]), m.group(1),
                            *ratio(w.rates[0][r], 0, r), mark_of(P))
            check_rate_text("%s: %s exclusive" % (name, rate["name"]), m.group(2),
                            *ratio(w.rates[1][r], 0, r), mark_of(P))


def luminance(c):
    """WCAG's relative luminance of an (r, g, b) of 0..255."""
    lin = [v / 255 / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
           for v in c]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def check_label(f):
    lab, name = f["label"], f["name"]
    check("%s: its label is its name, cut with '…', or nothing (%r)" % (name, lab),
          lab is not None and (lab in ("", name) or (lab.endswith("…") and
                                                     name.startswith(lab[:-1]))), lab)
    if lab and f["fill"].startswith("#") and f["label_fill"]:
        back, ink = rgb(f["fill"]), rgb(f["label_fill"])
        other = rgb("#ffffff") if ink != rgb("#ffffff") else rgb("#1a1a1a")
        check("%s: its label's colour contrasts most with %s (%.1f:1 against %.1f:1)" %
              (name, f["fill"], contrast(back, ink), contrast(back, other)),
              contrast(back, ink) >= 0.98 * contrast(back, other), f["label_fill"])


def viridis(t):
    pos = min(max(t, 0), 1) * 8
    i = min(int(pos), 7)
    a, b = VIRIDIS[i], VIRIDIS[i + 1]
    return tuple(a[k] + (b[k] - a[k]) * (pos - i) for k in range(3))


def rgb(fill):
    return tuple(int(fill[k:k + 2], 16) for k in (1, 3, 5))


def close_colour(fill, want):
    return fill.startswith("#") and all(abs(a - b) <= 1 for a, b in zip(rgb(fill), want))


def kinds_of(frames):
    out = {}
    for path in frames:
        if len(path) == 1:
            out[path] = "all"
        elif path[-1].startswith("thread ") and len(path) == 2:
            out[path] = "thread"
        elif len(path) == 2 and path[-1] in (NO_CONTEXT, "other", "(idle)", "(other processes)"):
            out[path] = "group"
        else:
            out[path] = "context"
    return out


def check_flame(profile, svg, colour="hash", tid=None, icicle=False):
    global ATTR
    P = check_cct.Profile(profile)
    check_cct.P = P
    ATTR = [P.attributed]
    DEFF[:] = [design_effects(P), None]
    SCALE[:] = [x.get("scale") or 1.0 for x in P.d["rates"]]
    root_el = ET.parse(svg).getroot()
    check("the SVG parses and is an svg element", root_el.tag == NS + "svg", root_el.tag)
    width = float(root_el.get("width"))
    want = expected([P], False)
    kinds = kinds_of(want)
    check("all holds every attributed sample (%d)" % P.attributed,
          want[("all",)].incl[0] == P.attributed, want[("all",)].incl[0])
    top = want[("all",)] if tid is None else want[("all", "thread %s" % tid)]
    places = layout(want, top, width, lambda f: f.incl[0])
    if tid is not None:  # the thread's frame is the root: paths start there
        places = {p[1:]: v for p, v in places.items()}
    frames = parse_svg(root_el)
    drawn = link(frames, icicle)
    check_geometry(drawn, want, places)
    if tid is not None:
        check("--tid: no frame of another thread",
              not any(f["name"].startswith("thread ") and f["name"] != "thread %s" % tid
                      for f in frames), [f["name"] for f in frames])
    root = [f for f in frames if f["depth"] == 0]
    if root:
        check("the root's tooltip says what the intervals are",
              "± 95% CI" in root[0]["title"] and
              ("time batches" in root[0]["title"]), root[0]["title"])
        if DEFF[0]:
            check("the root's tooltip gives the design effect recomputed here (x%.3g)" %
                  DEFF[0][0], "(share x%.3g)" % DEFF[0][0] in root[0]["title"], root[0]["title"])
        ys = [f["y"] for f in frames]
        check("%s: the root is the %s row" % ("icicle" if icicle else "flame",
                                               "top" if icicle else "bottom"),
              root[0]["y"] == (min(ys) if icicle else max(ys)), root[0]["y"])
    for path, f in drawn.items():
        w = want.get(path if tid is None else ("all",) + path)
        if not w:
            continue
        check_tooltip(P, f, w, kinds)
        check_label(f)
    if colour == "hash":
        by_function = {}
        for path, f in drawn.items():
            k = kinds.get(path if tid is None else ("all",) + path)
            if k == "context" and f["name"] not in (ROOT, OVERFLOW):
                by_function.setdefault(re.sub(r" @0x[0-9a-f]+$", "", f["name"]), set()).add(
                    f["fill"])
            else:
                check("%s: grey (not a function)" % f["name"], f["fill"] == GREY, f["fill"])
        check("a function is one colour wherever it is called",
              all(len(v) == 1 for v in by_function.values()), by_function)
        check("functions have colours of their own",
              len({next(iter(v)) for v in by_function.values()}) > 1, by_function)
    else:
        rates = {p: ratio(want[p if tid is None else ("all",) + p].rates[0][0])[0] for p in drawn}
        enough = [ratio(want[p if tid is None else ("all",) + p].rates[0][0])[0] for p in drawn
                  if want[p if tid is None else ("all",) + p].rates[0][0][0] >= 30]
        lo, hi = min(enough), max(enough)
        for path, f in drawn.items():
            v = rates[path]
            if v is None:
                check("%s: pale grey without a kept period" % f["name"], f["fill"] == NO_RATE,
                      f["fill"])
            else:
                c = viridis((v - lo) / (hi - lo) if hi > lo else 0.5)
                check("%s: viridis colour of its rate %.4g in %.4g..%.4g" % (f["name"], v, lo, hi),
                      close_colour(f["fill"], c), (f["fill"], c))


# ---- the difference ----

def colour_diff(d, m):
    white, blue, red = (255, 255, 255), (33, 102, 172), (178, 24, 43)
    t = max(-1, min(1, d / m if m > 0 else 0))
    end = blue if t < 0 else red
    return tuple(white[k] + (end[k] - white[k]) * abs(t) for k in range(3))


def share_interval(k, n, side):
    """A frame's share k / n and its 95% interval: Wilson's, on k and n divided by the
    profile's design effect when it has time batches."""
    deff = DEFF[side][0] if DEFF[side] else 1.0
    lo, hi = stats_ref.wilson95(k / deff, n / deff)
    return k / n, lo, hi


def check_diff(a_file, b_file, svg, planted=False):
    global ATTR
    A, B = check_cct.Profile(a_file), check_cct.Profile(b_file)
    ATTR = [B.attributed, A.attributed]
    root_el = ET.parse(svg).getroot()
    width = float(root_el.get("width"))
    want = expected([B, A], True)
    check("diff: all holds every attributed sample of each",
          want[("all",)].incl == [B.attributed, A.attributed], want[("all",)].incl)

    def extent(f):
        if f.incl[0] == 0:
            return f.incl[1] / A.attributed
        return f.excl[0] / B.attributed + sum(extent(k) for k in f.kids)

    places = layout(want, want[("all",)], width, extent)
    drawn = link(parse_svg(root_el), False)
    check_geometry(drawn, want, places)

    DEFF[:] = [design_effects(B), design_effects(A)]
    SCALE[:] = [x.get("scale") or 1.0 for x in B.d["rates"]]

    def change(w):
        """B - A and its 95% interval: MOVER over the two sides' Wilson intervals."""
        a = share_interval(w.incl[1], A.attributed, 1)
        b = share_interval(w.incl[0], B.attributed, 0)
        lo, hi = stats_ref.mover(*a, *b)
        return b[0] - a[0], lo, hi

    m = max(abs(change(want[p])[0]) for p in drawn)
    root = drawn.get(("all",))
    check("diff: the root's tooltip says what each side's intervals are",
          root and "\nB: ± 95% CI" in root["title"] and "\nA: ± 95% CI" in root["title"],
          root and root["title"])
    for side, deff in (("B", DEFF[0]), ("A", DEFF[1])):
        if deff and root:
            line = next((x for x in root["title"].split("\n") if x.startswith(side + ": ")), "")
            check("diff: %s's design effect, recomputed here, is in the root's tooltip (x%.3g)" %
                  (side, deff[0]), "(share x%.3g)" % deff[0] in line, line)
    for path, f in drawn.items():
        w = want[path]
        name = " > ".join(path[1:]) or "all"
        d, lo, hi = change(w)
        sig = lo > 0 or hi < 0
        t = f["title"]
        only_a, only_b = w.incl[0] == 0, w.incl[1] == 0
        check_label(f)
        check("diff %s: 'only in A' iff A alone has it" % name, ("\nonly in A" in t) == only_a, t)
        check("diff %s: 'only in B' iff B alone has it" % name, ("\nonly in B" in t) == only_b, t)
        if only_a:
            check("diff %s: hatched (only in A)" % name, f["fill"] == HATCH, f["fill"])
        else:
            check("diff %s: coloured by its change %+.2f pp (scale ±%.2f)" % (name, 100 * d, 100 * m),
                  close_colour(f["fill"], colour_diff(d, m)), f["fill"])
        if f["w"] >= OUTLINE_MIN + TOL:
            check("diff %s: outlined in black iff the interval excludes 0 (%s)" % (name, sig),
                  (f["stroke"] == "#000000") == sig, f["stroke"])
            if sig:
                check("diff %s: the outline is 1 px, the gap between rows" % name,
                      f["stroke_width"] == "1", f["stroke_width"])
        elif f["w"] < OUTLINE_MIN - TOL:
            check("diff %s: too narrow (%.1f px) for a black outline" % (name, f["w"]),
                  f["stroke"] != "#000000", f["stroke"])
        m_iv = re.search(r"\n95% interval: ([-+][0-9.]+) to ([-+][0-9.]+)([~!]?); it "
                         r"(excludes|includes) 0", t)
        check("diff %s: the tooltip gives the interval and says whether it excludes 0 (%s)" %
              (name, "excludes" if sig else "includes"),
              m_iv and m_iv.group(4) == ("excludes" if sig else "includes"), t)
        check_number("diff %s: the change" % name, t, r"B - A: ([-+][0-9.]+) percentage", 100 * d)
        check_number("diff %s: the interval's low end" % name, t,
                     r"\n95% interval: ([-+][0-9.]+) to", 100 * lo)
        check_number("diff %s: the interval's high end" % name, t,
                     r"\n95% interval: [-+][0-9.]+ to ([-+][0-9.]+)", 100 * hi)
        if m_iv:
            want_mark = "~" if DEFF[0] and DEFF[1] else "!"
            check("diff %s: the interval is marked %r" % (name, want_mark),
                  m_iv.group(3) == want_mark, m_iv.group(3))
        for s, side in ((0, "B"), (1, "A")):
            check_number("diff %s: %s's inclusive samples" % (name, side), t,
                         r"\n%s inclusive: ([0-9,]+) samples" % side, w.incl[s])
    check_planted(drawn, want, change) if planted else None


def check_planted(drawn, want, change):
    """What flame_fixture.py planted."""
    planted = [
        (("all", "main", "eval", "walk", "visit"), "more", True),
        (("all", "walk"), "less", True),
        (("all", "main", "eval", "0x7f00dead0000"), "only in A", None),
        (("all", "walk", "visit", "libm.so.6+0x2a10"), "only in B", None),
    ]
    for path, what, sig in planted:
        f, w = drawn.get(path), want.get(path)
        name = " > ".join(path[1:])
        check("diff: the planted change is drawn: %s (%s)" % (name, what), f and w,
              sorted(drawn)[:8])
        if not (f and w):
            continue
        d, lo, hi = change(w)
        if what == "more":
            check("diff: %s's share rose, significantly, drawn red" % name,
                  d > 0 and lo > 0 and rgb(f["fill"])[0] > rgb(f["fill"])[2], (d, lo, f["fill"]))
        elif what == "less":
            check("diff: %s's share fell, significantly, drawn blue" % name,
                  d < 0 and hi < 0 and rgb(f["fill"])[2] > rgb(f["fill"])[0], (d, hi, f["fill"]))
        elif what == "only in A":
            check("diff: %s, gone from B, is hatched" % name, f["fill"] == HATCH, f["fill"])
        else:
            check("diff: %s, new in B, says so" % name, "only in B" in f["title"], f["title"])


# ---- the page ----

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.scripts, self.theads = set(), [], [], 0
        self.in_toc = self.in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "nav" and "toc" in (a.get("class") or ""):
            self.in_toc = True
        if tag == "a" and self.in_toc:
            self.links.append(a.get("href", ""))
        if tag == "script":
            self.in_script = True
            self.scripts.append("")
        if tag == "thead":
            self.theads += 1

    def handle_endtag(self, tag):
        if tag == "nav":
            self.in_toc = False
        if tag == "script":
            self.in_script = False

    def handle_data(self, data):
        if self.in_script:
            self.scripts[-1] += data


def check_html(profile, page_file):
    text = open(page_file, encoding="utf-8").read()
    page = Page()
    page.feed(text)
    check("html: a table of contents", len(page.links) >= 4, page.links)
    check("html: every link of the contents leads to a section",
          all(l.startswith("#") and l[1:] in page.ids for l in page.links),
          [l for l in page.links if l[1:] not in page.ids])
    for section in ("flame", "functions", "tree"):
        check("html: the contents link #%s" % section, "#" + section in page.links, page.links)
    check("html: tables have headings to sort by", page.theads >= 3, page.theads)
    check("html: a script sorts the tables on a heading's click",
          any("aria-sort" in s and "tHead" in s for s in page.scripts), len(page.scripts))
    m = re.search(r'<h2 id="flame">.*?(<svg .*?</svg>)', text, re.S)
    check("html: the flame graph is inline SVG under its heading", m, "no svg after #flame")
    if not m:
        return
    svg = os.path.join(os.path.dirname(os.path.abspath(page_file)), "page-flame.svg")
    with open(svg, "w", encoding="utf-8") as f:
        f.write(m.group(1))
    P = check_cct.Profile(profile)
    check_flame(profile, svg, "rate" if P.d["rates"] else "hash")


# ---- the script ----

DOM = r"""
const frames = JSON.parse(require('fs').readFileSync(0, 'utf8'));
function El(tag, attrs) {
  this.tagName = tag; this.attrs = Object.assign({}, attrs || {}); this.style = {};
  this.children = []; this.parentNode = null; this.textContent = ''; this.listeners = {};
}
El.prototype.getAttribute = function (k) { return k in this.attrs ? String(this.attrs[k]) : null; };
El.prototype.setAttribute = function (k, v) { this.attrs[k] = v; };
El.prototype.appendChild = function (c) { c.parentNode = this; this.children.push(c); };
El.prototype.addEventListener = function (t, f) { this.listeners[t] = f; };
El.prototype.querySelector = function (s) { return this.children.find(c => c.tagName === s) || null; };
El.prototype.querySelectorAll = function (s) {
  return this.children.filter(c => c.tagName === 'g' && c.attrs['class'] === 'frame');
};
const svg = new El('svg'), script = new El('script');
const gs = frames.map(f => {
  const g = new El('g', {'class': 'frame'}), r = new El('rect', {x: f.x, y: f.y, width: f.w});
  const title = new El('title'), text = new El('text', {x: f.x + 3, fill: f.label_fill});
  title.textContent = f.title; text.textContent = f.label;
  g.appendChild(title); g.appendChild(r); g.appendChild(text); svg.appendChild(g);
  return g;
});
svg.appendChild(script);
global.document = {currentScript: script, getElementsByTagName: () => [script],
                   createElementNS: (ns, t) => new El(t)};
eval(process.env.FLAME_SCRIPT);
const state = () => gs.map(g => ({x: +g.children[1].attrs.x, w: +g.children[1].attrs.width,
                                 shown: g.style.display !== 'none', label: g.children[2].textContent,
                                 ink: g.children[2].attrs.fill}));
const out = {};
svg.listeners.click({target: gs[+process.env.FLAME_CLICK].children[1]});
out.zoomed = state();
svg.listeners.click({target: gs[0].children[2]});
out.back = state();
process.stdout.write(JSON.stringify(out));
"""


def check_zoom(svg):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("skipped: node is not installed, so the zoom script is not run")
        return
    root_el = ET.parse(svg).getroot()
    frames = parse_svg(root_el)
    script = root_el.find(NS + "script")
    check("the flame graph has its zoom script", script is not None and script.text, "none")
    if script is None:
        return
    drawn = link(frames, False)
    target = max((f for f in frames if f["depth"] >= 2), key=lambda f: f["w"])
    k = frames.index(target)
    plain = [{k: f[k] for k in ("x", "y", "w", "title", "label", "label_fill")} for f in frames]
    out = subprocess.run([node, "-e", DOM], input=json.dumps(plain), capture_output=True,
                         text=True, env=dict(os.environ, FLAME_SCRIPT=script.text,
                                             FLAME_CLICK=str(k)))
    check("node runs the zoom script", out.returncode == 0, out.stderr[-400:])
    if out.returncode:
        return
    state = json.loads(out.stdout)
    graph = float(root_el.get("width")) - 2 * MARGIN
    scale = graph / target["w"]
    for f, z, b in zip(frames, state["zoomed"], state["back"]):
        inside = f["path"][:len(target["path"])] == target["path"]
        above = target["path"][:len(f["path"])] == f["path"] and f is not target
        name = " > ".join(f["path"])
        if inside:
            check("zoom: %s is scaled into the whole width" % name,
                  z["shown"] and abs(z["x"] - (MARGIN + (f["x"] - target["x"]) * scale)) < 0.01 and
                  abs(z["w"] - f["w"] * scale) < 0.01, z)
        elif above:
            check("zoom: caller %s spans the width" % name,
                  z["shown"] and abs(z["x"] - MARGIN) < 0.01 and abs(z["w"] - graph) < 0.01, z)
            check("zoom: caller %s, faded, is labelled in dark text" % name,
                  z["ink"] == "#1a1a1a", z["ink"])
        else:
            check("zoom: %s, outside the zoomed frame, is hidden" % name, not z["shown"], z)
        check("zoom out: %s is back where it was" % name,
              b["shown"] and abs(b["x"] - f["x"]) < 0.01 and abs(b["w"] - f["w"]) < 0.01, b)
        check("zoom out: %s's label has its colour again" % name, b["ink"] == f["label_fill"],
              (b["ink"], f["label_fill"]))
    check("zoom: the clicked frame's label is its whole name",
          state["zoomed"][k]["label"] == target["name"], state["zoomed"][k])
    del drawn


class Tables(html.parser.HTMLParser):
    """The page's tables: class, whether a cell is of the tree, heading and body rows."""

    def __init__(self):
        super().__init__()
        self.tables, self.cell, self.part = [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"class": a.get("class") or "", "tree": False, "head": [],
                                "body": []})
        elif tag in ("thead", "tbody"):
            self.part = "head" if tag == "thead" else "body"
        elif tag == "tr" and self.tables:
            self.tables[-1][self.part or "body"].append([])
        elif tag in ("td", "th"):
            self.cell = ""
            if "tree" in (a.get("class") or ""):
                self.tables[-1]["tree"] = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][self.part or "body"][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


SORT_DOM = r"""
const tables = JSON.parse(require('fs').readFileSync(0, 'utf8'));
function cell(text) { return {textContent: text}; }
const fakes = tables.map(t => {
  const heads = t.head.length ? t.head[t.head.length - 1].map(h => ({
    textContent: h, attrs: {}, listeners: {}, classes: [],
    classList: {add(c) { this.owner.classes.push(c); }},
    setAttribute(k, v) { this.attrs[k] = v; }, getAttribute(k) { return this.attrs[k] || null; },
    removeAttribute(k) { delete this.attrs[k]; },
    addEventListener(e, f) { this.listeners[e] = f; }})) : [];
  heads.forEach(h => { h.classList.owner = h; });
  const rows = t.body.map(r => ({cells: r.map(cell)}));
  const body = {rows: rows, appendChild(r) { rows.splice(rows.indexOf(r), 1); rows.push(r); }};
  return {classList: {contains: c => t.class.split(' ').includes(c)},
          querySelector: () => t.tree ? {} : null,
          tHead: t.head.length ? {rows: [{cells: heads}]} : null,
          tBodies: t.body.length ? [body] : [], heads: heads, body: body};
});
global.document = {querySelectorAll: () => fakes};
eval(process.env.SORT_SCRIPT);
const k = +process.env.SORT_TABLE, col = +process.env.SORT_COLUMN, t = fakes[k];
const order = () => t.body.rows.map(r => r.cells.map(c => c.textContent));
const out = {sortable: fakes.map(f => f.heads.map(h => h.classes.includes('sortable')))};
t.heads[col].listeners.click();
out.down = order();
out.mark = t.heads[col].getAttribute('aria-sort');
t.heads[col].listeners.click();
out.up = order();
process.stdout.write(JSON.stringify(out));
"""


def number(text):
    m = re.match(r"[-+]?[0-9.]+", text.strip().replace(",", ""))
    return float(m.group(0)) if m else None


def check_sort(page_file):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        print("skipped: node is not installed, so the sorting script is not run")
        return
    text = open(page_file, encoding="utf-8").read()
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    sorter = next((s for s in scripts if "aria-sort" in s), None)
    check("html: the page has its sorting script", sorter, len(scripts))
    if not sorter:
        return
    parser = Tables()
    parser.feed(text)
    tables = parser.tables
    k = next((i for i, t in enumerate(tables) if t["head"] and t["head"][-1][:2] == ["function", "excl"]), None)
    check("html: the functions table is there", k is not None, [t["head"][-1:] for t in tables])
    if k is None:
        return
    col = tables[k]["head"][-1].index("excl")
    out = subprocess.run([node, "-e", SORT_DOM], input=json.dumps(tables), capture_output=True,
                         text=True, env=dict(os.environ, SORT_SCRIPT=sorter, SORT_TABLE=str(k),
                                             SORT_COLUMN=str(col)))
    check("node runs the sorting script", out.returncode == 0, out.stderr[-400:])
    if out.returncode:
        return
    got = json.loads(out.stdout)
    for i, t in enumerate(tables):
        table_ok = bool(t["head"]) and len(t["body"]) >= 3 and \
            "facts" not in t["class"].split() and not t["tree"]
        want = [table_ok and bool(h.strip()) for h in (t["head"][-1] if t["head"] else [])]
        check("sort: table %d (%s): its headings sort iff it is neither facts nor the tree, "
              "has 3 rows or more, and the heading has a name" %
              (i, (t["head"][-1][:2] if t["head"] else t["class"])), got["sortable"][i] == want,
              (got["sortable"][i], want))
    down = [number(r[col]) for r in got["down"]]
    up = [number(r[col]) for r in got["up"]]
    check("sort: a click on 'excl' sorts the rows by it, largest first (%s)" % down,
          down == sorted(down, reverse=True) and len(down) == len(tables[k]["body"]), down)
    check("sort: the heading says so", got["mark"] == "descending", got["mark"])
    check("sort: a second click, smallest first (%s)" % up, up == sorted(up), up)
    check("sort: the rows are the page's rows", sorted(map(tuple, got["down"])) ==
          sorted(map(tuple, tables[k]["body"])), got["down"][:2])


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    kind = argv[1]
    if kind == "flame":
        profile, svg = argv[2], argv[3]
        colour = argv[4] if len(argv) > 4 else "hash"
        tid = argv[5] if len(argv) > 5 else None
        check_flame(profile, svg, colour, tid)
    elif kind == "icicle":
        check_flame(argv[2], argv[3], "hash", None, True)
    elif kind == "diff":
        check_diff(argv[2], argv[3], argv[4], len(argv) > 5 and argv[5] == "planted")
    elif kind == "html":
        check_html(argv[2], argv[3])
    elif kind == "zoom":
        check_zoom(argv[2])
    elif kind == "sort":
        check_sort(argv[2])
    else:
        sys.exit("check_flame.py: unknown KIND " + kind)
    print("\n".join(results))


if __name__ == "__main__":
    main(sys.argv)
