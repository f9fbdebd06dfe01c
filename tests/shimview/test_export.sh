#!/bin/sh
# test_export.sh -- end-to-end tests of `shimview export` and `shimview timeline`.
#
#     sh test_export.sh PATH/TO/shimview PATH/TO/tests/fixtures WORK_DIR PATH/TO/pprof.proto
#
# make_trace.py writes traces in the documented format (docs/trace-format.md) with
# profiles that name them, counting as it goes what a reader must find: records, runs of
# each slot's values, gaps in seq, rated periods. Each export is then read back with a
# real parser (check_export.py): the perfetto JSON with python's json (a slice per run,
# counters per 10 us bin, an instant per gap, the metadata naming the tracks), the pprof
# file gunzipped and decoded by protoc with shimview's pprof.proto (sample values add up
# to the profile's samples, value names in the string table), folded stacks (counts add
# up), the CSV with python's csv (a row per record), and the timeline with xml.etree (its
# axis labels, rows, legend and caption). Then the errors: a profile without a trace, a
# missing trace, a bad magic or version, a file shorter than the header, records of the
# wrong size, another process's trace, a truncated last record (ignored), bad options.
# WORK_DIR is created if needed; only the files this script writes there are touched.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
PROTO=$4
if [ -z "$SHIMVIEW" ] || [ -z "$FIXTURES" ] || [ -z "$WORK" ] || [ -z "$PROTO" ]; then
    echo "usage: sh test_export.sh SHIMVIEW FIXTURES_DIR WORK_DIR PPROF_PROTO" >&2
    exit 2
fi
case $SHIMVIEW in /*) ;; *) SHIMVIEW=$(pwd)/$SHIMVIEW ;; esac
GOOD="$FIXTURES/profile-v1.json"
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
T="$WORK/traces"
rm -rf "$T" "$WORK/cwd"
mkdir -p "$T/sub" "$WORK/cwd" || exit 1

SCRATCH=$WORK
. "$HERE/lib.sh"

gen() { python3 "$HERE/make_trace.py" "$GOOD" "$@" || fail "make_trace.py $*"; }
# checked KIND FILE EXPECT [ARGS]: check_export.py's lines, counted.
checked() {
    python3 "$HERE/check_export.py" "$@" >"$WORK/check.out" 2>&1 ||
        echo "FAIL: check_export.py $1 crashed: $(tail -n 3 "$WORK/check.out")" >>"$WORK/check.out"
    tally "$WORK/check.out"
}

gen "$T" one --records 20000
gen "$T/sub" two --records 20000 --slots 2 --seed 7 --path rel
for d in magic version short words pid partial; do
    gen "$T" "bad-$d" --records 300 --damage "$d"
done
gen "$T" missing --records 100 --path missing
gen "$T" weighted --weighted
python3 "$HERE/variant.py" "$GOOD" "$T/norates-profile.json" no-rates || fail "variant.py no-rates"
python3 "$HERE/make_trace.py" "$T/norates-profile.json" "$T" norates --records 2000 ||
    fail "make_trace.py without rates"

# ---- perfetto ----
run export --format perfetto -o "$WORK/one.perfetto.json" "$T/one.json"
expect_status "perfetto export" 0
expect_in "$WORK/out" "$WORK/one.perfetto.json" "perfetto -o prints the path written"
checked perfetto "$WORK/one.perfetto.json" "$T/one.expect.json"

run export -f perfetto "$T/sub/two.json"
expect_status "perfetto export of two slots, trace named relative to the profile" 0
cp "$WORK/out" "$WORK/two.perfetto.json"
checked perfetto "$WORK/two.perfetto.json" "$T/sub/two.expect.json"

run export -f perfetto --max-events 10 -o "$WORK/few.perfetto.json" "$T/one.json"
expect_status "perfetto --max-events 10" 0
checked perfetto "$WORK/few.perfetto.json" "$T/one.expect.json" "max_events=10"

# --trace reads a trace the profile does not name (the fixture has none)
run export -f perfetto --trace "$T/one.json.trace" -o "$WORK/override.json" "$GOOD"
expect_status "perfetto --trace with a profile that names none" 0

# ---- pprof and folded: the profile alone ----
run export --format pprof -o "$WORK/one.pb.gz" "$GOOD"
expect_status "pprof export of the fixture (no trace needed)" 0
checked pprof "$WORK/one.pb.gz" "$GOOD" "$PROTO"
run export --format pprof -o "$WORK/two.pb.gz" "$T/sub/two.json"
expect_status "pprof export of two slots" 0
checked pprof "$WORK/two.pb.gz" "$T/sub/two.json" "$PROTO"

run export --format folded "$GOOD"
expect_status "folded export" 0
cp "$WORK/out" "$WORK/one.folded"
checked folded "$WORK/one.folded" "$GOOD" samples
expect_in "$WORK/one.folded" "eval 191846" "folded: eval's samples"
run export --format folded --value time "$T/sub/two.json"
expect_status "folded --value time" 0
cp "$WORK/out" "$WORK/two.folded"
checked folded "$WORK/two.folded" "$T/sub/two.json" time
expect_in "$WORK/two.folded" "eval;inner 24501464" "folded: two frames, outermost slot first"
expect_in "$WORK/two.folded" "emit;loop=9 " "folded: a value without a name is slot=value"

# ---- csv ----
run export --format csv "$T/sub/two.json"
expect_status "csv export" 0
cp "$WORK/out" "$WORK/two.csv"
checked csv "$WORK/two.csv" "$T/sub/two.expect.json"

# a truncated last record is ignored, silently
run export --format csv "$T/bad-partial.json"
expect_status "csv of a trace with a partial last record" 0
cp "$WORK/out" "$WORK/partial.csv"
checked csv "$WORK/partial.csv" "$T/bad-partial.expect.json"
if [ -s "$WORK/err" ]; then fail "a partial record is ignored silently ($(cat "$WORK/err"))"; else pass "a partial record is ignored silently"; fi

# ---- timeline ----
run timeline -o "$WORK/one.svg" "$T/one.json"
expect_status "timeline" 0
expect_in "$WORK/out" "$WORK/one.svg" "timeline prints the path written"
checked timeline "$WORK/one.svg" "$T/one.expect.json" \
    'axis=["items per 1000 cycles"]' 'legend=["eval", "parse", "emit", "other values"]' \
    'caption=["20,000 records in the trace", "dropped_full:", "dropped_limit:"]'
python3 - "$T/one.expect.json" "$WORK/one.svg" >"$WORK/check.out" <<'EOF'
import json, sys
e = json.load(open(sys.argv[1]))
svg = open(sys.argv[2], encoding="utf-8").read()
for what, n in (("dropped_full", e["dropped_full"]), ("dropped_limit", e["dropped_limit"])):
    want = "%s: %s periods" % (what, format(n, ","))
    print(("ok: " if want in svg else "FAIL: ") + "timeline caption: " + want)
EOF
tally "$WORK/check.out"

run timeline --from 0.2ms --to 300us --width 1600 -o "$WORK/window.svg" "$T/sub/two.json"
expect_status "timeline of a window, two slots" 0
checked timeline "$WORK/window.svg" "$T/sub/two.expect.json" 'legend=["inner", "loop=9"]'
expect_in "$WORK/window.svg" "0.200" "the window starts at --from"

# the rate per bin or column is weighted by the periods' cycles: 100 cycles at 1 and 300
# at 3 make 2.5, not 2
run export --format perfetto -o "$WORK/weighted.perfetto.json" "$T/weighted.json"
expect_status "perfetto export of periods of unequal length" 0
checked perfetto "$WORK/weighted.perfetto.json" "$T/weighted.expect.json"
run timeline -o "$WORK/weighted.svg" "$T/weighted.json"
expect_status "timeline of periods of unequal length" 0
expect_in "$WORK/weighted.svg" "mean 2.5 over 2 periods" \
    "timeline: a column's mean rate is weighted by the periods' cycles"

run timeline -o "$WORK/norates.svg" "$T/norates.json"
expect_status "timeline of a profile without rates" 0
checked timeline "$WORK/norates.svg" "$T/norates.expect.json" 'legend=["eval", "parse"]'
expect_in "$WORK/norates.svg" "the profile has no rates" "without rates the figure says why"
run export -f perfetto -o "$WORK/norates.perfetto.json" "$T/norates.json"
expect_status "perfetto of a profile without rates" 0
checked perfetto "$WORK/norates.perfetto.json" "$T/norates.expect.json"

(cd "$WORK/cwd" && "$SHIMVIEW" timeline "$T/one.json" >"$WORK/out" 2>"$WORK/err")
rc=$?
expect_status "timeline without -o" 0
if [ -s "$WORK/cwd/one-timeline.svg" ]; then pass "default output STEM-timeline.svg"; else fail "no one-timeline.svg in the current directory"; fi

# ---- errors ----
for cmd in "timeline" "export -f perfetto" "export -f csv"; do
    # shellcheck disable=SC2086
    run $cmd "$GOOD"
    expect_status "$cmd of a profile without a trace" 1
    expect_in "$WORK/err" "has no trace: run with SHIM_TRACE=64M" "$cmd says how to get a trace"
done
run export -f csv "$T/missing.json"
expect_status "a missing trace file" 1
expect_in "$WORK/err" "no-such-file.trace" "the missing trace is named"
run export -f csv "$T/bad-magic.json"
expect_status "a bad magic" 1
expect_in "$WORK/err" "not a shim trace" "a bad magic is named"
run timeline "$T/bad-version.json"
expect_status "an unknown version" 1
expect_in "$WORK/err" "version 2" "the version is named"
run export -f perfetto "$T/bad-short.json"
expect_status "a file shorter than the header" 1
expect_in "$WORK/err" "shorter than the 64-byte trace header" "a short file is named"
run export -f csv "$T/bad-words.json"
expect_status "record_words disagreeing with the slots and rates" 1
expect_in "$WORK/err" "record_words" "record_words is named"
run export -f csv "$T/bad-pid.json"
expect_status "another process's trace" 1
expect_in "$WORK/err" "pid 999" "the other pid is named"
python3 - "$T/one.json" "$WORK/lying.json" <<'EOF' || fail "writing lying.json"
import json, sys
p = json.load(open(sys.argv[1]))
p["trace"]["records"] += 1
json.dump(p, open(sys.argv[2], "w"))
EOF
run export -f csv "$WORK/lying.json"
expect_status "a trace member whose counts do not add up" 1
expect_in "$WORK/err" "samples.total" "the broken identity is named"

# ---- tag entries that name three reserved slots (function, context, loop) ----
# -finstrument-functions with the compiler pass: each entry's three names are made by
# shimview and kept to be freed; they once overran a list sized for two per entry.
python3 "$HERE/pass_fixture.py" "$GOOD" "$T/pass.json" &&
    python3 "$HERE/reserved_fixture.py" "$T/pass.json" "$T" three ||
    fail "reserved_fixture.py"
run timeline -o "$WORK/three.svg" "$T/three.json"
expect_status "timeline of entries naming function, context and loop" 0
expect_python "its timeline is SVG" -c "import xml.etree.ElementTree as E; E.parse('$WORK/three.svg')"
run export -f perfetto -o "$WORK/three.perfetto.json" "$T/three.json"
expect_status "perfetto export of entries naming function, context and loop" 0
expect_python "its slices are named by function, context and loop" -c "
import json
names = {e.get('name') for e in json.load(open('$WORK/three.perfetto.json'))['traceEvents']}
want = {'sum_positive', 'main > sum_positive', 'sum_positive loop 1 (pass_source.c:10)'}
assert want <= names, sorted(map(str, names))"

# ---- a FIFO where the profile names its trace: refused in one line, never waited on ----
gen "$T" fifo --records 100
rm -f "$T/fifo.json.trace" && mkfifo "$T/fifo.json.trace" || fail "mkfifo"
for cmd in timeline "export -f perfetto"; do
    # shellcheck disable=SC2086 # the command and its option are two words
    timeout 20 "$SHIMVIEW" $cmd -o "$WORK/fifo.out" "$T/fifo.json" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    expect_status "$cmd of a profile whose trace is a FIFO (124: it waited)" 1
    expect_in "$WORK/err" "fifo.json.trace: not a regular file" "$cmd names the FIFO in one line"
done

# ---- output files: written beside their path and renamed over it ----
# A symlink at the path is replaced, its target untouched; a write that fails leaves
# whatever was at the path as it was, and nothing else behind.
for cmd in timeline "export -f csv"; do
    name=$(echo "$cmd" | cut -d' ' -f1)
    echo victim >"$WORK/victim.txt"
    rm -f "$WORK/link.out" && ln -s victim.txt "$WORK/link.out"
    # shellcheck disable=SC2086 # the command and its option are two words
    run $cmd -o "$WORK/link.out" "$T/one.json"
    expect_status "$name -o a symlink" 0
    expect_in "$WORK/victim.txt" "victim" "$name -o a symlink: its target is untouched"
    if [ -f "$WORK/link.out" ] && [ ! -L "$WORK/link.out" ]; then
        pass "$name -o a symlink: replaced by the output"
    else
        fail "$name -o a symlink: replaced by the output"
    fi
    echo old >"$WORK/old.out"
    # shellcheck disable=SC2086
    (trap '' XFSZ && ulimit -f 1 && "$SHIMVIEW" $cmd -o "$WORK/old.out" "$T/one.json") \
        >"$WORK/out" 2>"$WORK/err"
    rc=$?
    expect_status "$name -o FILE that cannot be written whole (file size limit)" 1
    expect_in "$WORK/old.out" "old" "$name: a failed write leaves the file at the path as it was"
    expect_in "$WORK/err" "File too large" "$name: the failed write says why"
done
if ls "$WORK" | grep -q '\.tmp'; then fail "no temporary file left"; else pass "no temporary file left"; fi

run export "$T/one.json"
expect_status "export without --format" 2
run export -f svg "$T/one.json"
expect_status "export of an unknown format" 2
expect_in "$WORK/err" "perfetto, pprof, folded, csv" "the formats are listed"
run export -f pprof --value time "$GOOD"
expect_status "--value with pprof" 2
run export -f csv --max-events 5 "$T/one.json"
expect_status "--max-events with csv" 2
run export -f perfetto --max-events 0 "$T/one.json"
expect_status "--max-events 0" 2
run export -f folded --trace "$T/one.json.trace" "$GOOD"
expect_status "--trace with folded" 2
run export -f csv -o "$WORK/no-such-dir/x.csv" "$T/one.json"
expect_status "export into a missing directory" 1
run timeline --from later "$T/one.json"
expect_status "timeline --from later" 2
run timeline --from 2ms --to 1ms "$T/one.json"
expect_status "timeline --to before --from" 2
run timeline --from 10s "$T/one.json"
expect_status "timeline --from past the end" 2
run timeline --width 50 "$T/one.json"
expect_status "timeline --width 50" 2
run timeline --rate nosuch "$T/one.json"
expect_status "timeline --rate nosuch" 2
expect_in "$WORK/err" "items" "an unknown rate lists the rates"
run timeline
expect_status "timeline without PROFILE" 2
for cmd in timeline export; do
    run "$cmd" --help
    expect_status "$cmd --help" 0
    expect_in "$WORK/out" "usage: shimview $cmd" "$cmd --help prints the usage"
    run --help
    expect_in "$WORK/out" "$cmd" "shimview --help lists $cmd"
done

finish
