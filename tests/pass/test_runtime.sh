#!/bin/sh
# The signals a program built with the compiler pass writes while it runs (runtime.c):
# slot 10 (the function and its loop; slot 8 never stored) at known moments, and the
# path ring's entries, in order, regenerated to the source lines of the arms each
# iteration took (check_runtime.py), at -O0, -O1 and -O2; and, in C++ (runtime_eh.cpp),
# the slots after invokes and in handlers.
# Usage: test_runtime.sh PLUGIN CLANG CLANGXX SOURCE_DIR LIBSHIM_DIR WORKDIR | --skip REASON
. "$(dirname "$0")/lib.sh" "$@"
set -u
program_test_setup "$@"
for o in -O0 -O1 -O2; do
    if ! pass_cc runtime$o.o "$here/runtime.c" $o -g; then
        bad "runtime.c $o compiles with the plugin"
        cat runtime$o.o.err
        continue
    fi
    link_program "$clang" runtime$o runtime$o.o support.o
    ./runtime$o dump$o.json >run$o.out 2>&1
    rc=$?
    sed "s/^/  $o /" run$o.out
    expect "runtime $o: slot 10 right at every check point" test $rc -eq 0
    if python3 "$here/check_runtime.py" dump$o.json "$here/runtime.c" >check$o.out 2>&1; then
        ok "runtime $o: $(grep '^ok:' check$o.out | tail -1 | sed 's/^ok: //')"
    else
        bad "runtime $o: check_runtime.py"
        cat check$o.out
    fi
done

# C++: invokes and the landing pads that catch
for o in -O0 -O2; do
    if ! pass_cc runtime_eh$o.o "$here/runtime_eh.cpp" $o -g; then
        bad "runtime_eh.cpp $o compiles with the plugin"
        cat runtime_eh$o.o.err
        continue
    fi
    link_program "$clangxx" runtime_eh$o runtime_eh$o.o
    ./runtime_eh$o >run_eh$o.out 2>&1
    rc=$?
    sed "s/^/  $o /" run_eh$o.out
    expect "runtime_eh $o: slot 10 right after invokes and in handlers" test $rc -eq 0
done
finish
