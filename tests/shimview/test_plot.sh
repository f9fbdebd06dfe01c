#!/bin/sh
# test_plot.sh -- end-to-end tests of `shimview plot`.
#
#     sh test_plot.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR
#
# Draws the fixture profile and variants of it generated here (a tag name full of XML
# specials, no counters at all), then reads every SVG back with python3's xml.etree, as a
# viewer would, and checks what a reader of the figures relies on: the three files, their
# titles and axis labels, one histogram panel per top tag named after it, legends that
# quote the mean, nothing fetched from outside the file, and the command line's statuses
# (an unknown --rate names the rates the profile has). WORK_DIR is created if needed and
# only the files this script writes there are touched.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_plot.sh SHIMVIEW FIXTURES_DIR WORK_DIR" >&2
    exit 2
fi
GOOD="$FIXTURES/profile-v1.json"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
OUT="$WORK/plot-out"
rm -rf "$OUT" "$WORK/plot-cwd" "$WORK/plot-top1"
mkdir -p "$OUT" "$WORK/plot-cwd" "$WORK/plot-top1" || exit 1

SCRATCH=$WORK
. "$(dirname "$0")/lib.sh"

# check_svg WHAT FILE CHECKS...: python3 reads FILE as XML and applies each check:
#   title=TEXT       a text element of class "title" contains TEXT
#   axis=TEXT        a text element of class "axis-label" contains TEXT
#   legend=TEXT      a text element of class "legend" contains TEXT
#   panels=A,B,C     the groups of class "panel" are titled A, B, C, in this order
#   npanels=N        there are N groups of class "panel"
check_svg() {
    what=$1
    shift
    expect_python "$what" "$WORK/check_svg.py" "$@"
}
cat >"$WORK/check_svg.py" <<'EOF'
import sys
import xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
path, checks = sys.argv[1], sys.argv[2:]
root = ET.parse(path).getroot()
if root.tag != NS + "svg":
    sys.exit("root element is %s, not svg" % root.tag)
def texts(klass):
    return ["".join(t.itertext()) for t in root.iter(NS + "text") if t.get("class") == klass]
panels = [g for g in root.iter(NS + "g") if g.get("class") == "panel"]
def panel_title(g):
    t = g.find(NS + "title")
    return t.text if t is not None else None
for check in checks:
    key, _, want = check.partition("=")
    if key in ("title", "subtitle", "axis", "legend"):
        have = texts({"title": "title", "subtitle": "subtitle", "axis": "axis-label",
                      "legend": "legend"}[key])
        if not any(want in h for h in have):
            sys.exit("no %s text containing %r in %r" % (key, want, have))
    elif key == "panels":
        have = [panel_title(g) for g in panels]
        if have != want.split(","):
            sys.exit("panels %r, expected %r" % (have, want.split(",")))
    elif key == "uncut":  # no text of the class was cut to fit ("…")
        cut = [h for h in texts(want) if h.endswith("\u2026")]
        if cut:
            sys.exit("%s text cut to fit: %r" % (want, cut))
    elif key == "npanels":
        if len(panels) != int(want):
            sys.exit("%d panels, expected %s" % (len(panels), want))
    else:
        sys.exit("unknown check " + check)
EOF

# ---- the fixture, three figures ----
run plot -o "$OUT" "$GOOD"
expect_status "plot writes the fixture's figures" 0
for f in hist cdf sampling; do
    if [ -s "$OUT/profile-v1-$f.svg" ]; then pass "profile-v1-$f.svg exists"; else fail "profile-v1-$f.svg missing"; fi
    expect_in "$WORK/out" "$OUT/profile-v1-$f.svg" "plot prints the path of profile-v1-$f.svg"
done
check_svg "hist: title, axes, one panel per top tag, legends" "$OUT/profile-v1-hist.svg" \
    "title=Distribution of items per 1000 cycles" "axis=items per 1000 cycles" \
    "axis=% of the tag's kept samples" "panels=eval,parse,emit" "legend=mean" \
    "legend=eval" "legend=parse" "legend=emit" "legend=rate"
check_svg "hist: samples outside the span are counted" "$OUT/profile-v1-hist.svg" \
    "axis=not drawn" "legend=not drawn: 17,820"
check_svg "cdf: title, axes, curves in the legend" "$OUT/profile-v1-cdf.svg" \
    "title=Cumulative distribution of items per 1000 cycles" "axis=items per 1000 cycles" \
    "axis=cumulative % of kept samples" "legend=all tags" "legend=median" "legend=eval" \
    "legend=parse" "legend=emit"
check_svg "sampling: title, both panels, axes, DTE legend" "$OUT/profile-v1-sampling.svg" \
    "title=Sampling quality" "npanels=2" "axis=TSC cycles" "axis=periods per bucket" \
    "axis=CPC" "legend=sample period" "legend=gap between kept samples" \
    "legend=kept 359,825 (93.10%)" "legend=of 386,482 rated" "legend=DTE keeps 1" "uncut=legend"

# self-contained: nothing refers outside the file
if grep -qiE '<script|<image|<style|xlink:href|href=|url\(|@import|@font-face' "$OUT"/*.svg; then
    fail "figures are self-contained ($(grep -liE '<script|<image|<style|href=|url\(|@import|@font-face' "$OUT"/*.svg))"
else
    pass "figures are self-contained"
fi

# ---- options ----
run plot --top 1 -o "$WORK/plot-top1" "$GOOD"
expect_status "plot --top 1" 0
check_svg "--top 1 gives one panel" "$WORK/plot-top1/profile-v1-hist.svg" "npanels=1" "panels=eval"

run plot --rate nosuch -o "$OUT" "$GOOD"
if [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then pass "unknown --rate fails ($rc)"; else fail "unknown --rate exits $rc"; fi
expect_in "$WORK/err" "items" "unknown --rate lists the profile's rates"
expect_in "$WORK/err" "nosuch" "unknown --rate names the rate asked for"

run plot --rate items -o "$OUT" "$GOOD"
expect_status "--rate items" 0

(cd "$WORK/plot-cwd" && "$SHIMVIEW" plot "$GOOD" >"$WORK/out" 2>"$WORK/err")
rc=$?
expect_status "plot without -o" 0
if [ -s "$WORK/plot-cwd/profile-v1-hist.svg" ]; then pass "default output is the current directory"; else fail "no profile-v1-hist.svg in the current directory"; fi

run plot --help
expect_status "plot --help" 0
expect_in "$WORK/out" "usage: shimview plot" "plot --help prints the usage"
run help plot
expect_status "help plot" 0
expect_in "$WORK/out" "usage: shimview plot" "help plot prints the usage"
run --help
expect_in "$WORK/out" "plot" "shimview --help lists plot"

run plot
expect_status "plot without FILE" 2
run plot --top 0 "$GOOD"
expect_status "plot --top 0" 2
run plot --top x "$GOOD"
expect_status "plot --top x" 2
run plot --bogus "$GOOD"
expect_status "plot with an unknown option" 2
run plot "$GOOD" "$GOOD"
expect_status "plot with two files" 2
run plot -o "$OUT" "$WORK/no-such-profile.json"
expect_status "plot of a missing file" 1
: >"$WORK/a-file"
run plot -o "$WORK/a-file" "$GOOD"
expect_status "plot into a file that is not a directory" 1
rm -rf "$WORK/no-such-dir"
run plot -o "$WORK/no-such-dir" "$GOOD"
expect_status "plot into a missing directory: made" 0
run plot -o "$OUT" "$FIXTURES/bad/$(ls "$FIXTURES/bad" | head -n 1)"
expect_status "plot of an invalid profile" 1

# ---- variants: XML specials in a name, a profile without counters ----
VARIANT="$(dirname "$0")/variant.py"
python3 "$VARIANT" "$GOOD" "$WORK/plot-specials.json" \
    "tag=0:a<b>&\"c' $(printf '\303\251\346\227\245') $(printf 'x%.0s' $(seq 80))" ||
    fail "generating variants"
python3 "$VARIANT" "$GOOD" "$WORK/plot-norates.json" no-rates || fail "generating variants"
python3 "$VARIANT" "$GOOD" "$WORK/plot-bigdte.json" big-dte || fail "generating variants"
python3 "$VARIANT" "$GOOD" "$WORK/plot-tiny.json" tiny-tag || fail "generating variants"

# a tag under 0.1% of the samples has no panel of its own unless --top asks for it
run plot -o "$OUT" "$WORK/plot-tiny.json"
expect_status "plot of a profile with a tiny tag" 0
check_svg "a tiny tag gets no panel by default, and the subtitle says so" \
    "$OUT/plot-tiny-hist.svg" "npanels=3" "panels=eval,parse,emit" "subtitle=1 under 0.1% left out" "uncut=subtitle"
run plot --top 4 -o "$OUT" "$WORK/plot-tiny.json"
check_svg "--top 4 draws the tiny tag too" "$OUT/plot-tiny-hist.svg" "npanels=4" \
    "panels=eval,parse,emit,tiny"

run plot -o "$OUT" "$WORK/plot-bigdte.json"
expect_status "plot of a long run's DTE counts" 0
check_svg "a long run's DTE counts fit the legend, share included" "$OUT/plot-bigdte-sampling.svg" \
    "legend=kept 2,315,687 (99.95%)" "legend=of 2,316,953 rated" "uncut=legend"

run plot -o "$OUT" "$WORK/plot-specials.json"
expect_status "plot of a name with XML specials" 0
check_svg "a name with XML specials stays well-formed and whole in the panel's title" \
    "$OUT/plot-specials-hist.svg" "npanels=3" "legend=a<b>&"
if python3 -c '
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
NS = "{http://www.w3.org/2000/svg}"
t = [g.find(NS + "title").text for g in root.iter(NS + "g") if g.get("class") == "panel"][0]
sys.exit(0 if t.startswith("a<b>&\"c\x27") and t.endswith("x" * 80) else 1)
' "$OUT/plot-specials-hist.svg"; then pass "the panel title keeps the full name"; else fail "the panel title lost the full name"; fi
expect_in "$OUT/plot-specials-hist.svg" "…" "a long name is cut with an ellipsis"

run plot -o "$OUT" "$WORK/plot-norates.json"
expect_status "plot of a profile without rates" 0
if [ -s "$OUT/plot-norates-sampling.svg" ] && [ ! -e "$OUT/plot-norates-hist.svg" ] &&
    [ ! -e "$OUT/plot-norates-cdf.svg" ]; then
    pass "without rates only the sampling figure is written"
else
    fail "without rates: $(ls "$OUT" | grep norates | tr '\n' ' ')"
fi
expect_in "$WORK/err" "no rates" "without rates the skipped figures are explained"
check_svg "sampling figure without rates" "$OUT/plot-norates-sampling.svg" "title=Sampling quality" \
    "npanels=2"
run plot --rate items -o "$OUT" "$WORK/plot-norates.json"
if [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then pass "--rate on a profile without rates fails"; else fail "--rate on a profile without rates exits $rc"; fi

finish
