# lib.sh -- what the shimview test scripts share: counting results and running shimview.
#
# A script sets SHIMVIEW (the binary) and SCRATCH (a directory of its own), then sources
# this file: `. "$(dirname "$0")/lib.sh"`. Every check prints one line, "ok: WHAT" or
# "FAIL: WHAT (why)", and finish prints "N passed, N failed" and returns non-zero if
# anything failed, which ends the script's status.

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# run ARGS...: runs shimview, leaving stdout in $SCRATCH/out, stderr in $SCRATCH/err,
# status in $rc.
run() {
    "$SHIMVIEW" "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    rc=$?
}

# expect_status WHAT CODE: the last run exited with CODE.
expect_status() {
    if [ "$rc" -eq "$2" ]; then pass "$1"; else fail "$1 (exit $rc, expected $2: $(head -c 300 "$SCRATCH/err"))"; fi
}

# expect_in FILE TEXT WHAT: FILE contains TEXT (fixed string).
expect_in() {
    if grep -qF -- "$2" "$1"; then pass "$3"; else fail "$3 (no '$2' in: $(head -c 300 "$1"))"; fi
}

# expect_not_in FILE TEXT WHAT: FILE does not contain TEXT.
expect_not_in() {
    if grep -qF -- "$2" "$1"; then fail "$3 ('$2' in: $(head -c 300 "$1"))"; else pass "$3"; fi
}

# expect_python WHAT SCRIPT ARGS...: python3 SCRIPT ARGS... exits 0; else its output says why.
expect_python() {
    what=$1
    shift
    if msg=$(python3 "$@" 2>&1); then pass "$what"; else fail "$what: $msg"; fi
}

# tally FILE: count the "ok: ..." and "FAIL: ..." lines a python3 checker wrote to FILE;
# "skipped: ..." lines (a part this machine cannot run, and why) are shown, not counted.
tally() {
    while IFS= read -r line; do
        case $line in
        ok:*) pass "${line#ok: }" ;;
        skipped:*) echo "$line" ;; # a part the machine cannot run (node), with its reason
        "") ;;
        *) fail "${line#FAIL: }" ;;
        esac
    done <"$1"
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# check_with SCRIPT ARGS...: the "ok: ..." and "FAIL: ..." lines of python3 SCRIPT ARGS...,
# counted one by one; a script that crashes is one failure, with its last lines.
check_with() {
    script=$1
    shift
    python3 "$script" "$@" >"$SCRATCH/check.out" 2>&1 ||
        echo "FAIL: $(basename "$script") $1 crashed: $(tail -n 3 "$SCRATCH/check.out")" >>"$SCRATCH/check.out"
    tally "$SCRATCH/check.out"
}

# expect_refused WHAT TEXT ARGS...: shimview ARGS... exits 1 with one line on stderr, which
# holds TEXT: how a bad file is refused.
expect_refused() {
    what=$1
    text=$2
    shift 2
    run "$@"
    expect_status "$what exits 1" 1
    expect_in "$SCRATCH/err" "$text" "$what: the message names it"
    if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ]; then pass "$what: one line"; else fail "$what: $(wc -l <"$SCRATCH/err") lines"; fi
}

# another_run SRC DST: a copy of profile SRC as another run with the same numbers (the
# next pid): merge and compare --runs refuse one run given twice as replicates.
another_run() {
    python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))
p["program"]["pid"] += 1
json.dump(p, open(sys.argv[2], "w"))' "$1" "$2"
}
