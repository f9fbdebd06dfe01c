#!/bin/sh
# Build TinyCC, a real C compiler nobody wrote for shim (a one-pass compiler: its
# preprocessor's tokenizer and macro expansion, parser and x86-64 code generator run
# token by token through small functions), and a driver that compiles a fixed piece of C
# with it in memory, in one of the variants of bench/realprog/variants.sh, for
# bench/realprog/run.py --program tcc.
#
#   bench/realprog/tcc/build.sh VARIANT [BUILD_DIR]
#
# The sources are Debian's tcc source package, fetched as Lua's are (variants.sh,
# debian_source) into BUILD_DIR/realprog-tcc/fetch/ the first time (TCC_SOURCE names an
# unpacked tree instead, one with libtcc.c; TCC_DEBIAN_MIRROR another mirror); nothing of
# TinyCC lives in this repository. Its own configure writes config.h once into
# BUILD_DIR/realprog-tcc/config/. Each variant is built in BUILD_DIR/realprog-tcc/VARIANT/:
# libtcc.a, the compiler as TinyCC builds itself by default (one translation unit,
# bench/realprog/tcc/unit.c including libtcc.c), with the variant's flags, and
# VARIANT/driver, bench/realprog/tcc/driver.c compiled with the same flags and linked
# with it. The clang-plain variant is checked against plain: the same compiles must give
# the same checksum.
#
# The last line on stdout is the driver's path; on failure, one line on stderr says what
# failed and where its log is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
realprog=$(dirname "$here")
# shellcheck source=bench/realprog/variants.sh
. "$realprog/variants.sh" # variant, root and build, from the arguments
variant_setup "usage: bench/realprog/tcc/build.sh plain|instrumented|clang-plain|clang-instrumented|pass-MODES [BUILD_DIR]"

debian_tree tcc libtcc.c "${TCC_SOURCE:-}" "${TCC_DEBIAN_MIRROR:-}" \
    "TCC_SOURCE names an unpacked tree"
version=$(head -n 1 "$upstream/debian/changelog" 2>/dev/null || cat "$upstream/VERSION")

# config.h, written again when the tree is another
conf=$scratch/config
if [ ! -f "$conf/config.h" ] || [ "$(cat "$conf/.source" 2>/dev/null)" != "$upstream" ]; then
    rm -rf "$conf"
    mkdir -p "$conf"
    (cd "$conf" && sh "$upstream/configure") >"$conf/configure.log" 2>&1 ||
        fail "TinyCC's configure failed (log: $conf/configure.log)"
    echo "$upstream" >"$conf/.source"
fi

variant_dir "$scratch/$variant" "$version"
variant_archive libtcc.a "-I$upstream -I$conf -I$here" "$here/unit.c"
variant_link "$here/driver.c" "-I$upstream -I$here" libtcc.a -lm -ldl -lpthread
if [ "$variant" = clang-plain ] && [ -x "$scratch/plain/driver" ]; then
    check_same "clang's TinyCC compiles differently from plain's" \
        "$(checksum "$out/driver" 3)" "$(checksum "$scratch/plain/driver" 3)"
fi
echo "$out/driver"
