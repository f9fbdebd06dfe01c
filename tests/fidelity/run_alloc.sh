#!/bin/sh
# Allocation fidelity: run alloc_phases (linked with jemalloc) under shim with the
# allocation signal required, and hold each phase's `alloc` rate against the
# bytes jemalloc counted for it (check_alloc.py). As for the planted phases
# (run_fidelity.sh), a failing run is run once more: a disturbed run seldom fails twice,
# a real fault always does.
# Usage: run_alloc.sh ALLOC_PHASES CHECK_ALLOC WORKDIR
#        run_alloc.sh --skip REASON   (prints "skipped: REASON", exits 77)
set -eu
if [ "$1" = --skip ]; then
    echo "skipped: $2"
    exit 77
fi
prog=$1 check=$2 dir=$3
mkdir -p "$dir"
failed=0 # a run that failed while the machine was not busy (busy.py)
for attempt in 1 2; do
    rm -f "$dir/profile.json" "$dir/truth.txt"
    SHIM_OUTPUT="$dir/profile.json" SHIM_STRICT=1 SHIM_ALLOC=on SHIM_PERIOD=1000 \
        "$prog" 1.5 "$dir/truth.txt"
    if python3 "$check" "$dir/profile.json" "$dir/truth.txt" --pct 5 --zero-pct 1; then
        exit 0
    fi
    python3 "$(dirname "$0")/busy.py" "$dir/profile.json" || failed=1
    [ "$attempt" -eq 1 ] && echo "run $attempt failed; running once more"
done
[ "$failed" -eq 1 ] && exit 1
echo "skipped: every failed run was while the machine was too busy (busy.py)"
exit 77 # every failed run was the machine's load: skipped
