#!/bin/sh
# test_html.sh -- end-to-end tests of `shimview html`.
#
#     sh test_html.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR
#
# Writes pages for the fixture profile and for variants of it generated here (a program
# and a tag named with HTML specials and a <script> element, no counters at all) and reads
# them back as a browser and a script would: python3's html.parser walks the whole page
# and checks that every element is closed in order, each inline <svg> is cut out and
# parsed with xml.etree, the per-tag table is found and its names and numbers compared
# with the profile, and the page is checked to fetch nothing (no http(s) address but the
# SVG namespace, no script from elsewhere, link, image or @import; links and url()s only
# to the page's own ids; the inline scripts are optional). Then the command line: -o -, the
# default file name, --top, --rate, and the statuses of bad options and files.
# WORK_DIR is created if needed and only the files this script writes there are touched.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_html.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
    exit 2
fi
# absolute paths: one test runs from another directory
case $SHIMVIEW in /*) ;; *) SHIMVIEW=$(pwd)/$SHIMVIEW ;; esac
case $FIXTURES in /*) ;; *) FIXTURES=$(pwd)/$FIXTURES ;; esac
GOOD="$FIXTURES/profile-v1.json"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
rm -rf "$WORK/html-out" "$WORK/html-cwd"
mkdir -p "$WORK/html-out" "$WORK/html-cwd" || exit 1
OUT="$WORK/html-out"
SCRATCH=$WORK
. "$(dirname "$0")/lib.sh"

# check_page WHAT FILE CHECKS...: python3 reads the page and applies each check:
#   tags=A,B,C     the per-tag table's name cells are A, B, C, in this order
#   svgs=N         N inline svg elements, each well-formed XML in the SVG namespace
#   titles=A|B     the svg elements' <title>s contain A, B, ..., in this order
#   panels=N       the histogram figure has N panels
#   text=TEXT      the page's text (what a browser shows) contains TEXT
#   h1=TEXT        the h1 heading is TEXT
#   cell=NAME:COL:VALUE  the tag table's row NAME has VALUE in column COL (header text)
# and always: the page is well-formed, self-contained and has a doctype and a title.
check_page() {
    what=$1
    shift
    expect_python "$what" "$WORK/check_page.py" "$@"
}
cat >"$WORK/check_page.py" <<'EOF'
import re, sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

SVG_NS = "http://www.w3.org/2000/svg"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
path, checks = sys.argv[1], sys.argv[2:]
page = open(path, encoding="utf-8").read()

class Page(HTMLParser):
    """Walks the page: elements closed in the order they were opened, the text shown,
    the tag table's cells, the offsets of the svg elements."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text = [], [], []
        self.doctype = None
        self.tables = []     # each: list of rows, each a list of (tag, class, text)
        self.cell = None
        self.h1 = None
        self.in_title = False
        self.title = ""
    def handle_decl(self, decl):
        self.doctype = decl
    def handle_pi(self, data):
        self.errors.append("processing instruction <?%s> in the page" % data[:40])
    def unknown_decl(self, data):
        self.errors.append("unknown declaration %r" % data[:40])
    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"class": a.get("class"), "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th") and self.tables:
            self.cell = [tag, a.get("class") or "", ""]
        elif tag == "h1":
            self.h1 = ""
        elif tag == "title" and self.stack[:2] == ["html", "head"]:
            self.in_title = True
    def handle_startendtag(self, tag, attrs):
        pass  # <line .../> in svg: opened and closed at once
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            line, col = self.getpos()
            self.errors.append("</%s> at %d:%d closes <%s>" % (tag, line, col,
                               self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1]["rows"][-1].append(tuple(self.cell))
            self.cell = None
        elif tag == "title":
            self.in_title = False
    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell[2] += data
        if self.h1 is not None and self.stack and self.stack[-1] == "h1":
            self.h1 += data
        if self.in_title:
            self.title += data

p = Page()
p.feed(page)
p.close()
def die(msg):
    sys.exit(msg)
if p.errors:
    die("; ".join(p.errors[:5]))
if p.stack:
    die("elements left open at the end: %s" % p.stack)
if not p.doctype or p.doctype.lower() != "doctype html":
    die("no <!DOCTYPE html>: %r" % p.doctype)
if not p.title.strip():
    die("no page title")

# self-contained: the only address is the SVG namespace, nothing loads anything
for url in re.findall(r"https?://[^\s\"'<>)]*", page):
    if url != SVG_NS:
        die("the page refers to %s" % url)
for bad in ("<link", "<img", "<image", "<iframe", "<object", "src=", "@import"):
    if bad in page.lower():
        die("the page contains %r" % bad)
for ref in re.findall(r"href=\"([^\"]*)\"|url\(([^)]*)\)", page):
    if not (ref[0] or ref[1]).startswith("#"):
        die("the page refers to %r, not to a place of its own" % (ref[0] or ref[1]))

# the inline figures
svgs = [m.group(0) for m in re.finditer(r"<svg\b.*?</svg>", page, re.S)]
roots = []
for i, s in enumerate(svgs):
    try:
        roots.append(ET.fromstring(s))
    except ET.ParseError as e:
        die("svg %d is not well-formed XML: %s" % (i + 1, e))
    if roots[-1].tag != "{%s}svg" % SVG_NS:
        die("svg %d is %s" % (i + 1, roots[-1].tag))
ids = [e.get("id") for r in roots for e in r.iter() if e.get("id")]
if len(ids) != len(set(ids)):
    die("ids repeat across the figures: %s" % ids)

tag_tables = [t for t in p.tables if t["class"] is None and t["rows"] and
              any(c[2] == "name" for c in t["rows"][0])]
def tag_table():
    if len(tag_tables) != 1:
        die("%d per-tag tables" % len(tag_tables))
    return tag_tables[0]["rows"]
text = " ".join(" ".join(p.text).split())

for check in checks:
    key, _, want = check.partition("=")
    if key == "tags":
        rows = tag_table()
        if any(c[0] != "th" for c in rows[0]):
            die("the table's first row is not a header row")
        names = [c[2] for r in rows[1:] for c in r if "name" in c[1].split()]
        if names != want.split(","):
            die("tag names %r, expected %r" % (names, want.split(",")))
    elif key == "svgs":
        if len(svgs) != int(want):
            die("%d svg elements, expected %s" % (len(svgs), want))
    elif key == "titles":
        have = [r.find("{%s}title" % SVG_NS).text for r in roots]
        for h, w in zip(have, want.split("|")):
            if w not in h:
                die("figure titles %r, expected %r" % (have, want))
        if len(have) != len(want.split("|")):
            die("figure titles %r, expected %r" % (have, want))
    elif key == "panels":
        hist = [r for r in roots if "Distribution" in r.find("{%s}title" % SVG_NS).text]
        n = len([g for g in hist[0].iter("{%s}g" % SVG_NS) if g.get("class") == "panel"]) if hist else -1
        if n != int(want):
            die("%d histogram panels, expected %s" % (n, want))
    elif key == "text":
        if want not in text:
            die("the page does not say %r" % want)
    elif key == "h1":
        if p.h1 != want:
            die("h1 is %r, expected %r" % (p.h1, want))
    elif key == "cell":
        name, col, value = want.split(":", 2)
        rows = tag_table()
        head = [c[2] for c in rows[0]]
        if col not in head:
            die("no column %r in %r" % (col, head))
        row = next((r for r in rows[1:] if any(c[2] == name and "name" in c[1] for c in r)), None)
        if row is None or row[head.index(col)][2] != value:
            die("row %s, column %s: %r, expected %r" % (name, col,
                row[head.index(col)][2] if row else None, value))
    else:
        die("unknown check " + check)
EOF

# ---- the fixture ----
run html -o "$OUT/good.html" "$GOOD"
expect_status "html writes the fixture's page" 0
expect_in "$WORK/out" "$OUT/good.html" "html prints the path it wrote"
check_page "the page: well-formed, self-contained, table and three inline figures" "$OUT/good.html" \
    "tags=eval,parse,emit" "svgs=3" \
    "titles=Distribution of items|Cumulative distribution of items|Sampling quality" \
    "panels=3" "h1=calc"
check_page "the page has the run's facts" "$OUT/good.html" \
    "text=/home/dev/calc/build/calc, pid 4242" "text=AMD EPYC 7B13" "text=20.000 ms" \
    "text=386,484 periods" "text=kept 359,825 (93.10%)" "text=observer CPU 0.020 s" \
    "text=items: counter items, per 1000 cycles"
check_page "the page's table has the report's columns and numbers" "$OUT/good.html" \
    "cell=eval:samples:191,846" "cell=eval:share:49.64%" "cell=eval:items rate:0.849" \
    "cell=eval:n:178,816" "cell=parse:time share:39.95%" "cell=emit:± 95% CI:± 0.039!"
# the same numbers as the terminal report
"$SHIMVIEW" report "$GOOD" >"$WORK/report.txt" 2>/dev/null
for row in eval parse emit; do
    line=$(grep -E "^$row " "$WORK/report.txt" | tr -s ' ')
    rate=$(echo "$line" | cut -d' ' -f5)
    check_page "the page's $row rate is the report's ($rate)" "$OUT/good.html" "cell=$row:items rate:$rate"
done
if grep -q "<?xml" "$OUT/good.html"; then fail "no XML declaration inside the page"; else pass "no XML declaration inside the page"; fi
if grep -q 'class="spark"' "$OUT/good.html" && grep -q "█" "$OUT/good.html"; then
    pass "the table has sparklines in block characters"
else
    fail "the table has no sparklines"
fi

# ---- escaping: HTML specials and a script element in names ----
VARIANT="$(dirname "$0")/variant.py"
python3 "$VARIANT" "$GOOD" "$WORK/html-specials.json" "program=calc<b>&\"x'" \
    "tag=0:<script>alert(1)</script>" "tag=1:a&amp;b <i>" || fail "generating variants"
python3 "$VARIANT" "$GOOD" "$WORK/html-norates.json" no-rates || fail "generating variants"
run html -o "$OUT/specials.html" "$WORK/html-specials.json"
expect_status "html of names with HTML specials" 0
check_page "a tag named <script> is shown as text, the page stays well-formed" "$OUT/specials.html" \
    "tags=<script>alert(1)</script>,a&amp;b <i>,emit" "svgs=3" "h1=calc<b>&\"x'"
expect_in "$OUT/specials.html" "&lt;script&gt;alert(1)&lt;/script&gt;" "the <script> name is escaped"
expect_in "$OUT/specials.html" "a&amp;amp;b &lt;i&gt;" "an ampersand in a name is escaped"

# ---- a profile without rates: the sampling figure and a note ----
run html -o "$OUT/norates.html" "$WORK/html-norates.json"
expect_status "html of a profile without rates" 0
check_page "without rates: one figure, a note, the table" "$OUT/norates.html" "svgs=1" \
    "titles=Sampling quality" "tags=eval,parse,emit" "text=no rates"

# ---- options ----
run html --top 1 -o "$OUT/top1.html" "$GOOD"
expect_status "html --top 1" 0
check_page "--top 1 draws one histogram panel, the table keeps every tag" "$OUT/top1.html" \
    "panels=1" "tags=eval,parse,emit"
run html --rate items -o - "$GOOD"
expect_status "html -o - writes to standard output" 0
cp "$WORK/out" "$OUT/stdout.html"
check_page "the page on standard output" "$OUT/stdout.html" "svgs=3" "tags=eval,parse,emit"
(cd "$WORK/html-cwd" && "$SHIMVIEW" html "$GOOD" >"$WORK/out" 2>"$WORK/err")
rc=$?
expect_status "html without -o" 0
if [ -s "$WORK/html-cwd/profile-v1.html" ]; then pass "the default page is STEM.html in the current directory"; else fail "no profile-v1.html in the current directory"; fi
"$SHIMVIEW" html -o - - <"$GOOD" >"$OUT/stdin.html" 2>"$WORK/err"
rc=$?
expect_status "html reads the profile from standard input" 0
check_page "the page of standard input" "$OUT/stdin.html" "svgs=3"

run html --help
expect_status "html --help" 0
expect_in "$WORK/out" "usage: shimview html" "html --help prints the usage"
run help html
expect_in "$WORK/out" "usage: shimview html" "help html prints the usage"
run --help
expect_in "$WORK/out" "html" "shimview --help lists html"

run html
expect_status "html without FILE" 2
run html --rate nosuch -o "$OUT/x.html" "$GOOD"
expect_status "html with an unknown --rate" 2
expect_in "$WORK/err" "items" "an unknown --rate names the profile's rates"
run html --top 0 "$GOOD"
expect_status "html --top 0" 2
run html --bogus "$GOOD"
expect_status "html with an unknown option" 2
run html "$GOOD" "$GOOD"
expect_status "html with two files" 2
run html -o "$OUT/missing.html" "$WORK/no-such-profile.json"
expect_status "html of a missing file" 1
if [ -e "$OUT/missing.html" ]; then fail "no page for a missing profile"; else pass "no page for a missing profile"; fi
run html -o "$OUT/bad.html" "$FIXTURES/bad/$(ls "$FIXTURES/bad" | head -n 1)"
expect_status "html of an invalid profile" 1
: >"$WORK/a-file"
run html -o "$WORK/a-file/page.html" "$GOOD"
expect_status "html under a file that is not a directory" 1
expect_in "$WORK/err" "a-file/page.html" "the unwritable page is named"
rm -rf "$WORK/no-such-dir"
run html -o "$WORK/no-such-dir/page.html" "$GOOD"
expect_status "html into a missing directory: made" 0

finish
