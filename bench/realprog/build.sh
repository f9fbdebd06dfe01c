#!/bin/sh
# Build libxcrypt, a real call-heavy C library nobody wrote for shim, and a small driver
# that hashes with it, in one of several variants, for bench/realprog/run.py.
#
#   bench/realprog/build.sh VARIANT [BUILD_DIR]
#
# The sources come from Debian's libxcrypt-source (/usr/src/libxcrypt; installed here
# through scripts/install-deps when missing and run as root); nothing of libxcrypt lives
# in this repository. They are copied into BUILD_DIR/realprog/src (BUILD_DIR defaults
# to build/ at the top of the checkout) and each variant is built in
# BUILD_DIR/realprog/VARIANT/: the static library with every hash method, and
# VARIANT/driver, bench/realprog/driver.c compiled with the library's flags and linked
# with it. The variants (plain, instrumented, clang-plain, clang-instrumented and
# pass-MODES for the compiler pass), their compilers and flags, and CC, CFLAGS_EXTRA and
# SHIM_PASS_PLUGIN are bench/realprog/variants.sh's, shared with the other programs.
# The clang-plain variant is checked like plain, and against plain's driver where that
# is built. A variant starts afresh when its compiler, flags, SHIM_PASS or plugin (path
# and content) change, and is otherwise rebuilt only where something is missing.
# LIBXCRYPT_SOURCE names another copy of the package's tree (default /usr/src/libxcrypt).
#
# Why not libxcrypt's own autotools build: Debian's libxcrypt-source leaves out
# build-aux/ (its packaging drops every path starting with "build-"), so neither
# autoreconf nor configure can run from it. What they would produce for a static
# library on glibc is small and fixed, and is written here instead: config.h (what
# configure finds on glibc/Linux), crypt.h from lib/crypt.h.in, crypt-hashes.h (the
# method table, every method of lib/hashes.conf enabled) and crypt-symbol-vers.h (no
# symbol versions: a static library has none), all generated from the package's own
# files; the list of sources is libcrypt_la_SOURCES in its Makefile.am. The plain
# and clang-plain variants check the result: their driver must print the same checksum
# as the same driver linked with Debian's libcrypt, where libcrypt-dev is installed.
#
# The last line on stdout is the driver's path; on failure, one line on stderr says what
# failed and where its log is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
upstream=${LIBXCRYPT_SOURCE:-/usr/src/libxcrypt}

realprog=$here
# shellcheck source=bench/realprog/variants.sh
. "$here/variants.sh" # variant, root and build, from the arguments
variant_setup "usage: bench/realprog/build.sh plain|instrumented|clang-plain|clang-instrumented|pass-MODES [BUILD_DIR]"

if [ ! -f "$upstream/lib/crypt.c" ] && [ -z "${LIBXCRYPT_SOURCE:-}" ]; then
    "$root/scripts/install-deps" libxcrypt-source >&2 || true
fi
if [ ! -f "$upstream/lib/crypt.c" ]; then
    echo "build.sh: no libxcrypt sources in $upstream (as root: apt-get install libxcrypt-source)" >&2
    exit 1
fi

scratch=$build/realprog
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)

# config.h: what libxcrypt's configure finds on glibc/Linux, for a static library
# without the obsolete DES API. Byte order comes from the compiler.
write_config_h() {
    pv=$(sed -n '/^AC_INIT/,/)/p' "$src/configure.ac" |
        sed -n 's/^[[:space:]]*\[\([0-9][0-9.]*\)\],*[[:space:]]*$/\1/p')
    [ -n "$pv" ] || fail "no version in $src/configure.ac's AC_INIT"
    cat <<EOF
/* Written by bench/realprog/build.sh for glibc/Linux. */
#define PACKAGE_VERSION "$pv"
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_PARAM_H 1
#define HAVE_SYS_CDEFS_H 1
#define HAVE_SYS_CDEFS_BEGIN_END_DECLS 1
#define HAVE_SYS_CDEFS_THROW 1
#define HAVE_SYS_RANDOM_H 1
#define HAVE_SYS_SYSCALL_H 1
#define HAVE_UNISTD_H 1
#define HAVE_FCNTL_H 1
#define HAVE_ENDIAN_H 1
#define HAVE_MAX_ALIGN_T 1
#define alignas(n) _Alignas(n)
#define alignof(t) _Alignof(t)
#define HAVE_STATIC_ASSERT_IN_ASSERT_H 1
#define HAVE_EXPLICIT_BZERO 1
#define HAVE_GETENTROPY 1
#define HAVE_GETRANDOM 1
#define HAVE_SYSCALL 1
#define ENDIANNESS_IS_BIG (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define ENDIANNESS_IS_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define ENDIANNESS_IS_PDP 0
#define ENABLE_FAILURE_TOKENS 1
#define ENABLE_OBSOLETE_API 0
#define ENABLE_OBSOLETE_API_ENOSYS 0
EOF
}

# crypt.h from lib/crypt.h.in: the declarations wrapped as <sys/cdefs.h> does, the
# version, and a default prefix (yescrypt is enabled).
write_crypt_h() {
    v=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$gen/config.h")
    awk -v v="$v" '{
        split(v, n, ".")
        gsub(/@BEGIN_DECLS@/, "#include <sys/cdefs.h>\n\n__BEGIN_DECLS")
        gsub(/@END_DECLS@/, "__END_DECLS")
        gsub(/@DEFAULT_PREFIX_ENABLED@/, "1")
        gsub(/@XCRYPT_VERSION_MAJOR@/, n[1])
        gsub(/@XCRYPT_VERSION_MINOR@/, n[2])
        gsub(/@XCRYPT_VERSION_STR@/, v)
        print
    }' "$src/lib/crypt.h.in"
}

# crypt-hashes.h from lib/hashes.conf, every method enabled: INCLUDE_ switches, the
# _crypt_ names of the entry points, their prototypes, and the table crypt() searches,
# longest prefix first so that the empty prefixes (DES) come last.
write_crypt_hashes_h() {
    conf=$src/lib/hashes.conf
    echo "/* Written by bench/realprog/build.sh from lib/hashes.conf. */"
    awk '!/^#/ && NF >= 4 { print "#define INCLUDE_" $1 " 1" }' "$conf"
    awk '!/^#/ && NF >= 4 {
        print "#define crypt_" $1 "_rn _crypt_crypt_" $1 "_rn"
        print "#define gensalt_" $1 "_rn _crypt_gensalt_" $1 "_rn"
        print "extern void crypt_" $1 "_rn (const char *, size_t, const char *, size_t, uint8_t *, size_t, void *, size_t);"
        print "extern void gensalt_" $1 "_rn (unsigned long, const uint8_t *, size_t, uint8_t *, size_t);"
    }' "$conf"
    echo "#define HASH_ALGORITHM_TABLE_ENTRIES \\"
    awk '!/^#/ && NF >= 4 {
        p = $2 == ":" ? "" : $2
        printf "%d\t%s\t  { \"%s\", %d, crypt_%s_rn, gensalt_%s_rn, %d, %d }, \\\n",
            length(p), p, p, length(p), $1, $1, $3, ("," $4 ",") ~ /,STRONG,/
    }' "$conf" | sort -s -t "$(printf '\t')" -k1,1nr -k2,2 | cut -f3-
    echo "  { 0, 0, 0, 0, 0, 0 }"
    awk '!/^#/ && NF >= 4 && ("," $4 ",") ~ /,DEFAULT,/ && !done {
        print "#define HASH_ALGORITHM_DEFAULT \"" $2 "\""; done = 1
    }' "$conf"
}

# crypt-symbol-vers.h from lib/libcrypt.map.in: a static library carries no symbol
# versions and none of the compatibility-only symbols (first version "-").
write_crypt_symbol_vers_h() {
    echo "/* Written by bench/realprog/build.sh from lib/libcrypt.map.in. */"
    awk '!/^[#%]/ && NF >= 2 {
        print "#define INCLUDE_" $1 " " ($2 == "-" ? 0 : 1)
        print "#define SYMVER_" $1 " symver_nop()"
    }' "$src/lib/libcrypt.map.in"
}

# One copy of the sources and generated headers for every variant, refreshed (and every
# variant rebuilt) when the package's version changes.
version=$(head -n 1 "$upstream/debian/changelog" 2>/dev/null || echo unknown)
src=$scratch/src
gen=$scratch/include
if [ "$(cat "$scratch/.source" 2>/dev/null)" != "$version" ]; then
    rm -rf "$scratch/src" "$scratch/include" "$scratch/plain" "$scratch/instrumented" \
        "$scratch/clang-plain" "$scratch/clang-instrumented" "$scratch"/pass-* \
        "$scratch/.source"
    cp -R "$upstream" "$src"
    mkdir -p "$gen"
    write_config_h >"$gen/config.h"
    write_crypt_h >"$gen/crypt.h"
    write_crypt_hashes_h >"$gen/crypt-hashes.h"
    write_crypt_symbol_vers_h >"$gen/crypt-symbol-vers.h"
    if grep -q '@[A-Z0-9_]*@' "$gen/crypt.h"; then
        fail "lib/crypt.h.in has substitutions this script does not know: $(grep -o '@[A-Z0-9_]*@' "$gen/crypt.h" | sort -u | tr '\n' ' ')"
    fi
    echo "$version" >"$scratch/.source"
fi

sources=$(awk '/^libcrypt_la_SOURCES = / { on = 1 }
    on { for (i = 1; i <= NF; i++) if ($i ~ /\.c$/) print $i; if ($NF != "\\") on = 0 }' \
    "$src/Makefile.am")
[ -n "$sources" ] || fail "no libcrypt_la_SOURCES in $src/Makefile.am"

variant_dir "$scratch/$variant" "$version"
# shellcheck disable=SC2046 # one word per source
variant_archive libcrypt.a "-DHAVE_CONFIG_H -DIN_LIBCRYPT -I$gen -I$src/lib" \
    $(for s in $sources; do echo "$src/$s"; done)
variant_link "$here/driver.c" "-I$gen" libcrypt.a
case $variant in
plain | clang-plain)
    # The hand-made build against Debian's own, and clang's against plain's: the same
    # hashes, or the build is wrong (and the pass's baseline would do other work).
    ours=$(checksum "$out/driver" 2)
    if [ -f /usr/include/crypt.h ]; then
        "$cc" -O2 -o "$out/driver-debian" "$here/driver.c" -lcrypt >>"$log" 2>&1 ||
            fail "linking the driver with Debian's libcrypt failed (log: $log)"
        check_same "libcrypt.a hashes differently from Debian's libcrypt" \
            "$ours" "$(checksum "$out/driver-debian" 2)"
    fi
    if [ "$variant" = clang-plain ] && [ -x "$scratch/plain/driver" ]; then
        check_same "clang's libcrypt.a hashes differently from plain's" \
            "$ours" "$(checksum "$scratch/plain/driver" 2)"
    fi ;;
esac
echo "$out/driver"
