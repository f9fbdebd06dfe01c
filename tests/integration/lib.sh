# Helpers shared by the integration scripts (sourced). Each check prints "ok: ..." or
# "FAIL: ..."; finish prints the summary line ctest reads and sets the exit status.
pass=0 fail=0
fresh_dir() { # DIR: an empty working directory, made the current one
    rm -rf "$1"
    mkdir -p "$1"
    cd "$1" || exit 1
}
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { # description command...: command must succeed
    d=$1; shift
    if "$@"; then ok "$d"; else bad "$d"; fi
}
has() { grep -q -- "$2" "$1"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
