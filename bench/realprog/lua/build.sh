#!/bin/sh
# Build Lua 5.4, a real bytecode interpreter nobody wrote for shim and a call-dense
# program (every Lua call, table access and string operation goes through small C
# functions), and a driver that runs a fixed Lua workload with it, in one of the
# variants of bench/realprog/variants.sh, for bench/realprog/run.py --program lua.
#
#   bench/realprog/lua/build.sh VARIANT [BUILD_DIR]
#
# The sources are Debian's lua5.4 source package, fetched by `apt-get source` (with
# Debian's patches applied, as Debian builds it) into BUILD_DIR/realprog-lua/ (BUILD_DIR
# defaults to build/ at the top of the checkout) the first time, and kept there; nothing
# of Lua lives in this repository. The fetch uses a source list, package lists and a
# cache of its own under that directory, so the machine's apt configuration is neither
# needed nor changed: `deb-src http://deb.debian.org/debian CODENAME main`, CODENAME
# this system's (bookworm on Debian 12), the mirror LUA_DEBIAN_MIRROR where set. It
# needs network access and dpkg-source (dpkg-dev; installed through
# scripts/install-deps when missing and run as root). LUA_SOURCE names an unpacked Lua
# 5.4 source tree to use instead (one with src/lvm.c), fetched by other means.
#
# Each variant is built in BUILD_DIR/realprog-lua/VARIANT/: liblua.a, the interpreter's
# core and standard libraries (CORE_O and LIB_O of its src/Makefile) with Lua's own
# defines for Linux (-DLUA_COMPAT_5_3 -DLUA_USE_LINUX) and the variant's flags (all at
# the variant's level: Lua's Makefile builds its parser at -Os, which only loading a
# script runs), and VARIANT/driver, bench/realprog/lua/driver.c compiled with the same
# flags and linked with it (luaconf.h of Debian's tree includes a header its
# debian/rules writes, naming the multiarch triplet: written here into
# BUILD_DIR/realprog-lua/include). The driver runs bench/realprog/lua/workload.lua. The
# clang-plain variant is checked against plain: the same workload must give the same
# checksum, or one of the builds is wrong.
#
# The last line on stdout is the driver's path; on failure, one line on stderr says what
# failed and where its log is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
realprog=$(dirname "$here")
# shellcheck source=bench/realprog/variants.sh
. "$realprog/variants.sh" # variant, root and build, from the arguments
variant_setup "usage: bench/realprog/lua/build.sh plain|instrumented|clang-plain|clang-instrumented|pass-MODES [BUILD_DIR]"

debian_tree lua5.4 src/lvm.c "${LUA_SOURCE:-}" "${LUA_DEBIAN_MIRROR:-}" \
    "LUA_SOURCE names an unpacked tree"
src=$upstream/src
version=$(head -n 1 "$src/../debian/changelog" 2>/dev/null ||
    sed -n 's/^#define LUA_VERSION_RELEASE_N[[:space:]]*//p' "$src/lua.h")

sources=$(awk '/^(CORE_O|LIB_O)=/ { for (i = 2; i <= NF; i++) if ($i ~ /\.o$/) print $i }' \
    "$src/Makefile" | sed 's/\.o$/.c/')
[ -n "$sources" ] || fail "no CORE_O or LIB_O in $src/Makefile"

# Debian's luaconf.h (its patch 0002, the module paths) includes a header its
# debian/rules writes, naming the multiarch triplet; the same one is written here.
gen=$scratch/include
mkdir -p "$gen"
multiarch=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
printf '#ifndef _LUA_DEB_MULTIARCH_\n#define _LUA_DEB_MULTIARCH_\n#define DEB_HOST_MULTIARCH "%s"\n#endif\n' \
    "$multiarch" >"$gen/lua5.4-deb-multiarch.h"

variant_dir "$scratch/$variant" "$version"
# shellcheck disable=SC2046 # one word per source
variant_archive liblua.a "-std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I$gen" \
    $(for s in $sources; do echo "$src/$s"; done)
variant_link "$here/driver.c" "-std=gnu99 -I$src -I$gen" liblua.a -lm -ldl
if [ "$variant" = clang-plain ] && [ -x "$scratch/plain/driver" ]; then
    check_same "clang's Lua computes differently from plain's" \
        "$(checksum "$out/driver" "$here/workload.lua" 1)" \
        "$(checksum "$scratch/plain/driver" "$here/workload.lua" 1)"
fi
echo "$out/driver"
