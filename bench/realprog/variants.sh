# variants.sh -- what every real program of bench/realprog is built with: the variants,
# their compilers and flags, and the steps their build scripts share (bench/realprog/
# build.sh for libxcrypt, bench/realprog/lua/build.sh for Lua,
# bench/realprog/sqlite/build.sh for SQLite). Sourced, not run, by a script called as
# `build.sh VARIANT [BUILD_DIR]`: the script sets realprog (this directory) first; sourcing
# sets variant, root (the checkout) and build (BUILD_DIR, default build/ there) from its
# arguments; the script then calls variant_setup, and the helpers below as it needs them. One place for the variants,
# so that a new one (a new mode of the compiler pass) is added to every program at once.
# shellcheck shell=sh disable=SC2154 # variant, realprog, build: the program script's
#
#   plain               cc -O2
#   instrumented        cc -O2 -finstrument-functions; the hooks stay undefined in the
#                       program and resolve at run time: to glibc's empty
#                       __cyg_profile_func_enter/exit when it runs alone, to libshim's
#                       when it runs under shimrun (which preloads libshim).
#                       variant_link builds count_calls.so beside it: hooks that
#                       only count function entries (LD_PRELOAD it; it prints the count
#                       at exit).
#   clang-plain         the pass's clang -O2: the baseline of the clang variants, the same
#                       compiler without hooks or the pass
#   clang-instrumented  clang -O2 -finstrument-functions-after-inlining: hooks like
#                       instrumented's, but only in the functions left after inlining
#   pass-MODES          clang -O2 -fpass-plugin=PLUGIN, with SHIM_PASS exported for the
#                       compiler: MODES with each '-' read as ',' (pass-method-loop is
#                       SHIM_PASS=method,loop: the method (slot 8) and loop (slot 10)
#                       signals; pass-method-loop-path adds the Ball-Larus path ring).
#                       Any mode the plugin knows can be named. The pass's code reads
#                       libshim's thread-local pointers, so variant_link links the
#                       program with -L BUILD_DIR -lshim and an rpath there; run alone,
#                       its stores go to libshim's dummy block and ring.
#
# PLUGIN is SHIM_PASS_PLUGIN, default BUILD_DIR/signals/pass/shim-pass.so, which the
# project builds where clang/LLVM 14 to 19 are installed. CC overrides the compiler of
# every variant (default cc; for the clang variants the clang the plugin was built for,
# which BUILD_DIR/shim.pc names as passclang, else clang: they must be of the plugin's
# version, which runs inside it); CFLAGS_EXTRA is appended to every variant's flags.

variant=${1:-}
root=$(cd "$realprog/../.." && pwd)
build=${2:-$root/build}

fail() {
    echo "build.sh: $variant: $*" >&2
    exit 1
}

# variant_setup USAGE: cc, flags and (pass variants) plugin and SHIM_PASS for $variant,
# or USAGE on stderr and exit 2 for a name that is not a variant.
variant_setup() {
    # The clang the plugin was built for: its LLVM is the one the plugin links against.
    passclang=$(pkg-config --variable=passclang "$build/shim.pc" 2>/dev/null || true)
    passclang=${passclang:-clang}
    passmajor=$("$passclang" --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\)\..*/\1/p' | head -1)
    plugin=
    case $variant in
    plain) cc=${CC:-cc} flags="-O2" ;;
    instrumented) cc=${CC:-cc} flags="-O2 -finstrument-functions" ;;
    clang-plain) cc=${CC:-$passclang} flags="-O2" ;;
    clang-instrumented) cc=${CC:-$passclang} flags="-O2 -finstrument-functions-after-inlining" ;;
    pass-?*)
        plugin=${SHIM_PASS_PLUGIN:-$build/signals/pass/shim-pass.so}
        if [ ! -f "$plugin" ]; then
            fail "no compiler pass plugin at $plugin (the project builds it where clang/LLVM 14 to 19 are installed; SHIM_PASS_PLUGIN names another)"
        fi
        plugin=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")
        SHIM_PASS=$(echo "${variant#pass-}" | tr - ,)
        export SHIM_PASS
        cc=${CC:-$passclang} flags="-O2 -fpass-plugin=$plugin" ;;
    *)
        echo "$1" >&2
        exit 2 ;;
    esac
    case $variant in
    clang-* | pass-*)
        "$cc" --version 2>/dev/null | grep -q "clang version ${passmajor:-none}\." ||
            fail "needs clang ${passmajor:-(none found)} (the compiler pass's LLVM); $cc is not" ;;
    esac
    flags="$flags${CFLAGS_EXTRA:+ $CFLAGS_EXTRA}"
    jobs=$(nproc 2>/dev/null || echo 2)
}

# variant_dir DIR SOURCE_VERSION: DIR becomes the variant's output (out, with its log
# and the sources' version in out/version, which bench/realprog/run.py reports),
# started afresh when the sources' version, the compiler or the flags change, so that no
# object keeps the old ones: SHIM_PASS and the plugin's content are part of the pass's
# flags (a plugin rebuilt in place instruments differently).
variant_dir() {
    out=$1
    log=$out/build.log
    config="$2|$cc|$flags|SHIM_PASS=${SHIM_PASS-}"
    if [ -n "$plugin" ]; then config="$config|$(cksum <"$plugin")"; fi
    if [ "$(cat "$out/.config" 2>/dev/null)" != "$config" ]; then
        rm -rf "$out"
        mkdir -p "$out/obj"
        echo "$config" >"$out/.config"
    fi
    echo "$2" >"$out/version"
    echo "== $(date) $cc $flags" >>"$log"
}

# variant_archive LIBRARY CPPFLAGS SOURCE...: the static library $out/LIBRARY of the
# sources (full paths), each compiled with the variant's flags and CPPFLAGS, by make in
# $out (only what is missing or older than its source is rebuilt).
variant_archive() {
    lib=$1 cppflags=$2
    shift 2
    {
        printf 'OBJS ='
        for s in "$@"; do printf ' obj/%s.o' "$(basename "$s" .c)"; done
        # shellcheck disable=SC2016 # make's variables, not the shell's
        printf '\n\n%s: $(OBJS)\n\trm -f $@ && ar rcs $@ $(OBJS)\n' "$lib"
        for s in "$@"; do
            printf '\nobj/%s.o: %s\n\t%s %s %s -c %s -o $@\n' \
                "$(basename "$s" .c)" "$s" "$cc" "$flags" "$cppflags" "$s"
        done
    } >"$out/Makefile"
    make -C "$out" -j"$jobs" "$lib" >>"$log" 2>&1 || {
        tail -n 20 "$log" >&2
        fail "building $lib failed (log: $log)"
    }
}

# variant_link DRIVER_C CPPFLAGS LIBRARY [LDLIBS...]: $out/driver, DRIVER_C compiled with
# the variant's flags and CPPFLAGS and linked with $out/LIBRARY, LDLIBS and what the
# variant needs (libshim, for the pass's thread-local pointers); and for the
# instrumented variant $out/count_calls.so, never instrumented itself: it would count
# its own calls.
variant_link() {
    main=$1 cppflags=$2 lib=$3
    shift 3
    libs=
    case $variant in
    pass-*)
        libdir=$(cd "$build" && pwd)
        [ -e "$libdir/libshim.so" ] || fail "no $libdir/libshim.so to link with: build the project first"
        libs="-L$libdir -lshim -Wl,-rpath,$libdir" ;;
    esac
    # shellcheck disable=SC2086 # flags and libs are words
    "$cc" $flags $cppflags -o "$out/driver" "$main" "$out/$lib" "$@" $libs >>"$log" 2>&1 ||
        fail "linking the driver failed (log: $log)"
    if [ "$variant" = instrumented ]; then
        "$cc" -O2 -fPIC -shared -o "$out/count_calls.so" "$realprog/count_calls.c" >>"$log" 2>&1 ||
            fail "building count_calls.so failed (log: $log)"
    fi
    return 0
}

# debian_source PACKAGE DIR MIRROR HINT: Debian's source package PACKAGE, fetched with
# `apt-get source` (unpacked by dpkg-source, Debian's patches applied) into DIR, with a
# source list, package lists and a cache of its own there, so that the machine's apt
# configuration is neither needed nor changed: `deb-src MIRROR CODENAME main`, MIRROR
# http://deb.debian.org/debian when empty, CODENAME this system's (bookworm on Debian
# 12). Needs network access and dpkg-source (dpkg-dev, installed through
# scripts/install-deps when missing and run as root). HINT, in the failure's line, says
# how else to give the sources.
debian_source() {
    package=$1 apt=$2 mirror=${3:-http://deb.debian.org/debian} hint=$4
    if ! command -v dpkg-source >/dev/null; then
        "$root/scripts/install-deps" dpkg-dev >&2 || true
    fi
    command -v dpkg-source >/dev/null ||
        fail "no dpkg-source to unpack Debian's $package sources (as root: apt-get install dpkg-dev)"
    rm -rf "$apt"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    # shellcheck source=/dev/null # the system's
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename main" >"$apt/sources.list"
    set -- -q -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
    {
        apt-get "$@" update && (cd "$apt" && apt-get "$@" source "$package")
    } >"$apt/fetch.log" 2>&1 ||
        fail "fetching Debian's $package sources failed (log: $apt/fetch.log; $hint)"
}

# debian_tree PACKAGE MARKER GIVEN MIRROR HINT: sets scratch to BUILD_DIR/realprog-NAME
# (NAME: PACKAGE's name without its version digits, as the program's scripts name it,
# made here) and upstream to the source tree of Debian's PACKAGE: GIVEN (a tree the user
# named, LUA_SOURCE or SQLITE_SOURCE) when not empty, else the one unpacked under
# $scratch/fetch/PACKAGE-VERSION/ (with MARKER, a file of it), fetched by debian_source
# the first time. Fails when the tree has no MARKER.
debian_tree() {
    package=$1 marker=$2 upstream=$3
    scratch=$build/realprog-$(echo "$package" | sed 's/[0-9.]*$//')
    mkdir -p "$scratch"
    scratch=$(cd "$scratch" && pwd)
    if [ -z "$upstream" ]; then
        upstream=$(unpacked "$package" "$marker")
        if [ -z "$upstream" ]; then
            debian_source "$package" "$scratch/fetch" "$4" "$5"
            upstream=$(unpacked "$package" "$marker")
        fi
    fi
    [ -f "$upstream/$marker" ] || fail "no $package sources in ${upstream:-$scratch/fetch} (no $marker)"
    upstream=$(cd "$upstream" && pwd)
}

# unpacked PACKAGE MARKER: the tree debian_source unpacked, if there is one.
unpacked() {
    for d in "$scratch/fetch/$1"-*/; do
        if [ -f "$d$2" ]; then
            echo "${d%/}"
            return
        fi
    done
}

# checksum COMMAND...: the checksum a driver prints ("checksum HEX").
checksum() {
    "$@" | sed -n 's/.*checksum \([0-9a-f]*\).*/\1/p'
}

# check_same WHAT OURS THEIRS: fail unless two checksums are the same (and not empty).
check_same() {
    if [ -z "$2" ] || [ "$2" != "$3" ]; then
        fail "$1 (checksum '$2' against '$3')"
    fi
}
