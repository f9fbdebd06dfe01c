#!/bin/sh
# `cmake --install` gives a prefix from which a user builds a program two ways --
# pkg-config and find_package(shim) -- runs it, and reads its profile with the
# installed shimview; and in which every document the tools' --help texts name is
# installed where they say, the manual pages (help2man) are there and render, and the
# bash completion offers the commands, options and values the help texts list.
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

# ---- the documentation: what the help texts name, manual pages, bash completion ----
docdir=$prefix/share/doc/shim
bin=$prefix/bin
{
    "$bin/shimview" --help
    for c in $("$bin/shimview" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'); do
        "$bin/shimview" help "$c"
    done
    "$bin/shimrun" --help
    "$bin/shim-info" --help
} >helps.txt 2>&1
named=$(grep -o '/[^ ()]*/share/doc/shim/[A-Za-z0-9._/-]*[A-Za-z0-9]' helps.txt | sed 's|.*/share/doc/shim/||' | sort -u)
expect "the help texts name installed documents" test -n "$named"
for d in $named; do
    expect "named by a help text, installed: share/doc/shim/$d" test -s "$docdir/$d"
done
expect "no help text names a path of the source tree (docs/X.md, shimview/README.md, bare README.md)" \
    sh -c "! grep -nE '(^|[ (])(docs/[a-z-]+|shimview/README)\.md|(^|[ (])README\.md' helps.txt"
for f in README.md environment.md api.md shimview.md profile-format.md; do
    expect "documentation installed: $f" test -s "$docdir/$f"
done
expect "the README's picture is installed beside it" \
    sh -c "grep -o 'docs/[a-z-]*\.svg' '$src/README.md' | sed 's|docs/||' | while read -r svg; do test -s '$docdir/'\$svg || exit 1; done"

man1=$prefix/share/man/man1
if grep -q '^HELP2MAN:FILEPATH=.*help2man$' "$build/CMakeCache.txt"; then
    for t in shimview shimrun shim-info; do
        expect "man page installed: man1/$t.1" test -s "$man1/$t.1"
        expect "man page $t.1 is the tool's (its NAME line)" grep -qF "$t \\- " "$man1/$t.1"
    done
    expect "shimview.1 has every command's usage (COMMANDS, export's --format)" \
        sh -c "grep -q '^\.SH COMMANDS' '$man1/shimview.1' && grep -q 'shimview export' '$man1/shimview.1' && grep -q 'format' '$man1/shimview.1'"
    expect "shimrun.1 has its options (--output, --period)" \
        sh -c "grep -q 'output' '$man1/shimrun.1' && grep -q 'period' '$man1/shimrun.1'"
    expect "the man pages name the installed documents" grep -q "share/doc/shim" "$man1/shimview.1"
    if command -v man >/dev/null 2>&1; then
        MANWIDTH=80 man -l "$man1/shimview.1" >man-shimview.txt 2>man.err
        expect "man -l shimview.1 renders it, without complaint" \
            sh -c "grep -q 'no-demangle' man-shimview.txt && ! grep -q 'warning' man.err"
    else
        echo "skipped: man is not installed: the pages are not rendered"
    fi
else
    echo "skipped: no help2man when this tree was configured: no manual pages to check"
fi

comp=$prefix/share/bash-completion/completions
for t in shimview shimrun shim-info; do
    expect "bash completion installed for $t" test -s "$comp/$t"
done
if command -v bash >/dev/null 2>&1; then
    # each line: the words typed (the last the one completed), then what must be offered
    cat >complete.sh <<EOC
PATH="$bin:\$PATH"
. "$comp/shimview"
offers() { # WANTED WORDS...: completing the last of WORDS offers each of WANTED
    local want=\$1 f w
    shift
    COMP_WORDS=("\$@")
    COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    f=\$(complete -p "\$1" | sed 's/.*-F \([^ ]*\).*/\1/')
    "\$f"
    for w in \$want; do
        case " \${COMPREPLY[*]} " in
        *" \$w "*) ;;
        *) echo "FAIL: [\$*] does not offer \$w: \${COMPREPLY[*]}"; return ;;
        esac
    done
    echo "ok: [\$*] offers \$want"
}
offers "export functions" shimview ""
offers "tree" shimview tr
offers "--format --output --no-demangle --help" shimview export -
offers "perfetto pprof folded csv" shimview export -f ""
offers "incl excl name" shimview functions --sort ""
offers "samples time name" shimview report --sort ""
offers "a b change name" shimview compare -s ""
offers "--json=tags --json=period --json=by" shimview report --json=
offers "--csv=tags --csv=period --csv=by" shimview report --csv=
offers "--output --observer-cpu" shimrun --o
offers "--period --sigint --quiet --" shimrun -
offers "auto core observer thread" shimrun --scope ""
offers "--help" shim-info -
# every option a help text lists is offered
for c in \$(shimview --help | sed -n '/^Commands:/,/^\$/s/^  \([a-z][a-z]*\) .*/\1/p'); do
    [ "\$c" = help ] && continue
    offers "\$(shimview help "\$c" | grep -oE '^ +(-[a-z], )?--[a-z][-a-z]*' | grep -oE -- '--[a-z-]+' | tr '\n' ' ')" shimview "\$c" -
done
offers "\$(shimrun --help | grep -oE '^ +(-[a-z], )?--[a-z][-a-z]*' | grep -oE -- '--[a-z-]+' | tr '\n' ' ')" shimrun -
EOC
    bash complete.sh >complete.out 2>&1
    while IFS= read -r line; do
        case $line in
        ok:*) ok "completion: ${line#ok: }" ;;
        *) bad "completion: ${line#FAIL: }" ;;
        esac
    done <complete.out
else
    echo "skipped: no bash to try the completion in"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
