/*
 * fuzz_profile.c -- a libFuzzer target for shimview's profile reader and its report.
 *
 * Each input is handed to profile_load_buffer() as the bytes of a profile file. When it
 * loads, the target checks what profile.h promises of a loaded profile (counts below
 * 2^63, finite numbers, array lengths that agree with `signals` and `rates`, histogram
 * buckets in order and in range, the invariants docs/profile-format.md states) and aborts
 * if one is broken, so a reader that accepts what it should refuse fails like a crash.
 * Then it demangles the function names as profile_load() does (libiberty's demangler on
 * whatever names the input holds) and prints the text report and the CSV table as
 * `shimview report` would, into /dev/null: the report trusts the reader, so it is the
 * first code to trip over a hole.
 *
 * The same file builds two programs (tests/fuzz/CMakeLists.txt): fuzz_profile, with
 * clang's -fsanitize=fuzzer,address,undefined, and replay_corpus, with the normal compiler
 * and no libFuzzer, which runs the committed corpus under ctest.
 */
#include "shimview/cmd/commands.h"
#include "shimview/model/demangle.h"
#include "shimview/model/profile.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- what report.c needs from base/usage.c ----
 *
 * report.c's option parsing (and paths.c's list of close names) calls these; the target prints
 * loaded profiles and never parses a command line, so reaching one is a bug in the target. */

int usage_error(const char *cmd, const char *fmt, ...)
{
    (void)cmd, (void)fmt;
    abort();
}

int option_error(const char *cmd, int opt, char **argv)
{
    (void)cmd, (void)opt, (void)argv;
    abort();
}

int parse_count_option(const char *cmd, const char *option, const char *text, long *out)
{
    (void)cmd, (void)option, (void)text, (void)out;
    abort();
}

long usage_pick(const char *cmd, const char *option, const char *text, const char *const *names,
                size_t n)
{
    (void)cmd, (void)option, (void)text, (void)names, (void)n;
    abort();
}

int usage_near(const char *typed, const char *name)
{
    (void)typed, (void)name;
    abort();
}

/* ---- the promises of a loaded profile ---- */

#define CHECK(cond) ((cond) ? (void)0 : broken(#cond, __LINE__))

static void broken(const char *what, int line)
{
    fprintf(stderr, "fuzz_profile.c:%d: a loaded profile breaks '%s'\n", line, what);
    abort();
}

/* Every sequence is complete and encodes a code point that is in range, not a surrogate,
 * and not in more bytes than it needs. */
static int utf8_valid(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s++, n;
        uint32_t cp, least;
        if (c < 0x80) continue;
        if (c >= 0xc2 && c < 0xe0)
            n = 1, cp = c & 0x1f, least = 0x80;
        else if (c >= 0xe0 && c < 0xf0)
            n = 2, cp = c & 0x0f, least = 0x800;
        else if (c >= 0xf0 && c < 0xf5)
            n = 3, cp = c & 0x07, least = 0x10000;
        else
            return 0;
        for (unsigned i = 0; i < n; i++, s++) {
            if ((*s & 0xc0) != 0x80) return 0;
            cp = cp << 6 | (*s & 0x3f);
        }
        if (cp < least || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return 0;
    }
    return 1;
}

static void check_string(const char *s)
{
    CHECK(s != NULL);
    CHECK(utf8_valid((const unsigned char *)s));
}

static void check_count(uint64_t v)
{
    CHECK(v < UINT64_C(1) << 63);
}

static void check_number(double v)
{
    CHECK(isfinite(v));
}

static void check_loghist(const struct profile_loghist *h)
{
    check_string(h->unit);
    check_count(h->count);
    check_count(h->underflow);
    check_count(h->overflow);
    CHECK(h->has_summary || h->count == 0);
    const double summary[] = {h->min, h->max, h->mean, h->median, h->p10, h->p90};
    for (size_t i = 0; i < 6; i++)
        check_number(summary[i]);
    CHECK(h->buckets != NULL);
    for (size_t i = 0; i < h->nbuckets; i++) {
        const struct profile_log_bucket *b = &h->buckets[i];
        check_number(b->lo);
        check_number(b->hi);
        check_count(b->count);
        CHECK(b->lo < b->hi);
        CHECK(i == 0 || b[-1].hi <= b->lo);
    }
}

static void check_rate_stats(const struct profile_rate_stats *s)
{
    const double sums[] = {s->rate, s->sum_a, s->sum_b, s->sum_aa, s->sum_bb, s->sum_ab,
                           s->mean, s->sum,   s->sumsq, s->min,    s->max};
    const struct profile_linhist *h = &s->hist;
    check_count(s->n);
    CHECK(s->has_stats || s->n == 0);
    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
        check_number(sums[i]);
    check_count(h->buckets);
    CHECK(h->buckets >= 1);
    check_number(h->lo);
    check_number(h->hi);
    CHECK(h->lo < h->hi);
    check_count(h->underflow);
    check_count(h->overflow);
    check_count(h->nan);
    CHECK(h->counts != NULL);
    for (size_t i = 0; i < h->ncounts; i++) {
        CHECK(h->counts[i].index < h->buckets);
        CHECK(i == 0 || h->counts[i - 1].index < h->counts[i].index);
        check_count(h->counts[i].count);
    }
}

static void check_tag(const struct profile *p, const struct profile_tag *t, int is_other)
{
    CHECK(t->is_other == is_other);
    if (!is_other) check_count(t->thread);
    CHECK(t->nvalues == (is_other ? 0 : p->signals.ntags));
    for (size_t i = 0; i < t->nvalues; i++) {
        CHECK(t->values != NULL && t->names != NULL);
        if (t->names[i]) check_string(t->names[i]);
    }
    check_count(t->samples);
    check_count(t->cycles);
    check_count(t->kept);
    CHECK(t->kept <= t->samples);
    CHECK(t->share >= 0 && t->share <= 1);
    CHECK(t->rates != NULL || p->nrates == 0);
    for (size_t i = 0; i < p->nrates; i++)
        check_rate_stats(&t->rates[i]);
    CHECK((t->by != NULL) == (p->has_by != 0));
    uint64_t periods = 0;
    for (size_t k = 0; t->by && k < p->by.buckets + 2; k++) {
        check_count(t->by[k].count);
        check_number(t->by[k].sum_a);
        check_number(t->by[k].sum_b);
        CHECK(t->by[k].sum_a >= 0 && t->by[k].sum_b >= 0);
        periods += t->by[k].count;
        CHECK(periods <= t->kept);
    }
}

/* The top-level `by` names two rates of the profile and a span of one or more buckets. */
static void check_by(const struct profile *p)
{
    if (!p->has_by) return;
    CHECK(p->by.rate < p->nrates && p->by.by < p->nrates);
    check_count(p->by.buckets);
    CHECK(p->by.buckets >= 1);
    check_number(p->by.lo);
    check_number(p->by.hi);
    CHECK(p->by.lo < p->by.hi);
}

static void check_run(const struct profile *p)
{
    const struct profile_config *c = &p->config;
    const struct profile_machine *m = &p->machine;
    const struct profile_placement *pl = &p->placement;
    CHECK(p->version >= 1 && p->version <= PROFILE_FORMAT_VERSION);
    check_string(p->shim_version);
    check_string(p->program.path);
    check_string(p->program.name);
    check_count(p->program.pid);
    for (size_t i = 0; i < p->program.argc; i++)
        check_string(p->program.argv[i]);
    check_string(c->output);
    check_count(c->period);
    check_count(c->max_tags);
    check_count(c->dte_resolution);
    check_number(c->jitter);
    check_number(c->dte_tolerance);
    CHECK(c->observer_cpu >= -1);
    for (size_t i = 0; i < c->ntag_slots; i++)
        check_count(c->tag_slots[i]);
    for (size_t i = 0; i < c->ncounter_slots; i++)
        check_count(c->counter_slots[i]);
    check_count(c->hist_buckets);
    check_number(c->hist_lo);
    check_number(c->hist_hi);
    const char *strings[] = {m->cpu_model,     m->vendor,     m->hostname,  m->kernel,
                             m->hwloc_version, m->tsc_source, pl->relation, pl->shared};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        check_string(strings[i]);
    for (size_t i = 0; i < m->npu; i++)
        check_count(m->pu[i].os_index);
    CHECK(isfinite(m->tsc_hz) && m->tsc_hz > 0);
    for (size_t i = 0; i < pl->nallowed; i++)
        check_count(pl->allowed_cpus[i]);
    check_count(p->run.duration_ns);
    check_count(p->run.tsc_cycles);
}

static void check_profile(const struct profile *p)
{
    const struct profile_samples *s = &p->samples;
    check_run(p);
    for (size_t i = 0; i < p->signals.ntags; i++)
        check_string(p->signals.tags[i].name);
    for (size_t i = 0; i < p->signals.ncounters; i++) {
        const struct profile_counter *k = &p->signals.counters[i];
        check_string(k->name);
        check_string(k->kind);
        if (k->event) check_string(k->event);
        check_number(k->scale);
    }
    for (size_t i = 0; i < p->nrates; i++) {
        check_string(p->rates[i].name);
        check_string(p->rates[i].counter);
        check_string(p->rates[i].unit);
        check_number(p->rates[i].scale);
    }
    check_by(p);
    const uint64_t counts[] = {s->total,         s->interrupted, s->max_period, s->rated,
                               s->kept,          s->discarded,   s->other,      s->thread_changes,
                               s->distinct_tags, s->straddled};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        check_count(counts[i]);
    /* The format's sums, taken so that none of them can wrap. */
    CHECK(s->kept <= s->rated && s->rated - s->kept == s->discarded);
    CHECK(s->interrupted <= s->total && s->straddled <= s->total - s->interrupted &&
          s->thread_changes <= s->total - s->interrupted - s->straddled &&
          s->total - s->interrupted - s->straddled - s->thread_changes == s->rated);
    check_loghist(&p->period);
    check_loghist(&p->gap);
    check_loghist(&p->cpc);
    const double cost[] = {p->cost.samples_per_second, p->cost.observer_cpu_seconds,
                           p->cost.observer_cpu_share};
    for (size_t i = 0; i < 3; i++)
        check_number(cost[i]);
    CHECK(p->tags != NULL);
    for (size_t i = 0; i < p->ntags; i++)
        check_tag(p, &p->tags[i], 0);
    check_tag(p, &p->other, 1);
}

/* ---- the entry points ---- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    /* The reports are exercised, not read. */
    if (!freopen("/dev/null", "w", stdout)) abort();
    /* A fixed hash seed: the same input takes the same path through jansson every time. */
    json_object_seed(1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    struct profile *p = profile_load_buffer((const char *)data, size, "fuzz.json", err, sizeof err);
    if (!p) return 0;
    check_profile(p);
    profile_demangle(p); /* as profile_load() does */
    /* The text report as shown by default (the top 20 rows), and every row as CSV. */
    if (report_print(p, 0, 20) != 0 || report_print(p, 1, -1) != 0) abort();
    profile_free(p);
    return 0;
}
