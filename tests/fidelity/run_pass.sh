#!/bin/sh
# Compiler-pass fidelity: pass_phases.c built with clang and the pass plugin, run under
# shim; the shares of its loops and of its loop body's two paths must be within 2 points
# of the program's own TSC measurement (check_pass.py), at 10000 cycles, the default
# period of a pass-built program. The long path reads high by 0.8 points on average there
# (up to 1.9), more at shorter periods (docs/compiler-pass.md). As for the other fidelity
# tests, a failing run is run once more.
# Usage: run_pass.sh PLUGIN CLANG SOURCE_DIR LIBSHIM_DIR WORKDIR | --skip REASON
set -eu
if [ "$1" = --skip ]; then
    echo "skipped: $2"
    exit 0
fi
plugin=$1 clang=$2 src=$3 libdir=$4 dir=$5
mkdir -p "$dir"
cd "$dir"
"$clang" -O2 -g -fpass-plugin="$plugin" -I"$src/include" "$src/tests/fidelity/pass_phases.c" \
    -o pass_phases -L"$libdir" -lshim -Wl,-rpath,"$libdir"
for attempt in 1 2; do
    rm -f profile.json truth.txt
    SHIM_PERIOD=10000 SHIM_OUTPUT="$dir/profile.json" SHIM_STRICT=1 ./pass_phases truth.txt 800
    if python3 "$src/tests/fidelity/check_pass.py" profile.json truth.txt \
        "$src/tests/fidelity/pass_phases.c" 2 2; then
        exit 0
    fi
    [ "$attempt" -eq 1 ] && echo "run $attempt failed; running once more"
done
exit 1
