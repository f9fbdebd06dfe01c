#!/bin/sh
# Run the planted-phase example under shim with the given SHIM_* settings, then hold its
# profile against the truth it measured.  Usage:
#   run_fidelity.sh PHASES CHECKER WORKDIR "SHIM_VAR=... ..." [checker limits...]
set -eu
phases=$1 checker=$2 dir=$3 settings=$4
shift 4
mkdir -p "$dir"
rm -f "$dir/profile.json" "$dir/truth.txt"
# shellcheck disable=SC2086
env $settings SHIM_OUTPUT="$dir/profile.json" SHIM_STRICT=1 \
    "$phases" --seconds 1.5 --truth "$dir/truth.txt"
"$checker" "$dir/profile.json" "$dir/truth.txt" "$@"
