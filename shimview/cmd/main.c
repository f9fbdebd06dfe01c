/*
 * main.c -- shimview's command line: global options, then one command from a table.
 *
 *     shimview [--help | --version] COMMAND [OPTIONS] FILE...
 *
 * Every command is a row {name, summary, usage, function}; `--help`, `help CMD` and
 * `CMD --help` all print the row's usage, and the command list in `--help` is the
 * table itself, so a new command (plot, compare, html, export, tree, path) is one row.
 * Global options stop at the first non-option (getopt "+"), so each command sees its
 * own options. Mistakes on the command line cost one line plus a hint and status 2.
 */
#include "shimview/cmd/commands.h"
#include "shimview/model/demangle.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
    const char *name;
    const char *summary;
    const char *usage;
    int (*run)(int argc, char **argv);
};

static int help_main(int argc, char **argv);

static const char help_usage[] = "usage: shimview help [COMMAND]\n"
                                 "\n"
                                 "Print the usage of COMMAND, or the list of commands.\n";

static const struct command commands[] = {
    {"report", "print a profile's per-tag samples, shares and rates", report_usage, report_main},
    {"plot", "draw rate distributions and sampling quality as SVG files", plot_usage, plot_main},
    {"html", "write the report and the figures as one self-contained HTML page", html_usage,
     html_main},
    {"compare", "compare two profiles tag by tag, with intervals on the differences", compare_usage,
     compare_main},
    {"merge", "per-tag means over runs of one configuration, with intervals", merge_usage,
     merge_main},
    {"timeline", "draw a rate and the tags over time from the profile's trace (SVG)",
     timeline_usage, timeline_main},
    {"export", "write the trace or the tag stacks as perfetto, pprof, folded or csv", export_usage,
     export_main},
    {"top", "what a running program does now, from the profile its snapshots rewrite", top_usage,
     top_main},
    {"functions", "per function: exclusive and inclusive samples and rates (calling context)",
     functions_usage, functions_main},
    {"threads", "per thread: samples, shares and rates; other processes and idle", threads_usage,
     threads_main},
    {"contexts", "per calling context: its path, samples, shares and rates", contexts_usage,
     contexts_main},
    {"tree", "the calling-context tree top down, or a function's callers, in the terminal",
     tree_usage, tree_main},
    {"flame", "the calling contexts as a flame graph, or two profiles' difference (SVG)",
     flame_usage, flame_main},
    {"loops", "per loop (compiler pass): samples, shares and rates, with source lines", loops_usage,
     loops_main},
    {"paths", "per Ball-Larus path (compiler pass): samples, rates, length and source span",
     paths_usage, paths_main},
    {"path", "one path of a function regenerated: its blocks and source lines", path_usage,
     path_main},
    {"help", "print the usage of shimview or of one command", help_usage, help_main},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[NCOMMANDS], *near;
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i].name;
    if ((near = usage_nearest(name, names, NCOMMANDS)) != NULL)
        return usage_error(NULL, "unknown command '%s'; did you mean '%s'?", name, near);
    fprintf(stderr, "shimview: unknown command '%s' (commands:", name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(stderr, " %s", commands[i].name);
    fprintf(stderr, ")\nTry 'shimview --help'.\n");
    return EXIT_USAGE_ERROR;
}

static void print_main_usage(FILE *out)
{
    fputs("usage: shimview [--help | --version] COMMAND [OPTIONS] FILE\n"
          "\n"
          "Read shim profiles (" SHIM_DOC_DIR "/profile-format.md) and turn them into\n"
          "reports.\n"
          "\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n"
          "'shimview help COMMAND' or 'shimview COMMAND --help' shows a command's options.\n"
          "Every command also takes --no-demangle: C++ functions keep their symbols as the\n"
          "binary has them (_ZN5shape4areaEv) instead of their source names (shape::area()).\n"
          "Exit status: 0 success, 1 unreadable or invalid file, 2 bad command line.\n",
          out);
}

static int help_main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help_usage, stdout);
        return 0;
    }
    if (argc > 2) return usage_error("help", "expects at most one command name");
    if (argc == 1) {
        print_main_usage(stdout);
        return 0;
    }
    const struct command *c = find_command(argv[1]);
    if (!c) return unknown_command(argv[1]);
    fputs(c->usage, stdout);
    return 0;
}

/* --no-demangle is every command's option (demangle.h): taken out of the command's
 * arguments, up to a "--", before the command parses the rest. */
static int take_no_demangle(int argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < argc)
                argv[kept++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--no-demangle") == 0)
            demangle_names = 0;
        else
            argv[kept++] = argv[i];
    }
    argv[kept] = NULL;
    return kept;
}

static int finish(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("shimview: writing the output");
        return status ? status : EXIT_FILE_ERROR;
    }
    return status;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+:hV", options, NULL)) != -1) {
        switch (opt) {
        case 'h':
            print_main_usage(stdout);
            return finish(0);
        case 'V':
            printf("shimview %s (profile format version %d)\n", SHIMVIEW_VERSION,
                   PROFILE_FORMAT_VERSION);
            return finish(0);
        default:
            return option_error(NULL, opt, argv);
        }
    }
    if (optind >= argc) {
        print_main_usage(stderr);
        return EXIT_USAGE_ERROR;
    }
    const struct command *c = find_command(argv[optind]);
    if (!c) return unknown_command(argv[optind]);
    argc -= optind;
    argv += optind;
    argc = take_no_demangle(argc, argv);
    optind = 0; /* glibc: reinitialise getopt for the command's own parse */
    return finish(c->run(argc, argv));
}
