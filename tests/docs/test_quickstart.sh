#!/bin/sh
# The README's quick start does what the README shows: its commands are there as
# written, and run on examples/wordfreq (built with -finstrument-functions) they give a
# profile whose functions and tree name the program's functions, as the README's output
# does. Starts an observer (shimrun): ctest runs it under the "observer" resource lock.
# Usage: test_quickstart.sh SOURCE_DIR SHIMRUN SHIMVIEW WORDFREQ WORKDIR
set -u
src=$1 shimrun=$2 shimview=$3 wordfreq=$4 dir=$5
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1

for cmd in "cc -O2 -finstrument-functions examples/wordfreq.c -o wordfreq" \
    "shimrun -o wordfreq.json ./wordfreq" "shimview functions wordfreq.json" \
    "shimview tree wordfreq.json"; do
    expect "the README shows: $cmd" grep -qF -- "$cmd" "$src/README.md"
done

"$shimrun" -o wordfreq.json "$wordfreq" 1000000 >out 2>err
expect "shimrun runs wordfreq, whose output is its own" grep -q "words, .* distinct; most frequent" out
expect "shimrun says where the profile went" grep -q "shim: wrote wordfreq.json" err
"$shimview" functions wordfreq.json >functions.txt 2>&1
expect "shimview functions reads it" test $? -eq 0
for f in main count_words count_word make_text make_word hash; do
    expect "functions names $f, as the README shows" grep -q "^$f " functions.txt
    expect "the README's output names $f" grep -q "^$f " "$src/README.md"
done
"$shimview" tree wordfreq.json >tree.txt 2>&1
expect "shimview tree reads it" test $? -eq 0
expect "tree: main calls count_words, which calls count_word" \
    sh -c "grep -q '└─ main' tree.txt && grep -q '├─ count_words' tree.txt && grep -q '└─ count_word$' tree.txt"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
