/*
 * export.c -- a profile, or the trace it names, in a format other tools read (the
 * formats of `shimview export`, whose command line is cmd/export.c):
 *
 *   perfetto  the trace as Chrome/Perfetto trace-event JSON: a slice per run of one tag
 *             value, a track per slot, counters for the rates, marks for drops
 *             (export_perfetto.c)
 *   pprof     the per-tag samples as a gzipped pprof protobuf (export_pprof.c)
 *   folded    the per-tag samples as folded stacks, "frame;frame count", for flame
 *             graphs (flamegraph.pl, inferno, speedscope)
 *   csv       the trace's records as CSV, one row per sample period
 *
 * pprof and folded need only the profile: a tag tuple is a stack whose frames are its
 * slots' values, the lowest slot outermost, so a phase tag in slot 0 and a loop tag in
 * slot 1 draw loops inside phases. A calling-context profile has real stacks: the path
 * of the context slot 9 named, from the root's child to the leaf, with the program's own
 * slots after it when they tell entries apart (a slot that never changed, such as slot
 * 0 of a program that never writes it, would only add a frame to every stack). The
 * reserved slots' raw values are never frames. The trace formats stream: a record is
 * written (or folded into a slice or a counter bin) as it is read, so a trace of any
 * length exports in constant memory.
 *
 * This file holds the stacks pprof and folded share, and the folded and csv writers.
 */
#include "shimview/analysis/calltree.h"
#include "shimview/export/export.h"
#include "shimview/model/profile_threads.h"
#include "shimview/base/table.h"
#include "shimview/analysis/tags.h"
#include "shimview/base/usage.h"
#include "shimview/analysis/value_names.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- stacks ---- */

/* Room for n frames and a path of n nodes; -1 if memory ran out. */
static int stack_reserve(struct export_stack *s, size_t n)
{
    if (n <= s->cap) return 0;
    size_t cap = s->cap ? s->cap : 16;
    while (cap < n)
        cap *= 2;
    struct export_frame *frames = realloc(s->frames, cap * sizeof *frames);
    if (frames) s->frames = frames;
    size_t *nodes = frames ? realloc(s->nodes, cap * sizeof *nodes) : NULL;
    if (nodes) s->nodes = nodes;
    if (!frames || !nodes) return -1;
    s->cap = cap;
    return 0;
}

/* The next frame, named by a string that outlives the stack (or by its buf later). */
static struct export_frame *push(struct export_stack *s, const char *name,
                                 const struct profile_function *fn)
{
    struct export_frame *f = &s->frames[s->n++];
    f->name = name;
    f->function = fn;
    return f;
}

/* A calling context's frames: its path's functions, or the root's or overflow's name. */
static void context_frames(const struct profile_tag *t, struct export_stack *s)
{
    const struct profile_cct_thread *th = t->context_thread;
    size_t node = th ? t->context_node : 0;
    if (node == 0) {
        push(s, CALLTREE_ROOT_NAME, NULL);
        return;
    }
    size_t d = calltree_path_nodes(th, node, s->nodes);
    for (size_t k = 0; k < d; k++) {
        const struct profile_function *fn = th->nodes[s->nodes[k]].function;
        struct export_frame *f = push(s, NULL, fn);
        f->name = fn ? calltree_function_label(fn, f->buf, sizeof f->buf) : CALLTREE_OVERFLOW_NAME;
    }
}

int export_stack(const struct export_ctx *x, const struct profile_tag *t, struct export_stack *s)
{
    const struct profile *p = x->p;
    int cct = p->has_cct && !t->is_other;
    size_t depth =
        cct && t->context_thread ? calltree_depth(t->context_thread, t->context_node) : 0;
    s->n = 0;
    if (stack_reserve(s, depth + p->signals.ntags + 1)) return -1;
    const char *group = thread_group_name(tag_thread_group(p, t)); /* no tags of the program */
    if (t->is_other || group || (!cct && t->nvalues == 0)) {
        push(s, t->is_other ? "other" : group ? group : "(untagged)", NULL);
        return 0;
    }
    if (cct) context_frames(t, s);
    for (size_t i = 0; i < t->nvalues; i++) {
        if (!x->slot_frame[i]) continue;
        struct export_frame *f = push(s, t->names[i], NULL);
        if (!f->name) { /* a loop (slot 10) by its function and line, as the report names it */
            char *reserved = tag_value_name(p, t, i);
            f->name = tag_value_label(p->signals.tags[i].name, reserved, t->values[i], f->buf,
                                      sizeof f->buf);
            free(reserved);
        }
    }
    return 0;
}

void export_stack_free(struct export_stack *s)
{
    free(s->frames);
    free(s->nodes);
}

unsigned char *export_slot_frames(const struct profile *p)
{
    size_t ns = p->signals.ntags;
    unsigned char *frame = malloc(ns ? ns : 1);
    if (!frame) return NULL;
    for (size_t i = 0; i < ns; i++) {
        frame[i] = !p->has_cct;
        if (!p->has_cct || i == p->cct.method_tag || i == p->cct.cct_tag) continue;
        for (size_t k = 1; k < p->ntags && !frame[i]; k++)
            frame[i] = p->tags[k].values[i] != p->tags[0].values[i];
    }
    return frame;
}

/* ---- folded ---- */

struct folded_line {
    char *stack;
    uint64_t value;
};

static int by_stack(const void *a, const void *b)
{
    return strcmp(((const struct folded_line *)a)->stack, ((const struct folded_line *)b)->stack);
}

static int by_value_desc(const void *a, const void *b)
{
    const struct folded_line *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    return strcmp(x->stack, y->stack);
}

/* Entry t's stack as one line's frames: ';' separates frames and the last space the
 * count, so a ';' or a line break inside a name becomes '_'. NULL if memory ran out. */
static char *folded_stack(const struct export_ctx *x, const struct profile_tag *t,
                          struct export_stack *st)
{
    char *s = NULL;
    size_t len = 0;
    if (export_stack(x, t, st) != 0) return NULL;
    FILE *m = open_memstream(&s, &len);
    if (!m) return NULL;
    for (size_t i = 0; i < st->n; i++) {
        if (i > 0) fputc(';', m);
        for (const char *c = st->frames[i].name; *c; c++)
            fputc(*c == ';' || *c == '\n' || *c == '\r' ? '_' : *c, m);
    }
    if (fclose(m) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* One line per stack with samples; entries of one tuple in several threads are added
 * up, since a flame graph has no thread. Largest first. */
int export_folded(FILE *f, const struct export_ctx *x)
{
    const struct profile *p = x->p;
    struct folded_line *lines = calloc(p->ntags + 1, sizeof *lines);
    struct export_stack st = {0};
    size_t n = 0, u = 0;
    int rc = 0;
    if (!lines) goto oom;
    for (size_t i = 0; i <= p->ntags; i++) {
        const struct profile_tag *t = i < p->ntags ? &p->tags[i] : &p->other;
        uint64_t v = x->o->value_time ? t->cycles : t->samples;
        if (v == 0) continue;
        lines[n].value = v;
        if (!(lines[n++].stack = folded_stack(x, t, &st))) goto oom;
    }
    qsort(lines, n, sizeof *lines, by_stack);
    for (size_t i = 0; i < n; i++) {
        if (u > 0 && strcmp(lines[u - 1].stack, lines[i].stack) == 0) {
            lines[u - 1].value += lines[i].value;
            free(lines[i].stack);
        } else {
            lines[u++] = lines[i];
        }
    }
    qsort(lines, u, sizeof *lines, by_value_desc);
    for (size_t i = 0; i < u; i++)
        fprintf(f, "%s %" PRIu64 "\n", lines[i].stack, lines[i].value);
    n = u;
    goto done;
oom:
    fprintf(stderr, "shimview: out of memory\n");
    rc = EXIT_FILE_ERROR;
done:
    for (size_t i = 0; lines && i < n; i++)
        free(lines[i].stack);
    free(lines);
    export_stack_free(&st);
    return rc;
}

/* ---- csv ---- */

/* The header row, quoted by table.c as report's CSV is, since slot and rate names are
 * the program's. */
static int csv_header(FILE *f, const struct profile *p)
{
    static const char *const fixed[TRACE_FIXED_WORDS] = {"seq", "start_ms", "cycles", "flags",
                                                         "thread"};
    size_t ncols = TRACE_FIXED_WORDS + p->signals.ntags + p->nrates, col = 0;
    enum table_align *align = calloc(ncols, sizeof *align);
    struct table *t = align ? table_new(ncols, align) : NULL;
    int rc = -1;
    free(align);
    if (!t) return -1;
    table_add_row(t);
    for (size_t i = 0; i < TRACE_FIXED_WORDS; i++)
        table_set(t, col++, "%s", fixed[i]);
    for (size_t i = 0; i < p->signals.ntags; i++)
        table_set(t, col++, "%s", p->signals.tags[i].name);
    for (size_t i = 0; i < p->nrates; i++)
        table_set(t, col++, "%s", p->rates[i].name);
    rc = table_print_csv(t, f);
    table_free(t);
    return rc;
}

int export_csv(FILE *f, const struct export_ctx *x)
{
    struct trace *t = x->t;
    struct trace_record r;
    char err[512];
    int rc;
    if (csv_header(f, x->p) != 0) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    while ((rc = trace_next(t, &r, err, sizeof err)) == 1 && !ferror(f)) {
        double ms = trace_seconds(t, (double)(int64_t)(r.start - t->t0)) * 1e3;
        fprintf(f, "%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64, r.seq, ms, r.cycles,
                r.flags, r.thread);
        for (size_t i = 0; i < t->n_tags; i++)
            fprintf(f, ",%" PRIu64, r.tags[i]);
        for (size_t i = 0; i < t->n_rates; i++)
            if (isfinite(r.rates[i]))
                fprintf(f, ",%.10g", r.rates[i]);
            else
                fputc(',', f);
        fputc('\n', f);
    }
    if (rc < 0) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    return 0;
}
