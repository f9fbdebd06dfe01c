#!/bin/sh
# Calling-context fidelity: run cct_phases under shim and hold each context's share of
# the time against the program's own TSC measurement (check_cct.py). As for the planted
# phases (run_fidelity.sh), a failing run is run once more: a disturbed run seldom fails
# twice, a real fault always does. A failed run while the machine was too busy to say
# anything about shim (busy.py) does not count: the test is skipped (77) when no run
# failed on its own.
# With --source S, the profile's calling contexts must also come from S (cct.source:
# "hooks" or "stack walk"; a source that says both counts).
# After `--`, the checker's own options instead of its default `--pp 2`.
# Usage: run_cct.sh CCT_PHASES CHECK_CCT WORKDIR [--source S] [-- CHECK_OPTIONS...]
set -eu
prog=$1 check=$2 dir=$3 source=
shift 3
if [ "${1:-}" = --source ]; then source=$2; shift 2; fi
if [ "${1:-}" = -- ]; then shift; else set -- --pp 2; fi
mkdir -p "$dir"
failed=0
for attempt in 1 2; do
    rm -f "$dir/profile.json" "$dir/truth.txt"
    SHIM_OUTPUT="$dir/profile.json" SHIM_STRICT=1 "$prog" 1.5 "$dir/truth.txt"
    if python3 "$check" "$dir/profile.json" "$dir/truth.txt" "$@"; then
        [ -z "$source" ] && exit 0
        python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["cct"].get("source", "hooks"); print("contexts from:", s); sys.exit(sys.argv[2] not in s)' "$dir/profile.json" "$source"
        exit $?
    fi
    python3 "$(dirname "$0")/busy.py" "$dir/profile.json" "$dir/truth.txt" || failed=1
    [ "$attempt" -eq 1 ] && echo "run $attempt failed; running once more"
done
[ "$failed" -eq 1 ] && exit 1
echo "skipped: every failed run was while the machine was too busy (busy.py)"
exit 77
