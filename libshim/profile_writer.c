/*
 * profile_writer.c -- the profile file (docs/profile-format.md) built with jansson.
 *
 * The document is built in memory (a few thousand objects at most: the tag table is
 * bounded) and written to a temporary file beside the destination, opened with
 * O_EXCL|O_NOFOLLOW so a planted symlink cannot redirect it, fsync'ed and renamed over
 * the destination: a reader sees the old file or the whole new one, never a part.
 * Non-finite numbers never reach the file (JSON has none): they become null, and the
 * histograms count them.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

#include "signals/cct.h"
#include "formats/profile.h"
#include "libshim/cct_profile.h"
#include "libshim/profile_table.h"
#include "signals/path.h"
#include "signals/stackwalk.h"
#include "libshim/names.h"
#include "libshim/internal.h"

static json_t *jreal(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v));
}
/* Length of the valid UTF-8 sequence at p (1-4), or 0 if the bytes there are not one. */
static size_t utf8_sequence(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n = c < 0x80             ? 1
               : (c & 0xe0) == 0xc0 ? 2
               : (c & 0xf0) == 0xe0 ? 3
               : (c & 0xf8) == 0xf0 ? 4
                                    : 0;
    if (n == 0 || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4)) return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))) return 0;
    if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))) return 0;
    return n;
}

/* A JSON string from text the program or the system gave (names, arguments, paths,
 * host names), which need not be UTF-8: every byte that does not start a valid
 * sequence becomes U+FFFD, so the profile is always valid JSON. NULL gives null. */
static json_t *jtext(const char *s)
{
    if (!s) return json_null();
    size_t len = strlen(s), n = 0;
    char *out = malloc(3 * len + 1);
    if (!out) return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t k = utf8_sequence(p);
        if (k) {
            memcpy(out + n, p, k), n += k, p += k;
        } else {
            memcpy(out + n, "\xef\xbf\xbd", 3), n += 3, p++;
        }
    }
    json_t *j = json_stringn(out, n);
    free(out);
    return j;
}

static json_t *argv_json(void)
{
    json_t *a = json_array();
    FILE *f = fopen("/proc/self/cmdline", "re");
    if (!f) return a;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        json_array_append_new(a, jtext(buf + i));
    return a;
}

static json_t *loghist_json(const struct loghist *h, const char *unit)
{
    static const char *const names[3] = {"median", "p10", "p90"};
    static const double q[3] = {0.5, 0.1, 0.9};
    json_t *exact = json_array();
    for (int k = 0; k < 3 && h->count; k++) {
        int is_exact;
        loghist_quantile_exact(h, q[k], &is_exact);
        if (is_exact) json_array_append_new(exact, json_string(names[k]));
    }
    json_t *buckets = json_array();
    for (uint32_t i = 0; i < h->nbuckets; i++)
        if (h->bucket[i])
            json_array_append_new(buckets,
                                  json_pack("[f,f,I]", loghist_lower(h, i), loghist_lower(h, i + 1),
                                            (json_int_t)h->bucket[i]));
    uint64_t finite = h->count;
    return json_pack(
        "{s:s?, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o}", "unit", unit, "count",
        (json_int_t)h->count, "min", jreal(h->count ? h->min : NAN), "max",
        jreal(h->count ? h->max : NAN), "mean", jreal(finite ? h->sum / (double)finite : NAN),
        "median", jreal(loghist_quantile(h, 0.5)), "p10", jreal(loghist_quantile(h, 0.1)), "p90",
        jreal(loghist_quantile(h, 0.9)), "exact", exact, "underflow", (json_int_t)h->underflow,
        "overflow", (json_int_t)h->overflow, "buckets", buckets);
}

static json_t *hist_json(const struct hist_spec *s, const uint64_t *counts)
{
    json_t *c = json_array();
    for (uint32_t i = 0; i < s->buckets; i++)
        if (counts[i]) json_array_append_new(c, json_pack("[i,I]", (int)i, (json_int_t)counts[i]));
    return json_pack("{s:i, s:f, s:f, s:o, s:o, s:o, s:o}", "buckets", (int)s->buckets, "lo", s->lo,
                     "hi", s->hi, "underflow", jint(counts[HIST_UNDERFLOW(s)]), "overflow",
                     jint(counts[HIST_OVERFLOW(s)]), "nan", jint(counts[HIST_NAN(s)]), "counts", c);
}

/* The time batches as the profile writes them: every table's at one level, the lowest
 * at which the run's span fits in TAG_BATCHES batches and no table's arrays need
 * unfolding; `count` batches from the origin to the last sample. */
struct batch_plan {
    uint32_t level;
    unsigned count;
};

static struct batch_plan batch_plan_of(const struct observer *o)
{
    struct batch_plan b = {o->tags.batch_level, 1};
    if (o->pending && o->paths.batch_level > b.level) b.level = o->paths.batch_level;
    uint64_t span = tag_table_clock(&o->tags, o->last_tsc);
    while ((span >> (TAG_BATCH_SHIFT + b.level)) >= TAG_BATCHES)
        b.level++;
    b.count = (unsigned)(span >> (TAG_BATCH_SHIFT + b.level)) + 1;
    return b;
}

static json_t *u64_array(const uint64_t *v, unsigned n)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < n; i++)
        json_array_append_new(a, jint(v[i]));
    return a;
}

/* The top level's `batches`: the attributed samples of each batch. */
static json_t *batches_json(const struct observer *o, const struct batch_plan *bp)
{
    uint64_t counts[TAG_BATCHES];
    memcpy(counts, o->tags.batch_samples, sizeof counts);
    for (uint32_t l = o->tags.batch_level; l < bp->level; l++)
        tag_batches_fold(counts, NULL, 0);
    return json_pack("{s:o, s:i, s:o}", "cycles",
                     jint((uint64_t)1 << (TAG_BATCH_SHIFT + bp->level)), "count", (int)bp->count,
                     "samples", u64_array(counts, bp->count));
}

/* A detail record's `batches` at the plan's level (folding a copy), or NULL when its
 * arrays miss some of the tuple's samples. */
static json_t *detail_batches_json(const struct tag_table *t, const struct tag_detail *d,
                                   const struct batch_plan *bp)
{
    if (d->batches.broken) return NULL;
    size_t nsums = 2 * (size_t)t->n_rates * TAG_BATCHES;
    struct tag_detail c = *d;
    c.batches.samples = malloc(TAG_BATCHES * sizeof *c.batches.samples);
    c.batches.sums = malloc((nsums + 1) * sizeof *c.batches.sums);
    json_t *j = NULL;
    if (c.batches.samples && c.batches.sums) {
        memcpy(c.batches.samples, d->batches.samples, TAG_BATCHES * sizeof *c.batches.samples);
        memcpy(c.batches.sums, d->batches.sums, nsums * sizeof *c.batches.sums);
        tag_detail_batches_to(&c, t->n_rates, bp->level);
        json_t *a = json_array(), *b = json_array();
        for (unsigned r = 0; r < t->n_rates; r++) {
            json_t *ar = json_array(), *br = json_array();
            for (unsigned k = 0; k < bp->count; k++) {
                json_array_append_new(ar, jreal(c.batches.sums[2 * r * TAG_BATCHES + k]));
                json_array_append_new(br, jreal(c.batches.sums[(2 * r + 1) * TAG_BATCHES + k]));
            }
            json_array_append_new(a, ar);
            json_array_append_new(b, br);
        }
        uint64_t first = d->batches.given >> (TAG_BATCH_SHIFT + bp->level);
        j = json_pack("{s:o, s:o, s:o, s:o}", "first",
                      jint(first < bp->count ? first : bp->count - 1), "samples",
                      u64_array(c.batches.samples, bp->count), "a", a, "b", b);
    }
    free(c.batches.samples);
    free(c.batches.sums);
    return j;
}

/* An entry of the tag table, or (t being the path table) of the path table, whose keys
 * are (thread, function address, path number) and have no names. */
static json_t *entry_json(const struct shim_run *r, const struct tag_table *t,
                          const struct tag_entry *e, const uint64_t *key)
{
    struct batch_plan bp = batch_plan_of(&r->obs);
    uint64_t total = r->obs.totals.total - r->obs.totals.interrupted;
    json_t *o = json_object(), *rates = json_array();
    if (key) {
        json_t *values = json_array(), *names = json_array();
        for (unsigned i = 0; i + 1 < t->key_words; i++) {
            /* JSON integers are signed 64-bit here: a value of 2^63 or more is written as
             * its two's complement (negative); readers take values modulo 2^64 */
            json_array_append_new(values, json_integer((json_int_t)key[1 + i]));
            if (t == &r->obs.tags)
                json_array_append_new(names, jtext(names_tag(r->tag_slot[i], key[1 + i])));
        }
        if (t != &r->obs.tags) json_object_set_new(o, "path", json_integer((json_int_t)key[2]));
        json_object_set_new(o, "thread", jint(key[0]));
        json_object_set_new(o, "values", values);
        json_object_set_new(o, "names", names);
    } else {
        json_object_set_new(o, "thread", json_null());
        json_object_set_new(o, "values", json_null());
        json_object_set_new(o, "names", json_null());
    }
    json_object_set_new(o, "samples", jint(e->samples));
    json_object_set_new(o, "share", json_real(total ? (double)e->samples / (double)total : 0));
    json_object_set_new(o, "cycles", jint(e->cycles));
    json_object_set_new(o, "kept", jint(e->kept));
    json_object_set_new(o, "straddled", jint(e->straddled));
    /* The distribution of the per-period rates exists for the tuples given a detail
     * record (observer/tag_table.h), over their periods after `since` samples. */
    const struct tag_detail *d = tag_entry_detail(t, e);
    json_t *detail = d ? json_pack("{s:o}", "since", jint(d->since)) : json_null();
    json_t *batches = d ? detail_batches_json(t, d, &bp) : NULL;
    if (batches) json_object_set_new(detail, "batches", batches);
    json_object_set_new(o, "detail", detail);
    for (unsigned i = 0; i < t->n_rates; i++) {
        const struct rate_sums *s = &e->sums[i];
        json_t *rj = json_object();
        json_object_set_new(rj, "periods", jint(s->periods));
        if (s->periods) {
            json_object_set_new(rj, "rate", jreal(s->sum_b > 0 ? s->sum_a / s->sum_b : NAN));
            json_object_set_new(rj, "sum_a", jreal(s->sum_a));
            json_object_set_new(rj, "sum_b", jreal(s->sum_b));
            json_object_set_new(rj, "sum_aa", jreal(s->sum_aa));
            json_object_set_new(rj, "sum_bb", jreal(s->sum_bb));
            json_object_set_new(rj, "sum_ab", jreal(s->sum_ab));
        }
        if (d) {
            const struct rate_dist *dist = &d->dist[i];
            json_object_set_new(rj, "n", jint(dist->n));
            if (dist->n) {
                json_object_set_new(rj, "mean", jreal(dist->sum / (double)dist->n));
                json_object_set_new(rj, "sum", jreal(dist->sum));
                json_object_set_new(rj, "sumsq", jreal(dist->sumsq));
                json_object_set_new(rj, "min", jreal(dist->min));
                json_object_set_new(rj, "max", jreal(dist->max));
            }
            json_object_set_new(rj, "hist",
                                hist_json(&t->hist, d->hist + i * HIST_WORDS(&t->hist)));
        }
        json_array_append_new(rates, rj);
    }
    json_object_set_new(o, "rates", rates);
    if (t->by_slots) { /* [n, sum_a, sum_b] per slot: below lo, the buckets, at or above hi */
        json_t *by = json_array();
        for (unsigned k = 0; k < t->by_slots; k++)
            json_array_append_new(by, d && d->by ? json_pack("[I, o, o]", (json_int_t)d->by[3 * k],
                                                             jreal(d->by[3 * k + 1]),
                                                             jreal(d->by[3 * k + 2]))
                                                 : json_pack("[i, f, f]", 0, 0.0, 0.0));
        json_object_set_new(o, "by", by);
    }
    return o;
}

static int by_samples_desc(const void *a, const void *b, void *arg)
{
    const struct tag_table *t = arg;
    uint64_t x = tag_table_entry(t, *(const uint32_t *)a)->samples,
             y = tag_table_entry(t, *(const uint32_t *)b)->samples;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* A table's entries in the order the profile lists them, most samples first; for the tag
 * table with stack walks, each entry's thread word, context column and function column
 * too, which cct_profile_add() turns from chain numbers into context values and from
 * hooks' exit words into functions (walk_trees_build); the loop column, where there is
 * one, takes the function where it held the same exit word. */
struct tag_order {
    uint32_t *order;
    struct tag_rows rows; /* rows.ctx NULL: no context column to rewrite */
    uint64_t *thread;
    unsigned col, method_col; /* the context and function columns among the values */
    int loop_col;             /* the loop column, -1 when none */
};

static int tag_order_build(const struct shim_run *r, const struct tag_table *t, struct tag_order *o,
                           unsigned walk_tag, unsigned method_tag)
{
    memset(o, 0, sizeof *o);
    o->loop_col = -1;
    o->order = malloc((t->n_entries + 1) * sizeof *o->order);
    if (!o->order) return -1;
    for (uint32_t i = 0; i < t->n_entries; i++)
        o->order[i] = i;
    qsort_r(o->order, t->n_entries, sizeof *o->order, by_samples_desc, (void *)t);
    o->rows.n = t->n_entries;
    if (!walk_tag || !method_tag) return 0;
    o->col = walk_tag - 1;
    o->method_col = method_tag - 1;
    for (unsigned i = 0; r && i < r->n_tag_slots; i++)
        if (r->tag_slot[i] == SHIM_SLOT_LOOP) o->loop_col = (int)i;
    o->thread = malloc((t->n_entries + 1) * sizeof *o->thread);
    o->rows.ctx = malloc((t->n_entries + 1) * sizeof *o->rows.ctx);
    o->rows.method = malloc((t->n_entries + 1) * sizeof *o->rows.method);
    if (!o->thread || !o->rows.ctx || !o->rows.method) return -1;
    for (uint32_t i = 0; i < t->n_entries; i++) {
        const uint64_t *key = tag_table_key(t, o->order[i]);
        o->thread[i] = key[0];
        o->rows.ctx[i] = key[1 + o->col];
        o->rows.method[i] = key[1 + o->method_col];
    }
    o->rows.thread = o->thread;
    return 0;
}

static void tag_order_free(struct tag_order *o)
{
    free(o->order);
    free(o->thread);
    free(o->rows.ctx);
    free(o->rows.method);
}

/* The entries of table t in JSON, all of them, or with a table file when there are more
 * than SHIM_INLINE_MAX: then the JSON keeps the entries with a detail record (their
 * distributions have no place in the table file) and the rest go to the file. */
static json_t *tags_out(const struct shim_run *r, const struct tag_table *t,
                        const struct tag_order *o, struct table_writer *table)
{
    json_t *a = json_array();
    int to_table = table && t->n_entries > r->settings.inline_max;
    uint64_t key[t->key_words];
    if (to_table) /* the names of the values, for the entries' names */
        for (size_t i = 0; i < names_tag_count(); i++) {
            unsigned slot;
            uint64_t value;
            const char *name = names_tag_at(i, &slot, &value);
            for (unsigned c = 0; name && c < r->n_tag_slots; c++)
                if (r->tag_slot[c] == slot) table_name(table, c, value, name);
        }
    for (uint32_t i = 0; i < t->n_entries; i++) {
        const struct tag_entry *e = tag_table_entry(t, o->order[i]);
        memcpy(key, tag_table_key(t, o->order[i]), sizeof key);
        if (o->rows.ctx) {
            if (o->loop_col >= 0 && key[1 + o->loop_col] == key[1 + o->method_col])
                key[1 + o->loop_col] = o->rows.method[i];
            key[1 + o->col] = o->rows.ctx[i];
            key[1 + o->method_col] = o->rows.method[i];
        }
        if (to_table && !tag_entry_detail(t, e))
            table_entry(table, key[0], key + 1, t->key_words - 1, e, t->n_rates);
        else
            json_array_append_new(a, entry_json(r, t, e, key));
    }
    return a;
}

static json_t *tags_json(const struct shim_run *r, const struct tag_table *t)
{
    struct tag_order o;
    json_t *a = tag_order_build(r, t, &o, 0, 0) == 0 ? tags_out(r, t, &o, NULL) : NULL;
    tag_order_free(&o);
    return a;
}

/* Whether the observer read paths. */
static int o_paths(const struct shim_run *r)
{
    return r->obs.pending != NULL;
}

/* Paths (observer.h): what became of the periods, and an entry per path. */
static json_t *paths_json(const struct shim_run *r)
{
    const struct path_totals *pt = &r->obs.path_totals;
    struct tag_table *t = (struct tag_table *)&r->obs.paths;
    json_t *entries = tags_json(r, t);
    return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "ring", SHIM_PATH_RING,
                     "resolved", jint(pt->resolved), "pathless", jint(pt->pathless), "overwritten",
                     jint(pt->overwritten), "pending", jint(pt->pending), "dropped",
                     jint(pt->dropped), "none", jint(pt->none), "distinct", jint(t->n_entries),
                     "entries", entries ? entries : json_array(), "other",
                     entry_json(r, t, tag_table_other(t), NULL));
}

/* The function addresses the compiler pass's signals put in front of the observer: the
 * method and loop signals' values, and the paths' functions. *out: malloc'd, may hold
 * zeros and repeats. */
static size_t functions_seen(const struct shim_run *r, uint64_t **out)
{
    const struct tag_table *tags = &r->obs.tags, *paths = &r->obs.paths;
    int method = -1, loop = -1;
    for (unsigned i = 0; i < r->n_tag_slots; i++) {
        if (r->tag_slot[i] == SHIM_SLOT_METHOD) method = (int)i;
        if (r->tag_slot[i] == SHIM_SLOT_LOOP) loop = (int)i;
    }
    size_t n = 0, cap = 2 * (size_t)tags->n_entries + (o_paths(r) ? paths->n_entries : 0);
    uint64_t *a = *out = malloc((cap ? cap : 1) * sizeof *a);
    if (!a) return 0;
    for (uint32_t e = 0; e < tags->n_entries; e++) {
        const uint64_t *key = tag_table_key(tags, e);
        /* a hooks' exit word (in the loop column too, where there is one) is named by the
         * walks' trees (cct_profile_add) */
        uint64_t fn = method >= 0 ? key[1 + method] : 0;
        int exit = method >= 0 && STACKWALK_IS_EXIT(fn);
        if (method >= 0 && !exit) a[n++] = fn;
        if (loop >= 0 && !(exit && key[1 + loop] == fn)) a[n++] = SHIM_LOOP_FN(key[1 + loop]);
    }
    for (uint32_t e = 0; o_paths(r) && e < paths->n_entries; e++)
        a[n++] = tag_table_key(paths, e)[1];
    return n;
}

static json_t *signals_json(const struct shim_run *r, json_t **rates_out)
{
    json_t *tags = json_array(), *counters = json_array(), *rates = json_array();
    for (unsigned i = 0; i < r->n_tag_slots; i++) {
        char dflt[16];
        const char *name = names_slot(r->tag_slot[i]);
        snprintf(dflt, sizeof dflt, "slot%u", r->tag_slot[i]);
        if (!name && r->tag_slot[i] == SHIM_SLOT_METHOD) name = "function";
        if (!name && r->tag_slot[i] == SHIM_SLOT_CCT) name = "context";
        if (!name && r->tag_slot[i] == SHIM_SLOT_LOOP) name = "loop";
        json_array_append_new(tags, json_pack("{s:i, s:o}", "slot", (int)r->tag_slot[i], "name",
                                              jtext(name ? name : dflt)));
    }
    for (unsigned i = 0; i < r->n_counters; i++) {
        const struct run_counter *c = &r->counter[i];
        json_t *cj =
            json_pack("{s:i, s:o, s:s, s:f, s:i}", "slot", (int)c->slot, "name", jtext(c->name),
                      "kind", c->kind, "scale", c->scale, "width", (int)c->width);
        if (c->source) json_object_set_new(cj, "source", json_string(c->source));
        if (!strcmp(c->kind, "hardware")) {
            json_object_set_new(cj, "event", jtext(c->event));
            json_object_set_new(cj, "scope", json_string(c->scope));
            json_object_set_new(cj, "read",
                                json_string(r->obs.plan.hw[i].slow ? "read-slow"
                                            : c->rdpmc             ? "rdpmc"
                                                                   : "read"));
            json_object_set_new(cj, "counting", json_real(c->counting));
            if (r->obs.plan.hw[i].own)
                json_object_set_new(cj, "minus", jtext(r->counter[r->obs.plan.hw[i].own].name));
        }
        json_array_append_new(counters, cj);
    }
    for (unsigned i = 0; i < r->n_rates; i++) {
        const struct run_rate *rt = &r->rate[i];
        json_t *rj = json_pack("{s:o, s:o, s:o, s:f}", "name", jtext(rt->name), "counter",
                               jtext(rt->counter), "unit", jtext(rt->unit), "scale", rt->scale);
        if (*rt->per) json_object_set_new(rj, "per", jtext(rt->per));
        if (r->obs.rate_slow[i]) json_object_set_new(rj, "slow", json_true());
        json_array_append_new(rates, rj);
    }
    *rates_out = rates;
    return json_pack("{s:o, s:o}", "tags", tags, "counters", counters);
}

static json_t *slot_array(const unsigned *slot, unsigned n)
{
    json_t *a = json_array();
    for (unsigned i = 0; i < n; i++)
        json_array_append_new(a, json_integer(slot[i]));
    return a;
}

static json_t *config_json(const struct shim_run *r)
{
    const struct shim_config *c = &r->settings.cfg;
    json_t *cj =
        json_pack("{s:o, s:o, s:f, s:i, s:f, s:o, s:b, s:b, s:o, s:o, s:{s:i, s:f, s:f}, s:i, s:i}",
                  "output", jtext(r->settings.output), "period", jint(c->period), "jitter",
                  c->jitter, "observer_cpu", c->observer_cpu, "dte_tolerance", c->dte_tolerance,
                  "dte_resolution", jint(r->obs.params.dte_resolution), "dte_off", c->dte_off,
                  "strict", c->strict, "tag_slots", slot_array(r->tag_slot, r->n_tag_slots),
                  "counter_slots", slot_array(r->counter_slot, r->n_counter_slots), "hist",
                  "buckets", (int)c->hist_buckets, "lo", c->hist_lo, "hi", c->hist_hi, "max_tags",
                  (int)c->max_tags, "hist_tuples", (int)r->settings.hist_tuples);
    /* who chose the period: the user, the default, or the default for a program that
     * writes compiler-made signals on every call */
    json_object_set_new(cj, "period_from",
                        json_string(r->settings.period_given ? "user"
                                    : r->period_auto         ? "default for automatic signals"
                                                             : "default"));
    json_t *events = json_array();
    for (unsigned e = 0; e < r->settings.n_events; e++)
        json_array_append_new(events, jtext(r->settings.event_names[e]));
    json_object_set_new(cj, "events", events);
    json_object_set_new(cj, "event_scope", json_string(event_scope_name(r->settings.event_scope)));
    json_object_set_new(cj, "slow_period", jint(r->settings.slow_period));
    json_object_set_new(cj, "alloc", json_string(config_alloc_name(r->settings.alloc)));
    return cj;
}

static json_t *machine_json(const struct shim_run *r)
{
    const struct machine_topology *m = &r->topo;
    json_t *pus = json_array();
    for (int i = 0; i < m->n_pu; i++)
        json_array_append_new(pus, json_pack("{s:i, s:i, s:i}", "os_index", m->pu[i].os_index,
                                             "core", m->pu[i].core, "package", m->pu[i].package));
    char hv[32];
    unsigned v = hwloc_get_api_version();
    snprintf(hv, sizeof hv, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    return json_pack(
        "{s:o, s:o, s:o, s:o, s:{s:i, s:i, s:i, s:b, s:o}, s:{s:o, s:I, s:s?, s:b}, s:s}",
        "cpu_model", jtext(m->cpu_model), "vendor", jtext(m->vendor), "hostname",
        jtext(r->host.hostname), "kernel", jtext(r->host.kernel), "topology", "packages",
        m->packages, "cores", m->cores, "pus", m->pus, "smt", m->smt, "pu", pus, "tsc", "hz",
        jreal(r->tsc.hz), "step", (json_int_t)r->tsc.step, "source", r->tsc.source, "invariant",
        r->tsc.invariant, "hwloc_version", hv);
}

int run_thread_name(pid_t tid, char *name, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    if (!fgets(name, (int)len, f)) name[0] = 0;
    name[strcspn(name, "\n")] = 0;
    fclose(f);
    return 0;
}

/* A thread of the program by the id its samples carry, with its name now, or as it was
 * when it joined; in a PID namespace of the process's own, with its id there too. */
static json_t *thread_json(pid_t tid, uint64_t seen, const char *joined_as)
{
    char name[RUN_THREAD_NAME];
    if (run_thread_name(tid, name, sizeof name) != 0) snprintf(name, sizeof name, "%s", joined_as);
    if (!seen || seen == (uint64_t)tid)
        return json_pack("{s:I, s:o}", "tid", (json_int_t)tid, "name", jtext(name));
    return json_pack("{s:I, s:I, s:o}", "tid", (json_int_t)seen, "ns_tid", (json_int_t)tid, "name",
                     jtext(name));
}

static json_t *placement_json(const struct shim_run *r)
{
    const struct placement *p = &r->placement;
    json_t *allowed = json_array();
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &r->allowed)) json_array_append_new(allowed, json_integer(i));
    json_t *observers = json_array(), *threads = json_array();
    for (unsigned k = 0; k <= r->n_extra; k++) {
        const struct placement *q = k ? &r->extra[k - 1].placement : p;
        uint64_t samples = k ? r->extra[k - 1].samples : r->samples0;
        json_array_append_new(observers, json_pack("{s:i, s:i, s:s, s:s, s:o}", "observed_cpu",
                                                   q->observed_cpu, "observer_cpu", q->observer_cpu,
                                                   "relation", q->relation, "shared", q->shared,
                                                   "samples", jint(samples)));
    }
    json_array_append_new(threads, thread_json(r->observed_tid, r->observed_seen, r->prog_name));
    for (unsigned i = 0; i < r->attached && i < RUN_MAX_THREADS; i++)
        json_array_append_new(threads,
                              thread_json(r->thread_tid[i], r->thread_seen[i], r->thread_name[i]));
    return json_pack(
        "{s:i, s:i, s:s, s:s, s:s, s:o, s:I, s:o, s:{s:s, s:o}, s:o, s:o}", "observed_cpu",
        p->observed_cpu, "observer_cpu", p->observer_cpu, "relation", p->relation, "shared",
        p->shared, "chosen_by", p->user_chosen ? "user" : "shim", "allowed_cpus", allowed,
        "observed_tid", (json_int_t)r->observed_tid, "observers", observers, "thread_identity",
        "source", r->ti ? "bpf" : "pinned", "why", r->ti ? json_null() : jtext(r->identity_why),
        "threads", threads, "threads_attached", jint(r->attached));
}

static json_t *profile_json(const struct shim_run *r, struct table_writer *table)
{
    const struct observer *o = &r->obs;
    const struct observer_totals *t = &o->totals;
    double wall = (double)(r->end.mono_ns - r->start.mono_ns) * 1e-9;
    unsigned walk = o->plan.walk_tag; /* contexts from stack walks: column walk - 1 */
    struct tag_order order;
    if (tag_order_build(r, &o->tags, &order, walk, o->plan.method_tag) != 0) {
        tag_order_free(&order);
        return NULL;
    }
    json_t *rates, *signals = signals_json(r, &rates);
    char version[32], exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    snprintf(version, sizeof version, "%d.%d.%d", SHIM_VERSION_MAJOR, SHIM_VERSION_MINOR,
             SHIM_VERSION_PATCH);
    json_t *root = json_pack(
        "{s:s, s:i, s:s, s:{s:o, s:o, s:I, s:o}, s:o, s:o, s:o,"
        " s:{s:I, s:I, s:I, s:f, s:b}, s:o, s:o,"
        " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I}},"
        " s:o, s:o, s:o, s:{s:o, s:f, s:o, s:I, s:I}, s:o}",
        "format", PROFILE_FORMAT_NAME, "version", PROFILE_FORMAT_VERSION_INLINE, "shim_version",
        version, "program", "path", jtext(exe), "name", jtext(r->prog_name), "pid",
        (json_int_t)r->pid, "argv", argv_json(), "config", config_json(r), "machine",
        machine_json(r), "placement", placement_json(r), "run", "start_unix_ns",
        (json_int_t)r->start.real_ns, "duration_ns",
        (json_int_t)(r->end.mono_ns - r->start.mono_ns), "tsc_cycles",
        (json_int_t)(o->last_tsc - o->first_tsc), "children_cpu_seconds", run_children_seconds(r),
        "children_observed", run_children_observed(), "signals", signals, "rates", rates, "samples",
        "total", (json_int_t)t->total, "interrupted", (json_int_t)t->interrupted, "max_period",
        (json_int_t)o->params.max_period, "rated", (json_int_t)t->rated, "kept",
        (json_int_t)t->kept, "discarded", (json_int_t)t->discarded, "thread_changes",
        (json_int_t)t->thread_changes, "straddled", (json_int_t)t->straddled, "other",
        (json_int_t)t->other, "distinct_tags", (json_int_t)o->tags.n_entries, "other_why", "full",
        (json_int_t)o->tags.other_why[TAG_OTHER_FULL], "behind",
        (json_int_t)o->tags.other_why[TAG_OTHER_BEHIND], "period",
        loghist_json(&o->period, "TSC cycles"), "gap", loghist_json(&o->gap, "TSC cycles"), "cpc",
        loghist_json(&o->cpc, NULL), "cost", "samples_per_second",
        jreal(wall > 0 ? (double)t->total / wall : NAN), "observer_cpu_seconds", o->cpu_seconds,
        "observer_cpu_share", jreal(wall > 0 ? o->cpu_seconds / wall : NAN), "tag_table_bytes",
        (json_int_t)o->tags.bytes, "tag_entry_bytes", (json_int_t)o->tags.entry_bytes, "other",
        entry_json(r, &o->tags, tag_table_other((struct tag_table *)&o->tags), NULL));
    if (root && r->tracing)
        json_object_set_new(
            root, "trace",
            json_pack("{s:o, s:o, s:o, s:o, s:o, s:i}", "path", jtext(r->trace_path), "records",
                      jint(r->trace.records), "dropped_full", jint(r->trace.dropped_full),
                      "dropped_limit", jint(r->trace.dropped_limit), "max_bytes",
                      jint(r->trace.max_bytes), "record_words", (int)r->trace.ring.words));
    const struct run_snapshot_info *si = &r->snapshot_info; /* SHIM_SNAPSHOT (snapshot.c) */
    if (root && si->on)
        json_object_set_new(root, "snapshot",
                            json_pack("{s:o, s:f, s:i, s:b, s:o, s:f}", "number", jint(si->number),
                                      "every_seconds", si->every, "keep", (int)si->keep, "final",
                                      si->final, "previous_duration_ns", jint(si->previous_ns),
                                      "cpu_seconds", si->cpu_seconds));
    const struct probe_by *by = &o->plan.by;
    if (root && by->buckets)
        json_object_set_new(root, "by",
                            json_pack("{s:o, s:o, s:i, s:f, s:f}", "rate",
                                      jtext(r->rate[by->y].name), "by", jtext(r->rate[by->x].name),
                                      "buckets", (int)by->buckets, "lo", by->lo, "hi", by->hi));
    if (root && o_paths(r)) json_object_set_new(root, "paths", paths_json(r));
    struct batch_plan bp = batch_plan_of(o);
    if (root) json_object_set_new(root, "batches", batches_json(o, &bp));
    uint64_t *seen = NULL;
    size_t n_seen = functions_seen(r, &seen);
    if (root && cct_profile_add(root, jtext, seen, n_seen, walk ? &o->chains : NULL, &order.rows,
                                table, r->settings.inline_max) != 0) {
        json_decref(root);
        root = NULL;
    }
    free(seen);
    /* after the trees: the walks' entries hold context values now */
    if (root) json_object_set_new(root, "tags", tags_out(r, &o->tags, &order, table));
    tag_order_free(&order);
    if (!root) return NULL;
    if (table->opened) { /* docs/profile-format.md, "Large profiles" */
        json_object_set_new(root, "version", json_integer(PROFILE_FORMAT_VERSION));
        json_object_set_new(root, "table", table_json(table, jtext));
    }
    json_t *samples = root ? json_object_get(root, "samples") : NULL;
    if (samples && o->n_fast < o->plan.n_hw) {
        json_object_set_new(samples, "slow_spans", jint(t->slow_spans));
        json_object_set_new(samples, "slow_attributed", jint(t->slow_attributed));
    }
    return root;
}

/* Create a temporary file beside path, with a random name, exclusively: O_EXCL and
 * O_NOFOLLOW mean nothing planted in a shared directory (a file, or a symlink pointing
 * elsewhere) is ever opened in its place. Mode 0644, less the umask. */
static int create_temporary(const char *path, char *tmp, size_t len)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != sizeof r)
            r = (uint64_t)clock() ^ ((uint64_t)getpid() << 20);
        snprintf(tmp, len, "%s.%016llx.tmp", path, (unsigned long long)r);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? errno : EIO;
        p += k, n -= (size_t)k;
    }
    return 0;
}

int profile_write(const struct shim_run *r, char *why, size_t whylen)
{
    char tmp[PATH_MAX + 32];
    struct table_writer table;
    table_init(&table, r->output_path);
    names_lock();
    json_t *doc = profile_json(r, &table);
    names_unlock();
    if (table_finish(&table, why, whylen) != 0) {
        json_decref(doc);
        return -1;
    }
    char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(doc);
    if (!text) {
        table_abort(&table);
        snprintf(why, whylen, "out of memory building the profile");
        return -1;
    }
    int fd = create_temporary(r->output_path, tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(why, whylen, "cannot create a temporary file beside %s: %s", r->output_path,
                 strerror(errno));
        free(text);
        return -1;
    }
    int err = write_all(fd, text, strlen(text));
    free(text);
    if (!err && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    if (err) {
        snprintf(why, whylen, "cannot write %s: %s", r->output_path, strerror(err));
        unlink(tmp); /* never a partial file */
        table_abort(&table);
        return -1;
    }
    /* the table first: a profile in place always finds its table */
    if (table_commit(&table, why, whylen) != 0) {
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, r->output_path) != 0) {
        snprintf(why, whylen, "cannot write %s: %s", r->output_path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
