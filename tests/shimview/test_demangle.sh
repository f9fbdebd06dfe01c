#!/bin/sh
# test_demangle.sh -- C++ names in shimview: a small C++ program (demangle_target.cpp),
# built with -finstrument-functions and run under shimrun, then every view and export
# of its calling-context profile shows its functions in their source form
# (geometry::Circle::area() const, a template, an overload, an operator), and
# --no-demangle, given to any command, keeps the symbols as the binary has them.
#
#     sh test_demangle.sh SHIMVIEW SHIMRUN WORK_DIR [COMPILER FLAGS...]
#
# The program is compiled here with the first of g++, c++ and clang++ found, and with
# FLAGS (the tree's sanitizer flags, so that it runs under a sanitized libshim); with no
# C++ compiler the test is skipped. Starts an observer (shimrun): ctest runs it under
# the "observer" resource lock.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
SHIMRUN=$2
WORK=$3
if [ -z "$SHIMVIEW" ] || [ -z "$SHIMRUN" ] || [ -z "$WORK" ]; then
    echo "usage: sh test_demangle.sh SHIMVIEW SHIMRUN WORK_DIR [COMPILER FLAGS...]" >&2
    exit 2
fi
shift 3
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"

CXX=
for c in g++ c++ clang++; do
    if command -v "$c" >/dev/null 2>&1; then
        CXX=$c
        break
    fi
done
if [ -z "$CXX" ]; then
    echo "skipped: no C++ compiler (g++, c++ or clang++) to build demangle_target.cpp"
    exit 0
fi
if ! "$CXX" -O1 -finstrument-functions "$@" "$HERE/demangle_target.cpp" -o "$WORK/demangle_target" \
    2>"$WORK/build.log"; then
    fail "$CXX builds demangle_target.cpp: $(head -c 300 "$WORK/build.log")"
    finish
    exit
fi
pass "$CXX builds demangle_target.cpp"

PROF=$WORK/run.json
# the tree's contexts, whatever frame pointers the flags give (the paths checked below)
"$SHIMRUN" -o "$PROF" -t 16M --quiet --hooks tree "$WORK/demangle_target" 1500 >"$WORK/prog.out" 2>"$WORK/prog.err"
if [ $? -ne 0 ] || [ ! -s "$PROF" ]; then
    fail "shimrun writes the C++ program's profile: $(head -c 300 "$WORK/prog.err")"
    finish
    exit
fi
pass "shimrun writes the C++ program's profile"
# the profile keeps the symbols as written: demangling is the reader's
expect_in "$PROF" '"_ZNK8geometry6Circle4areaEv"' "the profile holds the mangled symbol"

AREA='geometry::Circle::area() const'
TOTAL='double geometry::total<double>(std::vector<double, std::allocator<double> > const&)'
LONG='geometry::scale(long, int)'
DOUBLE='geometry::scale(double, int)'
PLUS='geometry::operator+(geometry::Vec const&, geometry::Vec const&)'

# every name, demangled, and no symbol left mangled
names_demangled() { # WHAT FILE
    for n in "$AREA" "$TOTAL" "$LONG" "$DOUBLE" "$PLUS"; do
        expect_in "$2" "$n" "$1: $n"
    done
    expect_not_in "$2" "_ZN" "$1: no mangled name left"
}

run functions --all "$PROF"
expect_status "functions" 0
names_demangled functions "$WORK/out"
run functions --csv "$PROF"
names_demangled "functions --csv" "$WORK/out"
run contexts --all "$PROF"
expect_in "$WORK/out" "main > $AREA" "contexts: a path of demangled names"
expect_not_in "$WORK/out" "_ZN" "contexts: no mangled name left"
run tree --min-share 0 "$PROF"
expect_in "$WORK/out" "$AREA" "tree: demangled"
expect_not_in "$WORK/out" "_ZN" "tree: no mangled name left"
run report --csv "$PROF"
expect_in "$WORK/out" "$AREA" "report: the function slot's values are demangled"
expect_not_in "$WORK/out" "_ZN" "report: no mangled name left"
run export -f folded "$PROF"
expect_in "$WORK/out" "main;$AREA" "export folded: demangled frames"
expect_not_in "$WORK/out" "_ZN" "export folded: no mangled name left"
run export -f pprof -o "$WORK/run.pb.gz" "$PROF"
expect_status "export pprof" 0
gzip -dc "$WORK/run.pb.gz" >"$WORK/run.pb"
# pprof's function has a name and a system_name: the source name and the symbol
expect_in "$WORK/run.pb" "$AREA" "export pprof: the function's name is demangled"
expect_in "$WORK/run.pb" "_ZNK8geometry6Circle4areaEv" "export pprof: its system_name is the symbol"
run html -o "$WORK/run.html" "$PROF"
expect_status "html" 0
expect_in "$WORK/run.html" "geometry::total&lt;double&gt;" "html: demangled, and escaped"
expect_not_in "$WORK/run.html" "_ZN" "html: no mangled name left"
run export -f perfetto -o "$WORK/run.trace.json" "$PROF"
expect_status "export perfetto (the trace)" 0
expect_in "$WORK/run.trace.json" "$AREA" "export perfetto: slices named in source form"
expect_not_in "$WORK/run.trace.json" "_ZN" "export perfetto: no mangled name left"
run flame -o "$WORK/run-flame.svg" "$PROF"
expect_status "flame" 0
expect_in "$WORK/run-flame.svg" "$AREA" "flame: frames named in source form"
expect_not_in "$WORK/run-flame.svg" "_ZN" "flame: no mangled name left"
run flame --no-demangle -o "$WORK/run-flame-raw.svg" "$PROF"
expect_in "$WORK/run-flame-raw.svg" "_ZNK8geometry6Circle4areaEv" "flame --no-demangle: the symbols"
run timeline -o "$WORK/run-timeline.svg" "$PROF"
expect_status "timeline" 0
# the lanes name their top values by cycles, which need not include area() in every run
expect_in "$WORK/run-timeline.svg" "geometry::" "timeline: demangled"
expect_not_in "$WORK/run-timeline.svg" "_ZN" "timeline: no mangled name left"
run compare -o "$WORK/cmp" "$PROF" "$PROF"
expect_in "$WORK/out" "$AREA" "compare: demangled"
another_run "$PROF" "$SCRATCH/second.json"
run merge "$PROF" "$SCRATCH/second.json"
expect_in "$WORK/out" "$AREA" "merge: demangled"

# --no-demangle, before or after the file, on any command
run functions --no-demangle --all "$PROF"
expect_in "$WORK/out" "_ZNK8geometry6Circle4areaEv" "functions --no-demangle: the symbol as written"
expect_not_in "$WORK/out" "$AREA" "functions --no-demangle: no source name"
run export -f folded "$PROF" --no-demangle
expect_in "$WORK/out" "main;_ZNK8geometry6Circle4areaEv" "export --no-demangle after the file: symbols"
run tree --no-demangle --min-share 0 "$PROF"
expect_in "$WORK/out" "_ZN8geometry5scaleEli" "tree --no-demangle: symbols"
# after "--" it is a file name, not the option
run functions -- --no-demangle
expect_status "functions -- --no-demangle: a file of that name" 1
finish
