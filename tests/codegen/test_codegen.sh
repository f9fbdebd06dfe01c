#!/bin/sh
# The signal macros must compile to one store (SHIM_SIGNAL) or one add (SHIM_COUNT)
# through the thread-local block pointer: no call, no branch, no lock prefix, no fence;
# and to nothing at all with -DSHIM_DISABLE. Checked on the real compiler output of
# signals_sample.c, with gcc and (when installed) clang, at -O2.
# Usage: test_codegen.sh INCLUDE_DIR
set -u
inc=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Instructions of one function, from its label to its ret.
body() { # obj func
    objdump -d --no-show-raw-insn "$1" |
        awk -v f="<$2>:" '$2 == f {on = 1; next} on && /\tret/ {exit} on && NF > 1 {sub(/^ *[0-9a-f]+:\t/, ""); print}'
}

check() { # compiler func kind
    b=$(body "$tmp/$1.o" "$2")
    if [ -z "$b" ]; then bad "$1 $2: function not found"; return; fi
    echo "$b" | grep -Eq '(^|[[:space:]])(call|jmp|j[a-z]+|lock|mfence|sfence|lfence|xchg)([[:space:]]|$)' &&
        { bad "$1 $2: has a call, branch, lock or fence:"; echo "$b"; return; }
    echo "$b" | grep -q '%fs:' || { bad "$1 $2: no thread-local access"; echo "$b"; return; }
    # stores: an instruction whose last operand is a memory reference
    stores=$(echo "$b" | grep -Ec ',[^,]*\(%r[a-z0-9]+\)$')
    if [ "$stores" -ne 1 ]; then bad "$1 $2: $stores stores, expected 1"; echo "$b"; return; fi
    if [ "$3" = add ] && ! echo "$b" | grep -q 'add'; then bad "$1 $2: no add"; echo "$b"; return; fi
    n=$(echo "$b" | wc -l)
    ok "$1 $2: $n instructions, one store, no call/branch/lock ($(echo "$b" | tr '\n' ';' | tr -s ' \t' ' '))"
}

for cc in gcc clang; do
    command -v $cc >/dev/null 2>&1 || { echo "skipped: $cc not installed"; continue; }
    $cc -O2 -c -I"$inc" "$here/signals_sample.c" -o "$tmp/$cc.o" || { bad "$cc: compile failed"; continue; }
    check $cc set_phase store
    check $cc set_value store
    check $cc count_const add
    check $cc count_value add
    $cc -O2 -DSHIM_DISABLE -c -I"$inc" "$here/signals_sample.c" -o "$tmp/$cc-off.o" || { bad "$cc -DSHIM_DISABLE: compile failed"; continue; }
    for f in set_phase set_value count_const count_value; do
        b=$(body "$tmp/$cc-off.o" $f)
        [ -z "$b" ] && ok "$cc -DSHIM_DISABLE $f: empty" || { bad "$cc -DSHIM_DISABLE $f: not empty"; echo "$b"; }
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
