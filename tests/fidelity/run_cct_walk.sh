#!/bin/sh
# Calling contexts from the compiler pass's frame signal and the observer's stack walks:
#   1. cct_phases.c built with the pass (SHIM_PASS=method,loop,context): each planted
#      context's share within 2 points of the program's own TSC measurement, as the
#      hooks' run (run_cct.sh) must do, read by the same check_cct.py; and against the
#      same program built with -finstrument-functions (tests/cct_phases), each context's
#      share within 2 points of the hooks' (beyond what the two truths differ by);
#      shimview's functions, contexts, tree, folded and pprof of that profile read back
#      (tests/shimview/check_cct.py); the same program built with the pass's defaults (no
#      SHIM_PASS: functions, loops and contexts, no paths) gives contexts from stack walks
#      at the default period;
#   2. many_contexts.c built the same way: at least 100,000 distinct contexts kept, none
#      in `other` (check_contexts.py);
#   3. walk_threads.c: 800 threads that exit while their stacks are walked; the run ends
#      normally and the workers' contexts are in the profile (with BPF thread identity,
#      which with_tracefs.sh gives where it can; without it, only the thread on the
#      observed CPU is walked, and the run must still end normally);
#   4. mixed_phases.c built with the pass calling mixed_hooked.c built with
#      -finstrument-functions: each function's share within 2 points of the program's
#      own measurement; with SHIM_PASS=method,loop, no sample pairs a function with
#      another's context (the pass stores its function in the loop word only, the hooks
#      clear that word); with method,loop,context, the hooks' function is kept where the
#      walk finds no frame.
#   5. short_calls.c (functions of a few dozen to a few hundred cycles, called millions
#      of times a second) built with frame pointers and SHIM_PASS=method,loop, and again
#      with method,loop,context, at the default period: each function's share of the
#      samples the same within 2 points (check_same_functions.py): the walk, a cache miss
#      or two long, must not give a function's samples to its caller.
# A part whose two runs both failed while the machine was too busy for them to say
# anything about shim (busy.py: the observer or the program lost over a tenth of its CPU
# to another process) is skipped, and with it the test (77), unless another part failed.
# Usage: run_cct_walk.sh PLUGIN CLANG SOURCE_DIR LIBSHIM_DIR WORKDIR | --skip REASON
set -eu
if [ "$1" = --skip ]; then
    echo "skipped: $2"
    exit 77
fi
plugin=$1 clang=$2 src=$3 libdir=$4 dir=$5
mkdir -p "$dir"
cd "$dir"
build() { # SOURCE OUTPUT [flags]: SHIM_PASS=method,loop,context
    SHIM_PASS=method,loop,context build_as "$@"
}
build_as() { # SOURCE OUTPUT [flags]: the pass as SHIM_PASS says
    s=$1 o=$2
    shift 2
    "$clang" -O2 -g -fpass-plugin="$plugin" -I"$src/include" \
        "$src/tests/fidelity/$s" -o "$o" "$@" -L"$libdir" -lshim -Wl,-rpath,"$libdir"
}
build cct_phases.c cct_walk
(unset SHIM_PASS && build_as cct_phases.c cct_default)
build many_contexts.c many_walk
build walk_threads.c walk_threads -pthread
"$clang" -O2 -g -finstrument-functions -c "$src/tests/fidelity/mixed_hooked.c" -o mixed_hooked.o
for mode in method,loop method,loop,context; do
    SHIM_PASS=$mode "$clang" -O2 -g -fpass-plugin="$plugin" -I"$src/include" \
        "$src/tests/fidelity/mixed_phases.c" mixed_hooked.o -o "mixed_phases_$mode" \
        -L"$libdir" -lshim -Wl,-rpath,"$libdir"
    SHIM_PASS=$mode "$clang" -O2 -g -fno-omit-frame-pointer -fpass-plugin="$plugin" \
        -I"$src/include" "$src/tests/fidelity/short_calls.c" -o "short_calls_$mode" \
        -L"$libdir" -lshim -Wl,-rpath,"$libdir"
done

skipped= # the parts whose failed runs were the machine's load's (busy.py)
busy() { # PROFILE [TRUTH]: 0 (and a line saying so) where the machine was too busy
    python3 "$src/tests/fidelity/busy.py" "$@"
}
# failed NAME REAL: after a part's two runs failed; REAL 1 where a run failed on its own
failed() {
    [ "$2" -eq 1 ] && return 1
    skipped="$skipped $1"
    return 0
}

# twice NAME PROFILE TRUTH PROGRAM SECONDS CHECK [CHECK_ARGS...]: PROGRAM run at 2500
# cycles (the shares are held to 2 points here, not the sampling cost) and
# its profile checked by CHECK PROFILE TRUTH --pp 2 CHECK_ARGS, once more if that fails
twice() {
    name=$1 profile=$2 truth=$3 program=$4 seconds=$5 check=$6 real=0
    shift 6
    for attempt in 1 2; do
        rm -f "$profile" "$truth"
        SHIM_PERIOD=2500 SHIM_OUTPUT="$dir/$profile" SHIM_STRICT=1 "$program" "$seconds" "$truth"
        python3 "$src/tests/fidelity/$check" "$profile" "$truth" --pp 2 "$@" && return 0
        busy "$profile" "$truth" || real=1
        [ "$attempt" -eq 1 ] && echo "$name: run $attempt failed; running once more"
    done
    failed "$name" "$real"
}

twice walks profile.json truth.txt ./cct_walk 1.5 check_cct.py
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cct"]; assert c["source"] == "stack walk", c["source"]; print("ok: contexts from stack walks:", c["walk"])' profile.json
# the same program built with -finstrument-functions (the hooks' contexts), its shares
# against the walks': each context's difference within 2 points of the truths' difference
hooks=$libdir/tests/cct_phases
if [ -x "$hooks" ]; then
    case " $skipped " in
    *" walks "*) echo "skipped: the hooks' comparison: the walks' own runs were the machine's load's" ;;
    *) twice hooks hooks.json hooks_truth.txt "$hooks" 1.5 check_cct.py --vs profile.json truth.txt ;;
    esac
else
    echo "skipped: the hooks' comparison: no $hooks"
fi
# shimview's calling-context views of the walks' profile, each read back against the
# profile by the checker of shimview's own tests
views() { # PROFILE NAME
    sv=$libdir/shimview/shimview check="$src/tests/shimview/check_cct.py"
    if [ ! -x "$sv" ]; then
        echo "skipped: shimview's views of $2: no $sv"
        return 0
    fi
    "$sv" functions --csv "$1" >"$2.functions.csv"
    "$sv" contexts --csv "$1" >"$2.contexts.csv"
    LC_ALL=C.UTF-8 "$sv" tree "$1" >"$2.tree.txt"
    "$sv" export --format folded "$1" >"$2.folded"
    "$sv" export --format pprof -o "$2.pb.gz" "$1"
    {
        python3 "$check" functions "$1" "$2.functions.csv"
        python3 "$check" contexts "$1" "$2.contexts.csv"
        python3 "$check" tree "$1" "$2.tree.txt" utf8 0.5
        python3 "$check" folded "$1" "$2.folded"
        python3 "$check" pprof "$1" "$2.pb.gz" "$src/shimview/export/pprof.proto"
    } >"$2.views.out" 2>&1 || echo "FAIL: check_cct.py failed" >>"$2.views.out"
    if grep -v '^ok' "$2.views.out"; then
        echo "FAIL: shimview's views of $2"
        exit 1
    fi
    echo "ok: shimview's views of $2: $(grep -c '^ok' "$2.views.out") checks (functions, contexts, tree, folded, pprof)"
}
views profile.json walks

# nobody chose a period or the signals: the pass's defaults (no paths) give contexts from
# stack walks, and the program writes the pass's signals, so the longer default period
real=0
for attempt in 1 2; do
    rm -f default.json
    SHIM_OUTPUT="$dir/default.json" SHIM_STRICT=1 ./cct_default 0.5 default_truth.txt 2>default.err
    cat default.err >&2
    python3 "$src/tests/fidelity/check_cct.py" default.json default_truth.txt --pp 5 && break
    busy default.json default_truth.txt || real=1
    if [ "$attempt" -eq 2 ]; then
        failed default "$real"
        break
    fi
    echo "default: run $attempt failed; running once more"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["config"]; assert (c["period"], c["period_from"]) == (40000, "default for automatic signals"), c; print("ok: period", c["period"], c["period_from"]); assert d["cct"]["source"] == "stack walk", d["cct"]["source"]; print("ok: the pass at its defaults: contexts from stack walks,", d["cct"]["walk"]); assert "paths" not in d, d["paths"]; print("ok: and no paths")' default.json
views default.json default
# the line at exit says why the period is not the one of the docs' first pages
if grep -q "median period [0-9]* cycles (the default for compiler-made signals: SHIM_PERIOD" default.err; then
    echo "ok: the line at exit names the default for compiler-made signals"
else
    echo "FAIL: the line at exit does not say the period is the default for compiler-made signals: $(head -n 1 default.err)"
    exit 1
fi

rm -f many.json
SHIM_PERIOD=1000 SHIM_OUTPUT=many.json SHIM_STRICT=1 ./many_walk 4
python3 "$src/tests/fidelity/check_contexts.py" many.json 100000

rm -f threads.json
SHIM_OUTPUT=threads.json SHIM_STRICT=1 sh "$src/tests/with_tracefs.sh" ./walk_threads 200
python3 - threads.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
src = d["placement"]["thread_identity"]["source"]
names = {f["id"]: f["name"] for f in d["functions"]}
slot = [t["slot"] for t in d["signals"]["tags"]].index(9)
workers = set()
for th in d["cct"]["threads"]:
    for i, (parent, fn, site) in enumerate(th["nodes"]):
        if names.get(fn) == "spin_at":
            workers.add(th["tid"])
print("thread identity:", src, "| threads with a spin_at context:", len(workers))
if src == "bpf" and len(workers) < 10:
    print("FAIL: with BPF thread identity, fewer than 10 workers have spin_at contexts")
    sys.exit(1)
print("ok: the run ended normally")
PY

# code built with the pass calling code built with the hooks
twice mixed mixed.json mixed_truth.txt ./mixed_phases_method,loop 1 check_functions.py
twice mixed_walk mixed_walk.json mixed_walk_truth.txt ./mixed_phases_method,loop,context 1 \
    check_functions.py

# short functions: the same shares with and without the walk, at the default period
real=0
for attempt in 1 2; do
    rm -f short.json short_walk.json short_lost.txt short_walk_lost.txt
    SHIM_OUTPUT="$dir/short.json" SHIM_STRICT=1 ./short_calls_method,loop 1 short_lost.txt
    SHIM_OUTPUT="$dir/short_walk.json" SHIM_STRICT=1 ./short_calls_method,loop,context 1 \
        short_walk_lost.txt
    python3 "$src/tests/fidelity/check_same_functions.py" short.json short_walk.json --pp 2 &&
        break
    { busy short.json short_lost.txt || busy short_walk.json short_walk_lost.txt; } || real=1
    if [ "$attempt" -eq 2 ]; then
        failed "short calls" "$real"
        break
    fi
    echo "short calls: run $attempt failed; running once more"
done
if [ -n "$skipped" ]; then
    echo "skipped: the machine was too busy for the runs of:$skipped (the other parts passed or said why not)"
    exit 77
fi
