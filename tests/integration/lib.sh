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
one_cpu_cpuset() { # prints a new cpuset cgroup holding CPU 0 alone, or nothing where
    # none can be made (not root; no cgroup v2 cpuset controller already enabled, nor a
    # v1 cpuset hierarchy); the caller removes it with rmdir once its processes ended
    [ "$(id -u)" -eq 0 ] || return 0
    if grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
        cg=/sys/fs/cgroup/shim-test-$$
    elif [ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
        cg=/sys/fs/cgroup/cpuset/shim-test-$$
    else
        return 0
    fi
    mkdir "$cg" 2>/dev/null || return 0
    if echo 0 >"$cg/cpuset.cpus" 2>/dev/null &&
        { [ -n "$(cat "$cg/cpuset.mems" 2>/dev/null)" ] ||
            cat "$(dirname "$cg")/cpuset.mems" >"$cg/cpuset.mems" 2>/dev/null; }; then
        echo "$cg"
    else
        rmdir "$cg"
    fi
}
in_cgroup() { # CGROUP COMMAND...: runs COMMAND as a process of CGROUP
    sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@"
}
