#!/bin/sh
# Programs under shim, as a user runs them: every failure mode gives one clear line and
# leaves the program running; profiles are written where asked, atomically, also at
# exit; double start/stop are handled (fork: test_fork.sh).
# Usage: test_integration.sh SHIM_TARGET SHIMVIEW WORKDIR
set -u
target=$1 shimview=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"

# 1. a plain run writes a valid profile with consistent totals
SHIM_OUTPUT=plain.json "$target" work 0.3 >out1 2>err1
expect "plain run exits 0" test $? -eq 0
expect "plain run: start returned 0" has out1 "start: 0 success"
expect "plain run: profile written" test -s plain.json
expect "plain run: summary line on stderr" has err1 "shim: wrote plain.json"
expect "plain run: totals add up" json plain.json \
    "d['samples']['kept']+d['samples']['discarded']==d['samples']['rated'] and d['samples']['rated']+d['samples']['thread_changes']+d['samples']['straddled']+d['samples']['interrupted']==d['samples']['total'] and sum(t['samples'] for t in d['tags'])+d['other']['samples']==d['samples']['total']-d['samples']['interrupted']"
expect "plain run: names recorded" json plain.json "set(t['names'][0] for t in d['tags'])>={'one','two'} and d['signals']['counters'][0]['name']=='loops'"
expect "plain run: no temporary file left" sh -c '! ls *.tmp 2>/dev/null | grep -q .'
expect "plain run: mode 0644" sh -c '[ "$(stat -c %a plain.json)" = 644 ]'
expect "shimview reads it" sh -c "'$shimview' report plain.json >report1 && grep -q one report1 && grep -q two report1"

# 2. bad values: one line naming variable, value and what is accepted; program runs on
for kv in "SHIM_PERIOD=abc" "SHIM_PERIOD=-5" "SHIM_PERIOD=99999999999999999999999" \
    "SHIM_DTE=2" "SHIM_OBSERVER_CPU=x" "SHIM_HIST=0:0:4" "SHIM_TAGS=16" "SHIM_OUTPUT=" \
    "SHIM_MAX_TAGS=0" "SHIM_STRICT=maybe" "SHIM_COUNTERS=0:0"; do
    name=${kv%%=*} value=${kv#*=}
    rm -rf badvals && mkdir badvals
    (cd badvals && env "$kv" "$target" work 0.05 >../out2 2>../err2)
    rc=$?
    if [ $rc -eq 0 ] && grep -q "$name=\"$value\"" err2 && grep -q "expected" err2 &&
        grep -q "runs on unprofiled" err2 && has out2 "start: -1" &&
        [ -z "$(ls badvals)" ] && [ "$(wc -l <err2)" -eq 1 ]; then
        ok "bad $kv: clear error, program ran on"
    else
        bad "bad $kv (rc $rc)"; cat err2 out2
    fi
done

# 3. SHIM_STRICT=1 turns a bad value into exit status 125
SHIM_STRICT=1 SHIM_PERIOD=abc "$target" work 0.05 >out3 2>err3
expect "strict: exit 125" test $? -eq 125
expect "strict: says it exits" has err3 "exiting (SHIM_STRICT=1)"

# 3b. strict asked for in the struct is honoured even when the struct is refused
"$target" strict-struct >out3b 2>err3b
expect "strict struct: exit 125" test $? -eq 125
expect "strict struct: names the field and value" has err3b "period = 18446744073709551615 is not valid"

# 3c. a profile lost at exit (its directory removed) is reported, and neither strict
# mode nor shim changes the program's own exit status
mkdir -p vanishing
SHIM_STRICT=1 "$target" lose-output "$dir/vanishing" >out3c 2>err3c
expect "lost at exit: the program's status stays 3" test $? -eq 3
expect "lost at exit: says the profile is lost" has err3c "the profile of this run is lost"

# 4. unknown SHIM_ variable: a warning, and the run goes on
# Slots written but not read: one line at the stop naming them and the setting that
# reads them; nothing when they are read, or when nothing unread changed
expect "plain run: nothing said of unread slots" sh -c '! grep -q "not read" err1'
SHIM_OUTPUT=unread.json "$target" unread 0.2 >out4a 2>err4a
expect "unread slots: one line" test "$(grep -c 'changed but w' err4a)" -eq 1
expect "unread slots: the counter slot and the setting that reads it" has err4a \
    "counter slot 5 changed but was not read: SHIM_COUNTERS=0,1,5 reads it (auto: the named counters only)"
expect "unread slots: the tag slot and the setting that reads it" has err4a \
    "tag slot 3 changed but was not read: SHIM_TAGS=0,3 reads it (auto: slot 0 and the named slots only)"
SHIM_COUNTERS=0,1,5 SHIM_TAGS=0,3 SHIM_OUTPUT=unread2.json "$target" unread 0.2 >out4b 2>err4b
expect "unread slots read as the line says: nothing said" sh -c '! grep -q "not read" err4b'
expect "unread slots read as the line says: the profile has them" json unread2.json \
    "[c['slot'] for c in d['signals']['counters']]==[0,1,5] and [t['slot'] for t in d['signals']['tags']]==[0,3]"
SHIM_COUNTERS=0 SHIM_OUTPUT=unread3.json "$target" unread 0.1 >out4c 2>err4c
expect "unread slots under a given SHIM_COUNTERS: named as given" has err4c \
    "counter slots 1, 5 changed but were not read: SHIM_COUNTERS=0,1,5 reads them (it is SHIM_COUNTERS=0)"

SHIM_PERIDO=5 SHIM_OUTPUT=typo.json "$target" work 0.05 >out4 2>err4
expect "unknown variable warned" has err4 "SHIM_PERIDO is not a shim variable"
expect "unknown variable: still profiled" test -s typo.json

# 5. one allowed CPU: a clear refusal. The limit is the process's cpuset, not the
# thread's mask: under taskset -c 0 the program is observed on CPU 0 with the observer
# beside it; in a cpuset of CPU 0 alone it is refused
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    SHIM_OUTPUT=taskset.json taskset -c 0 "$target" work 0.05 >out5t 2>err5t
    expect "taskset -c 0: observed on CPU 0" json taskset.json \
        "d['placement']['observed_cpu']==0 and d['placement']['observer_cpu']!=0"
fi
cg=$(one_cpu_cpuset)
if [ -z "$cg" ]; then
    echo "skipped: one CPU: no cpuset cgroup of one CPU can be made here (needs root and a cpuset controller)"
else
    SHIM_OUTPUT=one.json in_cgroup "$cg" "$target" work 0.05 >out5 2>err5
    expect "one CPU: program exits 0" test $? -eq 0
    expect "one CPU: refusal names the cause" has err5 "may run on only one CPU"
    expect "one CPU: start returned SHIM_ENOCPU" has out5 "start: -4"
    expect "one CPU: no profile" test ! -e one.json
    SHIM_STRICT=1 in_cgroup "$cg" "$target" work 0.05 >/dev/null 2>&1
    expect "one CPU, strict: exit 125" test $? -eq 125
    rmdir "$cg"
fi

# 6. observer CPU chosen by the user, and one the process may not use
SHIM_OBSERVER_CPU=0 SHIM_OUTPUT=cpu0.json "$target" work 0.1 >out6 2>err6
expect "SHIM_OBSERVER_CPU=0 honoured" json cpu0.json \
    "d['placement']['observer_cpu']==0 and d['placement']['observed_cpu']!=0 and d['placement']['chosen_by']=='user'"
SHIM_OBSERVER_CPU=1000 "$target" work 0.05 >out6b 2>err6b
expect "SHIM_OBSERVER_CPU=1000 refused" has err6b "observer CPU 1000 (SHIM_OBSERVER_CPU or observer_cpu) is not a CPU this process may run on"

# 7. no shim_stop: the profile is written at exit
SHIM_OUTPUT=atexit.json "$target" nostop 0.2 >out7 2>err7
expect "atexit: profile written" test -s atexit.json
expect "atexit: samples taken" json atexit.json "d['samples']['total']>0"

# 8. double start, double stop, stop without start
SHIM_OUTPUT=twice.json SHIM_QUIET=1 "$target" twice >out8 2>err8
expect "second start is EBUSY" has out8 "second start: -2"
expect "second stop is ENOTSTARTED" has out8 "second stop: -3"
expect "running reported" sh -c "grep -q 'running: 1' out8 && grep -q 'running: 0' out8"
"$target" stop-only >out9 2>&1
expect "stop without start is ENOTSTARTED" has out9 "stop: -3"

# 10. exit() from another thread while observing: profile still written
SHIM_OUTPUT=exit-thread.json "$target" exit-thread >out11 2>err11
expect "exit from a thread: exit status 0" test $? -eq 0
expect "exit from a thread: profile written" test -s exit-thread.json

# 11. SHIM_DISABLE=1: no observer, no profile, a distinct return code
SHIM_DISABLE=1 SHIM_OUTPUT=disabled.json "$target" work 0.05 >out12 2>err12
expect "disabled: start returned SHIM_EDISABLED" has out12 "start: -9"
expect "disabled: no profile" test ! -e disabled.json

# 12. unwritable destination: a clear error, nothing partial left, program exits 0
SHIM_OUTPUT=/nonexistent-dir/x.json "$target" work 0.05 >out13 2>err13
expect "unwritable: program exits 0" test $? -eq 0
expect "unwritable: error names the path" has err13 "/nonexistent-dir/x.json"
expect "unwritable: refused at start, before the run (SHIM_EIO)" has out13 "start: -8"
expect "unwritable: says why" has err13 "cannot write the profile /nonexistent-dir/x.json: directory /nonexistent-dir: No such file or directory"

# 14. output pattern expansion
SHIM_OUTPUT='pat-%e-%p-%%.json' "$target" work 0.05 >out14 2>err14
expect "pattern: %e and %% expanded" sh -c 'ls pat-shim_target-*-%.json >/dev/null'

# 16. SIGINT / SIGTERM / SIGHUP at their default action: the profile is written, then
# the program dies of the signal as it would have (status 128 + signal)
for pair in INT:2 TERM:15 HUP:1; do
    sig=${pair%:*} num=${pair#*:}
    rm -f "sig-$sig.json"
    SHIM_OUTPUT="sig-$sig.json" "$target" until-signal >out16 2>err16 &
    pid=$!
    for i in 1 2 3 4 5 6 7 8 9 10; do grep -q working out16 2>/dev/null && break; sleep 0.1; done
    sleep 0.2
    kill -$sig $pid
    wait $pid
    rc=$?
    expect "SIG$sig: the program died of it (status $rc)" test $rc -eq $((128 + num))
    expect "SIG$sig: the profile was written" json "sig-$sig.json" "d['samples']['total']>0"
done

# 17. the program's own handler runs, and its exit() writes the profile
SHIM_OUTPUT=own.json "$target" own-handler >out17 2>err17 &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do grep -q working out17 2>/dev/null && break; sleep 0.1; done
kill -TERM $pid
wait $pid
expect "own handler: exit status 0" test $? -eq 0
expect "own handler: it ran" has out17 "own handler ran"
expect "own handler: profile written" test -s own.json

# 18. exec while observing: the new program runs normally
SHIM_OUTPUT=exec.json "$target" exec >out18 2>err18
expect "exec: /bin/true ran and exited 0" test $? -eq 0

# 19. 1000 threads created and joined while observing
SHIM_OUTPUT=threads.json "$target" threads 1000 >out19 2>err19
expect "threads: all ran" has out19 "threads: 1000"
expect "threads: profile written" has out19 "stop: 0"

# 20. out of memory at start: a clear error, the program runs on
"$target" oom >out20 2>err20
expect "oom: program ran on" has out20 "still running"
expect "oom: start refused with SHIM_ENOMEM" has out20 "start: -5"
expect "oom: says so" has err20 "out of memory"

# 21. the disk fills (file size limit): a clear error, nothing partial left
rm -rf fsize && mkdir fsize
(cd fsize && SHIM_OUTPUT=big.json "$target" fsize >../out21 2>../err21)
expect "full: stop returned SHIM_EIO" has out21 "stop: -8"
expect "full: says why" has err21 "File too large"
expect "full: nothing left behind" test -z "$(ls fsize)"

# 21b. a disk that is really full (a 16 KiB tmpfs), where this machine lets us mount one
mkdir -p tiny
if mount -t tmpfs -o size=16k tmpfs tiny 2>/dev/null; then
    (cd tiny && SHIM_OUTPUT=full.json "$target" work 0.2 >../out21b 2>../err21b)
    expect "disk full: stop returned SHIM_EIO" has out21b "stop: -8"
    expect "disk full: says why" has err21b "No space left on device"
    expect "disk full: nothing left behind" test -z "$(ls tiny)"
    umount tiny
else
    echo "skipped: cannot mount a tmpfs here (not root?): the full-disk case is covered by the file size limit above"
fi

# 22. a symlink planted at the output path is replaced, never followed
echo "precious" >victim
ln -sf "$dir/victim" planted.json
SHIM_OUTPUT=planted.json "$target" work 0.05 >out22 2>err22
expect "symlink: victim untouched" test "$(cat victim)" = precious
expect "symlink: the profile is a regular file" sh -c 'test -f planted.json && ! test -L planted.json'

# 24. derived rates: counter per counter (exactly 3 triples per loop) and per cycles
SHIM_RATES="tpl=triples/loops, lpkc=loops*1000/cycles" SHIM_OUTPUT=rates.json "$target" work 0.3 >out24 2>err24
expect "SHIM_RATES: both rates in the profile" json rates.json \
    "[x['name'] for x in d['rates']][-2:]==['tpl','lpkc'] and d['rates'][-2]['per']=='loops' and d['rates'][-1]['unit']=='per 1000 cycles'"
expect "SHIM_RATES: triples per loop is 3 in every tag" json rates.json \
    "all(abs(r['rate']-3)<0.03 for t in d['tags'] for r in [t['rates'][-2]] if r.get('rate') is not None and r['periods']>100)"
SHIM_RATES="x=nosuch/loops" "$target" work 0.05 >out24b 2>err24b
expect "SHIM_RATES: an unknown counter is named, with those shim reads" has err24b "names nosuch, which is not a counter shim reads (it reads: loops, triples, tsc)"
SHIM_RATES="x=loops" "$target" work 0.05 >out24c 2>err24c
expect "SHIM_RATES: bad syntax refused" has err24c 'SHIM_RATES="x=loops" is not valid'

# 23. the profile's mode is 0644 less the umask
(umask 077 && SHIM_OUTPUT=umask.json SHIM_QUIET=1 "$target" work 0.05 >/dev/null 2>&1)
expect "umask 077: mode 600" sh -c '[ "$(stat -c %a umask.json)" = 600 ]'

# 15. error strings
"$target" strerror >out15
expect "strerror: distinct texts" test "$(sort -u -k2 out15 | wc -l)" -eq 12

# one rate bucketed by another (SHIM_BY): t3 is the loops counter again, times 3, over
# the same time base, so in every period t3 is exactly 3 times loops per cycle, and in
# each bucket of loops per cycle t3 lies within 3 times that bucket's span
SHIM_RATES=t3=loops*3/tsc SHIM_BY=t3:loops:10:0:0.01 SHIM_OUTPUT=by.json "$target" work 0.3 >outby 2>errby
expect "SHIM_BY: the profile says which rate by which" json by.json \
    "d['by']=={'rate':'t3','by':'loops','buckets':10,'lo':0.0,'hi':0.01}"
# the slots belong to tuples with a detail record, and hold the periods after it was given
expect "SHIM_BY: every kept period since the detail record in one slot" json by.json \
    "all(sum(b[0] for b in t['by'])<=t['kept'] and len(t['by'])==12 and (t['detail'] or sum(b[0] for b in t['by'])==0) for t in d['tags']) and sum(b[0] for b in d['tags'][0]['by'])>=0.9*d['tags'][0]['kept']"
expect "SHIM_BY: y by bucket of x is 3 x" json by.json \
    "all(0.003*(k-1)*(1-1e-9) <= b[1]/b[2] <= 0.003*k*(1+1e-9) for t in d['tags'] for k,b in enumerate(t['by']) if 1<=k<=10 and b[0]>0)"
SHIM_BY=triples:nosuch SHIM_OUTPUT=by2.json "$target" work 0.05 >outby2 2>errby2
expect "SHIM_BY: an unknown rate is named, with the rates formed" has errby2 \
    "SHIM_BY: nosuch is not a rate shim forms (it forms: loops, triples)"
# observers: each needs two CPUs of its own (SHIM_OBSERVERS); what does not fit is said and
# left out, and the profile lists the observers there were, whose samples add up
ncpu=$(nproc)
SHIM_OBSERVERS=64 SHIM_OUTPUT=obs.json "$target" work 0.1 >outobs 2>errobs
expect "SHIM_OBSERVERS: the program runs" test $? -eq 0
expect "SHIM_OBSERVERS: as many observers as CPU pairs, the rest said" json obs.json \
    "len(d['placement']['observers'])==max(1,$ncpu//2)"
expect "SHIM_OBSERVERS: their samples add up to the profile's" json obs.json \
    "sum(o['samples'] for o in d['placement']['observers'])==d['samples']['total']"
expect "SHIM_OBSERVERS: one line says how many fit" has errobs "SHIM_OBSERVERS=64: only"
expect "SHIM_THREAD_ID=pinned: the thread word is the observed thread's" sh -c \
    "SHIM_THREAD_ID=pinned SHIM_OUTPUT=pinned.json '$target' work 0.05 >/dev/null 2>&1 &&
     python3 -c \"import json; d=json.load(open('pinned.json')); p=d['placement']; assert p['thread_identity']=={'source':'pinned','why':'SHIM_THREAD_ID=pinned'}; assert {t['thread'] for t in d['tags']}=={p['observed_tid']}\""
finish
