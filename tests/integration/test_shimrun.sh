#!/bin/sh
# shimrun: a program that never heard of shim is observed from its start; its
# arguments, output and exit status are its own; options become SHIM_* variables that
# shim checks; programs it starts are not observed unless asked.
# Usage: test_shimrun.sh SHIMRUN PLAIN_TARGET BARE_TARGET SHIMVIEW WORKDIR [SANITIZER]
# (BARE_TARGET: plain_target built without -finstrument-functions: it writes no signal;
# SANITIZER: the tree's SHIM_SANITIZE, empty natively)
set -u
shimrun=$1 plain=$2 bare=$3 shimview=$4 dir=$5 sanitizer=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fresh_dir "$dir"

"$shimrun" -o p.json "$plain" 0.2 7 >out 2>err
expect "the program's exit status is kept" test $? -eq 7
expect "its arguments and output are its own" has out "plain_target: done, 2 arguments"
expect "a profile is written" json p.json "d['samples']['total'] > 1000"
expect "the main thread is the observed one" json p.json "d['placement']['observed_tid']==d['program']['pid']"
expect "the summary line names it" has err "shim: wrote p.json"
expect "a program that signals gets no such advice" sh -c '! grep -q "wrote no signal" err'

# A program that leaves by _exit() runs no atexit handler (a shell does so): the
# profile is written all the same, and the exit status is the program's.
"$shimrun" -o x.json "$plain" _exit 0.2 6 >out 2>err
expect "_exit: the program's exit status is kept" test $? -eq 6
expect "_exit: a profile is written" json x.json "d['samples']['total'] > 1000"
expect "_exit: the summary line names it" has err "shim: wrote x.json"
# A vfork() child shares the parent's memory: its _exit() must not stop the parent's run.
"$shimrun" -o v.json "$plain" vfork 0.2 >out 2>err
expect "vfork: the parent's run goes on and writes its profile" \
    json v.json "d['samples']['total'] > 1000 and d['run']['duration_ns'] > 150e6"
expect "vfork: one summary, the parent's" sh -c '[ $(grep -c "shim: wrote" err) -eq 1 ]'
# A program that closes standard error at exit (coreutils does) still gets the summary.
"$shimrun" -o e.json "$plain" closeerr 0.1 >out 2>err
expect "closed stderr: the summary is still said" has err "shim: wrote e.json"
# A program that writes no signal at all is told what would give it some.
"$shimrun" -o n.json "$bare" 0.1 >out 2>err
expect "no signal: the summary says so, and what to do" has err "the program wrote no signal"
expect "no signal: the report says so too" sh -c "\"$shimview\" report n.json | grep -q '^note .*wrote no signal'"
expect "no signal, no programs started: the advice is how to build it" \
    sh -c '! grep -q "programs it started" err && grep -q "fpass-plugin" err'
expect "the profile says the programs it started used no CPU" json n.json \
    "d['run']['children_cpu_seconds'] == 0 and d['run']['children_observed'] is False"
# A shell observed in place of the program it runs (shimrun sh -c '...'): the program is
# a child, not observed; the summary and the report say so, and what observes it.
if [ "$sanitizer" = thread ]; then
    echo "skipped: a shell: ThreadSanitizer's libshim does not observe /bin/sh, a program built without it"
else
    "$shimrun" -o sh.json -- sh -c "\"$bare\" 0.3; true" >out 2>err
    expect "a shell: the summary says its children ran unobserved, and names --children" \
        sh -c 'grep -q "the programs it started used 0\.[0-9]* s of CPU, not observed: shimrun --children" err'
    expect "a shell: the profile has the children's CPU" json sh.json \
        "d['run']['children_cpu_seconds'] > 0.03 and d['run']['children_observed'] is False"
    expect "a shell: the report says so too" \
        sh -c "\"$shimview\" report sh.json | grep -q '^note .*programs it started used .*shimrun --children'"
fi

"$shimrun" --version >out 2>err
expect "--version: its name, version and profile format, exit 0" \
    sh -c "[ $? -eq 0 ] && grep -Eqx 'shimrun [0-9]+\.[0-9]+\.[0-9]+ \(profile format version [0-9]+\)' out"
"$shimrun" --bogus "$plain" >out 2>err
expect "an unknown option: exit 2, named, with a hint" \
    sh -c "[ $? -eq 2 ] && grep -q -- \"'--bogus'\" err && grep -q 'shimrun --help' err"

"$shimrun" -o m.json -p 10000 -- "$plain" 0.1 >out 2>err
expect "the summary's median period to its bucket's precision (hundreds at 10000 cycles)" \
    sh -c "grep -Eq 'median period [0-9]*00 cycles' err"
"$shimrun" -o q.json -p 5000 --quiet -- "$plain" 0.1 >out 2>err
expect "options become SHIM_* variables" json q.json "d['config']['period']==5000"
expect "--quiet: nothing on stderr" test ! -s err

"$shimrun" -o bad.json -p abc "$plain" 0.05 >out 2>err
expect "a bad value: the program runs unprofiled, one line" sh -c "[ $? -eq 0 ] && grep -q 'SHIM_PERIOD=\"abc\" is not valid' err && [ ! -e bad.json ]"
"$shimrun" --strict -o bad.json -p abc "$plain" 0.05 >out 2>err
expect "--strict: a bad value exits 125" test $? -eq 125
"$shimrun" -o hooks.json --hooks bogus "$plain" 0.05 >out 2>err
expect "--hooks is SHIM_HOOKS, checked by shim" sh -c "[ $? -eq 0 ] && grep -q 'SHIM_HOOKS=\"bogus\" is not valid' err"

"$shimrun" -o 'c-%p.json' "$plain" spawn >out 2>err
expect "a child it starts is not observed" sh -c '[ $(ls c-*.json | wc -l) -eq 1 ]'
rm -f c-*.json
"$shimrun" --children -o 'c-%p.json' "$plain" spawn >out 2>err
expect "--children: the child is observed too" sh -c '[ $(ls c-*.json | wc -l) -eq 2 ]'
expect "--children: the profiles say the children were observed" \
    sh -c 'for f in c-*.json; do python3 -c "import json,sys; sys.exit(not json.load(open(sys.argv[1]))[\"run\"][\"children_observed\"])" "$f" || exit 1; done'
# one output file for every process would keep only the last to exit: refused
for o in c.json 'c-%%p.json'; do
    "$shimrun" --children -o "$o" "$plain" spawn >out 2>err
    expect "--children -o $o (no %p): exit 2, the reason and a name that works" \
        sh -c "[ $? -eq 2 ] && grep -q 'has no %p' err && grep -q -- \"-o 'shim-%e-%p.json'\" err && [ ! -s out ]"
done

# SIGINT: a program that installs its own handler only when it finds SIGINT at its
# default action at main (as CPython does for KeyboardInterrupt) still finds it there,
# and its handler's exit writes the profile; --sigint takes SIGINT before main instead,
# and the profile is written as the program dies of it. interrupt PROFILE [OPTIONS]
# runs the program with SIGINT at its default action, sends it SIGINT once it has
# looked and run a while, and prints its exit status (128 + the signal when killed by one).
interrupt() {
    python3 - "$shimrun" "$plain" "$@" <<'PY'
import signal, subprocess, sys, time
shimrun, plain, out, *opts = sys.argv[1:]
p = subprocess.Popen([shimrun, "-o", out, *opts, plain, "sigint"], stdout=subprocess.PIPE,
                     text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
line = p.stdout.readline()
print(line, end="")
time.sleep(0.3)  # some samples first
p.send_signal(signal.SIGINT)
rest = p.stdout.read()
rc = p.wait(timeout=30)
print(rest, end="")
print("status:", 128 - rc if rc < 0 else rc)
PY
}
interrupt int.json >out 2>err
expect "SIGINT: the program finds it at its default action at main" has out "SIGINT at main: default"
expect "SIGINT: the program's own handler runs" has out "own SIGINT handler ran"
expect "SIGINT: the program's exit status is its own" has out "status: 0"
expect "SIGINT: its exit writes the profile" json int.json "d['samples']['total'] > 0"
interrupt int-taken.json --sigint >out 2>err
expect "--sigint: shim takes SIGINT before main" has out "SIGINT at main: taken"
expect "--sigint: the program dies of SIGINT" has out "status: 130"
expect "--sigint: the profile is written first" json int-taken.json "d['samples']['total'] > 0"

"$shimrun" >out 2>err
expect "no program: exit 2 with a hint" sh -c "[ $? -eq 2 ] && grep -q 'no program to run' err"
"$shimrun" --nonsense x >out 2>err
expect "an unknown option: exit 2" test $? -eq 2
"$shimrun" ./no-such-program >out 2>err
expect "a missing program: exit 127, named" sh -c "[ $? -eq 127 ] && grep -q 'cannot run ./no-such-program' err"
"$shimrun" --help >out 2>&1
expect "--help lists the options" sh -c "grep -q -- '--output FILE' out && grep -q SHIM_PERIOD out && grep -q -- '--hooks MODE' out"
expect "--help names the pass and the documents" sh -c "grep -q 'passplugin shim' out && grep -q 'calling-contexts.md' out"
finish
