#!/bin/sh
# What gcc's -finstrument-functions hooks cost Lua (bench/realprog/lua/), by what they
# do: glibc's empty hooks, the three floors of bench/hook_floor.c (two stores a hook; the
# same with the tests a safe hook needs; the same with a stack of pairs), and libshim's
# own hooks (SHIM_HOOKS=frames, then the tree) under shimrun, first at the longest
# period (the observer barely reads: the hooks' own cost) then at the default.
#
#   bench/realprog/hook_floor.sh [ITERATIONS [ROUNDS]]
#
# Builds Lua's `instrumented` variant with -fno-omit-frame-pointer into
# BUILD/hook-floor (BUILD: SHIM_BENCH_BUILD, default build/ at the top of the checkout,
# where the project must be built), runs every configuration once per round, interleaved
# (default 800 iterations, 7 rounds), and prints each one's median elapsed time and its
# ratio to the empty hooks. A measurement, not a test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
build=${SHIM_BENCH_BUILD:-$top/build}
n=${1:-800}
rounds=${2:-7}
case "$n$rounds" in *[!0-9]*)
    echo "usage: bench/realprog/hook_floor.sh [ITERATIONS [ROUNDS]] (whole numbers)" >&2
    exit 2
    ;;
esac
for f in "$build/shimrun" "$build/libshim.so" "$build/bench/hook_floor_stores.so"; do
    [ -e "$f" ] || {
        echo "hook_floor.sh: no $f: build the project first (cmake --build build)" >&2
        exit 1
    }
done
out=$build/hook-floor
mkdir -p "$out"
for f in "$build"/libshim.so*; do ln -sf "$f" "$out/"; done
driver=$(CFLAGS_EXTRA=-fno-omit-frame-pointer sh "$here/lua/build.sh" instrumented "$out" | tail -n 1)
workload=$here/lua/workload.lua
log=$out/times
: >"$log"

elapsed() { # NAME COMMAND...: one run's elapsed time, appended to the log as NAME SECONDS
    name=$1
    shift
    t=$("$@" 2>&1 | sed -n 's/.*elapsed: \([0-9.]*\) s.*/\1/p' | tail -n 1)
    [ -n "$t" ] || {
        echo "hook_floor.sh: $name gave no time" >&2
        exit 1
    }
    echo "$name $t" >>"$log"
}

i=0
while [ "$i" -lt "$rounds" ]; do
    i=$((i + 1))
    elapsed empty "$driver" "$workload" "$n"
    for floor in stores checked stack; do
        elapsed "$floor" env LD_PRELOAD="$build/bench/hook_floor_$floor.so" "$driver" "$workload" "$n"
    done
    for hooks in frames tree; do
        elapsed "shim-$hooks" env SHIM_HOOKS=$hooks "$build/shimrun" -p 1000000000000 \
            -o "$out/$hooks.json" -- "$driver" "$workload" "$n"
        elapsed "shim-$hooks-observed" env SHIM_HOOKS=$hooks "$build/shimrun" \
            -o "$out/$hooks.json" -- "$driver" "$workload" "$n"
    done
done

python3 - "$log" <<'EOF'
import collections, statistics, sys
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, t = line.split()
    times[name].append(float(t))
what = {
    "empty": "glibc's empty hooks",
    "stores": "two stores a hook (bench/hook_floor.c 1)",
    "checked": "the same, with a safe hook's tests (2)",
    "stack": "the same, with a stack of pairs (3)",
    "shim-frames": "libshim, SHIM_HOOKS=frames, observer barely reading",
    "shim-frames-observed": "libshim, SHIM_HOOKS=frames, default period",
    "shim-tree": "libshim, SHIM_HOOKS=tree, observer barely reading",
    "shim-tree-observed": "libshim, SHIM_HOOKS=tree, default period",
}
base = statistics.median(times["empty"])
print("hooks | median elapsed (s) | over the empty hooks")
for name in what:
    m = statistics.median(times[name])
    print("%s | %.3f | %.3fx" % (what[name], m, m / base))
EOF
