/*
 * export.c -- `shimview export`: a profile, or the trace it names, in a format other
 * tools read (the formats: export/).
 *
 * Output goes to standard output unless -o names a file, or a directory to write
 * STEM.<format's suffix> into (output_path: what -o means in every command); the file
 * reaches its path only when written whole, as plot's do (output.c). pprof is binary
 * and is not written to a terminal.
 */
#include "shimview/cmd/commands.h"
#include "shimview/analysis/intervals.h"
#include "shimview/analysis/between.h"
#include "shimview/export/export.h"
#include "shimview/base/output.h"
#include "shimview/render/plot.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char export_usage[] =
    "usage: shimview export --format FORMAT [-o PATH] [OPTIONS] PROFILE\n"
    "\n"
    "Write a profile, or the trace it names (SHIM_TRACE), in a format other tools read:\n"
    "  perfetto  the trace as Chrome/Perfetto trace-event JSON (ui.perfetto.dev,\n"
    "            chrome://tracing): a slice per run of one value on a track per tag\n"
    "            slot, a counter per rate, instant events where periods were dropped\n"
    "  pprof     the per-tag samples as a gzipped pprof protobuf (go tool pprof): each\n"
    "            tag tuple a stack of its slots' values (with a calling context: of\n"
    "            its context's functions, then the slots that vary), samples/count\n"
    "            and time/nanoseconds\n"
    "  folded    the same stacks as folded lines, 'frame;frame count' (flamegraph.pl,\n"
    "            inferno, speedscope)\n"
    "  csv       the trace as CSV: seq,start_ms,cycles,flags,thread, the tag slots, the\n"
    "            rates; one row per recorded sample period\n"
    "\n"
    "  -f, --format FORMAT   perfetto, pprof, folded or csv\n"
    "  -o, --output PATH     the file to write, or a directory (one that exists, or\n"
    "                        PATH ending in '/') to write STEM-perfetto.json,\n"
    "                        STEM.pb.gz, STEM.folded or STEM-trace.csv into, made when\n"
    "                        it does not exist (default: standard output; pprof is not\n"
    "                        written to a terminal)\n"
    "  -t, --trace FILE      perfetto, csv: read this trace instead of the profile's\n"
    "      --max-events N    perfetto: at most N counter events per rate (default: one\n"
    "                        per 10 us of trace time)\n"
    "      --value WHAT      folded: 'samples' (default) or 'time' (TSC cycles)\n"
    "      --tid TID         pprof, folded: only the samples of thread TID (again: of\n"
    "                        any of them)\n"
    "      --focus FUNCTION  pprof, folded: only the stacks that hold FUNCTION (again:\n"
    "                        any of them)\n"
    "      --ignore FUNCTION pprof, folded: leave out the stacks that hold FUNCTION\n"
    "                        (again: any of them)\n"
    "      --since EARLIER   pprof, folded: only the samples since EARLIER, an earlier\n"
    "                        profile of the same run (SHIM_SNAPSHOT): the interval\n"
    "                        between the two, for fleet profilers (pprof's labels say\n"
    "                        program, host, pid and the interval)\n"
    "  -h, --help            print this help\n";

struct format {
    const char *name;
    int needs_trace, binary;
    int (*write)(FILE *f, const struct export_ctx *x);
    const char *suffix; /* of the file -o DIR/ names after the profile */
};

static const struct format formats[] = {
    {"perfetto", 1, 0, export_perfetto, "-perfetto.json"},
    {"pprof", 0, 1, export_pprof, ".pb.gz"},
    {"folded", 0, 0, export_folded, ".folded"},
    {"csv", 1, 0, export_csv, "-trace.csv"},
};

static const struct format *find_format(const char *name)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(formats[i].name, name) == 0) return &formats[i];
    return NULL;
}

static int parse_options(int argc, char **argv, struct export_options *o,
                         struct filter_spec *filter)
{
    static const struct option options[] = {
        FILTER_LONG_OPTIONS,
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"trace", required_argument, NULL, 't'},
        {"max-events", required_argument, NULL, 'M'},
        {"value", required_argument, NULL, 'V'},
        {"since", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt, has_value = 0, has_max = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":f:o:t:h", options, NULL)) != -1) {
        int taken = filter_option("export", opt, filter);
        if (taken == EXIT_USAGE_ERROR) return taken;
        if (taken) continue;
        switch (opt) {
        case 'f':
            o->format = optarg;
            break;
        case 'o':
            if (!optarg[0]) return usage_error("export", "-o needs a file or a directory");
            o->output = optarg;
            break;
        case 't':
            if (!optarg[0]) return usage_error("export", "--trace needs a file");
            o->trace = optarg;
            break;
        case 'M':
            if (parse_count_option("export", "--max-events", optarg, &o->max_events))
                return EXIT_USAGE_ERROR;
            if (o->max_events == 0) return usage_error("export", "--max-events must be at least 1");
            has_max = 1;
            break;
        case 'V':
            if (strcmp(optarg, "samples") != 0 && strcmp(optarg, "time") != 0)
                return usage_error("export", "--value expects 'samples' or 'time', not '%s'",
                                   optarg);
            o->value_time = strcmp(optarg, "time") == 0;
            has_value = 1;
            break;
        case 'S':
            if (!optarg[0]) return usage_error("export", "--since needs a profile");
            o->since = optarg;
            break;
        case 'h':
            fputs(export_usage, stdout);
            return -1;
        default:
            return option_error("export", opt, argv);
        }
    }
    if (!o->format)
        return usage_error("export", "missing --format (perfetto, pprof, folded or csv)");
    const struct format *fmt = find_format(o->format);
    if (!fmt)
        return usage_error("export", "unknown format '%s' (formats: perfetto, pprof, folded, csv)",
                           o->format);
    if (has_value && strcmp(o->format, "folded") != 0)
        return usage_error("export", "--value applies to --format folded only");
    if (has_max && strcmp(o->format, "perfetto") != 0)
        return usage_error("export", "--max-events applies to --format perfetto only");
    if (o->since && fmt->needs_trace)
        return usage_error("export", "--since applies to pprof and folded, which read the tags");
    if (o->trace && !fmt->needs_trace)
        return usage_error("export", "--trace applies to perfetto and csv, which read the trace");
    if (filter_given(filter) && fmt->needs_trace)
        return usage_error("export", "--tid, --focus and --ignore apply to pprof and folded, "
                                     "whose stacks come from the profile");
    if (optind >= argc) return usage_error("export", "missing the PROFILE");
    if (optind + 1 < argc)
        return usage_error("export", "expects one PROFILE, got %d", argc - optind);
    o->file = argv[optind];
    return 0;
}

/* Write the export to the output the options name. 0, or EXIT_FILE_ERROR after a message,
 * leaving no partial file behind. */
static int write_output(const struct format *fmt, const struct export_ctx *x)
{
    char stem[256], name[300], *path = NULL;
    int to_stdout = !x->o->output || strcmp(x->o->output, "-") == 0;
    plot_file_stem(x->o->file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s%s", stem, fmt->suffix);
    if (!to_stdout && !(path = output_path(x->o->output, name))) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    if (to_stdout && fmt->binary && isatty(STDOUT_FILENO)) {
        fprintf(stderr,
                "shimview export: %s is binary: give -o FILE or redirect standard "
                "output\n",
                fmt->name);
        return EXIT_USAGE_ERROR;
    }
    struct output out;
    int rc = output_open(&out, to_stdout ? "-" : path);
    if (rc == 0) {
        rc = fmt->write(out.f, x); /* a failure has said why */
        if (output_close(&out, rc != 0) != 0 && rc == 0) rc = EXIT_FILE_ERROR;
    }
    if (rc == 0 && !to_stdout) printf("%s\n", path);
    free(path);
    return rc;
}

/* --since: p becomes the profile of the interval since the profile at path. 0, or
 * EXIT_FILE_ERROR after a message. */
static int subtract_since(struct profile *p, const char *path)
{
    char err[1024];
    struct profile *before = profile_load(path, err, sizeof err);
    if (!before) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    int rc = interval_subtract(p, before, err, sizeof err);
    if (rc != 0) fprintf(stderr, "shimview export: --since: %s\n", err);
    profile_free(before);
    return rc ? EXIT_FILE_ERROR : 0;
}

int export_main(int argc, char **argv)
{
    struct export_options o = {0};
    struct export_ctx x = {.o = &o};
    struct filter_spec filter = {0};
    struct profile *p = NULL, view;
    struct trace t;
    char err[512];
    int rc = parse_options(argc, argv, &o, &filter);
    if (rc) return rc < 0 ? 0 : rc;
    const struct format *fmt = find_format(o.format);
    if (fmt->needs_trace) {
        rc = trace_command_open(o.file, o.trace, &p, &x.ti, &t);
        if (rc) return rc;
        x.t = &t;
    } else if (!(p = profile_open(o.file, err, sizeof err))) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    } else if (o.since && (rc = subtract_since(p, o.since)) != 0) {
        profile_free(p);
        return rc;
    } else if (!(x.slot_frame = export_slot_frames(p))) {
        fprintf(stderr, "shimview: out of memory\n");
        profile_free(p);
        return EXIT_FILE_ERROR;
    }
    /* the stacks' frames are the whole profile's (slot_frame); their samples the filter's */
    if (!x.t && (rc = filter_apply(p, &filter, "export", &view)) != 0) {
        free(x.slot_frame);
        profile_free(p);
        return rc;
    }
    x.p = x.t ? p : &view;
    rc = write_output(fmt, &x);
    if (x.t) trace_close(x.t);
    if (!x.t) filter_view_free(p, &view);
    free(x.slot_frame);
    profile_free(p);
    return rc;
}
