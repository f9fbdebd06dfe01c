#!/bin/sh
# SHIM_TRACE: the observer's periods in order, through the ring and the writer thread,
# into a bounded file (docs/trace-format.md). Checked: the file's header and records
# against the profile that names it, that every period is written or counted as dropped,
# the size bound, and the errors.
# Usage: test_trace.sh SHIM_TARGET SHIMVIEW WORKDIR
set -u
target=$1 shimview=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"

# The trace read back by a reader written from the format document alone.
check() { # PROFILE: exit 0 when the trace agrees with the profile and the format
    python3 - "$1" <<'PY'
import json, math, os, struct, sys
d = json.load(open(sys.argv[1]))
t = d["trace"]
data = open(t["path"], "rb").read()
magic, ver, words, ntags, nrates = struct.unpack_from("<8sIIII", data)
assert magic == b"SHIMTRC1" and ver == 1, (magic, ver)
assert ntags == len(d["signals"]["tags"]) and nrates == len(d["rates"])
assert words == 5 + ntags + nrates == t["record_words"]
pid, = struct.unpack_from("<Q", data, 40)
assert pid == d["program"]["pid"]
n = (len(data) - 64) // (8 * words)
assert n == t["records"] and len(data) == 64 + n * 8 * words <= t["max_bytes"]
assert t["records"] + t["dropped_full"] + t["dropped_limit"] == d["samples"]["total"]
values = {tuple(v % 2**64 for v in e["values"]) for e in d["tags"]}
last = -1; kept = 0
for i in range(n):
    w = struct.unpack_from("<%dQ" % words, data, 64 + i * 8 * words)
    rates = struct.unpack_from("<%dd" % nrates, data, 64 + (i * words + 5 + ntags) * 8)
    seq, start, cycles, flags = w[0], w[1], w[2], w[3]
    assert seq > last; last = seq
    assert not (flags & 4) or (flags & 2) and (flags & 1)       # kept => rated => attributed
    assert all(math.isnan(r) for r in rates) or flags & 4       # rates only when kept
    if flags & 4: kept += 1; assert all(not math.isnan(r) for r in rates), rates
    # the observed thread, or with BPF whatever ran on its CPU
    assert w[4] == d["placement"]["observed_tid"] or d["placement"]["thread_identity"]["source"] == "bpf"
    if flags & 1 and not flags & 8: assert tuple(w[5:5 + ntags]) in values  # the table's tags
sys.exit(0 if kept > 0 else 1)
PY
}

# 1. a size: the trace goes beside the profile
SHIM_OUTPUT=p.json SHIM_TRACE=256K "$target" work 0.3 >out 2>err
expect "size: exit 0" test $? -eq 0
expect "size: the profile names the trace beside it" json p.json "d['trace']['path']=='$dir/p.json.trace'"
expect "size: the trace is the format and agrees with the profile" check p.json
expect "size: bounded, so periods were counted as not recorded" json p.json \
    "d['trace']['dropped_limit'] > 0 and d['trace']['max_bytes']==262144"

# 2. a path pattern with a size, and a period long enough that everything fits
SHIM_OUTPUT=q.json SHIM_PERIOD=20000 SHIM_TRACE='t-%p.bin:8M' "$target" work 0.3 >out 2>err
expect "path: exit 0" test $? -eq 0
expect "path: %p expanded" json q.json "d['trace']['path'].endswith('/t-%d.bin' % d['program']['pid'])"
expect "path: the trace agrees with the profile" check q.json
expect "path: every period recorded" json q.json \
    "d['trace']['records']==d['samples']['total'] and d['trace']['dropped_limit']==0"

# 2b. shimview reads real traces: the timeline, the Perfetto export and the CSV
"$shimview" timeline -o q.svg q.json >out 2>err
expect "shimview timeline draws a real trace" python3 -c "import xml.etree.ElementTree as E; E.parse('q.svg')"
"$shimview" export --format perfetto -o q.perfetto.json q.json >out 2>err
expect "shimview exports it for Perfetto: slices of the tag values, counters of the rates" json q.perfetto.json \
    "{'X','C','M'} <= {e['ph'] for e in d['traceEvents']}"
"$shimview" export --format csv q.json >q.csv 2>err
expect "shimview exports it as CSV, one row per record" python3 -c "
import csv, json
rows = list(csv.reader(open('q.csv')))
assert len(rows) - 1 == json.load(open('q.json'))['trace']['records'], len(rows)"

# 3. a trace that cannot be opened: one line, the program is profiled without it
SHIM_OUTPUT=r.json SHIM_TRACE=nodir/t.bin "$target" work 0.1 >out 2>err
expect "unopenable: exit 0, profiled" sh -c "[ $? -eq 0 ] && grep -q 'start: 0' out"
expect "unopenable: one line naming the file and the cause" has err \
    "SHIM_TRACE: cannot open .*nodir/t.bin: No such file or directory; no trace is written"
expect "unopenable: no trace member" json r.json "'trace' not in d"
SHIM_STRICT=1 SHIM_OUTPUT=r.json SHIM_TRACE=nodir/t.bin "$target" work 0.1 >out 2>err
expect "unopenable, strict: exit 125" test $? -eq 125

# 4. bad values: one line naming SHIM_TRACE, unprofiled
for v in "1K" "65G" "" ":64M"; do
    SHIM_TRACE="$v" SHIM_OUTPUT=bad.json "$target" work 0.1 >out 2>err
    st=$?
    expect "SHIM_TRACE='$v' refused in one line" sh -c "[ $st -eq 0 ] && grep -q '^shim: SHIM_TRACE=' err && [ \$(wc -l <err) -eq 1 ]"
done
# 5. what is found at the trace path is never opened: the trace is written under a new
# name beside it and renamed over it at the end, like the profile
mkfifo fifo.trace
SHIM_OUTPUT=f.json SHIM_TRACE=fifo.trace timeout 20 "$target" work 0.1 >out 2>err
st=$?
expect "fifo: a FIFO at the trace path does not block the start (exit $st, 124 is a hang)" test $st -eq 0
expect "fifo: replaced by a regular file" sh -c "[ -f fifo.trace ] && [ ! -p fifo.trace ]"
expect "fifo: the trace agrees with the profile" check f.json
echo secret >planted.trace
chmod 666 planted.trace
ino=$(stat -c %i planted.trace)
(umask 077 && SHIM_OUTPUT=g.json SHIM_TRACE=planted.trace "$target" work 0.1 >out 2>err)
expect "planted file: not written into (a new file, its old contents gone from the path)" sh -c \
    "[ \$(stat -c %i planted.trace) != $ino ] && ! grep -q secret planted.trace"
expect "planted file: the mode comes from the umask (077: 600), not from the planted file" \
    test "$(stat -c %a planted.trace)" = 600
expect "planted file: the trace agrees with the profile" check g.json
echo victim >victim
ln -s victim link.trace
SHIM_OUTPUT=h.json SHIM_TRACE=link.trace "$target" work 0.1 >out 2>err
expect "symlink: its target is untouched" sh -c "[ \"\$(cat victim)\" = victim ]"
expect "symlink: replaced by the trace" sh -c "[ -f link.trace ] && [ ! -L link.trace ]"
expect "symlink: the trace agrees with the profile" check h.json
expect "no temporary file is left behind" test -z "$(ls | grep '\.tmp$')"
finish
