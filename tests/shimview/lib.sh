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

# tally FILE: count the "ok: ..." and "FAIL: ..." lines a python3 checker wrote to FILE.
tally() {
    while IFS= read -r line; do
        case $line in
        ok:*) pass "${line#ok: }" ;;
        *) fail "${line#FAIL: }" ;;
        esac
    done <"$1"
}

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
