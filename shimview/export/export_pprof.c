/*
 * export_pprof.c -- `shimview export --format pprof`: the per-tag samples of a profile as
 * a pprof profile (gzipped protocol buffer), for `go tool pprof` and the tools that read
 * its format.
 *
 * Each tag entry with samples is one Sample whose stack is export_stack()'s (pprof lists
 * a stack leaf first, so the location ids are written in reverse); `other` is the one
 * frame "other". Without a calling context a frame is a tag value: a Function named as
 * `report` names the value (its name, else "slot=value") with one Location of its own,
 * shared by every stack it appears in, so pprof's views add a value's samples across
 * tuples. With one, the stack is the context's path and each frame a real function: a
 * Function with its symbol and its module's path as file name, and a Location at the
 * function's offset in its module (the address `nm` prints, the same in every run) in a
 * Mapping for the module (file name, build id, functions already named), so pprof's
 * views show functions as they show those of any native profile. Each sample has two
 * values, `samples/count` and `time/nanoseconds` (the entry's TSC cycles at the profile's
 * calibrated frequency), and labels: `thread`, the thread word, which keeps tuples seen
 * in two threads apart, then what a fleet profiler files the profile under and when
 * (docs/long-running.md): `program` and `host` (strings), `pid`, and `interval_start`
 * and `interval_end` (Unix time in nanoseconds: the run's span, or with `--since` the
 * interval between two snapshots, which the profile's time and duration give too).
 *
 * The message is built in memory with the structs protobuf-c generates from pprof.proto
 * (this directory; only the fields written here), packed by protobuf-c and compressed
 * with zlib in the gzip framing pprof expects. Strings are interned in a hash table
 * (open addressing, base/hash.h, sized for every frame), a frame that is no function finds its
 * location through its name's string index, and a function's through its index in the profile, so
 * a profile of a million tag entries exports in linear time; a module's mapping is found
 * by a linear search over the few modules.
 */
#include "shimview/base/hash.h"
#include "shimview/base/usage.h"
#include "shimview/export/export.h"
#include "shimview/export/pprof.pb-c.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Labels on every sample: thread, program, host, pid, interval_start, interval_end. */
enum { LABEL_THREAD, LABEL_PROGRAM, LABEL_HOST, LABEL_PID, LABEL_START, LABEL_END, SAMPLE_LABELS };
static const char *const label_names[SAMPLE_LABELS] = {"thread", "program",        "host",
                                                       "pid",    "interval_start", "interval_end"};

struct builder {
    const struct export_ctx *x;
    char **strings;
    size_t nstrings, cap;
    size_t *index, mask;       /* open addressing: a string's index + 1, 0 empty */
    uint64_t *string_location; /* per string: the location of the frame so named, or 0 */
    size_t nfunctions;         /* == locations; ids are index + 1 */
    Pprof__Function *functions, **function_ptrs;
    Pprof__Location *locations, **location_ptrs;
    Pprof__Line *lines, **line_ptrs;
    const struct profile_function **fn_of; /* per location: the function it is, or NULL */
    uint64_t *fn_location;                 /* per profile function: its location id, or 0 */
    size_t nmappings;                      /* ids are index + 1 */
    Pprof__Mapping *mappings, **mapping_ptrs;
    uint64_t *module_mapping; /* per module: its mapping id, or 0 */
    size_t nsamples;
    Pprof__Sample *samples, **sample_ptrs;
    Pprof__Label *labels, **label_ptrs; /* SAMPLE_LABELS per sample */
    int64_t label_key[SAMPLE_LABELS], program, host, nanoseconds;
    uint64_t *location_ids;
    int64_t *values;
    int failed;
};

/* The index of s in the string table, added if new; 0 ("") after a memory failure. */
static int64_t intern(struct builder *b, const char *s)
{
    if (b->failed) return 0;
    size_t slot = hash_string(s) & b->mask;
    for (; b->index[slot]; slot = (slot + 1) & b->mask)
        if (strcmp(b->strings[b->index[slot] - 1], s) == 0) return (int64_t)b->index[slot] - 1;
    if (b->nstrings >= b->mask / 2) goto oom; /* sized for every string: cannot be */
    if (b->nstrings == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        char **grown = realloc(b->strings, cap * sizeof *grown);
        uint64_t *loc = grown ? realloc(b->string_location, cap * sizeof *loc) : NULL;
        if (grown) b->strings = grown;
        if (!loc) goto oom;
        b->string_location = loc;
        b->cap = cap;
    }
    if (!(b->strings[b->nstrings] = strdup(s))) goto oom;
    b->string_location[b->nstrings] = 0;
    b->index[slot] = b->nstrings + 1;
    return (int64_t)b->nstrings++;
oom:
    b->failed = 1;
    return 0;
}

/* A new Function named name (a string table index) and its Location; its index. */
static size_t new_location(struct builder *b, int64_t name)
{
    size_t i = b->nfunctions++;
    pprof__function__init(&b->functions[i]);
    b->functions[i].id = i + 1;
    b->functions[i].name = b->functions[i].system_name = name;
    b->function_ptrs[i] = &b->functions[i];
    pprof__line__init(&b->lines[i]);
    b->lines[i].function_id = i + 1;
    b->line_ptrs[i] = &b->lines[i];
    pprof__location__init(&b->locations[i]);
    b->locations[i].id = i + 1;
    b->locations[i].n_line = 1;
    b->locations[i].line = &b->line_ptrs[i];
    b->location_ptrs[i] = &b->locations[i];
    return i;
}

/* The location id of the frame named name that is no function: made on first use. */
static uint64_t location_for(struct builder *b, const char *name)
{
    int64_t idx = intern(b, name);
    if (b->failed) return 0;
    if (!b->string_location[idx]) b->string_location[idx] = b->locations[new_location(b, idx)].id;
    return b->string_location[idx];
}

/* The mapping id of function f's module, made on first use and widened to hold f. */
static uint64_t mapping_for(struct builder *b, const struct profile_function *f)
{
    const struct profile *p = b->x->p;
    size_t m = 0;
    while (m < p->nmodules && strcmp(p->modules[m].path, f->module) != 0)
        m++; /* the loader checked that some module has this path */
    if (!b->module_mapping[m]) {
        Pprof__Mapping *map = &b->mappings[b->nmappings];
        pprof__mapping__init(map);
        map->id = ++b->nmappings;
        /* Locations hold offsets in the module, so the module starts at 0. */
        map->filename = intern(b, p->modules[m].path);
        map->build_id = intern(b, p->modules[m].build_id);
        map->has_functions = 1;
        b->mapping_ptrs[map->id - 1] = map;
        b->module_mapping[m] = map->id;
    }
    Pprof__Mapping *map = &b->mappings[b->module_mapping[m] - 1];
    if (f->offset >= map->memory_limit) map->memory_limit = f->offset + 1;
    return map->id;
}

/* The location id of function f: made on first use. */
static uint64_t location_for_function(struct builder *b, const struct profile_function *f,
                                      const char *label)
{
    size_t k = (size_t)(f - b->x->p->functions);
    if (b->fn_location[k]) return b->fn_location[k];
    size_t i = new_location(b, intern(b, label));
    b->fn_of[i] = f;
    if (f->symbol) b->functions[i].system_name = intern(b, f->symbol); /* as the binary has it */
    b->locations[i].address = f->offset;
    if (f->module) {
        b->functions[i].filename = intern(b, f->module);
        b->locations[i].mapping_id = mapping_for(b, f);
    }
    return b->fn_location[k] = b->locations[i].id;
}

static void add_sample(struct builder *b, const struct profile_tag *t,
                       const struct export_stack *st, uint64_t *ids)
{
    const struct export_ctx *x = b->x;
    size_t depth = st->n, k = b->nsamples++;
    for (size_t i = 0; i < depth; i++) { /* leaf first */
        const struct export_frame *f = &st->frames[i];
        ids[depth - 1 - i] =
            f->function ? location_for_function(b, f->function, f->name) : location_for(b, f->name);
    }
    Pprof__Sample *s = &b->samples[k];
    pprof__sample__init(s);
    s->n_location_id = depth;
    s->location_id = ids;
    s->n_value = 2;
    s->value = &b->values[2 * k];
    s->value[0] = (int64_t)t->samples;
    s->value[1] = (int64_t)llround((double)t->cycles / x->p->machine.tsc_hz * 1e9);
    Pprof__Label *l = &b->labels[k * SAMPLE_LABELS];
    for (size_t i = 0; i < SAMPLE_LABELS; i++) {
        pprof__label__init(&l[i]);
        l[i].key = b->label_key[i];
        b->label_ptrs[k * SAMPLE_LABELS + i] = &l[i];
    }
    const struct profile_run *run = &x->p->run;
    l[LABEL_THREAD].num = (int64_t)t->thread;
    l[LABEL_PROGRAM].str = b->program;
    l[LABEL_HOST].str = b->host;
    l[LABEL_PID].num = (int64_t)x->p->program.pid;
    l[LABEL_START].num = (int64_t)run->start_unix_ns;
    l[LABEL_END].num = (int64_t)(run->start_unix_ns + run->duration_ns);
    l[LABEL_START].num_unit = l[LABEL_END].num_unit = b->nanoseconds;
    s->n_label = SAMPLE_LABELS;
    s->label = &b->label_ptrs[k * SAMPLE_LABELS];
    b->sample_ptrs[k] = s;
}

static int builder_alloc(struct builder *b, size_t entries, size_t frames)
{
    const struct profile *p = b->x->p;
    frames = frames ? frames : 1;
    b->functions = calloc(frames, sizeof *b->functions);
    b->function_ptrs = calloc(frames, sizeof *b->function_ptrs);
    b->locations = calloc(frames, sizeof *b->locations);
    b->location_ptrs = calloc(frames, sizeof *b->location_ptrs);
    b->lines = calloc(frames, sizeof *b->lines);
    b->line_ptrs = calloc(frames, sizeof *b->line_ptrs);
    b->fn_of = calloc(frames, sizeof *b->fn_of);
    b->location_ids = calloc(frames, sizeof *b->location_ids);
    b->fn_location = calloc(p->nfunctions + 1, sizeof *b->fn_location);
    b->mappings = calloc(p->nmodules + 1, sizeof *b->mappings);
    b->mapping_ptrs = calloc(p->nmodules + 1, sizeof *b->mapping_ptrs);
    b->module_mapping = calloc(p->nmodules + 1, sizeof *b->module_mapping);
    b->samples = calloc(entries, sizeof *b->samples);
    b->sample_ptrs = calloc(entries, sizeof *b->sample_ptrs);
    b->labels = calloc(entries * SAMPLE_LABELS, sizeof *b->labels);
    b->label_ptrs = calloc(entries * SAMPLE_LABELS, sizeof *b->label_ptrs);
    b->values = calloc(2 * entries, sizeof *b->values);
    return b->functions && b->function_ptrs && b->locations && b->location_ptrs && b->lines &&
                   b->line_ptrs && b->fn_of && b->location_ids && b->fn_location && b->mappings &&
                   b->mapping_ptrs && b->module_mapping && b->samples && b->sample_ptrs &&
                   b->labels && b->label_ptrs && b->values
               ? 0
               : -1;
}

static void builder_free(struct builder *b)
{
    for (size_t i = 0; i < b->nstrings; i++)
        free(b->strings[i]);
    free(b->strings);
    free(b->string_location);
    free(b->index);
    free(b->functions);
    free(b->function_ptrs);
    free(b->locations);
    free(b->location_ptrs);
    free(b->lines);
    free(b->line_ptrs);
    free(b->fn_of);
    free(b->location_ids);
    free(b->fn_location);
    free(b->mappings);
    free(b->mapping_ptrs);
    free(b->module_mapping);
    free(b->samples);
    free(b->sample_ptrs);
    free(b->labels);
    free(b->label_ptrs);
    free(b->values);
}

/* The comment lines pprof shows with the profile: whose run, how to read a stack, and
 * which span of it the samples are. */
static void comments(struct builder *b, int64_t *out)
{
    const struct profile *p = b->x->p;
    char *slots = NULL, *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&slots, &len);
    if (m) {
        for (size_t i = 0; i < p->signals.ntags; i++)
            fprintf(m, "%s%s", i ? ", " : "", p->signals.tags[i].name);
        fclose(m);
    }
    if (asprintf(&text, "shim profile of %s (pid %" PRIu64 ") from %s", p->program.name,
                 p->program.pid, p->file) >= 0)
        out[0] = intern(b, text);
    free(text);
    text = NULL;
    int n = p->has_cct ? asprintf(&text,
                                  "a stack per tag tuple: the functions of its calling "
                                  "context (slot %s), outermost first, then the values of "
                                  "the slots that vary of %s",
                                  p->signals.tags[p->cct.cct_tag].name,
                                  slots && slots[0] ? slots : "(no slots)")
                       : asprintf(&text,
                                  "a stack per tag tuple, one frame per tag slot, outermost "
                                  "first: %s",
                                  slots && slots[0] ? slots : "(no slots)");
    if (n >= 0) out[1] = intern(b, text);
    free(text);
    free(slots);
    text = NULL;
    const struct profile_run *run = &p->run;
    if (asprintf(&text,
                 "samples from %" PRIu64 " to %" PRIu64 " ns since the Unix epoch (%.3f s) on %s%s",
                 run->start_unix_ns, run->start_unix_ns + run->duration_ns,
                 (double)run->duration_ns * 1e-9, p->machine.hostname ? p->machine.hostname : "?",
                 b->x->o->since ? ", the interval since the profile --since named" : "") >= 0)
        out[2] = intern(b, text);
    free(text);
}

/* Pack the profile and gzip it into f. 0, or -1 if memory ran out. */
static int write_gzipped(FILE *f, const Pprof__Profile *prof)
{
    size_t len = pprof__profile__get_packed_size(prof);
    uint8_t *raw = malloc(len ? len : 1), *gz = NULL;
    z_stream zs = {0};
    int rc = -1;
    if (!raw) return -1;
    pprof__profile__pack(prof, raw);
    /* windowBits 15 + 16: the gzip header and trailer around the deflate stream; the
     * fastest level, as Go's runtime/pprof writes its profiles: level 9 took 100 s at a
     * million entries for no smaller a file */
    if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        goto done;
    uLong bound = deflateBound(&zs, (uLong)len) + 32;
    if (!(gz = malloc(bound))) goto end;
    zs.next_in = raw;
    zs.avail_in = (uInt)len;
    zs.next_out = gz;
    zs.avail_out = (uInt)bound;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) goto end;
    fwrite(gz, 1, bound - zs.avail_out, f);
    rc = 0;
end:
    deflateEnd(&zs);
done:
    free(gz);
    free(raw);
    return rc;
}

/* The frames of every sample's stack together: the most locations there can be. -1 if
 * memory ran out. */
static long count_frames(const struct export_ctx *x, struct export_stack *st)
{
    const struct profile *p = x->p;
    size_t frames = 0;
    for (size_t i = 0; i <= p->ntags; i++) {
        const struct profile_tag *t = i < p->ntags ? &p->tags[i] : &p->other;
        if (t->samples == 0) continue;
        if (export_stack(x, t, st) != 0) return -1;
        frames += st->n;
    }
    return (long)frames;
}

int export_pprof(FILE *f, const struct export_ctx *x)
{
    const struct profile *p = x->p;
    struct builder b = {.x = x};
    struct export_stack st = {0};
    size_t entries = p->ntags + 1;
    Pprof__ValueType types[2], period_type, *type_ptrs[2] = {&types[0], &types[1]};
    Pprof__Profile prof;
    int64_t comment[3] = {0, 0, 0};
    int rc = -1;
    long frames = count_frames(x, &st);
    if (frames < 0 || builder_alloc(&b, entries, (size_t)frames)) goto done;
    /* at most a string per frame, two per entry (its thread and a comment), two per module
     * and one per function, and the labels' */
    size_t strings = (size_t)frames + 2 * entries + 2 * p->nmodules + p->nfunctions + 64;
    for (b.mask = 1023; b.mask / 2 < strings;)
        b.mask = 2 * b.mask + 1;
    if (!(b.index = calloc(b.mask + 1, sizeof *b.index))) goto done;
    intern(&b, ""); /* pprof requires string_table[0] == "" */
    for (size_t i = 0; i < 2; i++)
        pprof__value_type__init(&types[i]);
    types[0].type = intern(&b, "samples");
    types[0].unit = intern(&b, "count");
    types[1].type = intern(&b, "time");
    types[1].unit = intern(&b, "nanoseconds");
    for (size_t i = 0; i < SAMPLE_LABELS; i++)
        b.label_key[i] = intern(&b, label_names[i]);
    b.program = intern(&b, p->program.name ? p->program.name : "");
    b.host = intern(&b, p->machine.hostname ? p->machine.hostname : "");
    b.nanoseconds = intern(&b, "nanoseconds");
    pprof__value_type__init(&period_type);
    period_type.type = types[1].type;
    period_type.unit = types[1].unit;
    uint64_t *ids = b.location_ids;
    for (size_t i = 0; i < entries; i++) {
        const struct profile_tag *t = i < p->ntags ? &p->tags[i] : &p->other;
        if (t->samples == 0) continue;
        if (export_stack(x, t, &st) != 0) goto done;
        add_sample(&b, t, &st, ids);
        ids += st.n;
    }
    comments(&b, comment);
    if (b.failed) goto done;
    pprof__profile__init(&prof);
    prof.n_sample_type = 2;
    prof.sample_type = type_ptrs;
    prof.n_sample = b.nsamples;
    prof.sample = b.sample_ptrs;
    prof.n_location = prof.n_function = b.nfunctions;
    prof.n_mapping = b.nmappings;
    prof.mapping = b.mapping_ptrs;
    prof.location = b.location_ptrs;
    prof.function = b.function_ptrs;
    prof.n_string_table = b.nstrings;
    prof.string_table = b.strings;
    prof.time_nanos = (int64_t)p->run.start_unix_ns;
    prof.duration_nanos = (int64_t)p->run.duration_ns;
    prof.period_type = &period_type;
    if (p->period.has_summary)
        prof.period = (int64_t)llround(p->period.mean / p->machine.tsc_hz * 1e9);
    prof.n_comment = 3;
    prof.comment = comment;
    rc = write_gzipped(f, &prof);
done:
    builder_free(&b);
    export_stack_free(&st);
    if (rc != 0) {
        fprintf(stderr, "shimview: out of memory while building the pprof profile\n");
        return EXIT_FILE_ERROR;
    }
    return 0;
}
