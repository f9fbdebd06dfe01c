# shim-completion.bash -- bash completion for shimview, shimrun and shim-info, installed
# by `cmake --install` under share/bash-completion/completions/ once per tool name, where
# bash-completion loads it on the first <TAB> after one of them (or: source this file).
#
# The options are read from the tools' own --help, so they are always the installed
# tools' options: `shimview <TAB>` offers the commands, `shimview CMD -<TAB>` that
# command's options, and after an option that takes a value, its values where they are
# a fixed list (export's formats, report's tables, each table's sort keys as its help
# names them, top's views), else files;
# profiles (*.json) and files elsewhere. `shimrun` completes its own options, then the
# program to run and, through bash-completion where it is loaded, that program's own
# arguments. Needs bash only; bash-completion's helpers are used when present.

# The options in the --help text that "$@" prints ("  -n, --top N  ..." gives -n and
# --top), all of them, or with `valued` first, those that take a value (a word after
# the option's name: N, FILE, NAME).
_shim_options()
{
    local valued=
    if [ "$1" = valued ]; then
        valued=' [A-Z]'
        shift
    fi
    "$@" --help 2>/dev/null |
        sed -n "s/^ *\(-[a-zA-Z]\)\{0,1\}[, ]*\(--[a-z][-a-z]*\)$valued.*/\1 \2/p" |
        tr ' ' '\n' | grep -- '^-'
}

# The option before the word being completed, when it takes a value (its help says so).
_shim_value_of()
{
    local prev=$1
    shift
    case $prev in
    -*) _shim_options valued "$@" | grep -qx -- "$prev" && echo "$prev" ;;
    esac
}

_shimview()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cmd= i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *)
            cmd=${COMP_WORDS[i]}
            break
            ;;
        esac
    done
    if [ -z "$cmd" ]; then
        local commands
        commands=$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    if [ "$cmd" = help ]; then
        COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')" -- "$cur"))
        return
    fi
    case $(_shim_value_of "$prev" "${COMP_WORDS[0]}" "$cmd") in
    -f | --format)
        COMPREPLY=($(compgen -W "perfetto pprof folded csv" -- "$cur"))
        return
        ;;
    -s | --sort) # the help's "(keys: a, b, c)"
        COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
            sed -n 's/.*(keys: \([a-z, ]*\)).*/\1/p' | tr -d ,)" -- "$cur"))
        return
        ;;
    -b | --by)
        COMPREPLY=($(compgen -W "tags functions contexts" -- "$cur"))
        return
        ;;
    --since)
        COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
        return
        ;;
    -o | --output | -t | --trace)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    ?*) return ;; # a number, a rate or function name: nothing to offer
    esac
    case $cur in
    --csv=* | --json=*)
        COMPREPLY=($(compgen -P "${cur%%=*}=" -W "tags period by" -- "${cur#*=}"))
        ;;
    -*)
        COMPREPLY=($(compgen -W "$(_shim_options "${COMP_WORDS[0]}" "$cmd") --no-demangle" -- "$cur"))
        ;;
    *)
        COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
        ;;
    esac
}

_shimrun()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} i
    # after the program's name, its own arguments
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --)
            ((i++))
            break
            ;;
        -*)
            [ -n "$(_shim_value_of "${COMP_WORDS[i]}" "${COMP_WORDS[0]}")" ] && ((i++))
            ;;
        *) break ;;
        esac
    done
    if ((i < COMP_CWORD)); then
        if declare -F _command_offset >/dev/null; then
            _command_offset "$i"
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return
    fi
    case $(_shim_value_of "$prev" "${COMP_WORDS[0]}") in
    --scope)
        COMPREPLY=($(compgen -W "auto core observer thread" -- "$cur"))
        return
        ;;
    --hooks)
        COMPREPLY=($(compgen -W "tree frames" -- "$cur"))
        return
        ;;
    -o | --output | -t | --trace)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    ?*) return ;;
    esac
    case $cur in
    -*) COMPREPLY=($(compgen -W "$(_shim_options "${COMP_WORDS[0]}") --" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -c -- "$cur" | sort -u) $(compgen -f -- "$cur")) ;;
    esac
}

_shim_info()
{
    COMPREPLY=($(compgen -W "$(_shim_options "${COMP_WORDS[0]}")" -- "${COMP_WORDS[COMP_CWORD]}"))
}

complete -F _shimview -o filenames shimview
complete -F _shimrun -o filenames shimrun
complete -F _shim_info shim-info
