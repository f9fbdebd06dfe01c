#!/bin/sh
# SHIM_ALLOC, the allocation signal: without jemalloc, `on` says so in one line and the
# program runs on with its profile (or exits under SHIM_STRICT), `auto` says nothing; a
# bad value is one line naming it; with jemalloc preloaded, the profile carries its
# counter `allocated` with the rate `alloc`, and SHIM_RATES may name the counter.
# Usage: test_alloc.sh SHIM_TARGET WORKDIR [LIBJEMALLOC]
#   (no LIBJEMALLOC: jemalloc is not installed, or a sanitizer's allocator would stand
#   in front of it; the preloaded cases are skipped)
set -u
target=$1 dir=$2 jemalloc=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"
missing="shim: SHIM_ALLOC=on but the program does not run on jemalloc (mallctl not found); link -ljemalloc or LD_PRELOAD libjemalloc.so.2"
no_jemalloc_counter="not any(c.get('source') == 'jemalloc' for c in d['signals']['counters']) and 'alloc' not in [r['name'] for r in d['rates']]"

# 1. on, without jemalloc: the line, then the run goes on and writes its profile
SHIM_ALLOC=on SHIM_OUTPUT=on.json "$target" work 0.1 >out1 2>err1
expect "on without jemalloc: exits 0" test $? -eq 0
expect "on without jemalloc: the line names the cause and the remedy" has err1 "$missing; the other signals are read"
expect "on without jemalloc: said once, then the summary" sh -c '[ "$(grep -c "SHIM_ALLOC\|jemalloc" err1)" -eq 1 ] && grep -q "shim: wrote on.json" err1'
expect "on without jemalloc: shim started" has out1 "start: 0 success"
expect "on without jemalloc: profile without jemalloc's counters" json on.json "$no_jemalloc_counter and d['config']['alloc'] == 'on'"

# 2. the same under SHIM_STRICT=1: exit status 125
SHIM_ALLOC=on SHIM_STRICT=1 SHIM_OUTPUT=strict.json "$target" work 0.1 >out2 2>err2
expect "on, strict: exit 125" test $? -eq 125
expect "on, strict: says it exits" has err2 "$missing; exiting (SHIM_STRICT=1)"
expect "on, strict: no profile" test ! -e strict.json

# 3. auto (the default) and off, without jemalloc: nothing said
for v in "" auto off; do
    env ${v:+SHIM_ALLOC=$v} SHIM_OUTPUT="quiet$v.json" "$target" work 0.1 >out3 2>err3
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q "SHIM_ALLOC\|jemalloc" err3 && has err3 "shim: wrote quiet$v.json" &&
        json "quiet$v.json" "$no_jemalloc_counter and d['config']['alloc'] == '${v:-auto}'"; then
        ok "SHIM_ALLOC=${v:-(unset)} without jemalloc: nothing said, no counters"
    else
        bad "SHIM_ALLOC=${v:-(unset)} without jemalloc (rc $rc)"; cat err3
    fi
done

# 4. bad values: one line naming variable, value and what is accepted; the program runs
# on unprofiled, or exits under SHIM_STRICT
for v in maybe "" ON 1 "on "; do
    rm -f bad.json
    SHIM_ALLOC="$v" SHIM_OUTPUT=bad.json "$target" work 0.05 >out4 2>err4
    rc=$?
    if [ $rc -eq 0 ] && has err4 "shim: SHIM_ALLOC=\"$v\" is not valid; expected auto, on or off; the program runs on unprofiled" &&
        [ "$(wc -l <err4)" -eq 1 ] && has out4 "start: -1" && [ ! -e bad.json ]; then
        ok "bad SHIM_ALLOC=\"$v\": one clear line, the program ran on"
    else
        bad "bad SHIM_ALLOC=\"$v\" (rc $rc)"; cat err4 out4
    fi
done
SHIM_ALLOC=maybe SHIM_STRICT=1 "$target" work 0.05 >out4s 2>err4s
expect "bad value, strict: exit 125" test $? -eq 125
expect "bad value, strict: says it exits" has err4s "exiting (SHIM_STRICT=1)"

# 5. jemalloc preloaded: its counter and rate are in the profile
if [ -z "$jemalloc" ]; then
    echo "skipped: the preloaded cases (jemalloc not installed, or a sanitizer build)"
    finish
    exit $?
fi
for v in "" on; do
    LD_PRELOAD=$jemalloc env ${v:+SHIM_ALLOC=$v} SHIM_OUTPUT="pre$v.json" "$target" work 0.1 >out5 2>err5
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q "SHIM_ALLOC\|jemalloc" err5 && json "pre$v.json" "
[(c['name'], c['kind'], c.get('source'), c['slot'], c['width']) for c in d['signals']['counters'] if c.get('source')]
    == [('allocated', 'software', 'jemalloc', 0, 64)]
and [(r['name'], r['counter'], r['unit'], r['scale']) for r in d['rates'] if r['counter'] == 'allocated']
    == [('alloc', 'allocated', 'per 1000 cycles', 1000)]
and all(len(t['rates']) == len(d['rates']) for t in d['tags'])"; then
        ok "jemalloc preloaded, SHIM_ALLOC=${v:-(unset)}: counter allocated, rate alloc"
    else
        bad "jemalloc preloaded, SHIM_ALLOC=${v:-(unset)} (rc $rc)"; cat err5
    fi
done
LD_PRELOAD=$jemalloc SHIM_ALLOC=off SHIM_OUTPUT=preoff.json "$target" work 0.1 >out6 2>err6
expect "jemalloc preloaded, off: exits 0" test $? -eq 0
expect "jemalloc preloaded, off: no jemalloc counter" json preoff.json "$no_jemalloc_counter"
LD_PRELOAD=$jemalloc SHIM_RATES=bpl=allocated/loops SHIM_OUTPUT=rates.json "$target" work 0.1 >out7 2>err7
expect "SHIM_RATES names jemalloc's counter: exits 0" test $? -eq 0
expect "SHIM_RATES names jemalloc's counter: rate formed" json rates.json \
    "any(r['name'] == 'bpl' and r['counter'] == 'allocated' and r['per'] == 'loops' for r in d['rates'])"
finish
