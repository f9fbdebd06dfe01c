"""Reading the compiler pass's side tables back, for the checks of tests/pass.

A dump (pass_support.c) holds the program's records, each a function's run-time address
and its table. regenerate() turns a path number back into blocks by the rule of
docs/compiler-pass.md, written here independently of the pass's own check.
"""
import json

EDGE_KINDS = ("entry", "edge", "start", "end", "return")
ENTRY, EXIT = -1, -2


class Failures:
    """Collects ok/FAIL lines; the script's exit status says whether any failed."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what)
        return cond

    def ok(self, what):
        self.passed += 1
        print("ok: " + what)

    def finish(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def load_dump(path):
    with open(path) as f:
        return json.load(f)


def tables_by_fn(dump):
    """{run-time address: table} of the records whose magic and length are right."""
    return {r["fn"]: r["table"] for r in dump["records"] if r["magic"] and r["length"]}


def out_edges(table):
    out = {}
    for frm, to, val, kind in table["edges"]:
        out.setdefault(frm, []).append((val, to, kind))
    return out


def regenerate(table, path, out=None):
    """(blocks, first edge kind, last edge kind) of path number `path`, or None when the
    greedy walk does not reach EXIT with nothing left."""
    out = out if out is not None else out_edges(table)
    node, left, blocks, kinds = ENTRY, path, [], []
    for _ in range(len(table["edges"]) + 1):
        best = None
        for val, to, kind in out.get(node, []):
            if val <= left and (best is None or val > best[0]):
                best = (val, to, kind)
        if best is None:
            return None
        left -= best[0]
        node = best[1]
        kinds.append(best[2])
        if node == EXIT:
            return (blocks, kinds[0], kinds[-1]) if left == 0 else None
        blocks.append(node)
    return None


def lines_of(table, blocks):
    """The source lines of a block sequence, in order."""
    return [line for b in blocks for line in table["blocks"][b]["lines"]]


def marked_lines(source, marks):
    """{mark: line number} of the lines that carry `MARK:<mark>` in a source file."""
    found = {}
    with open(source) as f:
        for n, line in enumerate(f, 1):
            for m in marks:
                if "MARK:" + m + " " in line or line.rstrip().endswith("MARK:" + m):
                    found[m] = n
    return found
