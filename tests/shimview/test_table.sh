#!/bin/sh
# test_table.sh -- large profiles: tag entries and calling-context trees in the table file
# beside the JSON (docs/profile-format.md, "Large profiles").
#
#     sh test_table.sh SHIMVIEW FIXTURES_DIR WORK_DIR TABLE_SPLIT TABLE_PROTO SHIMRUN PLAIN
#
# 1. The same entries in both forms say the same: table_split moves the entries of the
#    planted fixtures (plain, calling contexts, compiler pass, threads, by) and of a real
#    run into a table with libshim's writer, and every view of shimview must print the
#    same lines for the two (the header line naming the file and its format aside).
# 2. A real run under shimrun with SHIM_INLINE_MAX=0 writes version 2 and its table; the
#    table decodes with protoc as the Table message, and the profile's entries (JSON and
#    table) hold every attributed sample.
# 3. A table that is missing, cut, of another profile, not a protocol buffer, named with a
#    path, or a profile given on standard input: refused with one line naming the cause.
# Starts an observer (shimrun): ctest runs it under the "observer" resource lock.
# Prints "N passed, N failed" and exits non-zero if anything failed.

SHIMVIEW=$1
FIXTURES=$2
WORK=$3
SPLIT=$4
PROTO=$5
SHIMRUN=$6
PLAIN=$7
if [ -z "$PLAIN" ]; then
    echo "usage: sh test_table.sh SHIMVIEW FIXTURES_DIR WORK_DIR TABLE_SPLIT TABLE_PROTO SHIMRUN PLAIN" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
GOOD="$FIXTURES/profile-v1.json"
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1
WORK=$(cd "$WORK" && pwd) || exit 1
SCRATCH=$WORK
. "$HERE/lib.sh"

# same NAME PROFILE: every view prints the same for PROFILE's two forms (table_split).
same() {
    name=$1
    src="$WORK/$name-inline.json"
    dst="$WORK/$name-split.json"
    if ! "$SPLIT" "$2" "$src" "$dst" 2>"$WORK/split.err"; then
        fail "$name: table_split ($(head -c 300 "$WORK/split.err"))"
        return
    fi
    if [ -f "$dst.table" ]; then pass "$name: the split profile has its table"; else
        fail "$name: no table beside the split profile"
    fi
    for view in "report --all" "report --csv" "report --per-thread --all" "functions" \
        "functions --csv" "contexts" "contexts --csv" "tree" "threads" "loops" "paths" \
        "export -f folded" "compare $src"; do
        # shellcheck disable=SC2086
        "$SHIMVIEW" $view "$src" 2>&1 | grep -v "^profile " >"$WORK/a.out"
        a=$?
        # shellcheck disable=SC2086
        "$SHIMVIEW" $view "$dst" 2>&1 | grep -v "^profile " | sed "s|$dst|$src|g" >"$WORK/b.out"
        if cmp -s "$WORK/a.out" "$WORK/b.out"; then
            pass "$name: '$view' prints the same from the table"
        else
            fail "$name: '$view' differs from the table: $(diff "$WORK/a.out" "$WORK/b.out" | head -6)"
        fi
    done
}

# ---- 1. the same profile in both forms ----
same plain "$GOOD"
python3 "$HERE/cct_fixture.py" "$GOOD" "$WORK/cct.json" && same cct "$WORK/cct.json"
python3 "$HERE/pass_fixture.py" "$GOOD" "$WORK/pass.json" && same pass "$WORK/pass.json"
python3 "$HERE/threads_fixture.py" "$GOOD" "$WORK/threads.json" &&
    same threads "$WORK/threads.json"
python3 "$HERE/by_fixture.py" "$GOOD" "$WORK/by.json" && same by "$WORK/by.json"

# ---- 2. a real run's table ----
mkdir -p "$WORK/real"
SHIM_OUTPUT="$WORK/real/v1.json" SHIM_QUIET=1 "$SHIMRUN" "$PLAIN" 0.3 >/dev/null 2>"$WORK/err"
if [ -f "$WORK/real/v1.json" ]; then
    same real "$WORK/real/v1.json"
else
    fail "plain_target under shimrun wrote no profile: $(head -c 300 "$WORK/err")"
fi
P="$WORK/real/v2.json"
SHIM_OUTPUT="$P" SHIM_QUIET=1 SHIM_INLINE_MAX=0 SHIM_HIST_TUPLES=2 "$SHIMRUN" "$PLAIN" 0.3 \
    >/dev/null 2>"$WORK/err"
if [ -f "$P" ] && [ -f "$P.table" ]; then
    pass "SHIM_INLINE_MAX=0: the run wrote its profile and its table"
    expect_python "SHIM_INLINE_MAX=0: version 2, the table named, every sample in an entry" - "$P" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 2, d["version"]
t = d["table"]
assert t["file"] == sys.argv[1].rsplit("/", 1)[1] + ".table", t["file"]
assert t["entries"] > 0 and len(d["tags"]) <= 2, (t, len(d["tags"]))
assert t["entries"] + len(d["tags"]) == d["samples"]["distinct_tags"], t
assert all(th["nodes"] is None for th in d["cct"]["threads"]), "a tree left in the JSON"
assert t["nodes"] > 0, t
PY
    if command -v protoc >/dev/null 2>&1; then
        if protoc --decode=shim_table.Table --proto_path="$(dirname "$PROTO")" "$PROTO" \
            <"$P.table" >"$WORK/decoded.txt" 2>"$WORK/err"; then
            pass "protoc decodes the table as shim_table.Table"
        else
            fail "protoc cannot decode the table: $(head -c 300 "$WORK/err")"
        fi
        expect_in "$WORK/decoded.txt" 'format: "shim-profile-table"' "the decoded table names its format"
        expect_in "$WORK/decoded.txt" "entries {" "the decoded table has entries"
        expect_in "$WORK/decoded.txt" "trees {" "the decoded table has trees"
    else
        echo "skip: protoc is not installed (the table's decoding by protoc is not checked)"
    fi
    run report --csv "$P"
    expect_status "report reads the version 2 profile" 0
    expect_python "report's rows hold every attributed sample" - "$WORK/out" "$P" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[1])))
total = sum(int(r["samples"]) for r in rows)
want = d["samples"]["total"] - d["samples"]["interrupted"]
assert total == want, (total, want)
PY
    for view in functions contexts tree; do
        run $view "$P"
        expect_status "$view reads the version 2 profile" 0
    done
    expect_in "$WORK/out" "main" "tree: main is in the tree the table holds"
else
    fail "SHIM_INLINE_MAX=0: no profile and table: $(head -c 300 "$WORK/err")"
fi

# ---- 3. refused ----
S="$WORK/plain-split.json"
# x_json MEMBER=VALUE...: x.json is the split fixture naming x.json.table, with its table's
# members set as given (VALUE a python expression; t is the original table member)
x_json() {
    python3 - "$S" "$WORK/x.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = dict(d["table"])
d["table"]["file"] = "x.json.table"
for a in sys.argv[3:]:
    k, v = a.split("=", 1)
    d["table"][k] = eval(v)
json.dump(d, open(sys.argv[2], "w"))
PY
}
x_json
cp "$S.table" "$WORK/x.json.table.keep"
run report "$WORK/x.json"
expect_status "a missing table is refused" 1
expect_in "$WORK/err" "x.json.table: No such file" "the message names the missing table"
head -c 20 "$WORK/x.json.table.keep" >"$WORK/x.json.table"
run report "$WORK/x.json"
expect_status "a cut table is refused" 1
expect_in "$WORK/err" "the file was cut, or belongs to another profile" "the message says it was cut"
x_json "bytes=20"
printf 'this is no protocol buffer' | head -c 20 >"$WORK/x.json.table"
run report "$WORK/x.json"
expect_status "a table that does not decode is refused" 1
expect_in "$WORK/err" "does not decode" "the message says it does not decode"
x_json 'id="%016x" % (int(t["id"], 16) ^ 1)'
cp "$WORK/x.json.table.keep" "$WORK/x.json.table"
run report "$WORK/x.json"
expect_status "the table of another profile is refused" 1
expect_in "$WORK/err" "it was written with another profile" "the message says whose table it is"
x_json 'file="../etc/x.table"'
run report "$WORK/x.json"
expect_status "a table named with a path is refused" 1
expect_in "$WORK/err" "is not a file name" "the message says it is not a file name"
"$SHIMVIEW" report - <"$S" >"$WORK/out" 2>"$WORK/err"
rc=$?
expect_status "a profile with a table on standard input is refused" 1
expect_in "$WORK/err" "rather than standard input" "the message says to give its path"
finish
