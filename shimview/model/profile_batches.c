/*
 * profile_batches.c -- the time batches of a profile: the top-level `batches` and each
 * detail record's (see profile_batches.h; the format is docs/profile-format.md).
 *
 * What is checked: the top level's counts add up to the attributed samples (every
 * attributed sample falls in one batch); an entry's arrays have one value per batch, hold
 * nothing before `first`, add up to the samples its record describes (samples - since),
 * and never more in a batch than the profile attributed there; its sums are finite. So a
 * reader can take the batches as a partition of the tuple's recorded samples in time.
 */
#include "shimview/model/profile_batches.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int profile_read_batches(struct reader *r, const json_t *root, struct profile *p)
{
    json_t *o;
    size_t mark, n;
    if (!json_object_get(root, "batches") || json_is_null(json_object_get(root, "batches")))
        return 0;
    if (member_object(r, root, "batches", &o, &mark) ||
        member_u64(r, o, "cycles", &p->batches.cycles) ||
        member_values(r, o, "samples", sizeof *p->batches.samples, value_u64, &p->batches.samples,
                      &n))
        return -1;
    uint64_t count;
    if (member_u64(r, o, "count", &count)) return -1;
    if (p->batches.cycles == 0) {
        path_key(r, "cycles");
        return reader_fail(r, "0: a batch lasts at least one cycle");
    }
    if (count == 0 || count != n) {
        path_key(r, "count");
        return reader_fail(r, "%" PRIu64 ": expected the length of samples (%zu), at least 1",
                           count, n);
    }
    uint64_t sum = 0;
    for (size_t j = 0; j < n; j++)
        sum = sum > UINT64_MAX - p->batches.samples[j] ? UINT64_MAX : sum + p->batches.samples[j];
    uint64_t attributed = p->samples.total - p->samples.interrupted;
    if (sum != attributed) {
        path_key(r, "samples");
        return reader_fail(r,
                           "the batches hold %" PRIu64 " samples, not the %" PRIu64
                           " attributed (samples.total - samples.interrupted)",
                           sum, attributed);
    }
    path_restore(r, mark);
    p->batches.count = n;
    p->has_batches = 1;
    return 0;
}

/* `a` or `b`: one array of count finite numbers per rate, into out[r * count + j]. */
static int read_sums(struct reader *r, const json_t *o, const char *key, const struct profile *p,
                     double *out)
{
    size_t mark = path_key(r, key);
    const json_t *a = json_object_get(o, key);
    if (!json_is_array(a)) return reader_expected(r, a, "an array of arrays, one per rate");
    if (array_length(r, a, p->nrates, "the number of rates")) return -1;
    for (size_t k = 0; k < p->nrates; k++) {
        size_t m2 = path_index(r, k), n;
        double *v = NULL;
        if (array_values(r, json_array_get(a, k), sizeof *v, value_number, &v, &n)) {
            free(v);
            return -1;
        }
        if (n != p->batches.count) {
            free(v);
            return reader_fail(r, "%zu values: expected one per batch (%zu)", n, p->batches.count);
        }
        memcpy(out + k * n, v, n * sizeof *v);
        free(v);
        path_restore(r, m2);
    }
    path_restore(r, mark);
    return 0;
}

static int check_entry_batches(struct reader *r, const struct profile_batches *b,
                               const struct profile_tag *t, const struct profile *p)
{
    uint64_t sum = 0;
    size_t mark = path_key(r, "samples");
    for (size_t j = 0; j < p->batches.count; j++) {
        if (j < b->first && b->samples[j]) {
            path_index(r, j);
            return reader_fail(r,
                               "%" PRIu64 " samples before the record's first batch (%" PRIu64 ")",
                               b->samples[j], b->first);
        }
        if (b->samples[j] > p->batches.samples[j]) {
            path_index(r, j);
            return reader_fail(
                r, "%" PRIu64 " samples, more than the %" PRIu64 " attributed in that batch",
                b->samples[j], p->batches.samples[j]);
        }
        sum += b->samples[j];
    }
    if (sum != t->samples - t->detail_since)
        return reader_fail(r,
                           "the batches hold %" PRIu64 " samples, not the %" PRIu64
                           " the record describes (samples - since)",
                           sum, t->samples - t->detail_since);
    path_restore(r, mark);
    return 0;
}

int profile_read_entry_batches(struct reader *r, const json_t *d, struct profile_tag *t,
                               const struct profile *p)
{
    const json_t *v = json_object_get(d, "batches");
    json_t *o;
    size_t mark, n;
    if (!v || json_is_null(v)) return 0;
    if (!p->has_batches)
        return member_null(r, d, "batches", "nothing (the profile has no top-level batches)");
    struct profile_batches *b = calloc(1, sizeof *b);
    size_t count = p->batches.count;
    if (b) {
        b->a = calloc(count * p->nrates + 1, sizeof *b->a);
        b->b = calloc(count * p->nrates + 1, sizeof *b->b);
    }
    t->batches = b;
    if (!b || !b->a || !b->b) return reader_fail(r, "out of memory");
    if (member_object(r, d, "batches", &o, &mark) || member_u64(r, o, "first", &b->first) ||
        member_values(r, o, "samples", sizeof *b->samples, value_u64, &b->samples, &n))
        return -1;
    if (b->first >= count) {
        path_key(r, "first");
        return reader_fail(r, "%" PRIu64 " is past the last batch (%zu)", b->first, count - 1);
    }
    if (n != count) {
        path_key(r, "samples");
        return reader_fail(r, "%zu values: expected one per batch (%zu)", n, count);
    }
    if (check_entry_batches(r, b, t, p) || read_sums(r, o, "a", p, b->a) ||
        read_sums(r, o, "b", p, b->b))
        return -1;
    path_restore(r, mark);
    return 0;
}

struct profile_batches *profile_batches_copy(const struct profile_batches *b, size_t count,
                                             size_t nrates)
{
    struct profile_batches *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->first = b->first;
    c->samples = malloc((count + 1) * sizeof *c->samples);
    c->a = malloc((count * nrates + 1) * sizeof *c->a);
    c->b = malloc((count * nrates + 1) * sizeof *c->b);
    if (!c->samples || !c->a || !c->b) {
        profile_batches_free(c);
        return NULL;
    }
    memcpy(c->samples, b->samples, count * sizeof *c->samples);
    memcpy(c->a, b->a, count * nrates * sizeof *c->a);
    memcpy(c->b, b->b, count * nrates * sizeof *c->b);
    return c;
}

void profile_batches_free(struct profile_batches *b)
{
    if (!b) return;
    free(b->samples);
    free(b->a);
    free(b->b);
    free(b);
}
