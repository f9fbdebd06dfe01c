#!/bin/sh
# The documentation keeps up with the code: every SHIM_* variable the configuration
# accepts (libshim/config.c's table) is documented in README.md, every profile member
# the writer emits at the top level is in docs/profile-format.md, and no placeholder is
# left in a results table.
# Usage: test_docs.sh SOURCE_DIR
set -u
src=$1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

vars=$(grep -o '{"SHIM_[A-Z_]*"' "$src/libshim/config.c" | tr -d '{"')
[ -n "$vars" ] || bad "no SHIM_ variables found in libshim/config.c"
for v in $vars; do
    if grep -q "\`$v\`" "$src/README.md"; then ok "$v documented in README.md"; else bad "$v missing from README.md"; fi
done
for m in format version shim_version program config machine placement run signals rates \
    samples period gap cpc cost tags other; do
    if grep -q "^| \`$m\`" "$src/docs/profile-format.md"; then ok "profile member $m documented"
    else bad "profile member $m missing from docs/profile-format.md"; fi
done
for f in README.md bench/README.md; do
    if grep -Eq 'RESULT_|RES_[A-Z]' "$src/$f"; then bad "$f has an unfilled placeholder"; else ok "$f has no placeholder"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
