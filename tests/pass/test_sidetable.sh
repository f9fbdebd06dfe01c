#!/bin/sh
# The side table a program built with the compiler pass carries, read back by the
# program itself (pass_support.c) and checked by check_sidetable.py: every record, every
# path number of every function regenerated, source lines with -g and none without,
# each function's record at its run-time address, and the path ring the shapes filled
# as they ran (-O0 and -O2; C and C++).
# Usage: test_sidetable.sh PLUGIN CLANG CLANGXX SOURCE_DIR LIBSHIM_DIR WORKDIR | --skip REASON
. "$(dirname "$0")/lib.sh" "$@"
set -u
program_test_setup "$@"

build() { # NAME FLAGS...: shapes.c, shapes_main.c and shapes_eh.cpp with the plugin
    name=$1
    shift
    for f in shapes.c shapes_main.c shapes_eh.cpp; do
        pass_cc "$name-${f%%.*}.o" "$here/$f" "$@" || { bad "$name: $f does not compile"; cat "$name-${f%%.*}.o.err"; return 1; }
    done
    link_program "$clangxx" "$name" "$name-shapes.o" "$name-shapes_main.o" "$name-shapes_eh.o" \
        support.o
}

common="--expect three_ifs=8 --covers three_ifs=8 --covers switch_cases=5 --covers if_else_chain=4
    --covers early_returns=4 --fallback with_setjmp=setjmp --loops nested_loops=2"
for variant in O0:-O0:--debug O2:-O2:--debug O1-nodebug:-O1:--no-debug O2-lines:-O2:--debug; do
    name=${variant%%:*} rest=${variant#*:}
    opt=${rest%%:*} mode=${rest#*:}
    flags=$opt
    case $name in
    *-nodebug) ;;
    *-lines) flags="$flags -gline-tables-only" ;;
    *) flags="$flags -g" ;;
    esac
    if build "$name" $flags && ./"$name" "$name.json" >"$name.out" 2>&1; then
        ok "$name: built with the plugin and ran"
        extra=""
        [ "$opt" = -O0 ] && extra="--expect three_ifs=8 --expect nested_loops=8 --expect two_back_edges=6
            --expect irreducible=6 --expect switch_cases=5 --expect many_paths20=1048576
            --fallback many_paths40=1099511627776"
        if python3 "$here/check_sidetable.py" "$name.json" "$here" $mode $common $extra >"$name.check" 2>&1; then
            ok "$name: $(grep '^ok:' "$name.check" | tail -1 | sed 's/^ok: //')"
        else
            bad "$name: check_sidetable.py"
            cat "$name.check"
        fi
    else
        bad "$name: built and ran"
        cat "$name.out" 2>/dev/null
    fi
done
finish
