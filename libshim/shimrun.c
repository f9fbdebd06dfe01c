/*
 * shimrun -- observe a program that never calls shim_start().
 *
 *     shimrun [OPTIONS] [--] PROGRAM [ARGS...]
 *
 * Preloads libshim into PROGRAM with SHIM_AUTOSTART=1: the library's constructor starts
 * observing the main thread before main() runs and the profile is written at exit. A
 * program built with -finstrument-functions then publishes its calling contexts
 * without any change to its source. The options are the SHIM_* variables under other
 * names (`shimrun --help`); shim itself checks every value, exactly as if they had been
 * set in the environment. shimrun execs PROGRAM, so its exit status, signals and
 * process id are the program's own.
 */
/* Where `cmake --install` puts the documents the help text names (CMakeLists.txt) */
#ifndef SHIM_DOC_DIR
#define SHIM_DOC_DIR "/usr/local/share/doc/shim"
#endif

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/profile.h"
#include "libshim/config.h"

/* The help text gives the default periods in words */
_Static_assert(SHIM_DEFAULT_PERIOD == 1000 && SHIM_AUTO_PERIOD == 40000,
               "shimrun's --help names the default periods: update it");

#ifndef SHIM_TOOL_VERSION
#define SHIM_TOOL_VERSION "0.1.0"
#endif

#define EXIT_USAGE 2

static const struct option_map {
    const char *name;
    const char *arg; /* NULL: a flag */
    int short_name;
    const char *var;
    const char *help;
} options[] = {
    {"output", "FILE", 'o', "SHIM_OUTPUT", "the profile (%p pid, %e program name)"},
    {"period", "CYCLES", 'p', "SHIM_PERIOD",
     "target sample period in TSC cycles (0: fastest; default 1000, and 40000 for code built "
     "with the pass or -finstrument-functions, " SHIM_DOC_DIR "/calling-contexts.md)"},
    {"hooks", "MODE", 0, "SHIM_HOOKS",
     "what -finstrument-functions hooks keep: tree (default: a calling-context tree), frames "
     "(stack walks, for code built with -fno-omit-frame-pointer: far cheaper per call), or "
     "auto (frames where the instrumented code keeps frame pointers, else tree)"},
    {"events", "LIST", 'e', "SHIM_EVENTS", "hardware events, e.g. cycles,instructions"},
    {"scope", "SCOPE", 0, "SHIM_EVENT_SCOPE", "whose events: auto, core, observer, thread"},
    {"rates", "LIST", 'r', "SHIM_RATES", "more rates, NAME=NUM[*SCALE]/DEN,..."},
    {"by", "Y:X", 0, "SHIM_BY", "rate Y bucketed by rate X"},
    {"trace", "SIZE|PATH", 't', "SHIM_TRACE", "also record every sample period (e.g. 64M)"},
    {"observer-cpu", "CPU", 0, "SHIM_OBSERVER_CPU", "the CPU the observer runs on"},
    {"tags", "SLOTS", 0, "SHIM_TAGS", "tag slots to read"},
    {"counters", "SLOTS", 0, "SHIM_COUNTERS", "counter slots to read"},
    {"strict", NULL, 0, "SHIM_STRICT", "exit 125 on any shim error instead of running on"},
    {"quiet", NULL, 'q', "SHIM_QUIET", "no summary line at exit"},
    {"children", NULL, 0, "SHIM_AUTOSTART_CHILDREN",
     "observe the programs it starts too (-o needs %p)"},
    {"sigint", NULL, 0, "SHIM_SIGINT", "write the profile on SIGINT (Ctrl-C) too"},
    {"snapshot", "SECONDS", 0, "SHIM_SNAPSHOT", "also write the profile so far every SECONDS"},
    {"snapshot-keep", "N", 0, "SHIM_SNAPSHOT_KEEP", "keep the last N snapshots as files too"},
};
#define NOPTIONS (sizeof options / sizeof options[0])

static void usage(FILE *out)
{
    fprintf(out, "usage: shimrun [OPTIONS] [--] PROGRAM [ARGS...]\n\n"
                 "Run PROGRAM observed by shim from its start, without changing it: libshim is\n"
                 "preloaded and starts observing the main thread before main(). Build\n"
                 "PROGRAM with clang and shim's pass\n"
                 "(-fpass-plugin=$(pkg-config --variable=passplugin shim)), or with\n"
                 "-finstrument-functions, to get its functions and calling contexts (the\n"
                 "documents below). The profile is written when it exits (default\n"
                 "shim-PROGRAM-PID.json). Other SHIM_* variables in the environment apply as\n"
                 "usual.\n\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        char flag[48];
        snprintf(flag, sizeof flag, "%c%c%s--%s%s%s", options[i].short_name ? '-' : ' ',
                 options[i].short_name ? options[i].short_name : ' ',
                 options[i].short_name ? ", " : "  ", options[i].name, options[i].arg ? " " : "",
                 options[i].arg ? options[i].arg : "");
        fprintf(out, "  %-26s %s (%s)\n", flag, options[i].help, options[i].var);
    }
    fprintf(out, "  %-26s %s\n", "-V, --version", "print shimrun's version and exit");
    fprintf(out,
            "  %-26s %s\n\n"
            "Documents:\n"
            "  " SHIM_DOC_DIR "/README.md: the quick start\n"
            "  " SHIM_DOC_DIR "/environment.md: each SHIM_* variable\n"
            "  " SHIM_DOC_DIR "/compiler-pass.md: the pass\n"
            "  " SHIM_DOC_DIR "/calling-contexts.md: contexts, SHIM_HOOKS, periods\n",
            "-h, --help", "this text");
}

/* Whether an output pattern names each process's own file: it has %p (not %%p). */
static int per_process(const char *pattern)
{
    for (const char *p = pattern; *p; p++)
        if (*p == '%' && (p[1] == 'p' || p[1] == '%') && *++p == 'p') return 1;
    return 0;
}

/* libshim.so beside shimrun's own install (../lib...), or where the build put it. */
static int find_library(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *candidates[] = {SHIMRUN_BUILD_LIB, SHIMRUN_INSTALLED_LIB};
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            int k = snprintf(out, len, "%s/%s", self, SHIMRUN_RELATIVE_LIB);
            if (k > 0 && (size_t)k < len && access(out, R_OK) == 0) return 0;
        }
    }
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (access(candidates[i], R_OK) == 0) return snprintf(out, len, "%s", candidates[i]), 0;
    return -1;
}

int main(int argc, char **argv)
{
    struct option longopts[NOPTIONS + 3];
    char shortopts[64] = "+hqV";
    for (size_t i = 0; i < NOPTIONS; i++) {
        longopts[i] =
            (struct option){options[i].name, options[i].arg != NULL, NULL, (int)(256 + i)};
        if (options[i].short_name && options[i].arg) {
            size_t k = strlen(shortopts);
            shortopts[k] = (char)options[i].short_name;
            shortopts[k + 1] = ':';
            shortopts[k + 2] = 0;
        }
    }
    longopts[NOPTIONS] = (struct option){"help", 0, NULL, 'h'};
    longopts[NOPTIONS + 1] = (struct option){"version", 0, NULL, 'V'};
    longopts[NOPTIONS + 2] = (struct option){NULL, 0, NULL, 0};
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'h') return usage(stdout), 0;
        if (c == 'V') {
            printf("shimrun %s (profile format version %d)\n", SHIM_TOOL_VERSION,
                   PROFILE_FORMAT_VERSION);
            return 0;
        }
        size_t i = NOPTIONS;
        if (c >= 256)
            i = (size_t)c - 256;
        else
            for (size_t k = 0; k < NOPTIONS; k++)
                if (options[k].short_name == c) i = k;
        if (i == NOPTIONS) {
            fprintf(stderr, "Try 'shimrun --help'.\n");
            return EXIT_USAGE;
        }
        setenv(options[i].var, options[i].arg ? optarg : "1", 1);
    }
    if (optind >= argc) {
        fprintf(stderr, "shimrun: no program to run\nTry 'shimrun --help'.\n");
        return EXIT_USAGE;
    }
    const char *children = getenv("SHIM_AUTOSTART_CHILDREN"), *out = getenv("SHIM_OUTPUT");
    if (children && !strcmp(children, "1") && out && !per_process(out)) {
        fprintf(stderr,
                "shimrun: --children: every program observed writes its own profile, and the "
                "output '%s' has no %%p (the pid) to keep them apart: each would replace the "
                "last; give one with %%p, e.g. -o 'shim-%%e-%%p.json'\n",
                out);
        return EXIT_USAGE;
    }
    char lib[PATH_MAX], preload[PATH_MAX + 4096];
    if (find_library(lib, sizeof lib) != 0) {
        fprintf(stderr, "shimrun: cannot find libshim.so (looked beside shimrun and in %s)\n",
                SHIMRUN_INSTALLED_LIB);
        return 127;
    }
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    setenv("LD_PRELOAD", preload, 1);
    setenv("SHIM_AUTOSTART", "1", 1);
    execvp(argv[optind], argv + optind);
    int err = errno;
    fprintf(stderr, "shimrun: cannot run %s: %s\n", argv[optind], strerror(err));
    return err == ENOENT ? 127 : 126;
}
