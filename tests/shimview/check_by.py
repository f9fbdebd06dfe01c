#!/usr/bin/env python3
"""check_by.py -- check what shimview shows of a profile's `by` against the profile.

    python3 check_by.py text PROFILE REPORT_TEXT NTOP   the by table of `report`
    python3 check_by.py csv PROFILE CSV [NTOP]          `report --csv=by` (NTOP: --top given)
    python3 check_by.py svg PROFILE SVG NTOP            the figure `plot` writes (STEM-by.svg)
    python3 check_by.py html PROFILE HTML               the page `html` writes
    python3 check_by.py truth CSV FACTOR                Y = FACTOR * X within every full bucket

Each check prints "ok: WHAT" or "FAIL: WHAT (why)", one line each, for lib.sh's tally.
Every value is recomputed here from the profile's own slots: Y in a slot is sum_a / sum_b.
shimview shows a tag with the program's threads added together, and all the samples of
other processes (tids placement.threads does not list) as one row, so the tags here are
the profile's entries folded the same way: by name, the slots added up.
"""
import csv
import html.parser
import json
import re
import sys
import xml.etree.ElementTree as ET

# what shimview names an unnamed value 0 of a tag slot (shimview/tags.h)
UNSET = "(before the first signal)"
TINY_SHARE = 0.001  # PLOT_TINY_SHARE

NS = "{http://www.w3.org/2000/svg}"
SPARSE = 10


def report(ok, what, why=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok or not why else " (%s)" % why))


def load(path):
    return json.load(open(path, encoding="utf-8"))


GROUPS = {1: "(other processes)", 2: "(idle)"}


def group(p, t):
    """0: the program's thread (or any, without placement.threads); 1: another process;
    2: idle (tid 0)."""
    listed = p["placement"].get("threads")
    if listed is None:
        return 0
    if t["thread"] == 0:
        return 2
    return 0 if t["thread"] in {x["tid"] for x in listed} else 1


def tag_name(p, t):
    """The name shimview gives an entry (tags.c), or a folded one."""
    if t is p["other"]:
        return "other"
    if "folded" in t:
        return t["name"]
    if group(p, t):
        return GROUPS[group(p, t)]
    if not t["values"]:
        return "(untagged)"
    return "/".join(n if n is not None else UNSET if v == 0 else "%s=%d" % (s["name"], v)
                    for n, v, s in zip(t["names"], t["values"], p["signals"]["tags"]))


def folded(p):
    """The entries of one name and group added up in file order, as shimview's merged view
    adds them (match.c): the program's first, each group by samples, then by name."""
    rows = {}
    for t in p["tags"]:
        key = (group(p, t), tag_name(p, t))
        r = rows.setdefault(key, {"folded": True, "name": key[1], "group": key[0], "samples": 0,
                                  "kept": 0, "by": [[0, 0.0, 0.0] for _ in t["by"]]})
        r["samples"] += t["samples"]
        r["kept"] += t["kept"]
        for k, slot in enumerate(t["by"]):
            for i in range(3):
                r["by"][k][i] += slot[i]
    return sorted(rows.values(), key=lambda r: (r["group"], -r["samples"], r["name"]))


def top_tags(p, n=None):
    """The folded tags as shimview ranks them."""
    tags = folded(p)
    return tags if n is None else tags[:n]


def edges(by, k):
    w = (by["hi"] - by["lo"]) / by["buckets"]
    lo = None if k == 0 else by["lo"] if k == 1 else by["lo"] + (k - 1) * w
    hi = None if k == by["buckets"] + 1 else by["hi"] if k == by["buckets"] else by["lo"] + k * w
    return lo, hi


def label(by, k):
    lo, hi = edges(by, k)
    if lo is None:
        return "< %g" % hi
    if hi is None:
        return "\u2265 %g" % lo
    return "[%g, %g)" % (lo, hi)


def y_of(slot):
    return slot[1] / slot[2] if slot[0] > 0 and slot[2] > 0 else None


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_text(p, text, ntop):
    by = p["by"]
    unit = {r["name"]: r["unit"] for r in p["rates"]}
    lines = text.split("\n")
    heading = "%s %s in each bucket of %s %s: %d bucket" % (
        by["rate"], unit[by["rate"]], by["by"], unit[by["by"]], by["buckets"])
    at = [i for i, l in enumerate(lines) if l.startswith("by ") and heading in l]
    report(len(at) == 1, "report: a line says which rate by which", "no '%s'" % heading)
    if not at:
        return
    tags = top_tags(p, ntop)
    head = re.split(r"\s{2,}", lines[at[0] + 1].strip())
    want = [by["by"]] + [x for t in tags for x in (tag_name(p, t), "n")]

    def same(shown, name):  # a long name is cut to its column: its start...its end
        head, cut, tail = shown.partition("...")
        return shown == name or (cut and name.startswith(head) and name.endswith(tail))

    report(len(head) == len(want) and all(same(a, b) for a, b in zip(head, want)), "report: the by table's header names X and the top %d tags" % len(tags),
           "header %r, expected %r" % (head, want))
    rows = {}
    for line in lines[at[0] + 3:]:
        if not line.strip() or line.startswith("(") or line.startswith(" "):
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    nonempty = [k for k in range(by["buckets"] + 2) if any(t["by"][k][0] for t in tags)]
    report(sorted(rows) == sorted(label(by, k) for k in nonempty),
           "report: one row per slot holding periods of a shown tag",
           "rows %r" % sorted(rows))
    bad = []
    for k in nonempty:
        cells = rows.get(label(by, k))
        if not cells:
            continue
        for i, t in enumerate(tags):
            y, n = y_of(t["by"][k]), t["by"][k][0]
            value, count = cells[2 * i], cells[2 * i + 1]
            if int(count.replace(",", "")) != n:
                bad.append("%s %s n %s != %d" % (tag_name(p, t), label(by, k), count, n))
            if (y is None) != (value == "-") or (y is not None and not close(float(value.replace(",", "")), y, 0.006)):
                bad.append("%s %s: %s, expected %r" % (tag_name(p, t), label(by, k), value, y))
    report(not bad, "report: every cell is sum_a / sum_b of its slot, n its periods", "; ".join(bad[:4]))


def check_csv(p, path, ntop):
    by = p["by"]
    rows = list(csv.reader(open(path, encoding="utf-8", newline="")))
    want = ["name", "slot", by["by"] + "_lo", by["by"] + "_hi", "periods",
            "rate_" + by["rate"], "sum_a", "sum_b"]
    report(rows and rows[0] == want, "csv: the header", "got %r" % (rows[:1],))
    entries = top_tags(p, ntop) + ([p["other"]] if p["other"]["samples"] > 0 else [])
    nslots = by["buckets"] + 2
    report(len(rows) - 1 == nslots * len(entries),
           "csv: one record per tag and slot (%d tags)" % len(entries),
           "%d records" % (len(rows) - 1))
    bad = []
    for e, t in enumerate(entries):
        for k in range(nslots):
            if 1 + e * nslots + k >= len(rows):
                break
            r = rows[1 + e * nslots + k]
            slot, y = t["by"][k], y_of(t["by"][k])
            lo, hi = edges(by, k)
            if r[0] != tag_name(p, t) or r[1] != str(k) or int(r[4]) != slot[0]:
                bad.append("record %r" % r)
            if (lo is None) != (r[2] == "") or (lo is not None and not close(float(r[2]), lo, 1e-9)):
                bad.append("lo %r for slot %d" % (r[2], k))
            if (hi is None) != (r[3] == "") or (hi is not None and not close(float(r[3]), hi, 1e-9)):
                bad.append("hi %r for slot %d" % (r[3], k))
            if (y is None) != (r[5] == "") or (y is not None and not close(float(r[5]), y, 1e-9)):
                bad.append("%s slot %d: %r, expected %r" % (r[0], k, r[5], y))
            if float(r[6]) != slot[1] or float(r[7]) != slot[2]:
                bad.append("%s slot %d sums %r %r" % (r[0], k, r[6], r[7]))
    report(not bad, "csv: rate = sum_a / sum_b, sums and edges as in the profile", "; ".join(bad[:4]))


def check_svg(p, path, ntop):
    by = p["by"]
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        report(False, "svg: parses as XML", str(e))
        return
    report(root.tag == NS + "svg", "svg: the root is an svg element", root.tag)

    def texts(klass):
        return ["".join(t.itertext()) for t in root.iter(NS + "text") if t.get("class") == klass]

    unit = {r["name"]: r["unit"] for r in p["rates"]}
    title = "%s by %s" % (by["rate"], by["by"])
    report(title in texts("title"), "svg: titled '%s'" % title, "titles %r" % texts("title"))
    axes = texts("axis-label")
    for name in (by["rate"], by["by"]):
        want = "%s %s" % (name, unit[name])
        report(any(a.startswith(want) for a in axes), "svg: an axis is labelled '%s'" % want,
               "axis labels %r" % axes)
    tags = top_tags(p, ntop)
    total = sum(t["samples"] for t in p["tags"]) + p["other"]["samples"]
    while len(tags) > 1 and tags[-1]["samples"] < TINY_SHARE * total:
        tags.pop()  # plot leaves out the last tags under 0.1% of samples (plot.c)
    legend = " ".join(texts("legend"))
    missing = [tag_name(p, t) for t in tags if tag_name(p, t) not in legend]
    report(not missing, "svg: the legend names the top %d tags" % len(tags), "missing %r" % missing)
    series = [g for g in root.iter(NS + "g") if g.get("class") == "series"]
    names = [g.find(NS + "title").text for g in series]
    report(names == [tag_name(p, t) for t in reversed(tags)],
           "svg: one series per top tag", "series %r" % names)
    bad = []
    for g in series:
        t = next(t for t in tags if tag_name(p, t) == g.find(NS + "title").text)
        points = [q for q in g.iter(NS + "g") if q.get("class") == "point"]
        full = [k for k, s in enumerate(t["by"]) if y_of(s) is not None]
        if len(points) != len(full):
            bad.append("%s: %d points, %d non-empty slots" % (tag_name(p, t), len(points), len(full)))
            continue
        for q, k in zip(points, full):
            tip = q.find(NS + "title").text
            c = q.find(NS + "circle")
            hollow = c.get("fill") == "#ffffff"
            if label(by, k) not in tip or "%s kept period" % format(t["by"][k][0], ",") not in tip:
                bad.append("point %r for slot %d" % (tip, k))
            if hollow != (t["by"][k][0] < SPARSE):
                bad.append("slot %d of %s: hollow=%s with %d periods"
                           % (k, tag_name(p, t), hollow, t["by"][k][0]))
    report(not bad, "svg: a point per non-empty slot, hollow below %d periods" % SPARSE,
           "; ".join(bad[:4]))
    ticks = texts("tick")
    for k, side in ((0, "below"), (by["buckets"] + 1, "above")):
        if any(t["by"][k][0] for t in tags):
            report(label(by, k) in ticks, "svg: the slot %s the span is labelled '%s'"
                   % (side, label(by, k)), "ticks %r" % ticks)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.svg_titles, self.cells, self._in = [], [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        self._in = tag

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.svg_titles.append(data)
        elif self._in in ("td", "th"):
            self.cells.append(data)


def check_html(p, path):
    page = Page()
    page.feed(open(path, encoding="utf-8").read())
    by = p["by"]
    title = "%s by %s" % (by["rate"], by["by"])
    report("by" in page.ids and "by-series-1" in page.ids, "html: a by section with the figure",
           "ids %r" % page.ids[:20])
    report(title in page.svg_titles, "html: the figure titled '%s' inline" % title)
    tags = top_tags(p, 4)
    k = next(k for k in range(by["buckets"] + 2) if tags[0]["by"][k][0])
    report(label(by, k) in page.cells, "html: the by table has the row %s" % label(by, k))


def check_truth(path, factor):
    """Y counts factor times what X counts, in every period. The observer reads the two
    words one after the other, so at each read one increment of X may be in flight: a
    bucket of n periods and c cycles whose X rate is in [lo, hi) counts between lo*c - n
    and hi*c + n of X, and Y's sum lies between factor times those (to 2%)."""
    rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
    keys = list(rows[0].keys()) if rows else []
    lo, hi = keys[2], keys[3]
    checked, bad = 0, []
    for r in rows:
        n = int(r["periods"])
        if not r[lo] or not r[hi] or n < 100:
            continue
        checked += 1
        a, b, c = float(r[lo]), float(r[hi]), float(r["sum_b"])
        y = float(r["sum_a"])
        least, most = factor * (a * c - n), factor * (b * c + n)
        if not least * 0.98 <= y <= most * 1.02:
            bad.append("%s [%g, %g): %d periods, %g cycles, Y %g outside [%g, %g]"
                       % (r["name"], a, b, n, c, y, least, most))
    report(checked > 0 and not bad,
           "truth: in every bucket with 100 periods or more, Y counts %g times an X inside it "
           "(%d buckets)" % (factor, checked), "; ".join(bad[:4]) or "no bucket checked")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "truth":
        check_truth(argv[2], float(argv[3]))
        return
    p = load(argv[2])
    if cmd == "text":
        check_text(p, open(argv[3], encoding="utf-8").read(), int(argv[4]))
    elif cmd == "csv":
        check_csv(p, argv[3], int(argv[4]) if len(argv) > 4 else None)
    elif cmd == "svg":
        check_svg(p, argv[3], int(argv[4]))
    elif cmd == "html":
        check_html(p, argv[3])
    else:
        sys.exit("check_by.py: unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
