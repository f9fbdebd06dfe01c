#!/bin/sh
# The plugin as a user finds it: installed beside libshim, named by pkg-config's
# passplugin variable (and its clang by passclang), and used with the command line
# docs/compiler-pass.md gives.
# Usage: test_install.sh BUILD_DIR CLANG WORKDIR | --skip REASON
. "$(dirname "$0")/lib.sh" "$@"
set -u
build=$1 clang=$2 dir=$3
fresh_dir "$dir"
prefix=$dir/prefix
cmake --install "$build" --prefix "$prefix" >install.log 2>&1
expect "cmake --install succeeds" test $? -eq 0
pc=$(find "$prefix" -name shim.pc | head -1)
expect "shim.pc installed" test -n "$pc"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
plugin=$(pkg-config --variable=passplugin shim)
expect "pkg-config --variable=passplugin shim names the installed plugin ($plugin)" \
    test -f "$plugin" -a "$(basename "$plugin")" = shim-pass.so
expect "pkg-config --variable=passclang shim names the clang it was built for" \
    test "$(pkg-config --variable=passclang shim)" = "$clang"
libdir=$(pkg-config --variable=libdir shim)
expect "the plugin is in \${libdir}/shim" test "$(cd "$(dirname "$plugin")" && pwd)" = "$(cd "$libdir/shim" && pwd)"

cat >prog.c <<'EOC'
#include <stdio.h>
static int collatz(long n)
{
    int steps = 0;
    while (n != 1) {
        n = n % 2 ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}
int main(void)
{
    int total = 0;
    for (long i = 1; i < 1000; i++) total += collatz(i);
    printf("%d\n", total);
    return 0;
}
EOC
# the command line of docs/compiler-pass.md
"$clang" -O2 prog.c -o plain
"$clang" -O2 -g -fpass-plugin="$(pkg-config --variable=passplugin shim)" prog.c \
    $(pkg-config --cflags --libs shim) -o prog 2>cc.err
expect "builds with -fpass-plugin=\$(pkg-config --variable=passplugin shim)" test -x prog
expect "and runs as it does without the plugin" sh -c "./prog >prog.out && ./plain >plain.out && cmp -s prog.out plain.out"
expect "with a side table" sh -c "readelf -S prog | grep -q shim_sidetable"
expect "and the thread-local signal pointer from libshim" sh -c "nm -D prog | grep -q shim_tls_block"
expect "the default signals: functions, loops and calling contexts, no path ring" \
    sh -c "readelf -S prog | grep -q shim_contexts && ! nm -D prog | grep -q shim_tls_path_ring"
finish
