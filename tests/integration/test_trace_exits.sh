#!/bin/sh
# SHIM_TRACE with SHIM_HOOKS=frames: the words the -finstrument-functions hooks store
# after an exit reach the trace's records as they were read (the function they stand for
# depends on the walk's chain, which records do not keep), and the profile's cct.exits
# names each of them, so that the timeline and the Perfetto export name every period's
# function (docs/profile-format.md, docs/trace-format.md).
# And SHIM_HOOKS=auto: the frame signal for the program built with frame pointers, the
# tree for the same program built without.
# And a function gcc inlined gets its host in its contexts (the writer reads the direct
# call before its frame's return address): tests/fidelity/frames_inlined.c's helper,
# inlined into outer.
# Usage: test_trace_exits.sh FRAMES_PROGRAM TREE_PROGRAM SHIMVIEW WORKDIR INLINED_PROGRAM
# (the programs: tests/fidelity/cct_phases.c built with and without frame pointers, and
# tests/fidelity/frames_inlined.c)
set -u
program=$1 unframed=$2 shimview=$3 dir=$4 inlined=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"

SHIM_HOOKS=frames SHIM_PERIOD=20000 SHIM_OUTPUT=p.json SHIM_TRACE=t.bin:16M \
    "$program" 0.3 truth >out 2>err
expect "frames: exit 0" test $? -eq 0
expect "frames: the profile lists the hooks' exit words, in order, each with a function of its table" \
    json p.json "len(d['cct']['exits']) > 0 and \
[int(w, 16) for w, f in d['cct']['exits']] == sorted({int(w, 16) for w, f in d['cct']['exits']}) and \
all(int(w, 16) >> 63 == 1 for w, f in d['cct']['exits']) and \
{f for w, f in d['cct']['exits']} <= {x['address'] for x in d['functions']}"
expect "frames: no tag entry holds an exit word" \
    json p.json "all(0 <= v < 2**63 for e in d['tags'] for v in e['values'])"
# every exit word in the records' function column is one the profile names
python3 - p.json >words 2>&1 <<'PY'
import json, struct, sys
d = json.load(open(sys.argv[1]))
t = d["trace"]
data = open(t["path"], "rb").read()
_, _, words, ntags, _ = struct.unpack_from("<8sIIII", data)
col = [i for i, s in enumerate(d["signals"]["tags"]) if s["slot"] == 8][0]
named = {int(w, 16) for w, f in d["cct"]["exits"]}
seen = unnamed = 0
for i in range((len(data) - 64) // (8 * words)):
    flags = struct.unpack_from("<Q", data, 64 + (i * words + 3) * 8)[0]
    if not flags & 1 or flags & 8:  # an interrupted period, or one the store had no room for
        continue
    v = struct.unpack_from("<Q", data, 64 + (i * words + 5 + col) * 8)[0]
    if v >> 63:
        seen += 1
        unnamed += v not in named
print(seen, unnamed)
PY
expect "frames: the records hold exit words, each named by the profile" \
    sh -c 'read seen unnamed <words && [ "$seen" -gt 0 ] && [ "$unnamed" -eq 0 ]'
"$shimview" export --format perfetto -o t.json p.json >out 2>err
expect "frames: the Perfetto export is written" test -s t.json
# an unnamed value would be labelled function=NUMBER
expect "frames: its slices name functions, not exit words" \
    json t.json "not any(__import__('re').fullmatch(r'function=(0x)?[0-9a-f]+', e.get('name', '')) \
for e in (d['traceEvents'] if isinstance(d, dict) else d))"

# auto chooses by the code's frame pointers; SHIM_HOOKS=tree keeps the tree
SHIM_HOOKS=auto SHIM_OUTPUT=a.json "$program" 0.2 truth >out 2>err
expect "auto: the program with frame pointers gets the frame signal" json a.json "d['cct']['source'].startswith('stack walk')"
SHIM_HOOKS=auto SHIM_OUTPUT=b.json "$unframed" 0.2 truth >out 2>err
expect "auto: the program without them keeps the tree" json b.json "d['cct']['source'] == 'hooks'"
SHIM_HOOKS=tree SHIM_OUTPUT=c.json "$program" 0.2 truth >out 2>err
expect "tree: asked for, kept" json c.json "d['cct']['source'] == 'hooks'"

# the inlined helper's contexts name outer, the function it was inlined into
SHIM_HOOKS=frames SHIM_OUTPUT=i.json "$inlined" 0.3 truth >out 2>err
"$shimview" contexts --csv i.json >i.csv 2>err
expect "inlined: the helper's contexts have their host, outer" python3 -c "
import csv, sys
rows = [r['context'] for r in csv.DictReader(open('i.csv')) if r['context'].split(' > ')[-1].split(' @')[0] == 'helper']
sys.exit(0 if rows and all(' > '.join(c.split(' @')[0] for c in r.split(' > ')[-2:]) == 'outer > helper' for r in rows) else 1)"
finish
