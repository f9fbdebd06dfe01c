/*
 * profile_table.c -- reads the table file of a large profile.
 *
 * A profile of more tag entries or calling-context nodes than its writer's SHIM_INLINE_MAX
 * keeps them in a protocol buffer beside the JSON (formats/profile_table.proto,
 * docs/profile-format.md "Large profiles"): the JSON's `table` names the file, its id and
 * its size. The file is read whole and unpacked by protobuf-c into one arena, which goes
 * once the entries are copied into the profile's structs and the trees read. Everything
 * is checked as the JSON reader checks the same members, and a message names the table
 * file and the element ("entries[12]: kept (9) is more than samples (4)").
 */
#include "shimview/model/profile_table.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/profile_table.pb-c.h"

/* The largest table read: 16 GiB would be 10^8 entries, beyond what shim writes. */
#define TABLE_MAX_BYTES ((size_t)4 << 30)

/* protobuf-c's allocations for one unpack, from chunks freed together. */
struct arena {
    struct chunk {
        struct chunk *next;
        size_t used, size;
        max_align_t data[];
    } * head;
};

static void *arena_alloc(void *data, size_t size)
{
    struct arena *a = data;
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!a->head || a->head->size - a->head->used < size) {
        size_t want = size > ((size_t)1 << 22) ? size : (size_t)1 << 22;
        struct chunk *c = malloc(sizeof *c + want);
        if (!c) return NULL;
        c->next = a->head;
        c->used = 0;
        c->size = want;
        a->head = c;
    }
    void *p = (char *)a->head->data + a->head->used;
    a->head->used += size;
    return p;
}

static void arena_free(void *data, void *p)
{
    (void)data, (void)p; /* freed with the arena */
}

struct profile_table {
    struct arena arena;
    ShimTable__Table *msg;
    char *bytes;
};

void profile_table_free(struct profile_table *t)
{
    if (!t) return;
    for (struct chunk *c = t->arena.head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(t->bytes);
    free(t);
}

int profile_table_tree(const struct profile_table *t, uint64_t index, size_t *n,
                       const uint64_t **parent, const uint64_t **function, const uint64_t **site)
{
    for (size_t i = 0; t && i < t->msg->n_trees; i++) {
        const ShimTable__Tree *tr = t->msg->trees[i];
        if (tr->index != index) continue;
        *n = tr->n_parent;
        *parent = tr->parent;
        *function = tr->function;
        *site = tr->site;
        return 0;
    }
    return -1;
}

/* ---- names ---- */

struct name_ref {
    uint64_t tag, value;
    const char *name;
};

static int by_tag_value(const void *a, const void *b)
{
    const struct name_ref *x = a, *y = b;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* The names, checked (a tag column of the profile, UTF-8 text) and sorted; their strings
 * are kept in p->strings. */
static int read_names(struct reader *r, const ShimTable__Table *m, struct profile *p,
                      struct name_ref **out)
{
    struct name_ref *n = malloc((m->n_names ? m->n_names : 1) * sizeof *n);
    if (!n) return reader_fail(r, "out of memory");
    if (!p->strings && !(p->strings = json_array())) {
        free(n);
        return reader_fail(r, "out of memory");
    }
    for (size_t i = 0; i < m->n_names; i++) {
        const ShimTable__Name *e = m->names[i];
        json_t *s = e->name ? json_string(e->name) : NULL;
        if (e->tag >= p->signals.ntags || !s) {
            json_decref(s);
            free(n);
            return reader_fail(r, "names[%zu]: %s", i,
                               e->tag >= p->signals.ntags ? "tag is not a column of signals.tags"
                                                          : "the name is not UTF-8 text");
        }
        json_array_append_new(p->strings, s);
        n[i] = (struct name_ref){e->tag, e->value, json_string_value(s)};
    }
    qsort(n, m->n_names, sizeof *n, by_tag_value);
    *out = n;
    return 0;
}

static const char *name_of(const struct name_ref *n, size_t count, uint64_t tag, uint64_t value)
{
    struct name_ref key = {tag, value, NULL};
    const struct name_ref *f = bsearch(&key, n, count, sizeof *n, by_tag_value);
    return f ? f->name : NULL;
}

/* ---- entries ---- */

/* What read_entry() allocated for an entry (a table entry has no histogram counts). */
static void entry_free(struct profile_tag *t)
{
    free(t->values);
    free(t->names);
    free(t->rates);
    free(t->by);
}

/* One entry of the table as a profile_tag, as the JSON reader would read it. */
static int read_entry(struct reader *r, size_t i, const ShimTable__Entry *e,
                      const struct profile *p, const struct name_ref *names, size_t nnames,
                      struct profile_tag *t)
{
    uint64_t attributed = p->samples.total - p->samples.interrupted;
    memset(t, 0, sizeof *t);
    if (e->n_values != p->signals.ntags)
        return reader_fail(r, "entries[%zu]: %zu values, expected one per signals.tags entry (%zu)",
                           i, e->n_values, p->signals.ntags);
    if (e->n_rates != p->nrates)
        return reader_fail(r,
                           "entries[%zu]: %zu rates, expected one per top-level rates entry (%zu)",
                           i, e->n_rates, p->nrates);
    if (e->kept > e->samples)
        return reader_fail(r, "entries[%zu]: kept (%" PRIu64 ") is more than samples (%" PRIu64 ")",
                           i, e->kept, e->samples);
    if (e->samples > attributed)
        return reader_fail(r,
                           "entries[%zu]: samples (%" PRIu64 ") are more than the profile's "
                           "attributed samples (%" PRIu64 ")",
                           i, e->samples, attributed);
    size_t nv = e->n_values ? e->n_values : 1;
    t->values = malloc(nv * sizeof *t->values);
    t->names = calloc(nv, sizeof *t->names);
    if (e->n_rates) t->rates = calloc(e->n_rates, sizeof *t->rates);
    if (p->has_by) t->by = calloc(p->by.buckets + 2, sizeof *t->by);
    if (!t->values || !t->names || (e->n_rates && !t->rates) || (p->has_by && !t->by))
        return reader_fail(r, "out of memory");
    t->thread = e->thread;
    t->nvalues = e->n_values;
    for (size_t k = 0; k < e->n_values; k++) {
        t->values[k] = e->values[k];
        t->names[k] = nnames ? name_of(names, nnames, k, e->values[k]) : NULL;
    }
    t->samples = e->samples;
    t->cycles = e->cycles;
    t->kept = e->kept;
    t->straddled = e->straddled;
    t->share = attributed ? (double)e->samples / (double)attributed : 0;
    for (size_t k = 0; k < e->n_rates; k++) {
        const ShimTable__Rate *a = e->rates[k];
        struct profile_rate_stats *s = &t->rates[k];
        double v[] = {a->sum_a, a->sum_b, a->sum_aa, a->sum_bb, a->sum_ab};
        for (size_t j = 0; j < 5; j++)
            if (!isfinite(v[j]))
                return reader_fail(r, "entries[%zu].rates[%zu]: a sum is not a finite number", i,
                                   k);
        s->periods = a->periods;
        s->sum_a = a->sum_a;
        s->sum_b = a->sum_b;
        s->sum_aa = a->sum_aa;
        s->sum_bb = a->sum_bb;
        s->sum_ab = a->sum_ab;
        /* as a JSON entry without a detail record: the rate is null where sum_b is 0 */
        s->has_stats = a->periods > 0 && a->sum_b != 0;
        s->rate = s->has_stats ? a->sum_a / a->sum_b : 0;
        s->n = s->has_stats ? a->periods : 0;
        s->hist.buckets = p->config.hist_buckets;
        s->hist.lo = p->config.hist_lo;
        s->hist.hi = p->config.hist_hi;
    }
    return 0;
}

/* ---- the file ---- */

/* The table file's path: the name `table.file` gives, in the profile's directory. */
static int table_path(struct reader *r, const struct profile *p, const char *file, char **out)
{
    if (!*file || strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, ".."))
        return reader_fail(r, "\"%s\" is not a file name (the table is beside the profile)", file);
    if (!strcmp(p->file, PROFILE_STDIN_NAME))
        return reader_fail(r,
                           "the profile keeps its entries in %s beside it: give the profile's "
                           "path rather than standard input",
                           file);
    const char *slash = strrchr(p->file, '/');
    size_t dir = slash ? (size_t)(slash - p->file) + 1 : 0;
    char *path = malloc(dir + strlen(file) + 1);
    if (!path) return reader_fail(r, "out of memory");
    memcpy(path, p->file, dir);
    strcpy(path + dir, file);
    *out = path;
    return 0;
}

int profile_read_table(struct reader *r, const json_t *root, struct profile *p,
                       struct profile_table **out)
{
    const json_t *v = json_object_get(root, "table");
    *out = NULL;
    if (!v || json_is_null(v)) return 0;
    json_t *o;
    size_t mark;
    const char *file, *id_text;
    uint64_t entries, nodes, bytes;
    if (member_object(r, root, "table", &o, &mark) || member_string(r, o, "file", &file) ||
        member_string(r, o, "id", &id_text) || member_u64(r, o, "entries", &entries) ||
        member_u64(r, o, "nodes", &nodes) || member_u64(r, o, "bytes", &bytes))
        return -1;
    char *end;
    uint64_t id = strtoull(id_text, &end, 16);
    if (strlen(id_text) != 16 || *end) {
        path_key(r, "id");
        return reader_fail(r, "\"%s\" is not 16 hexadecimal digits", id_text);
    }
    char *path = NULL;
    path_key(r, "file");
    if (table_path(r, p, file, &path)) return -1;
    path_restore(r, mark);

    /* from here the messages name the table file */
    struct reader tr = {.file = path, .err = r->err, .errlen = r->errlen};
    struct profile_table *t = calloc(1, sizeof *t);
    struct name_ref *names = NULL;
    size_t len;
    int rc = -1;
    if (!t) {
        reader_fail(&tr, "out of memory");
        goto done;
    }
    if (!(t->bytes = reader_read_file(&tr, path, TABLE_MAX_BYTES, &len))) goto done;
    if (len != bytes) {
        reader_fail(&tr,
                    "%zu bytes, but the profile's table.bytes says %" PRIu64
                    ": the file was cut, or belongs to another profile",
                    len, bytes);
        goto done;
    }
    ProtobufCAllocator alloc = {arena_alloc, arena_free, &t->arena};
    t->msg = shim_table__table__unpack(&alloc, len, (const uint8_t *)t->bytes);
    if (!t->msg) {
        reader_fail(&tr, "not a shim profile table (the protocol buffer does not decode)");
        goto done;
    }
    free(t->bytes); /* the message holds copies */
    t->bytes = NULL;
    const ShimTable__Table *m = t->msg;
    if (!m->format || strcmp(m->format, "shim-profile-table") != 0) {
        reader_fail(&tr, "format is \"%.40s\", expected \"shim-profile-table\"",
                    m->format ? m->format : "");
        goto done;
    }
    if (m->id != id) {
        reader_fail(&tr,
                    "its id is %016" PRIx64 ", the profile's table.id %016" PRIx64
                    ": it was written with another profile",
                    m->id, id);
        goto done;
    }
    size_t rows = 0;
    for (size_t i = 0; i < m->n_trees; i++) {
        const ShimTable__Tree *tree = m->trees[i];
        if (tree->n_function != tree->n_parent || tree->n_site != tree->n_parent) {
            reader_fail(&tr, "trees[%zu]: parent, function and site differ in length", i);
            goto done;
        }
        rows += tree->n_parent;
    }
    if (m->n_entries != entries || rows != nodes) {
        reader_fail(&tr,
                    "holds %zu entries and %zu nodes, but the profile's table says %" PRIu64
                    " and %" PRIu64,
                    m->n_entries, rows, entries, nodes);
        goto done;
    }
    if (read_names(&tr, m, p, &names)) goto done;
    /* the JSON's entries (those with detail records) and the table's, each sorted by
     * samples, merged into one list in that order as the table's are read */
    size_t n0 = p->ntags, i = 0, k = 0;
    struct profile_tag *all = malloc((n0 + m->n_entries + 1) * sizeof *all);
    if (!all) {
        reader_fail(&tr, "out of memory");
        goto done;
    }
    for (size_t e = 0; e < m->n_entries; e++) {
        struct profile_tag one;
        if (read_entry(&tr, e, m->entries[e], p, names, m->n_names, &one) ||
            (e > 0 && one.samples > m->entries[e - 1]->samples &&
             reader_fail(&tr, "entries[%zu]: not sorted by samples, most first", e))) {
            entry_free(&one);
            break;
        }
        while (i < n0 && p->tags[i].samples >= one.samples)
            all[k++] = p->tags[i++];
        all[k++] = one;
    }
    while (i < n0) /* (after a failure too: the profile frees what it holds) */
        all[k++] = p->tags[i++];
    free(p->tags);
    p->tags = all;
    p->ntags = k;
    if (k != n0 + m->n_entries) goto done; /* an entry failed: the message is set */
    *out = t;
    t = NULL;
    rc = 0;
done:
    free(names);
    profile_table_free(t);
    free(path);
    return rc;
}
