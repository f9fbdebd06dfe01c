#!/bin/sh
# Thread fidelity: two threads time-share the observed CPU, each in phases of its own
# (thread_phases.c); each (thread, phase)'s share of their running time must be within
# 2 points of what the thread measured itself (check_threads.py). Telling the two apart
# needs the thread word from BPF: where it cannot be loaded, the test says why and is
# skipped. As for the other fidelity tests, a failing run is run once more.
# Usage: run_threads.sh THREAD_PHASES CHECK_THREADS WORKDIR
set -eu
prog=$1 check=$2 dir=$3
mkdir -p "$dir"
failed=0 # a run that failed while the machine was not busy (busy.py)
for attempt in 1 2; do
    rm -f "$dir/profile.json" "$dir/truth.txt"
    SHIM_OUTPUT="$dir/profile.json" "$prog" "$dir/truth.txt" 1.0
    source=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['placement']['thread_identity']; print(p['source'], p['why'] or '')" "$dir/profile.json")
    case $source in
    bpf*) ;;
    *)
        echo "skipped: no thread identity from BPF here (${source#pinned })"
        exit 0
        ;;
    esac
    if python3 "$check" "$dir/profile.json" "$dir/truth.txt" 2; then
        exit 0
    fi
    python3 "$(dirname "$0")/busy.py" "$dir/profile.json" || failed=1
    [ "$attempt" -eq 1 ] && echo "run $attempt failed; running once more"
done
[ "$failed" -eq 1 ] && exit 1
echo "skipped: every failed run was while the machine was too busy (busy.py)"
exit 77 # every failed run was the machine's load: skipped
