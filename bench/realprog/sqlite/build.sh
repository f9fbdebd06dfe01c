#!/bin/sh
# Build SQLite 3, a real database engine nobody wrote for shim (SQL compiled to bytecode
# that its virtual machine runs, over B-trees, a page cache and a sorter), and a driver
# that runs a fixed SQL workload with it, in one of the variants of
# bench/realprog/variants.sh, for bench/realprog/run.py --program sqlite.
#
#   bench/realprog/sqlite/build.sh VARIANT [BUILD_DIR]
#
# The sources are Debian's sqlite3 source package, fetched by `apt-get source` into
# BUILD_DIR/realprog-sqlite/ (BUILD_DIR defaults to build/ at the top of the checkout) the
# first time, and kept there (debian_source in variants.sh: a source list, package lists
# and a cache of its own; the mirror SQLITE_DEBIAN_MIRROR where set); nothing of SQLite
# lives in this repository. SQLITE_SOURCE names an unpacked source tree of SQLite to use
# instead (one with src/vdbe.c), fetched by other means. From the tree, its own configure
# and make write the amalgamation, the one file sqlite3.c that SQLite is built from, once,
# into BUILD_DIR/realprog-sqlite/amalgamation/ (a script of the tree's in Tcl does it:
# tclsh, from Debian's tcl, installed through scripts/install-deps when missing and run
# as root).
#
# Each variant is built in BUILD_DIR/realprog-sqlite/VARIANT/: libsqlite.a, sqlite3.c
# with the variant's flags and -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION (one
# thread, no loadable extensions: no libpthread or libdl calls in the measured work),
# and VARIANT/driver, bench/realprog/sqlite/driver.c compiled with the same flags and
# linked with it. The clang-plain variant is checked against plain: the same workload
# must give the same checksum, or one of the builds is wrong.
#
# The last line on stdout is the driver's path; on failure, one line on stderr says what
# failed and where its log is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
realprog=$(dirname "$here")
# shellcheck source=bench/realprog/variants.sh
. "$realprog/variants.sh" # variant, root and build, from the arguments
variant_setup "usage: bench/realprog/sqlite/build.sh plain|instrumented|clang-plain|clang-instrumented|pass-MODES [BUILD_DIR]"

debian_tree sqlite3 src/vdbe.c "${SQLITE_SOURCE:-}" "${SQLITE_DEBIAN_MIRROR:-}" \
    "SQLITE_SOURCE names an unpacked tree"
version=$(head -n 1 "$upstream/debian/changelog" 2>/dev/null || cat "$upstream/VERSION")

# the amalgamation, written again when the tree is another
amal=$scratch/amalgamation
if [ ! -f "$amal/sqlite3.c" ] || [ "$(cat "$amal/.source" 2>/dev/null)" != "$upstream" ]; then
    if ! command -v tclsh >/dev/null; then
        "$root/scripts/install-deps" tcl >&2 || true
    fi
    command -v tclsh >/dev/null ||
        fail "no tclsh to write SQLite's amalgamation (as root: apt-get install tcl)"
    rm -rf "$amal"
    mkdir -p "$amal"
    (cd "$amal" && "$upstream/configure" --disable-tcl --disable-readline &&
        make sqlite3.c) >"$amal/amalgamation.log" 2>&1 ||
        fail "writing the amalgamation failed (log: $amal/amalgamation.log)"
    echo "$upstream" >"$amal/.source"
fi

defines="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I$amal"
variant_dir "$scratch/$variant" "$version"
variant_archive libsqlite.a "$defines" "$amal/sqlite3.c"
variant_link "$here/driver.c" "$defines" libsqlite.a -lm
if [ "$variant" = clang-plain ] && [ -x "$scratch/plain/driver" ]; then
    check_same "clang's SQLite computes differently from plain's" \
        "$(checksum "$out/driver" 1)" "$(checksum "$scratch/plain/driver" 1)"
fi
echo "$out/driver"
