#!/bin/sh
# man-include.sh TOOL BINARY DOCDIR -- the sections help2man adds to TOOL's manual page
# (cmake/man.cmake), beyond what it makes of `BINARY --help`: for shimview, each
# command's usage (`shimview help COMMAND`), which --help only lists; for every tool,
# SEE ALSO: the other tools and the documents `cmake --install` puts in DOCDIR.
# Written in help2man's include format ([SECTION] then roff) on standard output.
set -eu
tool=$1 binary=$2 docdir=$3

# Text as roff shows it verbatim: backslashes and minus signs escaped, a leading dot or
# quote made literal.
verbatim() {
    sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}

if [ "$tool" = shimview ]; then
    echo "[COMMANDS]"
    # the command list of --help: "  NAME  summary" lines after "Commands:"
    "$binary" --help | sed -n '/^Commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' |
        while read -r cmd; do
            [ "$cmd" = help ] && continue
            echo ".SS \"shimview $cmd\""
            echo ".nf"
            "$binary" help "$cmd" | verbatim
            echo ".fi"
        done
fi

echo "[SEE ALSO]"
sep=
for other in shimview shimrun shim-info; do
    [ "$other" = "$tool" ] && continue
    [ -n "$sep" ] && echo "$sep"
    printf '.BR %s (1)' "$other"
    sep=,
done
echo .
echo .PP
echo "The documents installed with shim, in"
echo ".IR $docdir :"
echo ".B README.md"
echo "(the quick start),"
echo ".B environment.md"
echo "(every SHIM_* variable),"
echo ".B shimview.md"
echo "(every command and its columns),"
echo ".B profile-format.md"
echo "and the others there."
