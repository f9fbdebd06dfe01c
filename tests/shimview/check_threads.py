#!/usr/bin/env python3
"""check_threads.py -- read back what shimview shows of a profile's threads.

    python3 check_threads.py KIND PROFILE FILE [ARGS...]

Every expected number is recomputed here from the profile's JSON: an entry is the
program's when placement.threads lists its thread word (every entry is, in a profile
without the list), the idle task's when the word is 0, and another process's otherwise;
the merged view adds up the program's entries of one name, and all of the others' into
"(other processes)" and "(idle)". Rates are sum_a / sum_b of the added sums, intervals the
delta method's from them. KIND says what FILE is:

  merged       `report --csv` output
  per-thread   `report --csv --per-thread` output
  text         `report` text output (ARGS: the number of the program's rows shown)
  threads      `threads --csv` output (ARGS: the rate shown, or nothing for every rate)
  threads-text `threads` text output
  html         `html` output: the tags and threads tables, parsed by html.parser
  real         `threads --csv` of thread_phases (ARGS: its truth file): where the profile
               has BPF thread identity, each worker has samples of its own; without it
               only the observed thread has samples, and every row must still add up

Prints one "ok: ..." or "FAIL: ..." line per check.
"""
import csv
import html.parser
import json
import math
import os
import re
import sys

# what shimview names an unnamed value 0 of a tag slot (shimview/tags.h)
UNSET = "(before the first signal)"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats_ref  # noqa: E402

OTHER, IDLE = "(other processes)", "(idle)"
results = []


def check(what, cond, why=""):
    results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % why))


def close(got, want, rel=1e-6):
    if want is None:
        return got in ("", None)
    try:
        return abs(float(got) - want) <= rel * max(abs(want), 1e-12)
    except ValueError:
        return False


class Profile:
    def __init__(self, path):
        self.d = d = json.load(open(path, encoding="utf-8"))
        listed = d["placement"].get("threads")
        self.listed = listed
        self.tids = None if listed is None else {t["tid"] for t in listed}
        s = d["samples"]
        self.attributed = s["total"] - s["interrupted"]
        self.cycles = sum(t["cycles"] for t in d["tags"]) + d["other"]["cycles"]
        self.rates = [r["name"] for r in d["rates"]]

    def group(self, e):
        """0 the program's, 1 another process's, 2 idle."""
        if self.tids is None or e["thread"] in self.tids:
            return 0
        return 2 if e["thread"] == 0 else 1

    def name(self, e):
        g = self.group(e)
        if g:
            return OTHER if g == 1 else IDLE
        tags = self.d["signals"]["tags"]
        return "/".join(n if n is not None else UNSET if v == 0 else "%s=%d" % (s["name"], v)
                        for n, v, s in zip(e["names"], e["values"], tags))

    def thread_name(self, tid):
        return next((t["name"] for t in self.listed or [] if t["tid"] == tid), None)


def empty(p):
    return {"samples": 0, "kept": 0, "cycles": 0, "entries": [],
            "rates": [dict.fromkeys(("n", "sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab", "sum",
                                     "sumsq"), 0) for _ in p.rates]}


def add(acc, e):
    acc["samples"] += e["samples"]
    acc["kept"] += e["kept"]
    acc["cycles"] += e["cycles"]
    acc["entries"].append(e)
    for r, s in zip(acc["rates"], e["rates"]):
        for k in r:
            r[k] += s.get(k, 0)


def ratio(r):
    return r["sum_a"] / r["sum_b"] if r["n"] and r["sum_b"] > 0 else None


def ratio_ci(r, scale=1.0):
    n = r["n"]
    if n < 2 or r["sum_b"] <= 0:
        return None
    if r["sum_a"] == 0 and r["sum_aa"] == 0:  # no event: one-sided, up to the rule of three
        return stats_ref.zero_rate_hi(r["sum_b"], scale)
    R, bbar = r["sum_a"] / r["sum_b"], r["sum_b"] / n
    cov = lambda xy, x, y: (r[xy] - r[x] * r[y] / n) / (n - 1)
    var = cov("sum_aa", "sum_a", "sum_a") - 2 * R * cov("sum_ab", "sum_a", "sum_b") + \
        R * R * cov("sum_bb", "sum_b", "sum_b")
    return stats_ref.t95(n - 1) * math.sqrt(max(var, 0) / (n * bbar * bbar))


def scale_of(p, name):
    """the rate's scale: what one event adds to its sum_a"""
    return next((x.get("scale") or 1.0 for x in p.d["rates"] if x["name"] == name), 1.0)


def mean_ci(r):
    n = r["n"]
    if n < 2:
        return None
    var = (r["sumsq"] - r["sum"] ** 2 / n) / (n - 1)
    return stats_ref.t95(n - 1) * math.sqrt(max(var, 0) / n)


def merged(p):
    """The merged view's rows: (group, name) -> sums, the program's first, by samples."""
    rows = {}
    for e in p.d["tags"]:
        add(rows.setdefault((p.group(e), p.name(e)), empty(p)), e)
    return sorted(rows.items(), key=lambda kv: (kv[0][0], -kv[1]["samples"], kv[0][1]))


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def check_numbers(what, row, acc, p, rate_cols):
    """samples, shares and every rate of a row against the sums of its entries."""
    bad = []
    if int(row["samples"]) != acc["samples"]:
        bad.append("samples %s != %d" % (row["samples"], acc["samples"]))
    if not close(row["share"], acc["samples"] / p.attributed):
        bad.append("share %s" % row["share"])
    if not close(row["time_share"], acc["cycles"] / p.cycles):
        bad.append("time_share %s" % row["time_share"])
    for name, r in zip(p.rates, acc["rates"]):
        if int(row["n_" + name]) != r["n"]:
            bad.append("n_%s %s != %d" % (name, row["n_" + name], r["n"]))
        if not close(row["rate_" + name], ratio(r)):
            bad.append("rate_%s %s, sum_a/sum_b %r" % (name, row["rate_" + name], ratio(r)))
        ci = ratio_ci(r, scale_of(p, name))
        if not close(row["rate_ci95_" + name], ci, 1e-4):
            bad.append("rate_ci95_%s %s, %r" % (name, row["rate_ci95_" + name], ci))
        if "mean_" + name in rate_cols:
            mean = r["sum"] / r["n"] if r["n"] else None
            if not close(row["mean_" + name], mean) or \
                    not close(row["ci95_" + name], mean_ci(r), 1e-4):
                bad.append("mean_%s %s ± %s" % (name, row["mean_" + name], row["ci95_" + name]))
    check(what, not bad, "; ".join(bad[:3]))


def check_merged(p, path):
    rows = read_csv(path)
    want = merged(p)
    names = [r["name"] for r in rows]
    order = [name for (_, name), _ in want] + (["other"] if p.d["other"]["samples"] else [])
    check("merged: one row per tag of the program's threads added up, then %s, %s and other"
          % (OTHER, IDLE), names == order, "rows %r, expected %r" % (names, order))
    total = sum(int(r["samples"]) for r in rows)
    check("merged: the rows' samples add up to samples.total - interrupted (%d)" % p.attributed,
          total == p.attributed, total)
    other_rows = sum(int(r["samples"]) for r in rows if r["name"] in (OTHER, IDLE))
    program = sum(int(r["samples"]) for r in rows if r["name"] not in (OTHER, IDLE, "other"))
    check("merged: program rows + other processes + idle + other == total - interrupted",
          program + other_rows + p.d["other"]["samples"] == p.attributed,
          (program, other_rows, p.d["other"]["samples"]))
    by_name = {r["name"]: r for r in rows}
    cols = rows[0].keys() if rows else []
    for (g, name), acc in want:
        row = by_name.get(name)
        if row is None:
            continue
        threads = {e["thread"] for e in acc["entries"]}
        check_numbers("merged: %s's numbers are its entries' sums (%d entries)"
                      % (name, len(acc["entries"])), row, acc, p, cols)
        check("merged: %s's thread column is its one tid, or empty for several" % name,
              row["thread"] == (str(threads.pop()) if len(threads) == 1 else ""), row["thread"])
        first = acc["entries"][0]
        want_value = "" if g else ";".join(str(v % 2**64) for v in first["values"])
        check("merged: %s's values are %s" % (name, want_value or "empty (no tags of the program)"),
              row["value"] == want_value, row["value"])


def check_per_thread(p, path):
    rows = read_csv(path)
    check("per-thread: a thread_name column after thread",
          rows and list(rows[0])[:3] == ["thread", "thread_name", "slot"], list(rows[0])[:3])
    want = {(e["thread"], p.name(e), tuple(e["values"])): e for e in p.d["tags"]}
    got = {}
    for r in rows:
        if r["name"] == "other":
            continue
        values = tuple(int(v) for v in r["value"].split(";")) if r["value"] else None
        got[(int(r["thread"]), r["name"], values)] = r
    check("per-thread: one row per entry (and other)",
          len(rows) == len(p.d["tags"]) + (1 if p.d["other"]["samples"] else 0), len(rows))
    bad = []
    for (tid, name, values), e in want.items():
        r = got.get((tid, name, None if p.group(e) else values))
        if r is None:
            bad.append("no row for %d %s" % (tid, name))
            continue
        acc = empty(p)
        add(acc, e)
        if int(r["samples"]) != e["samples"] or \
                any(not close(r["rate_" + n], ratio(a)) for n, a in zip(p.rates, acc["rates"])):
            bad.append("%d %s numbers" % (tid, name))
        if r["thread_name"] != (p.thread_name(tid) or ""):
            bad.append("%d thread_name %r" % (tid, r["thread_name"]))
    check("per-thread: each entry's row has its thread, the thread's name, its numbers",
          not bad, "; ".join(bad[:3]))


def table_rows(text, first_head):
    """The rows of the aligned table whose header starts with first_head: lists of cells
    split at runs of 2+ spaces."""
    lines = text.split("\n")
    at = next((i for i, l in enumerate(lines) if l.split() and l.split()[0] == first_head), None)
    if at is None:
        return None, []
    out = []
    for line in lines[at + 2:]:
        if not line.strip() or re.match(r"\(\d+ more rows? hidden", line):
            break
        out.append(re.split(r"\s{2,}", line.strip()))
    return re.split(r"\s{2,}", lines[at].strip()), out


def short_why(why):
    """Why BPF was not used, as the report says it: libshim's sentence cut to the error's
    name (the rest is shim-info's to say), any other reason up to a parenthesis or
    semicolon."""
    m = re.match(r"BPF is not available: .*? failed with ([^ ;(]+)", why)
    if m:
        return "BPF is not available (%s); shim-info says why" % m.group(1)
    if why.startswith("BPF is not available: "):
        return "BPF is not available; shim-info says why"
    return re.split(r"[;(]", why)[0].rstrip(" ")


def check_text(p, path, nshown):
    text = open(path, encoding="utf-8").read()
    listed = p.listed
    if listed is not None:
        pl = p.d["placement"]
        observed = pl["threads_attached"] + 1
        src = pl["thread_identity"]["source"]
        ident = "(thread ids from BPF)" if src == "bpf" else \
            "(thread ids: %s: %s)" % (src, short_why(pl["thread_identity"]["why"]))
        if observed > len(listed):
            line = "threads     {:,} observed, the first {:,} listed {}".format(observed, len(listed), ident)
        else:
            line = "threads     {} observed {}".format(len(listed), ident)
        check("text: '%s'" % line, line in text.split("\n"), text[:600])
        check("text: the threads line is short (%d characters)" % len(line), len(line) <= 100)
        obs = pl["observers"]
        if len(obs) == 1:
            line = "observers   1 (CPU %d watching CPU %d)" % (obs[0]["observer_cpu"], obs[0]["observed_cpu"])
            check("text: '%s'" % line, line in text.split("\n"))
        else:
            check("text: observers lists each observer",
                  all("CPU %d watching CPU %d: %s" % (o["observer_cpu"], o["observed_cpu"], o["relation"])
                      in text for o in obs) and "observers   %d" % len(obs) in text)
    check("text: shares say they are of all attributed samples",
          "shares      of all {:,} attributed samples".format(p.attributed) in text)
    head, rows = table_rows(text, "name")
    want = merged(p)
    program = [name for (g, name), _ in want if g == 0][:nshown]
    groups = [name for (g, name), _ in want if g]
    order = program + groups + (["other"] if p.d["other"]["samples"] else [])
    check("text: the program's top %d rows, then %s" % (nshown, ", ".join(groups + ["other"])),
          [r[0] for r in rows] == order, [r[0] for r in rows])
    check("text: no thread column in the merged view", head and head[0] == "name", head)


def check_threads(p, path, rate=None):
    rows = read_csv(path)
    rates = [rate] if rate else p.rates
    want_head = ["thread", "name", "samples", "share", "time_share"] + \
        [c % r for r in rates for c in ("rate_%s", "rate_ci95_%s", "n_%s")]
    check("threads: the header", rows and list(rows[0]) == want_head, rows and list(rows[0]))
    acc = {}
    for e in p.d["tags"]:
        g = p.group(e)
        add(acc.setdefault((g, e["thread"] if g == 0 else 0), empty(p)), e)
    for t in p.listed or []:
        acc.setdefault((0, t["tid"]), empty(p))
    order = sorted(acc, key=lambda k: (k[0], -acc[k]["samples"], k[1]))
    want_rows = [(str(k[1]), p.thread_name(k[1]) or "-") if k[0] == 0 else
                 ("" if k[0] == 1 else "0", OTHER if k[0] == 1 else IDLE) for k in order]
    got_rows = [(r["thread"], r["name"]) for r in rows]
    check("threads: a row per thread of the program, largest first, then %s and %s"
          % (OTHER, IDLE), got_rows == want_rows, "%r, expected %r" % (got_rows, want_rows))
    total = sum(int(r["samples"]) for r in rows)
    check("threads: the rows add up to the attributed samples but other's",
          total == p.attributed - p.d["other"]["samples"], total)
    for k, r in zip(order, rows):
        a = acc[k]
        bad = []
        if int(r["samples"]) != a["samples"] or not close(r["share"], a["samples"] / p.attributed):
            bad.append("samples/share %s %s" % (r["samples"], r["share"]))
        if not close(r["time_share"], a["cycles"] / p.cycles):
            bad.append("time_share %s" % r["time_share"])
        for name in rates:
            s = a["rates"][p.rates.index(name)]
            if not close(r["rate_" + name], ratio(s)) or int(r["n_" + name]) != s["n"] or \
                    not close(r["rate_ci95_" + name], ratio_ci(s, scale_of(p, name)), 1e-4):
                bad.append("%s %s ± %s n %s, want %r" % (name, r["rate_" + name],
                                                        r["rate_ci95_" + name], r["n_" + name],
                                                        ratio(s)))
        check("threads: %s %s: samples, shares and rates over its entries" % (r["thread"], r["name"]),
              not bad, "; ".join(bad))


def check_threads_text(p, path):
    text = open(path, encoding="utf-8").read()
    head, rows = table_rows(text, "thread")
    check("threads text: columns thread, name, samples, share, time, then each rate",
          head == ["thread", "name", "samples", "share", "time"] + p.rates, head)
    names = [r[1] if r[0].isdigit() else r[0] for r in rows]
    for t in p.listed or []:
        check("threads text: %s (%d) has a row" % (t["name"], t["tid"]),
              any(r[0] == str(t["tid"]) and r[1] == t["name"] for r in rows), rows)
    if any(p.group(e) == 1 for e in p.d["tags"]):
        check("threads text: a row for other processes", OTHER in names, names)
    check("threads text: says what the two group rows are",
          OTHER + ": while another process ran" in text and IDLE + ": while the CPU ran nothing" in text)


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.section, self.cells, self._td = None, {}, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2":
            self.section = a.get("id")
        if tag == "tr":
            self.cells.setdefault(self.section, []).append([])
        self._td = tag in ("td", "th")

    def handle_endtag(self, tag):
        self._td = False

    def handle_data(self, data):
        if self._td and self.section in self.cells and self.cells[self.section]:
            self.cells[self.section][-1].append(data)


def check_html(p, path):
    page = Page()
    page.feed(open(path, encoding="utf-8").read())
    tags = [r[0] for r in page.cells.get("tags", []) if r]
    want = [name for _, name in (k for k, _ in merged(p))]
    check("html: the tags table is the merged view", [t for t in tags if t in want] == want,
          tags)
    threads = page.cells.get("threads", [])
    names = {c for r in threads for c in r}
    check("html: a threads table naming each thread and the other processes",
          all(t["name"] in names for t in p.listed) and OTHER in names, sorted(names))


def check_real(p, path, truth):
    rows = read_csv(path)
    tids = {int(line.split()[0]) for line in open(truth) if line.strip()}
    name = p.d["program"]["name"]
    by_tid = {r["thread"]: r for r in rows}
    bpf = p.d["placement"]["thread_identity"]["source"].startswith("bpf")
    # in a PID namespace of its own the program knows its threads by ns_tid, and the
    # samples (and rows) carry the ids BPF reports, the initial namespace's
    seen = {t.get("ns_tid", t["tid"]): t["tid"] for t in p.listed or []}
    for tid in sorted(tids):
        r = by_tid.get(str(seen.get(tid, tid)))
        if bpf:
            check("real: worker %d is a row named %s, with samples" % (tid, name),
                  r is not None and r["name"] == name[:15] and int(r["samples"]) > 0, r)
        else:  # pinned: samples of every thread on the observed CPU are the pinned one's
            check("real: worker %d is a row named %s (no BPF: samples go to the observed "
                  "thread)" % (tid, name), r is not None and r["name"] == name[:15], r)
    if not bpf:
        observed = [r for r in rows if int(r["samples"]) > 0 and r["name"] not in (OTHER, IDLE)]
        check("real: without BPF one thread of the program has every sample",
              len(observed) == 1, observed)
    total = sum(int(r["samples"]) for r in rows)
    check("real: the rows add up to the attributed samples but other's (%d)" % p.attributed,
          total == p.attributed - p.d["other"]["samples"], total)
    listed = {t["tid"] for t in p.listed}
    check("real: every listed thread has a row, and only those have a tid and a name",
          {int(r["thread"]) for r in rows if r["name"] not in (OTHER, IDLE)} == listed, rows)


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    kind, profile, path = argv[1:4]
    p = Profile(profile)
    fn = {"merged": check_merged, "per-thread": check_per_thread, "threads": check_threads,
          "threads-text": check_threads_text, "html": check_html, "real": check_real}
    if kind == "text":
        check_text(p, path, int(argv[4]))
    else:
        fn[kind](p, path, *argv[4:])
    print("\n".join(results))


if __name__ == "__main__":
    main(sys.argv)
