#!/bin/sh
# The documentation keeps up with the code: every SHIM_* variable the configuration
# accepts (libshim/config.c's table) is documented in docs/environment.md, every
# profile member the writer emits at the top level is in docs/profile-format.md, no
# placeholder is left in a results table or the README, the README is a quick start
# (at most 16 KiB, shimrun within its first 60 lines, what shim is beside perf, the
# prerequisites, the cmake steps, the two commands scripts/test and .ci/run rely on),
# every relative link of the README and of docs/ leads to a file that exists (the
# README's picture an SVG that shimview drew), and every shimview command has its page,
# docs/shimview/CMD.md, whose usage block is what `shimview CMD --help` prints, listed in
# shimview/README.md.
# Usage: test_docs.sh SOURCE_DIR SHIMVIEW
set -u
src=$1
shimview=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

vars=$(grep -o '{"SHIM_[A-Z_]*"' "$src/libshim/config.c" | tr -d '{"')
[ -n "$vars" ] || bad "no SHIM_ variables found in libshim/config.c"
for v in $vars; do
    if grep -q "^| \`$v\`" "$src/docs/environment.md"; then ok "$v documented in docs/environment.md"
    else bad "$v missing from docs/environment.md"; fi
done
for m in format version shim_version program config machine placement run signals rates \
    samples period gap cpc cost tags other; do
    if grep -q "^| \`$m\`" "$src/docs/profile-format.md"; then ok "profile member $m documented"
    else bad "profile member $m missing from docs/profile-format.md"; fi
done
for f in README.md bench/README.md docs/environment.md docs/guide.md; do
    if grep -Eq 'RESULT_|RES_[A-Z]|QUICKSTART_' "$src/$f"; then bad "$f has an unfilled placeholder"; else ok "$f has no placeholder"; fi
done

# ---- the README as a quick start ----
readme=$src/README.md
size=$(wc -c <"$readme")
expect "README.md is at most 16 KiB ($size bytes)" test "$size" -le 16384
expect "README.md names shimrun in its first 60 lines" sh -c "head -n 60 '$readme' | grep -q shimrun"
expect "README.md says shim does not sample instruction pointers" \
    grep -q "does not sample instruction pointers" "$readme"
for text in "Linux on x86-64" "invariant TSC" "rdtscp" "Two CPUs or more" "cmake -S . -B build" \
    "cmake --build build" "cmake --install build" "scripts/demo" "scripts/test"; do
    expect "README.md has the prerequisites and steps: $text" grep -qF -- "$text" "$readme"
done
expect ".ci/run runs the README's test command" grep -q '^exec scripts/test$' "$src/.ci/run"
pic=$(grep -o '!\[[^]]*\]([^)]*\.svg)' "$readme" | head -1 | sed 's/.*(\(.*\))/\1/')
expect "README.md shows a picture under docs/ ($pic)" sh -c "case '$pic' in docs/*.svg) test -s '$src/$pic' ;; *) false ;; esac"
expect "the picture is an SVG that shimview drew" \
    sh -c "grep -q '<svg' '$src/$pic' && grep -q 'class=\"panel\"' '$src/$pic'"

# ---- every relative link leads somewhere ----
for doc in "$src/README.md" "$src"/docs/*.md "$src/bench/README.md" "$src/examples/README.md"; do
    dir=$(dirname "$doc")
    rel=${doc#"$src"/}
    links=$(grep -o '\](\([^)#: ]*\))' "$doc" | sed 's/^](\(.*\))$/\1/' | sort -u)
    for l in $links; do
        case $l in
        http* | mailto*) continue ;;
        esac
        expect "$rel links to $l, which exists" test -e "$dir/$l"
    done
done

# ---- shimview: a page per command, its usage block the command's own ----
commands=$("$shimview" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$commands" ] || bad "shimview --help lists no commands"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in $commands; do
    page=$src/docs/shimview/$c.md
    if [ ! -f "$page" ]; then bad "shimview $c: no page docs/shimview/$c.md"; continue; fi
    "$shimview" "$c" --help >"$tmp/usage" 2>&1
    # the first fenced block after the "## Usage" heading
    awk '/^## Usage$/ { u = 1; next } u && /^```/ { if (f) exit; f = 1; next } f' "$page" >"$tmp/page"
    if cmp -s "$tmp/usage" "$tmp/page"; then ok "docs/shimview/$c.md shows the usage 'shimview $c --help' prints"
    else
        bad "docs/shimview/$c.md: its usage block differs from 'shimview $c --help':"
        diff "$tmp/page" "$tmp/usage" | sed 's/^/    /'
    fi
    if grep -q "(../docs/shimview/$c.md)" "$src/shimview/README.md"; then ok "shimview/README.md links $c's page"
    else bad "shimview/README.md does not link docs/shimview/$c.md"; fi
done
for page in "$src"/docs/shimview/*.md; do
    c=$(basename "$page" .md)
    echo "$commands" | grep -qx "$c" || bad "docs/shimview/$c.md: shimview has no command '$c'"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
