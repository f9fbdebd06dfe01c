#!/bin/sh
# `cmake --install` gives a prefix from which a user builds a program two ways --
# pkg-config and find_package(shim) -- runs it, and reads its profile with the
# installed shimview.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR WORKDIR
set -u
build=$1 src=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir"
prefix=$dir/prefix
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

cmake --install "$build" --prefix "$prefix" >"$dir/install.log" 2>&1
expect "cmake --install succeeds" test $? -eq 0
expect "header installed" test -f "$prefix/include/shim.h"
expect "shimview installed" test -x "$prefix/bin/shimview"
pc=$(find "$prefix" -name shim.pc | head -1)
expect "shim.pc installed" test -n "$pc"
expect "CMake package installed" sh -c "find '$prefix' -name shimConfig.cmake | grep -q ."

# pkg-config, exactly as the README shows
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
cd "$dir" || exit 1
cc -O2 "$src/examples/phases.c" $(pkg-config --cflags --libs shim) -o phases-pc
expect "builds with pkg-config" test -x phases-pc
SHIM_QUIET=1 ./phases-pc --seconds 0.2 >run-pc.txt 2>&1
expect "pkg-config build runs (rpath finds libshim)" test $? -eq 0
prof=$(ls shim-phases-pc-*.json 2>/dev/null | head -1)
expect "default profile name shim-<prog>-<pid>.json" test -n "$prof"
"$prefix/bin/shimview" report "$prof" >report.txt 2>&1
expect "installed shimview reports it" grep -q eval report.txt

# find_package(shim)
mkdir -p cm && cat >cm/CMakeLists.txt <<EOC
cmake_minimum_required(VERSION 3.25)
project(user C)
find_package(shim 0.1 REQUIRED)
add_executable(phases $src/examples/phases.c)
target_link_libraries(phases PRIVATE shim::shim)
EOC
cmake -S cm -B cm/build -DCMAKE_PREFIX_PATH="$prefix" >cm.log 2>&1 && cmake --build cm/build >>cm.log 2>&1
expect "builds with find_package(shim)" test -x cm/build/phases
(cd cm/build && SHIM_QUIET=1 LD_LIBRARY_PATH="$prefix/lib" ./phases --seconds 0.1 >/dev/null 2>&1)
expect "find_package build runs" test $? -eq 0

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
