/*
 * profile.c -- load and validate a shim profile (docs/profile-format.md).
 *
 * The walk mirrors the format document: one function per section, each a chain of
 * typed reads (reader.h) that stops at the first member that is missing, of the wrong
 * type or out of range, with a message naming the file and the member's JSON path:
 *
 *     run.json: tags[3].samples: expected a non-negative integer, found -4
 *
 * Beyond types it checks what later code relies on: array lengths agree with
 * `signals.tags` and `rates`, histogram buckets are ordered and inside their range, and
 * the invariants the format states (kept + discarded == rated, rated + thread_changes + interrupted
 * == total, kept <= samples). It does not check sums across tag entries or recompute shares: a
 * report shows what the profile says.
 *
 * Trade-offs: the reader is strict about what version 1 defines, so a profile that loads
 * needs no further checks and a writer that drifts from the format hears about it, and it
 * ignores members it does not know, as the format asks. Members the format allows to be
 * absent (summaries of empty histograms, rate statistics when n is 0, the `other` entry's
 * tuple, `by` when the run did not ask for one rate bucketed by another, the
 * calling-context members, which profile_cct.c reads, the compiler pass's, which
 * profile_pass.c reads, and the observed threads of `placement`, which profile_threads.c
 * reads) are read as optional. A path entry of `paths` is read by the code that reads a
 * tag entry, with its own tuple.
 */
#include "shimview/model/profile.h"
#include "shimview/model/demangle.h"
#include "shimview/model/profile_table.h"
#include "shimview/model/profile_cct.h"
#include "shimview/model/profile_pass.h"
#include "shimview/model/profile_threads.h"
#include "shimview/model/reader.h"
#include "shimview/model/profile_batches.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- histograms ---- */

static int element_log_bucket(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_log_bucket *b = elem;
    const struct profile_loghist *h = ctx;
    const json_t *t = value_tuple(r, v, 3, "an array [lo, hi, count]");
    if (!t || tuple_item(r, t, 0, value_number, &b->lo) ||
        tuple_item(r, t, 1, value_number, &b->hi) || tuple_item(r, t, 2, value_u64, &b->count))
        return -1;
    if (!(b->lo < b->hi)) return reader_fail(r, "lo (%g) is not below hi (%g)", b->lo, b->hi);
    if (b > h->buckets && b->lo < b[-1].hi)
        return reader_fail(r, "starts at %g, before the previous bucket ends (%g)", b->lo,
                           b[-1].hi);
    return 0;
}

/* `exact`: which of median, p10 and p90 are values that were added (absent: none). */
static int read_exact(struct reader *r, const json_t *o, struct profile_loghist *h)
{
    const char **names = NULL;
    size_t n;
    if (!json_object_get(o, "exact")) return 0;
    if (member_values(r, o, "exact", sizeof *names, value_string, &names, &n)) {
        free(names);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int *flag = !strcmp(names[i], "median") ? &h->median_exact
                    : !strcmp(names[i], "p10")  ? &h->p10_exact
                    : !strcmp(names[i], "p90")  ? &h->p90_exact
                                                : NULL;
        if (!flag) {
            path_key(r, "exact");
            path_index(r, i);
            free(names);
            return reader_fail(r, "expected \"median\", \"p10\" or \"p90\"");
        }
        *flag = 1;
    }
    free(names);
    return 0;
}

static int read_loghist(struct reader *r, const json_t *root, const char *key,
                        struct profile_loghist *h)
{
    static const char *const names[] = {"min", "max", "mean", "median", "p10", "p90"};
    double *fields[] = {&h->min, &h->max, &h->mean, &h->median, &h->p10, &h->p90};
    json_t *o;
    size_t mark;
    h->unit = "";
    if (member_object(r, root, key, &o, &mark) ||
        member_optional(r, o, "unit", value_string, &h->unit, NULL) ||
        member_u64(r, o, "count", &h->count) ||
        member_optional(r, o, "underflow", value_u64, &h->underflow, NULL) ||
        member_optional(r, o, "overflow", value_u64, &h->overflow, NULL))
        return -1;
    /* The summary describes counted values; with none it may be absent. */
    h->has_summary = h->count > 0;
    for (size_t i = 0; i < 6; i++) {
        int rc = h->count > 0 ? member_number(r, o, names[i], fields[i])
                              : member_optional(r, o, names[i], value_number, fields[i], NULL);
        if (rc) return -1;
    }
    if (member_array(r, o, "buckets", sizeof *h->buckets, element_log_bucket, h, &h->buckets,
                     &h->nbuckets) ||
        read_exact(r, o, h))
        return -1;
    path_restore(r, mark);
    return 0;
}

const char *profile_slow_rates_note(const struct profile *p, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t r = 0; r < p->nrates && at < len; r++)
        if (p->rates[r].slow)
            at += (size_t)snprintf(buf + at, len - at, "%s%s",
                                   at ? ", " : ", and for the slow rates (", p->rates[r].name);
    if (at && at < len)
        snprintf(buf + at, len - at, ") over their spans between reads of the slow counters");
    return buf;
}

const char *profile_loghist_quantile_text(const struct profile_loghist *h, double v, int exact,
                                          double scale, char *buf, size_t len)
{
    double width = NAN;
    for (size_t i = 0; i < h->nbuckets && !exact; i++)
        if (h->buckets[i].lo <= v && v < h->buckets[i].hi)
            width = h->buckets[i].hi - h->buckets[i].lo;
    if (exact || !(width > 0)) { /* exact, or outside every bucket: the min or max */
        if (scale == 1) {
            snprintf(buf, len, "%.10g", v);
            return buf;
        }
        width = 1; /* a whole number of cycles, in another unit: to one cycle's precision */
    }
    return profile_bucket_text(v * scale, width * scale, buf, len);
}

static int element_lin_count(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_lin_count *c = elem;
    const struct profile_linhist *h = ctx;
    const json_t *t = value_tuple(r, v, 2, "an array [index, count]");
    if (!t || tuple_item(r, t, 0, value_u64, &c->index) ||
        tuple_item(r, t, 1, value_u64, &c->count))
        return -1;
    if (c->index >= h->buckets)
        return reader_fail(r, "bucket index %" PRIu64 " is not below buckets (%" PRIu64 ")",
                           c->index, h->buckets);
    if (c > h->counts && c->index <= c[-1].index)
        return reader_fail(r, "bucket index %" PRIu64 " does not follow %" PRIu64, c->index,
                           c[-1].index);
    return 0;
}

static int read_linhist(struct reader *r, const json_t *parent, struct profile_linhist *h)
{
    json_t *o;
    size_t mark;
    if (member_object(r, parent, "hist", &o, &mark) || member_u64(r, o, "buckets", &h->buckets) ||
        member_number(r, o, "lo", &h->lo) || member_number(r, o, "hi", &h->hi) ||
        member_u64(r, o, "underflow", &h->underflow) ||
        member_u64(r, o, "overflow", &h->overflow) || member_u64(r, o, "nan", &h->nan))
        return -1;
    if (h->buckets == 0) return reader_fail(r, "buckets is 0, expected at least 1");
    if (!(h->lo < h->hi)) return reader_fail(r, "lo (%g) is not below hi (%g)", h->lo, h->hi);
    if (member_array(r, o, "counts", sizeof *h->counts, element_lin_count, h, &h->counts,
                     &h->ncounts))
        return -1;
    path_restore(r, mark);
    return 0;
}

/* ---- tag entries ---- */

/* Members `names` of v into `fields`: all required when `required`, else each optional;
 * 1 in *all when every one is present. */
static int read_numbers(struct reader *r, const json_t *v, const char *const *names,
                        double *const *fields, size_t n, int required, int *all)
{
    int present;
    *all = 1;
    for (size_t i = 0; i < n; i++) {
        int rc = required ? member_number(r, v, names[i], fields[i])
                          : member_optional(r, v, names[i], value_number, fields[i], &present);
        if (rc) return -1;
        if (!required && !present) *all = 0;
    }
    return 0;
}

/*
 * A rate of an entry. The sums over its kept periods (`periods`, then rate and sum_a to
 * sum_ab when periods > 0) are in every entry; the distribution of the per-period rates
 * (`n`, then mean to max when n > 0, and `hist`) only in entries that have a detail
 * record. Without one, n reads as periods (the count the intervals use) and the
 * histogram is empty. Profiles from before the detail records have n and hist always,
 * and may lack periods (it reads as n).
 */
static int element_rate_stats(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    static const char *const sums[] = {"rate", "sum_a", "sum_b", "sum_aa", "sum_bb", "sum_ab"};
    /* mean to max read as 0 where there is no distribution (has_dist says which) */
    static const char *const dist[] = {"mean", "sum", "sumsq", "min", "max"};
    struct profile_rate_stats *s = elem;
    double *sum_fields[] = {&s->rate, &s->sum_a, &s->sum_b, &s->sum_aa, &s->sum_bb, &s->sum_ab};
    double *dist_fields[] = {&s->mean, &s->sum, &s->sumsq, &s->min, &s->max};
    int present, all_sums, all_dist;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_optional(r, v, "n", value_u64, &s->n, &s->has_dist) ||
        member_optional(r, v, "periods", value_u64, &s->periods, &present))
        return -1;
    if (!present && !s->has_dist) return member_u64(r, v, "periods", &s->periods); /* says so */
    if (!present) s->periods = s->n;
    if (!s->has_dist) s->n = s->periods;
    /* With no kept periods there is nothing to summarise: the format leaves the sums
     * out; a writer that includes them must still give numbers. */
    /* The rate is null where sum_b is 0 (a denominator that never moved): there is then
     * no rate to show, as when no period was kept. */
    int has_rate;
    if (member_optional(r, v, "rate", value_number, &s->rate, &has_rate) ||
        read_numbers(r, v, sums + 1, sum_fields + 1, 5, s->periods > 0, &all_sums) ||
        read_numbers(r, v, dist, dist_fields, 5, s->has_dist && s->n > 0, &all_dist))
        return -1;
    /* `rate` is there wherever periods are (null when sum_b is 0), and a null rate means
     * that no period had a finite rate of its own, so none is in the distribution */
    if (s->periods > 0 && !json_object_get(v, "rate"))
        return member_number(r, v, "rate", &s->rate); /* says that it is missing */
    if (!has_rate && s->has_dist && s->n > 0) {
        path_key(r, "n");
        return reader_fail(r,
                           "%" PRIu64 " periods with a finite rate, but rate is null (sum_b is "
                           "0: no period has one)",
                           s->n);
    }
    s->has_stats = has_rate && (s->periods > 0 || all_sums);
    if (!s->has_dist) { /* an empty histogram of the profile's shape */
        const struct profile *p = ctx;
        if (!s->has_stats) s->n = 0;
        s->hist.buckets = p->config.hist_buckets;
        s->hist.lo = p->config.hist_lo;
        s->hist.hi = p->config.hist_hi;
        return member_null(r, v, "hist", "nothing (a rate without n has no distribution)");
    }
    return read_linhist(r, v, &s->hist);
}

static int read_tag_tuple(struct reader *r, const json_t *v, struct profile_tag *t,
                          const struct profile *p)
{
    size_t nnames, mark = path_key(r, "values");
    const json_t *values = json_object_get(v, "values");
    if (array_length(r, values, p->signals.ntags, "one per signals.tags entry") ||
        array_values(r, values, sizeof *t->values, value_integer, &t->values, &t->nvalues))
        return -1;
    path_restore(r, mark);
    mark = path_key(r, "names");
    const json_t *names = json_object_get(v, "names");
    if (array_length(r, names, p->signals.ntags, "one per signals.tags entry") ||
        array_values(r, names, sizeof *t->names, value_string_or_null, &t->names, &nnames))
        return -1;
    path_restore(r, mark);
    return 0;
}

/* A path entry's tuple: [function address, path number]; its names, if any, mean
 * nothing and are not read. */
static int read_path_tuple(struct reader *r, const json_t *v, struct profile_tag *t)
{
    size_t mark = path_key(r, "values");
    const json_t *values = json_object_get(v, "values");
    if (array_length(r, values, 2, "[function address, path number]") ||
        array_values(r, values, sizeof *t->values, value_integer, &t->values, &t->nvalues))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_tag_rates(struct reader *r, const json_t *v, struct profile_tag *t,
                          const struct profile *p)
{
    size_t n, mark = path_key(r, "rates");
    const json_t *rates = json_object_get(v, "rates");
    if (array_length(r, rates, p->nrates, "one per top-level rates entry") ||
        array_read(r, rates, sizeof *t->rates, element_rate_stats, (void *)p, &t->rates, &n))
        return -1;
    path_restore(r, mark);
    return 0;
}

/* ---- `by`: one rate bucketed by another ---- */

/* Member key of o names a rate of p: its index in p->rates (the first of that name). */
static int member_rate_name(struct reader *r, const json_t *o, const char *key,
                            const struct profile *p, size_t *out)
{
    const char *name;
    if (member_string(r, o, key, &name)) return -1;
    for (size_t i = 0; i < p->nrates; i++)
        if (strcmp(p->rates[i].name, name) == 0) {
            *out = i;
            return 0;
        }
    char list[160];
    size_t len = 0;
    list[0] = '\0';
    for (size_t i = 0; i < p->nrates && len < sizeof list; i++) {
        int n = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", p->rates[i].name);
        len += n > 0 ? (size_t)n : 0;
    }
    path_key(r, key);
    return reader_fail(r, "\"%s\" is not one of the profile's rates (%s)", name,
                       p->nrates ? list : "it has none");
}

/* The top-level `by`, after `rates`, whose names it uses; absent (or null): no by data. */
static int read_by(struct reader *r, const json_t *root, struct profile *p)
{
    struct profile_by *b = &p->by;
    json_t *o;
    size_t mark;
    const json_t *v = json_object_get(root, "by");
    if (!v || json_is_null(v)) return 0;
    if (member_object(r, root, "by", &o, &mark) || member_rate_name(r, o, "rate", p, &b->rate) ||
        member_rate_name(r, o, "by", p, &b->by) || member_u64(r, o, "buckets", &b->buckets) ||
        member_number(r, o, "lo", &b->lo) || member_number(r, o, "hi", &b->hi))
        return -1;
    if (b->buckets == 0) return reader_fail(r, "buckets is 0, expected at least 1");
    if (!(b->lo < b->hi)) return reader_fail(r, "lo (%g) is not below hi (%g)", b->lo, b->hi);
    path_restore(r, mark);
    p->has_by = 1;
    return 0;
}

static int element_by_slot(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_by_slot *s = elem;
    const json_t *t = value_tuple(r, v, 3, "an array [count, sum_a, sum_b]");
    (void)ctx;
    if (!t || tuple_item(r, t, 0, value_u64, &s->count) ||
        tuple_item(r, t, 1, value_nonnegative, &s->sum_a) ||
        tuple_item(r, t, 2, value_nonnegative, &s->sum_b))
        return -1;
    return 0;
}

/* A tag entry's `by`: buckets + 2 slots when the profile has `by`, else nothing (an entry
 * cannot hold slots that nothing describes). Each period is in one slot at most, so the
 * slots hold no more periods than the entry kept. */
static int read_tag_by(struct reader *r, const json_t *v, struct profile_tag *t,
                       const struct profile *p)
{
    if (!p->has_by) return member_null(r, v, "by", "nothing (the profile has no top-level by)");
    size_t n, mark = path_key(r, "by");
    const json_t *by = json_object_get(v, "by");
    if (array_length(r, by, p->by.buckets + 2, "buckets + 2 of the top-level by") ||
        array_read(r, by, sizeof *t->by, element_by_slot, NULL, &t->by, &n))
        return -1;
    uint64_t periods = 0;
    for (size_t i = 0; i < n; i++)
        periods = periods > UINT64_MAX - t->by[i].count ? UINT64_MAX : periods + t->by[i].count;
    if (periods > t->kept)
        return reader_fail(r, "the slots hold %" PRIu64 " periods, more than kept (%" PRIu64 ")",
                           periods, t->kept);
    path_restore(r, mark);
    return 0;
}

/* `detail`: null, absent (profiles from before it), or {"since": samples} with its time
 * batches when the profile has them. */
static int read_tag_detail(struct reader *r, const json_t *v, struct profile_tag *t,
                           const struct profile *p)
{
    const json_t *d = json_object_get(v, "detail");
    json_t *o;
    size_t mark;
    t->detail_since = 0;
    if (!d || json_is_null(d)) return 0;
    if (member_object(r, v, "detail", &o, &mark) || member_u64(r, o, "since", &t->detail_since))
        return -1;
    if (t->detail_since > t->samples)
        return reader_fail(r, "since (%" PRIu64 ") is more than the entry's samples (%" PRIu64 ")",
                           t->detail_since, t->samples);
    t->has_detail = 1;
    if (profile_read_entry_batches(r, o, t, p)) return -1;
    path_restore(r, mark);
    return 0;
}

struct tag_ctx {
    const struct profile *p;
    int is_other;
    int is_path; /* an entry of `paths`: values [function, path], no names, by optional */
};

static int element_tag(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    static const char other_has_no_tuple[] = "null (the other entry has no tag tuple)";
    struct profile_tag *t = elem;
    const struct tag_ctx *c = ctx;
    t->is_other = c->is_other;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (c->is_other) {
        if (member_optional(r, v, "thread", value_u64, &t->thread, NULL) ||
            member_null(r, v, "values", other_has_no_tuple) ||
            member_null(r, v, "names", other_has_no_tuple))
            return -1;
    } else if (member_u64(r, v, "thread", &t->thread) ||
               (c->is_path ? read_path_tuple(r, v, t) : read_tag_tuple(r, v, t, c->p))) {
        return -1;
    }
    if (member_u64(r, v, "samples", &t->samples) ||
        member(r, v, "share", value_fraction, &t->share) ||
        member_u64(r, v, "cycles", &t->cycles) || member_u64(r, v, "kept", &t->kept) ||
        member_optional(r, v, "straddled", value_u64, &t->straddled, NULL) ||
        read_tag_detail(r, v, t, c->p))
        return -1;
    if (t->kept > t->samples) {
        path_key(r, "kept");
        return reader_fail(r, "%" PRIu64 " is more than samples (%" PRIu64 ")", t->kept,
                           t->samples);
    }
    if (read_tag_rates(r, v, t, c->p)) return -1;
    if (c->is_path && !json_object_get(v, "by")) return 0;
    return read_tag_by(r, v, t, c->p);
}

int profile_read_entry(struct reader *r, const json_t *v, struct profile_tag *t,
                       const struct profile *p, int is_other)
{
    struct tag_ctx c = {p, is_other, 1};
    return element_tag(r, v, t, &c);
}

static int read_tags(struct reader *r, const json_t *root, struct profile *p)
{
    struct tag_ctx tags = {p, 0, 0}, other = {p, 1, 0};
    if (member_array(r, root, "tags", sizeof *p->tags, element_tag, &tags, &p->tags, &p->ntags))
        return -1;
    size_t mark = path_key(r, "other");
    if (element_tag(r, json_object_get(root, "other"), &p->other, &other)) return -1;
    path_restore(r, mark);
    return 0;
}

/* ---- sections describing the run ---- */

static int read_program(struct reader *r, const json_t *root, struct profile_program *g)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "program", &o, &mark) || member_string(r, o, "path", &g->path) ||
        member_string(r, o, "name", &g->name) || member_u64(r, o, "pid", &g->pid) ||
        member_values(r, o, "argv", sizeof *g->argv, value_string, &g->argv, &g->argc))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int value_cpu_or_auto(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < -1)
        return reader_expected(r, v, "a CPU number or -1");
    *(int64_t *)out = json_integer_value(v);
    return 0;
}

static int read_config_hist(struct reader *r, const json_t *cfg, struct profile_config *c)
{
    json_t *o;
    size_t mark;
    if (member_object(r, cfg, "hist", &o, &mark) || member_u64(r, o, "buckets", &c->hist_buckets) ||
        member_number(r, o, "lo", &c->hist_lo) || member_number(r, o, "hi", &c->hist_hi))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_config(struct reader *r, const json_t *root, struct profile_config *c)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "config", &o, &mark) || member_string(r, o, "output", &c->output) ||
        member_u64(r, o, "period", &c->period) || member_number(r, o, "jitter", &c->jitter) ||
        member(r, o, "observer_cpu", value_cpu_or_auto, &c->observer_cpu) ||
        member_number(r, o, "dte_tolerance", &c->dte_tolerance) ||
        member_optional(r, o, "dte_resolution", value_u64, &c->dte_resolution, NULL) ||
        member_bool(r, o, "dte_off", &c->dte_off) || member_bool(r, o, "strict", &c->strict) ||
        member_values(r, o, "tag_slots", sizeof *c->tag_slots, value_u64, &c->tag_slots,
                      &c->ntag_slots) ||
        member_values(r, o, "counter_slots", sizeof *c->counter_slots, value_u64, &c->counter_slots,
                      &c->ncounter_slots) ||
        read_config_hist(r, o, c) || member_u64(r, o, "max_tags", &c->max_tags) ||
        member_optional(r, o, "hist_tuples", value_u64, &c->hist_tuples, NULL))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int element_pu(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_pu *pu = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_u64(r, v, "os_index", &pu->os_index) || member_u64(r, v, "core", &pu->core) ||
        member_u64(r, v, "package", &pu->package))
        return -1;
    return 0;
}

static int read_topology(struct reader *r, const json_t *mach, struct profile_machine *m)
{
    json_t *o;
    size_t mark;
    if (member_object(r, mach, "topology", &o, &mark) ||
        member_u64(r, o, "packages", &m->packages) || member_u64(r, o, "cores", &m->cores) ||
        member_u64(r, o, "pus", &m->pus) || member_bool(r, o, "smt", &m->smt) ||
        member_array(r, o, "pu", sizeof *m->pu, element_pu, NULL, &m->pu, &m->npu))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_tsc(struct reader *r, const json_t *mach, struct profile_machine *m)
{
    json_t *o;
    size_t mark;
    if (member_object(r, mach, "tsc", &o, &mark) ||
        member(r, o, "hz", value_positive, &m->tsc_hz) || member_u64(r, o, "step", &m->tsc_step) ||
        member_string(r, o, "source", &m->tsc_source) ||
        member_bool(r, o, "invariant", &m->tsc_invariant))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_machine(struct reader *r, const json_t *root, struct profile_machine *m)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "machine", &o, &mark) ||
        member_string(r, o, "cpu_model", &m->cpu_model) ||
        member_string(r, o, "vendor", &m->vendor) ||
        member_string(r, o, "hostname", &m->hostname) ||
        member_string(r, o, "kernel", &m->kernel) || read_topology(r, o, m) || read_tsc(r, o, m) ||
        member_string(r, o, "hwloc_version", &m->hwloc_version))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_placement(struct reader *r, const json_t *root, struct profile_placement *pl)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "placement", &o, &mark) ||
        member_u64(r, o, "observed_cpu", &pl->observed_cpu) ||
        member_u64(r, o, "observer_cpu", &pl->observer_cpu) ||
        member_string(r, o, "relation", &pl->relation) ||
        member_string(r, o, "shared", &pl->shared) ||
        member_values(r, o, "allowed_cpus", sizeof *pl->allowed_cpus, value_u64, &pl->allowed_cpus,
                      &pl->nallowed) ||
        member_u64(r, o, "observed_tid", &pl->observed_tid) || profile_read_threads(r, o, pl))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_run(struct reader *r, const json_t *root, struct profile_run *run)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "run", &o, &mark) ||
        member_u64(r, o, "start_unix_ns", &run->start_unix_ns) ||
        member_u64(r, o, "duration_ns", &run->duration_ns) ||
        member_u64(r, o, "tsc_cycles", &run->tsc_cycles) ||
        member_optional(r, o, "children_cpu_seconds", value_number, &run->children_cpu_seconds,
                        NULL) ||
        member_optional(r, o, "children_observed", value_bool, &run->children_observed, NULL))
        return -1;
    path_restore(r, mark);
    const json_t *snap = json_object_get(root, "snapshot"); /* only its number, if any */
    const json_t *number = json_is_object(snap) ? json_object_get(snap, "number") : NULL;
    if (json_is_integer(number) && json_integer_value(number) > 0)
        run->snapshot = (uint64_t)json_integer_value(number);
    return 0;
}

/* ---- what was read: signals and rates ---- */

static int element_tag_slot(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_tag_slot *s = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    return member_u64(r, v, "slot", &s->slot) || member_string(r, v, "name", &s->name) ? -1 : 0;
}

static int element_counter(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_counter *c = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_u64(r, v, "slot", &c->slot) || member_string(r, v, "name", &c->name) ||
        member_string(r, v, "kind", &c->kind) || member_number(r, v, "scale", &c->scale) ||
        member_u64(r, v, "width", &c->width) ||
        member_optional(r, v, "event", value_string, &c->event, NULL))
        return -1;
    return 0;
}

static int read_signals(struct reader *r, const json_t *root, struct profile_signals *s)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "signals", &o, &mark) ||
        member_array(r, o, "tags", sizeof *s->tags, element_tag_slot, NULL, &s->tags, &s->ntags) ||
        member_array(r, o, "counters", sizeof *s->counters, element_counter, NULL, &s->counters,
                     &s->ncounters))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int element_rate(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_rate *rt = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_string(r, v, "name", &rt->name) || member_string(r, v, "counter", &rt->counter) ||
        member_string(r, v, "unit", &rt->unit) || member_number(r, v, "scale", &rt->scale) ||
        member_optional(r, v, "slow", value_bool, &rt->slow, NULL))
        return -1;
    return 0;
}

/* ---- totals and cost ---- */

/* samples.other_why: why samples went to `other` (absent in profiles from before it). */
static int read_other_why(struct reader *r, const json_t *samples, struct profile_samples *s)
{
    json_t *o;
    size_t mark;
    const json_t *v = json_object_get(samples, "other_why");
    if (!v || json_is_null(v)) return 0;
    if (member_object(r, samples, "other_why", &o, &mark) ||
        member_u64(r, o, "full", &s->other_full) || member_u64(r, o, "behind", &s->other_behind))
        return -1;
    path_restore(r, mark);
    s->has_other_why = 1;
    return 0;
}

static int read_samples(struct reader *r, const json_t *root, struct profile_samples *s)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "samples", &o, &mark) || member_u64(r, o, "total", &s->total) ||
        member_u64(r, o, "interrupted", &s->interrupted) ||
        member_u64(r, o, "max_period", &s->max_period) || member_u64(r, o, "rated", &s->rated) ||
        member_u64(r, o, "kept", &s->kept) || member_u64(r, o, "discarded", &s->discarded) ||
        member_u64(r, o, "thread_changes", &s->thread_changes) ||
        member_u64(r, o, "other", &s->other) ||
        member_u64(r, o, "distinct_tags", &s->distinct_tags) ||
        member_optional(r, o, "straddled", value_u64, &s->straddled, NULL) ||
        read_other_why(r, o, s))
        return -1;
    /* Each term is below 2^63, so a sum of two cannot wrap, but one of three can: the
     * second identity is checked as total - interrupted == rated + thread_changes. */
    if (s->kept + s->discarded != s->rated)
        return reader_fail(r, "kept (%" PRIu64 ") + discarded (%" PRIu64 ") != rated (%" PRIu64 ")",
                           s->kept, s->discarded, s->rated);
    if (s->interrupted > s->total || s->straddled > s->total - s->interrupted ||
        s->total - s->interrupted - s->straddled != s->rated + s->thread_changes)
        return reader_fail(r,
                           "rated (%" PRIu64 ") + thread_changes (%" PRIu64
                           ") + straddled (%" PRIu64 ") + interrupted (%" PRIu64
                           ") != total (%" PRIu64 ")",
                           s->rated, s->thread_changes, s->straddled, s->interrupted, s->total);
    if (s->other_full > s->other || s->other_behind > s->other - s->other_full)
        return reader_fail(r,
                           "other_why (full %" PRIu64 ", behind %" PRIu64 ") holds more than other "
                           "(%" PRIu64 ")",
                           s->other_full, s->other_behind, s->other);
    path_restore(r, mark);
    return 0;
}

static int read_cost(struct reader *r, const json_t *root, struct profile_cost *c)
{
    json_t *o;
    size_t mark;
    if (member_object(r, root, "cost", &o, &mark) ||
        member_number(r, o, "samples_per_second", &c->samples_per_second) ||
        member_number(r, o, "observer_cpu_seconds", &c->observer_cpu_seconds) ||
        member_number(r, o, "observer_cpu_share", &c->observer_cpu_share) ||
        member_u64(r, o, "tag_table_bytes", &c->tag_table_bytes) ||
        member_optional(r, o, "tag_entry_bytes", value_u64, &c->tag_entry_bytes, NULL))
        return -1;
    path_restore(r, mark);
    return 0;
}

/* ---- the document ---- */

/* format and version come first: a profile from a newer writer is refused for that
 * reason, not for whatever else it changed. */
static int read_header(struct reader *r, const json_t *root, struct profile *p)
{
    const json_t *format = json_object_get(root, "format");
    if (!format)
        return reader_fail(r, "a JSON object without \"format\": \"" PROFILE_FORMAT_NAME
                              "\"; not a shim profile");
    if (!json_is_string(format) || strcmp(json_string_value(format), PROFILE_FORMAT_NAME) != 0) {
        path_key(r, "format");
        if (json_is_string(format))
            return reader_fail(r,
                               "\"%.40s\" is not \"" PROFILE_FORMAT_NAME "\"; not a shim profile",
                               json_string_value(format));
        return reader_fail(r, "expected \"" PROFILE_FORMAT_NAME "\"; not a shim profile");
    }
    if (member_u64(r, root, "version", &p->version)) return -1;
    size_t mark = path_key(r, "version");
    if (p->version == 0) return reader_fail(r, "0 is not a format version (they start at 1)");
    if (p->version > PROFILE_FORMAT_VERSION)
        return reader_fail(r,
                           "%" PRIu64 " is newer than this shimview reads (%d); use a newer "
                           "shimview",
                           p->version, PROFILE_FORMAT_VERSION);
    path_restore(r, mark);
    return member_string(r, root, "shim_version", &p->shim_version);
}

static int read_profile(struct reader *r, struct profile *p)
{
    const json_t *root = p->root;
    if (!json_is_object(root))
        return reader_fail(r, "a JSON %s, not an object; not a shim profile",
                           json_is_array(root) ? "array" : "value");
    if (read_header(r, root, p) || read_program(r, root, &p->program) ||
        read_config(r, root, &p->config) || read_machine(r, root, &p->machine) ||
        read_placement(r, root, &p->placement) || read_run(r, root, &p->run) ||
        read_signals(r, root, &p->signals) ||
        member_array(r, root, "rates", sizeof *p->rates, element_rate, NULL, &p->rates,
                     &p->nrates) ||
        read_by(r, root, p) || read_samples(r, root, &p->samples) ||
        profile_read_batches(r, root, p) || read_loghist(r, root, "period", &p->period) ||
        read_loghist(r, root, "gap", &p->gap) || read_loghist(r, root, "cpc", &p->cpc) ||
        read_cost(r, root, &p->cost) || read_tags(r, root, p))
        return -1;
    struct profile_table *table;
    if (profile_read_table(r, root, p, &table)) return -1;
    int rc = profile_read_cct(r, root, p, table);
    profile_table_free(table);
    return rc;
}

struct profile *profile_load_buffer(const char *data, size_t len, const char *name, char *err,
                                    size_t errlen)
{
    struct reader r = {.file = name, .err = err, .errlen = errlen};
    struct profile *p = calloc(1, sizeof *p);
    if (!p) {
        reader_fail(&r, "out of memory");
        return NULL;
    }
    p->file = name;
    p->root = reader_parse(&r, data ? data : "", len);
    if (!p->root || read_profile(&r, p)) {
        profile_free(p);
        return NULL;
    }
    return p;
}

struct profile *profile_load(const char *path, char *err, size_t errlen)
{
    const char *name = strcmp(path, "-") == 0 ? PROFILE_STDIN_NAME : path;
    struct reader r = {.file = name, .err = err, .errlen = errlen};
    size_t len;
    char *data = reader_read_file(&r, path, PROFILE_MAX_BYTES, &len);
    if (!data) return NULL;
    /* The document copies what it keeps, so the bytes can go once it is parsed. */
    struct profile *p = profile_load_buffer(data, len, name, err, errlen);
    free(data);
    if (p) profile_demangle(p); /* C++ names as written in the source (demangle.h) */
    return p;
}

void profile_free_entry(struct profile_tag *t, size_t nrates)
{
    free(t->values);
    free(t->names);
    for (size_t i = 0; t->rates && i < nrates; i++)
        free(t->rates[i].hist.counts);
    free(t->rates);
    free(t->by);
    profile_batches_free(t->batches);
}

void profile_free(struct profile *p)
{
    if (!p) return;
    for (size_t i = 0; p->tags && i < p->ntags; i++)
        profile_free_entry(&p->tags[i], p->nrates);
    free(p->tags);
    profile_free_entry(&p->other, p->nrates);
    free(p->period.buckets);
    free(p->gap.buckets);
    free(p->cpc.buckets);
    free(p->batches.samples);
    free(p->deff_rate);
    free(p->rates);
    free(p->signals.tags);
    free(p->signals.counters);
    free(p->placement.allowed_cpus);
    profile_threads_free(&p->placement);
    free(p->machine.pu);
    free(p->config.tag_slots);
    free(p->config.counter_slots);
    free(p->program.argv);
    profile_demangle_free(p);
    profile_cct_free(p);
    json_decref(p->root);
    json_decref(p->strings);
    free(p);
}

uint64_t profile_total_cycles(const struct profile *p)
{
    uint64_t total = p->other.cycles;
    for (size_t i = 0; i < p->ntags; i++)
        total = total > UINT64_MAX - p->tags[i].cycles ? UINT64_MAX : total + p->tags[i].cycles;
    return total;
}
