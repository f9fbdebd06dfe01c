#!/bin/sh
# SHIM_SNAPSHOT: the profile of the run so far is on disk while the program runs, every
# snapshot and the final profile count every sample in exactly one interval
# (check_snapshots.py), SHIM_SNAPSHOT_KEEP keeps the last N as files of their own, a
# program killed by SIGTERM still gets its final profile, snapshots that take more than
# 1% of the observer's CPU say so, and without SHIM_SNAPSHOT nothing changes.
# Usage: test_snapshot.sh SNAPSHOT_TARGET SHIMRUN PLAIN_TARGET SHIMVIEW WORKDIR
set -u
target=$1 shimrun=$2 plain=$3 shimview=$4 dir=$5
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
check="$here/check_snapshots.py"
fresh_dir "$dir"

# Polls COMMAND until it succeeds, for at most SECONDS (a loaded machine, a sanitized
# build: how long a program takes to start is not what is tested); 1 if it never does.
wait_until() { # SECONDS COMMAND...
    limit=$(($1 * 10))
    shift
    while ! "$@" 2>/dev/null; do
        limit=$((limit - 1))
        [ "$limit" -gt 0 ] || return 1
        sleep 0.1
    done
}

# ---- a program running 4 s, a snapshot every second ----
# It runs on past its 4 s while the file `hold` exists: on a loaded machine the first
# snapshot can come later than 2.5 s (the observer's CPU is shared), and what is tested
# is that one comes while the program runs, not when.
: >hold
SHIM_SNAPSHOT=1 SHIM_SNAPSHOT_KEEP=10 SHIM_OUTPUT=p.json "$target" 4 hold >out 2>err &
pid=$!
expect "the program starts and is observed" wait_until 120 has out working
sleep 2.5 # from the start of its 4 s
expect "the program still runs at 2.5 s" kill -0 "$pid"
expect "a profile is on disk from 2.5 s on" wait_until 120 test -s p.json
cp p.json mid.json 2>/dev/null
expect "the program still runs once it is there" kill -0 "$pid"
rm -f hold
expect "it is a snapshot of the run so far, not the final profile" \
    json mid.json "not d['snapshot']['final'] and d['snapshot']['number'] >= 1 and d['samples']['total'] > 0"
expect "shimview reads it" sh -c "'$shimview' report mid.json >/dev/null"
wait "$pid"
expect "the program ends normally" test $? -eq 0
expect "the final profile is the stop's" json p.json "d['snapshot']['final']"
expect "the final profile has more samples than the snapshot at 2.5 s" python3 -c "
import json
a, b = json.load(open('mid.json')), json.load(open('p.json'))
assert b['samples']['total'] > a['samples']['total'], (a['samples'], b['samples'])"
expect "snapshots were kept as numbered files" sh -c '[ $(ls p.0*.json | wc -l) -ge 2 ]'
expect "every sample is in exactly one interval, from the first snapshot to the final profile" \
    python3 "$check" $(ls p.0*.json) p.json
expect "the numbered files are the snapshots written to the profile's path" \
    json "$(ls p.0*.json | tail -1)" "d['snapshot']['number'] == json.load(open('p.json'))['snapshot']['number'] - 1"
expect "nothing is left behind: no temporary file" sh -c '! ls | grep -q "\.tmp$"'

# ---- a server that runs until SIGTERM ----
SHIM_SNAPSHOT=0.3 SHIM_SNAPSHOT_KEEP=2 SHIM_OUTPUT=s.json "$target" 0 >out 2>err &
pid=$!
expect "three snapshots are written while it runs" \
    wait_until 120 json s.json "d['snapshot']['number'] >= 3"
kill -TERM "$pid"
wait "$pid"
status=$?
expect "SIGTERM ends it as it would have ($status)" test "$status" -eq 143
expect "SHIM_SNAPSHOT_KEEP=2 keeps two snapshots" sh -c '[ $(ls s.0*.json | wc -l) -eq 2 ]'
expect "the final profile is written as it dies" json s.json "d['snapshot']['final']"
expect "the last two snapshots and the final profile: every sample in one interval" \
    python3 "$check" $(ls s.0*.json) s.json

# ---- what a snapshot costs the observer is said where it shares the observer's CPU ----
SHIM_SNAPSHOT=0.1 SHIM_OUTPUT=q.json "$target" 1 >out 2>err
if [ "$(nproc)" -le 2 ]; then
    expect "snapshots on the observer's CPU say what they take from it (a tenth of a second: more than 1%)" \
        has err "s of the observer's CPU, [0-9.]*% of its period"
    expect "once" sh -c '[ $(grep -c "of the observer.s CPU" err) -eq 1 ]'
else
    ok "skipped: $(nproc) CPUs: the snapshots are written on a CPU of their own, and cost the observer nothing to say"
fi

# ---- a store too small for the run (two tuples): what the intervals bring beyond it is
# `other` ----
SHIM_SNAPSHOT=0.1 SHIM_SNAPSHOT_KEEP=100 SHIM_MAX_TAGS=2 SHIM_OUTPUT=f.json "$target" 0.6 >out 2>err
expect "a full store under snapshots: the run ends normally" test $? -eq 0
for f in $(ls f.0*.json) f.json; do
    expect "$f: every sample of other counted with its reason" \
        json "$f" "d['samples']['other'] == d['other']['samples'] == sum(d['samples']['other_why'].values()) > 0"
    expect "$f: shimview reads it" sh -c "'$shimview' report '$f' >/dev/null"
done

# ---- calling contexts (the hooks' trees) under shimrun ----
"$shimrun" --snapshot 0.2 --snapshot-keep 100 -o c.json "$plain" 600 >out 2>err &
pid=$!
expect "shimrun --snapshot: three snapshots of a calling-context profile while it runs" \
    wait_until 120 json c.json "d['snapshot']['number'] >= 3"
kill -TERM "$pid"
wait "$pid"
expect "its final profile at SIGTERM" sh -c 'grep -q "shim: wrote c.json" err'
expect "each has its contexts" json "$(ls c.0*.json | head -1)" "'cct' in d and len(d['tags']) > 1"
expect "contexts too: every sample in exactly one interval" python3 "$check" $(ls c.0*.json) c.json

# ---- without SHIM_SNAPSHOT nothing changes; bad values are said ----
SHIM_SNAPSHOT_KEEP=3 SHIM_OUTPUT=n.json "$target" 0.3 >out 2>err
expect "SHIM_SNAPSHOT_KEEP alone is said to do nothing" has err "SHIM_SNAPSHOT_KEEP=3 does nothing"
expect "no snapshot member, no numbered file" \
    sh -c "python3 -c \"import json,sys; sys.exit('snapshot' in json.load(open('n.json')))\" && ! ls n.0* 2>/dev/null"
SHIM_SNAPSHOT=1s SHIM_OUTPUT=b.json "$target" 0.1 >out 2>err
expect "a bad SHIM_SNAPSHOT is one line naming it; the program runs unprofiled" \
    sh -c "grep -q 'SHIM_SNAPSHOT=\"1s\" is not valid' err && [ ! -e b.json ]"
finish
