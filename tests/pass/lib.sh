# Helpers for the compiler-pass tests (sourced after the script's arguments are known):
# the ok/FAIL helpers of the integration tests, and the skip CMake asks for where no
# clang/LLVM 14 to 19 was found (or the tree is built with a sanitizer the programs here
# cannot link with).
# Usage in a script: . "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/../integration/lib.sh"
# the checks import sidetable.py from the source tree: leave no bytecode cache there
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
if [ "${1:-}" = --skip ]; then
    echo "skipped: $2"
    exit 0
fi

# Compiles one source with the plugin: pass_cc OUT SOURCE FLAGS...
# (the compiler's stderr, the pass's lines among it, goes to OUT.err), with every signal
# unless SHIM_PASS says otherwise: the path signal is not among the pass's defaults.
pass_cc() {
    out=$1 source=$2
    shift 2
    case $source in
    *.cpp) compiler=$clangxx ;;
    *) compiler=$clang ;;
    esac
    SHIM_PASS=${SHIM_PASS-method,loop,path,context} "$compiler" -fpass-plugin="$plugin" \
        -I"$src/include" -I"$src" -I"$src/tests/pass" "$@" -c "$source" -o "$out" 2>"$out.err"
}

# For the tests that run programs built with the plugin: takes the arguments
# PLUGIN CLANG CLANGXX SOURCE_DIR LIBSHIM_DIR WORKDIR, makes WORKDIR the current directory
# and compiles pass_support.c there (without the plugin) to support.o.
program_test_setup() {
    plugin=$1 clang=$2 clangxx=$3 src=$4 libdir=$5 dir=$6
    here=$src/tests/pass
    fresh_dir "$dir"
    "$clang" -O2 -I"$src/include" -I"$src" -c "$here/pass_support.c" \
        -o support.o
    expect "pass_support.c compiles (without the plugin)" test -s support.o
}

# Links objects with libshim: link_program COMPILER OUT OBJECT...
link_program() {
    compiler=$1 out=$2
    shift 2
    "$compiler" "$@" -L"$libdir" -lshim -Wl,-rpath,"$libdir" -o "$out"
}
