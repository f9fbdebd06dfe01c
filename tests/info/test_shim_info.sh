#!/bin/sh
# shim-info prints every fact it promises, one placement line per CPU this process may
# use, and a verdict that agrees with the machine: on a machine whose kernel lists no
# "cpu" PMU, IPC per tag is not available and the line says why.
# Usage: test_shim_info.sh SHIM_INFO
set -u
info=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

"$info" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && ok "exits 0" || bad "exit status"
cat "$tmp/out"
for key in CPU topology TSC "kernel PMUs" libpfm4 paranoid rdpmc counters any-thread cycles \
    instructions "memory PMU" placement verdict; do
    grep -q "^$key " "$tmp/out" && ok "prints $key" || bad "no $key line"
done
cpus=$(nproc)
lines=$(grep -c -- "-> " "$tmp/out")
[ "$lines" -eq "$cpus" ] && ok "a placement line for each of the $cpus CPUs" || bad "$lines placement lines for $cpus CPUs"
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
    grep -q "^verdict .*not available because" "$tmp/out" && ok "no cpu PMU: verdict says not available, and why" ||
        bad "verdict on a machine without a cpu PMU"
    echo "skipped: no PMU (the verdict for a machine with counters is not checked here)"
else
    grep -Eq "^verdict .*IPC per tag: (available|not available)" "$tmp/out" && ok "verdict present" || bad "verdict"
fi
grep -q "memory bandwidth per tag: " "$tmp/out" && ok "says whether memory bandwidth per tag is available" ||
    bad "no memory bandwidth verdict"
"$info" --help >/dev/null 2>&1 && ok "--help exits 0" || bad "--help"
"$info" --bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && ok "an unknown option exits 2" || bad "unknown option status"
grep -q "^shim-info: unknown option '--bogus'$" "$tmp/err" && ok "the message names the option" ||
    bad "unknown option message: $(cat "$tmp/err")"
grep -q "Try 'shim-info --help'" "$tmp/err" && ok "and gives a hint" || bad "no hint"
"$info" -x >/dev/null 2>"$tmp/err"
grep -q "^shim-info: unknown option '-x'$" "$tmp/err" && ok "a short option is named too" ||
    bad "short option message: $(cat "$tmp/err")"
"$info" extra >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "takes no arguments, got 'extra'" "$tmp/err" && ok "an argument is refused, named" ||
    bad "argument: $(cat "$tmp/err")"
"$info" --version >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && grep -Eqx 'shim-info [0-9]+\.[0-9]+\.[0-9]+ \(profile format version [0-9]+\)' "$tmp/out" &&
    ok "--version: name, version and profile format, as shimview's" || bad "--version: $(cat "$tmp/out")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
