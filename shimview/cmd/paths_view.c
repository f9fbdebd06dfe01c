/*
 * paths_view.c -- `shimview paths` and `shimview path`: the Ball-Larus paths a program
 * built with the compiler pass was executing when it was sampled, and one path shown as
 * the blocks and source lines it runs through.
 *
 * A path number means nothing by itself: it is the sum of the vals of the edges the path
 * took, so both commands regenerate it from the function's table (paths.c) to say how
 * long the path is, which lines it covers and how it begins and ends. `paths` adds up
 * the profile's path entries across threads, one row per (function, path); `path`
 * prints one path block by block, with the text of its source lines when the file the
 * table names can be read, so a hot path reads as code.
 */
#include "shimview/analysis/calltree.h"
#include "shimview/analysis/intervals.h"
#include "shimview/cmd/commands.h"
#include "shimview/model/files.h"
#include "shimview/base/numbers.h"
#include "shimview/analysis/paths.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"
#include "shimview/model/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char paths_usage[] =
    "usage: shimview paths [--function NAME] [--sort KEY] [--rate NAME] [--top N | --all]\n"
    "                      [--csv | --json] (FILE | -)\n"
    "\n"
    "Print one row per Ball-Larus path that has samples (a program built with the\n"
    "compiler pass's path signal), largest first: the function, the path's number, its\n"
    "samples, their share of the attributed samples and of TSC time, each rate over their\n"
    "kept periods, the path's length in blocks, its source lines, and how it starts (at\n"
    "the function's entry or at a loop head) and ends (a return or a back edge). A first\n"
    "line says how many samples were resolved to a path, and how many were not.\n"
    "\n"
    "  -f, --function F  only the paths of function F (a name or 0xADDRESS)\n"
    "  -s, --sort KEY    the rows' order (keys: samples, time, function): samples (the\n"
    "                    default) or TSC time, largest first, or the function's name A\n"
    "                    to Z, then the path's number\n" VIEW_OPTIONS_USAGE("paths");

const char path_usage[] =
    "usage: shimview path (FILE | -) FUNCTION ID\n"
    "\n"
    "Regenerate path ID of FUNCTION (its name, or 0xADDRESS) from the table the compiler\n"
    "pass wrote for it, and print it: its samples and rates when the profile has any, then\n"
    "one line per block (index, name, source lines) with the text of those lines when the\n"
    "source file can be read. Try 'shimview paths FILE' for the paths with samples.\n"
    "\n"
    "  -h, --help   print this help\n";

static void entry_path_key(const struct profile_tag *t, const void *ctx, uint64_t *key)
{
    (void)ctx;
    key[0] = t->values[0];
    key[1] = t->values[1];
}

static const char *start_name(const struct path_walk *w)
{
    return w->from_loop_head ? "loop head" : "entry";
}

static const char *end_name(const struct path_walk *w)
{
    return w->to_back_edge ? "back edge" : "return";
}

/* ---- paths ---- */

static struct table *paths_table(const struct profile *p, long rate, int csv)
{
    static const char *const csv_heads[] = {
        "function", "module", "offset",     "path",      "samples", "share", "time_share",
        "blocks",   "file",   "first_line", "last_line", "start",   "end"};
    size_t r0, nr = view_rates_shown(p, rate, &r0), c = 0;
    size_t nh = csv ? sizeof csv_heads / sizeof csv_heads[0] : 9 + nr;
    struct table *t = view_table_new(nh + (csv ? 3 * nr : 0), 1);
    if (!t) return NULL;
    for (size_t i = 0; csv && i < nh; i++) /* function, module, file */
        if (i == 0 || i == 1 || i == 8) table_column_text(t, i);
    table_add_row(t);
    if (csv) {
        for (size_t i = 0; i < nh; i++)
            table_set(t, c++, "%s", csv_heads[i]);
        for (size_t r = r0; r < r0 + nr; r++) {
            table_set(t, c++, "rate_%s", p->rates[r].name);
            table_set(t, c++, "rate_ci95_%s", p->rates[r].name);
            table_set(t, c++, "n_%s", p->rates[r].name);
        }
    } else {
        static const char *const heads[] = {"function", "path", "samples", "share", "time"};
        static const char *const tail[] = {"blocks", "lines", "starts", "ends"};
        for (size_t i = 0; i < 5; i++)
            table_set(t, c++, "%s", heads[i]);
        for (size_t r = r0; r < r0 + nr; r++)
            table_set(t, c++, "%s", p->rates[r].name);
        for (size_t i = 0; i < 4; i++)
            table_set(t, c++, "%s", tail[i]);
    }
    table_end_header(t);
    return t;
}

/* The path's shape in columns c..: its length, lines, start and end (regenerated from
 * the function's table; blank without one). The room for blocks is the caller's. */
static size_t shape_cells(struct table *t, size_t c, const struct profile_function *fn, uint64_t id,
                          size_t *room, int csv)
{
    const struct profile_pass *f = fn ? fn->pass : NULL;
    struct path_walk w = {.blocks = room};
    if (!f || path_regenerate(f, id, &w) != PATH_WALK_OK) {
        if (f) table_set(t, c + 1, "%s", csv ? "" : "(does not regenerate)");
        return c + (csv ? 6 : 4);
    }
    uint64_t first, last;
    path_span(f, &w, &first, &last);
    const char *file = f->file ? pass_basename(f->file) : "line";
    table_set(t, c++, "%zu", w.nblocks);
    if (csv) {
        if (f->file) table_set(t, c, "%s", f->file);
        if (first) table_set(t, c + 1, "%" PRIu64, first);
        if (last) table_set(t, c + 2, "%" PRIu64, last);
        c += 3;
    } else if (first && first != last) {
        table_set(t, c++, "%s%s%" PRIu64 "-%" PRIu64, file, f->file ? ":" : " ", first, last);
    } else if (first) {
        table_set(t, c++, "%s%s%" PRIu64, file, f->file ? ":" : " ", first);
    } else {
        c++;
    }
    table_set(t, c++, "%s", start_name(&w));
    table_set(t, c++, "%s", end_name(&w));
    return c;
}

static void path_row(struct table *t, const struct profile *p, const struct entry_group *g,
                     long rate, int csv, size_t *room)
{
    const struct profile_function *fn = g->first->function;
    table_add_row(t);
    size_t c = pass_function_cells(t, 0, fn, g->key[0], csv);
    table_set(t, c++, "%" PRIu64, g->key[1]);
    c = pass_count_cells(t, c, p, &g->c, csv);
    if (csv) c = shape_cells(t, c, fn, g->key[1], room, csv);
    c = pass_rate_cells(t, c, p, rate, &g->c, csv);
    if (!csv) shape_cells(t, c, fn, g->key[1], room, csv);
}

static void paths_heading(const struct profile *p)
{
    const struct profile_paths *pp = &p->paths;
    uint64_t attributed = p->samples.total - p->samples.interrupted;
    char a[32], b[32], c[32], d[32], e[32], f[32];
    printf("paths: %s samples resolved to a path (%s of the attributed samples);\n"
           "not resolved: %s overwritten (the thread's ring of %s paths wrapped before they "
           "were read),\n%s pending (the path had not completed when observation stopped)",
           fmt_count(pp->resolved, a, sizeof a),
           stats_format_share(stats_fraction(pp->resolved, attributed), f, sizeof f),
           fmt_count(pp->overwritten, b, sizeof b), fmt_count(pp->ring, c, sizeof c),
           fmt_count(pp->pending, d, sizeof d));
    if (pp->pathless)
        printf(",\n%s in functions without path numbering (too many paths, or an indirect "
               "branch such as a\ncomputed goto, made the pass fall back: it says which at "
               "build time), in code built\nwithout the pass, or before the thread's first "
               "instrumented function: 'shimview functions'\nand 'shimview loops' have them",
               fmt_count(pp->pathless, e, sizeof e));
    printf("\n\n");
}

static void paths_notes(const struct profile *p)
{
    char a[32];
    printf("\npath: its Ball-Larus number in its function ('shimview path FILE FUNCTION ID' "
           "shows its blocks);\nsamples: taken while the path was executing (the path its "
           "thread completed next); shares of the\n%s attributed samples; time: share of TSC "
           "cycles; rates: over those samples' kept periods;\nstarts: at the function's entry "
           "or at a loop head after a back edge; ends: with a return or a back edge\n",
           fmt_count(p->samples.total - p->samples.interrupted, a, sizeof a));
    if (p->paths.has_other && p->paths.other.samples)
        printf("in other (the path table was full): %s samples\n",
               fmt_count(p->paths.other.samples, a, sizeof a));
}

/* A path's function and number, for --sort function. */
static const char *path_label(const struct entry_group *g, long by, char *buf, size_t len)
{
    (void)by;
    return pass_sort_label(g->first->function, g->key[0], g->key[1], buf, len);
}

static int print_paths(const struct profile *p, const struct view_options *o, long rate)
{
    const struct profile_function *only = NULL;
    size_t n, k = 0, room = 1;
    int rc = o->function ? pass_find_function(p, o->function, "paths", &only) : 0;
    if (rc) return rc;
    struct calltree_sums *block;
    struct entry_group *rows = entry_groups(p->paths.entries, p->paths.nentries, p->nrates,
                                            entry_path_key, NULL, &n, &block);
    for (size_t i = 0; i < p->nfunctions; i++)
        if (p->functions[i].pass && p->functions[i].pass->nblocks > room)
            room = p->functions[i].pass->nblocks;
    size_t *blocks = malloc(room * sizeof *blocks);
    if (!rows || !blocks) {
        free(rows);
        free(blocks);
        return -1;
    }
    for (size_t i = 0; i < n; i++) /* --function: its rows alone */
        if (!only || rows[i].key[0] == only->address) rows[k++] = rows[i];
    entry_groups_sort(rows, k, o->t.sort, path_label);
    size_t shown = view_rows_wanted(&o->t, k);
    if (!o->t.csv) paths_heading(p);
    struct table *t = paths_table(p, rate, o->t.csv);
    for (size_t i = 0; t && i < shown; i++)
        path_row(t, p, &rows[i], rate, o->t.csv, blocks);
    rc = !t ? -1 : match_table_print(t, stdout, &o->t);
    table_free(t);
    if (!o->t.csv) {
        match_note_hidden(k - shown);
        paths_notes(p);
    }
    free(rows);
    free(block);
    free(blocks);
    return rc;
}

int paths_main(int argc, char **argv)
{
    return pass_view_run(argc, argv, "paths", paths_usage, "f", PASS_VIEW_PATHS, print_paths);
}

/* ---- path ---- */

/* A source file's lines, read once. */
struct source {
    const char *given; /* the name the table gives; NULL: a free slot */
    char *path;        /* where it was looked for */
    char *text;
    size_t nlines;
    char **line; /* line[i] is line i + 1, its end a NUL */
    int err;     /* errno of the failed read, 0 when read */
};

#define MAX_SOURCES 8
#define MAX_SOURCE  (64L << 20) /* a larger file is not a source file to print */

/* Read s->given (where the profile names it) whole and cut it into lines: 0, or errno. */
static int source_read(struct source *s, const struct profile *p)
{
    FILE *f;
    long size = 0;
    if (!(s->path = profile_resolve_path(p, s->given, 1))) return ENOMEM;
    int err = 0;
    if (!(f = named_file_open(s->path, &err))) return err;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        err = errno ? errno : EIO;
    else if (size > MAX_SOURCE)
        err = EFBIG;
    else if (!(s->text = malloc((size_t)size + 1)))
        err = ENOMEM;
    else if (fread(s->text, 1, (size_t)size, f) != (size_t)size)
        err = EIO;
    fclose(f);
    if (err) return err;
    s->text[size] = '\0';
    size_t n = 1;
    for (long i = 0; i < size; i++)
        n += s->text[i] == '\n';
    if (!(s->line = malloc(n * sizeof *s->line))) return ENOMEM;
    s->line[s->nlines++] = s->text;
    for (char *c = s->text; (c = strchr(c, '\n')) != NULL;) {
        if (c > s->text && c[-1] == '\r') c[-1] = '\0';
        *c++ = '\0';
        s->line[s->nlines++] = c;
    }
    return 0;
}

/* The lines of file, read the first time it is asked for (the first MAX_SOURCES files). */
static struct source *source_get(struct source *cache, const struct profile *p, const char *file)
{
    for (size_t i = 0; i < MAX_SOURCES; i++) {
        if (!cache[i].given) {
            cache[i].given = file;
            cache[i].err = source_read(&cache[i], p);
            return &cache[i];
        }
        if (strcmp(cache[i].given, file) == 0) return &cache[i];
    }
    return NULL;
}

static void sources_free(struct source *cache)
{
    for (size_t i = 0; i < MAX_SOURCES; i++) {
        free(cache[i].path);
        free(cache[i].text);
        free(cache[i].line);
    }
}

/* A line of source as text, its number padded to width so the text lines up; control
 * characters but tabs shown as '?'. */
static void print_source_line(const char *file, uint64_t n, int width, const char *text)
{
    printf("    %s:%-*" PRIu64 " | ", pass_basename(file), width, n);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        putchar(*c < 0x20 && *c != '\t' ? '?' : *c);
    putchar('\n');
}

static void print_block(const struct profile *p, const struct profile_pass *f, size_t b, int width,
                        struct source *cache)
{
    const struct pass_block *blk = &f->blocks[b];
    const char *file = blk->file ? blk->file : f->file;
    printf("  block %zu%s%s%s: ", b, blk->name[0] ? " (" : "", blk->name, blk->name[0] ? ")" : "");
    if (blk->nlines == 0) {
        printf("no source line\n");
        return;
    }
    printf("%s%s%s", file ? pass_basename(file) : "", file ? " " : "",
           blk->nlines == 1 ? "line" : "lines");
    for (size_t i = 0; i < blk->nlines; i++)
        printf("%s %" PRIu64, i ? "," : "", blk->lines[i]);
    putchar('\n');
    struct source *s = file ? source_get(cache, p, file) : NULL;
    for (size_t i = 0; s && !s->err && i < blk->nlines; i++)
        if (blk->lines[i] >= 1 && blk->lines[i] <= s->nlines)
            print_source_line(file, blk->lines[i], width, s->line[blk->lines[i] - 1]);
}

/* The samples of path id of fn, added up across threads, and their rates, when any. */
static void print_samples(const struct profile *p, const struct profile_function *fn, uint64_t id,
                          struct calltree_sums *sums)
{
    struct calltree_count c = {.rates = sums};
    char a[32];
    for (size_t i = 0; p->has_paths && i < p->paths.nentries; i++) {
        const struct profile_tag *e = &p->paths.entries[i];
        if (e->values[0] == fn->address && e->values[1] == id)
            calltree_count_entry(&c, e, p->nrates);
    }
    if (!p->has_paths) {
        printf("samples: none (the profile has no paths)\n");
        return;
    }
    char s1[32], s2[32];
    printf("samples: %s (%s of the attributed samples, %s of TSC time)\n",
           fmt_count(c.samples, a, sizeof a),
           stats_format_share(stats_fraction(c.samples, p->samples.total - p->samples.interrupted),
                              s1, sizeof s1),
           stats_format_share(stats_fraction(c.cycles, profile_total_cycles(p)), s2, sizeof s2));
    for (size_t r = 0; c.samples && r < p->nrates; r++) {
        struct interval iv = calltree_rate_interval(p, r, &c.rates[r]);
        char v[64], h[64];
        if (isnan(calltree_rate(&c.rates[r]))) {
            printf("  %s: - (no kept period)\n", p->rates[r].name);
            continue;
        }
        interval_format(&iv, calltree_rate(&c.rates[r]), v, h, sizeof v);
        printf("  %s: %s", p->rates[r].name, v);
        if (!isnan(interval_half(&iv))) printf(" %s%s", h, interval_mark(iv.basis));
        printf(" %s (n %s)\n", p->rates[r].unit, fmt_count(c.rates[r].n, a, sizeof a));
    }
}

static void print_path(const struct profile *p, const struct profile_function *fn,
                       const struct path_walk *w, uint64_t id, struct calltree_sums *sums)
{
    const struct profile_pass *f = fn->pass;
    struct source cache[MAX_SOURCES] = {{0}};
    char name[256], where[256];
    uint64_t first, last;
    path_span(f, w, &first, &last);
    printf("path %" PRIu64 " of %s", id, calltree_function_label(fn, name, sizeof name));
    if (f->file) printf(" (%s:%" PRIu64 ")", pass_basename(f->file), f->line);
    printf(", one of %" PRIu64 ": %zu block%s", f->paths, w->nblocks, w->nblocks == 1 ? "" : "s");
    if (first) printf(", lines %" PRIu64 "-%" PRIu64, first, last);
    printf("\n");
    print_samples(p, fn, id, sums);
    const struct pass_loop *head = NULL;
    for (size_t i = 0; w->from_loop_head && i < f->nloops; i++)
        if (f->loops[i].header == w->blocks[0]) head = &f->loops[i];
    if (head && *pass_loop_where(f, head->loop, where, sizeof where))
        printf("starts: at the head of loop %" PRIu64 " (%s), after its back edge\n", head->loop,
               where);
    else if (head)
        printf("starts: at the head of loop %" PRIu64 ", after its back edge\n", head->loop);
    else
        printf("starts: %s\n",
               w->from_loop_head ? "at a loop head, after a back edge" : "at the function's entry");
    printf("ends: %s\n\n",
           w->to_back_edge ? "with a back edge (going round its loop)" : "with a return");
    for (size_t i = 0; i < w->nblocks; i++)
        print_block(p, f, w->blocks[i], snprintf(NULL, 0, "%" PRIu64, last), cache);
    for (size_t i = 0; i < MAX_SOURCES; i++)
        if (cache[i].err)
            printf("\n(source text not shown: %s: %s)\n",
                   cache[i].path ? cache[i].path : cache[i].given,
                   named_file_strerror(cache[i].err));
    sources_free(cache);
}

static int parse_id(const char *text, uint64_t *id)
{
    char *end;
    if (text[0] < '0' || text[0] > '9') return -1;
    errno = 0;
    *id = strtoull(text, &end, 10);
    return *end || errno ? -1 : 0;
}

int path_main(int argc, char **argv)
{
    char err[512];
    uint64_t id;
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(path_usage, stdout);
        return 0;
    }
    for (int i = 1; i < argc; i++) /* "-": standard input; "-1": a bad ID, said below */
        if (argv[i][0] == '-' && argv[i][1] && (argv[i][1] < '0' || argv[i][1] > '9'))
            return usage_error("path", "unknown option '%s'", argv[i]);
    if (argc != 4)
        return usage_error("path", "expects FILE FUNCTION ID, got %d argument%s", argc - 1,
                           argc == 2 ? "" : "s");
    if (parse_id(argv[3], &id))
        return usage_error("path", "ID expects a path number (0, 1, ...), not '%s'", argv[3]);
    struct profile *p = profile_open(argv[1], err, sizeof err);
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    const struct profile_function *fn;
    size_t *blocks = NULL;
    struct calltree_sums *sums = NULL;
    int rc = pass_find_function(p, argv[2], "path", &fn);
    if (rc == 0 && !fn->pass) {
        fprintf(stderr,
                "shimview: %s: %s has no table from the compiler pass (not built with it)\n",
                p->file, argv[2]);
        rc = EXIT_FILE_ERROR;
    }
    if (rc == 0 && (!(blocks = malloc((fn->pass->nblocks + 1) * sizeof *blocks)) ||
                    !(sums = calloc(p->nrates + 1, sizeof *sums)))) {
        fprintf(stderr, "shimview: %s: out of memory\n", p->file);
        rc = EXIT_FILE_ERROR;
    }
    if (rc == 0) {
        struct path_walk w = {.blocks = blocks};
        enum path_walk_result res = path_regenerate(fn->pass, id, &w);
        char name[256], why[512];
        path_walk_explain(why, sizeof why, fn->pass, calltree_function_label(fn, name, sizeof name),
                          id, res, &w);
        if (res == PATH_WALK_OK) {
            print_path(p, fn, &w, id, sums);
        } else if (res == PATH_WALK_OUT_OF_RANGE) {
            rc = usage_error("path", "%s", why);
        } else {
            fprintf(stderr, "shimview: %s: %s\n", p->file, why);
            rc = EXIT_FILE_ERROR;
        }
    }
    free(blocks);
    free(sums);
    profile_free(p);
    return rc;
}
