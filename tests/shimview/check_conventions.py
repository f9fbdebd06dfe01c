#!/usr/bin/env python3
"""check_conventions.py -- read back what every shimview table command does alike.

    python3 check_conventions.py KIND ARGS...

KIND says what to check:

  json CSV JSON WHAT     the JSON table (python's json) holds the CSV table's rows (python's
                         csv): one object per record, keyed by the header's columns in
                         their order, an empty field null, a number the same number, text
                         the same text
  sorted CSV KEY...      the CSV's rows are in the order KEY gives: "-COLUMN" largest
                         first, "+COLUMN" smallest first (numbers), "~COLUMN" text A to
                         Z, "-change" |share_b - share_a| largest first (an empty share
                         0); later keys break ties; empty fields last. "!groups" leaves
                         out the rows a table keeps after the others, whatever the
                         order: (other processes), (idle) and other

Prints one "ok: ..." or "FAIL: ..." line per check.
"""
import csv
import json
import sys

results = []


def check(what, cond, why=""):
    results.append(("ok: " if cond else "FAIL: ") + what + ("" if cond else " (%s)" % (why,)))


def same(field, value):
    """Does the CSV field say what the JSON value says?"""
    if field == "":
        return value is None
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        try:
            return float(field) == float(value) and (not isinstance(value, int) or
                                                     int(field) == value)
        except ValueError:
            return False
    return field == value


def check_json(csv_path, json_path, what):
    with open(csv_path, encoding="utf-8", newline="") as f:
        records = list(csv.reader(f))
    try:
        rows = json.load(open(json_path, encoding="utf-8"))
    except ValueError as e:
        check("%s: --json is JSON" % what, False, e)
        return
    check("%s: --json is an array of objects" % what,
          isinstance(rows, list) and all(isinstance(r, dict) for r in rows), str(rows)[:200])
    if not records:
        check("%s: the CSV has a header" % what, False, "empty CSV")
        return
    head, body = records[0], records[1:]
    check("%s: as many objects as CSV rows (%d)" % (what, len(body)), len(rows) == len(body),
          len(rows))
    bad = []
    for i, (rec, obj) in enumerate(zip(body, rows)):
        if list(obj) != head:
            bad.append("row %d keys %s" % (i, list(obj)[:5]))
            continue
        for k, field in zip(head, rec):
            if not same(field, obj[k]):
                bad.append("row %d %s: csv %r json %r" % (i, k, field, obj[k]))
    check("%s: every object has the CSV's columns, in order, with its values" % what, not bad,
          bad[:4])
    numbers = [k for k in head if any(isinstance(r.get(k), (int, float)) for r in rows)]
    check("%s: numbers are JSON numbers (%d columns)" % (what, len(numbers)),
          not body or numbers, head)


def sort_key(row, keys):
    out = []
    for k in keys:
        order, col = k[0], k[1:]
        if col == "change":
            a, b = (float(row[c]) if row[c] else 0.0 for c in ("share_a", "share_b"))
            out.append((False, -abs(b - a)))
            continue
        v = row[col]
        if order == "~":
            out.append((v == "", v))
        elif v == "":
            out.append((True, 0))
        else:
            out.append((False, -float(v) if order == "-" else float(v)))
    return out


def check_sorted(csv_path, *keys):
    rows = list(csv.DictReader(open(csv_path, encoding="utf-8", newline="")))
    if "!groups" in keys:
        rows = [r for r in rows if r["name"] not in ("(other processes)", "(idle)", "other")]
    keys = [k for k in keys if not k.startswith("!")]
    want = sorted(rows, key=lambda r: sort_key(r, keys))
    col = keys[0][1:]
    check("%s sorted by %s: %d rows in that order" % (csv_path.rsplit("/", 1)[-1],
                                                      " then ".join(keys), len(rows)),
          len(rows) > 1 and
          [sort_key(r, keys) for r in rows] == [sort_key(r, keys) for r in want],
          [r.get(col, "?") for r in rows][:8])


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    {"json": check_json, "sorted": check_sorted}[argv[1]](*argv[2:])
    print("\n".join(results))


if __name__ == "__main__":
    main(sys.argv)
