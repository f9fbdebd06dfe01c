/*
 * test_tag_table.c -- specifies the observer's attribution store (observer/tag_table.{h,c}).
 *
 * One compact entry per distinct key (thread word + tag values), found again for an equal
 * key, with the key stored inline and the entries numbered in order of arrival; a
 * one-entry lookup cache that never lets a new key hide behind `other`. A key that finds
 * no room goes to `other` and the insert says why: the store reached `max_entries`
 * (full), or the keeper had not prepared room in time (behind); the keys already in keep
 * their entries. Without a keeper a table holds its first chunk; with one, in the same
 * thread or on a thread of its own, it grows to a million tuples and every key stays
 * findable. Detail records (distributions, histograms, one rate by another) start empty,
 * never share memory, and are given only to tuples that earn them. Merging two tables
 * adds equal keys, brings the rest, grows the destination and counts what does not fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "observer/tag_table.h"

/* The default store limit (SHIM_MAX_TAGS) and detail pool (SHIM_HIST_TUPLES). */
#define DEFAULT_MAX_ENTRIES (1u << 20)
#define DEFAULT_MAX_DETAIL  256u

static struct hist_spec default_hist(void)
{
    struct hist_spec s;
    assert_int_equal(hist_spec_init(&s, 500, 0, 4), 0);
    return s;
}

/* Key number j of a large set: a few threads, a context per key, a function derived from
 * it. The context word says which j a stored key was, and the other two words confirm
 * the whole key is the one inserted. */
static void key_of(uint64_t j, uint64_t k[3])
{
    k[0] = 0x7f0000001000ull + (j & 7);
    k[1] = j;
    k[2] = j * 0x9e3779b97f4a7c15ull;
}

static int key_is(const uint64_t *k, uint64_t j)
{
    uint64_t want[3];
    key_of(j, want);
    return memcmp(k, want, sizeof want) == 0;
}

static void init_rejects_bad_sizes(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 0, 0, &h), -1);
    assert_int_equal(tag_table_init(&t, 0, 1, 4, 0, &h), -1); /* a key has at least a thread */
    assert_int_equal(tag_table_init(&t, 2, 1, TAG_MAX_CHUNKS * TAG_CHUNK + 1, 0, &h), -1);
    assert_int_equal(tag_table_init(&t, 2, 1, 4, (1u << 20) + 1, &h), -1);
    assert_int_equal(tag_table_init(&t, 2, 1, 4, 0, &h), 0);
    assert_int_equal(t.n_entries, 0);
    assert_int_equal(t.max_entries, 4);
    assert_int_equal(t.entry_bytes, tag_table_entry_bytes(2, 1));
    assert_int_equal(t.max_detail, 1); /* no detail record to give, but `other` has its own */
    assert_int_equal(t.n_detail, 1);
    assert_true(t.bytes > 0);
    tag_table_free(&t);
    /* the largest sizes are accepted: only the first chunk is allocated at once */
    assert_int_equal(tag_table_init(&t, 1, 0, TAG_MAX_CHUNKS * TAG_CHUNK, 1u << 20, &h), 0);
    assert_int_equal(t.max_entries, TAG_MAX_CHUNKS * TAG_CHUNK);
    tag_table_free(&t);
}

/* The bytes one tuple costs in the store: 32 for samples, cycles, kept, straddled and the
 * detail record's number; 48 per rate (its kept periods and the five sums that give the
 * rate and its interval); 8 per key word (the thread word and each tag slot read). */
static void entry_bytes_per_tuple(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= 8; k++)
        for (unsigned r = 0; r <= 6; r++)
            assert_int_equal(tag_table_entry_bytes(k, r), 32 + 48 * r + 8 * k);
}

static void init_without_rates(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 0, 8, 2, &h), 0);
    uint64_t k[1] = {7};
    struct tag_entry *e = tag_table_insert(&t, k);
    assert_non_null(e);
    assert_false(tag_table_is_other(&t, e));
    assert_int_equal(tag_table_key(&t, 0)[0], 7);
    tag_table_give_detail(&t, e);
    assert_non_null(tag_entry_detail(&t, e));
    tag_table_free(&t);
}

static void insert_equal_and_different_keys(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 3, 1, 16, 0, &h), 0);
    uint64_t a[3] = {100, 1, 2}, a2[3] = {100, 1, 2}, b[3] = {100, 2, 1}, c[3] = {101, 1, 2};
    struct tag_entry *ea = tag_table_insert(&t, a);
    struct tag_entry *eb = tag_table_insert(&t, b);
    struct tag_entry *ec = tag_table_insert(&t, c);
    assert_ptr_equal(tag_table_insert(&t, a2), ea);
    assert_ptr_equal(tag_table_lookup(&t, a2), ea);
    assert_ptr_not_equal(ea, eb);
    assert_ptr_not_equal(ea, ec);
    assert_ptr_not_equal(eb, ec);
    assert_ptr_equal(tag_table_insert(&t, b), eb);
    assert_ptr_equal(tag_table_lookup(&t, c), ec);
    assert_int_equal(t.n_entries, 3);
    tag_table_free(&t);
}

static void keys_are_stored(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 3, 8, 0, &h), 0);
    uint64_t k[2];
    for (uint64_t i = 0; i < 5; i++) {
        k[0] = 1000 + i, k[1] = i * i;
        struct tag_entry *e = tag_table_insert(&t, k);
        /* entries are numbered in order of arrival, and walked in that order */
        assert_ptr_equal(e, tag_table_entry(&t, (uint32_t)i));
        assert_ptr_equal(e, tag_table_at(&t, (uint32_t)i));
    }
    assert_ptr_equal(tag_table_at(&t, t.n_entries), tag_table_other(&t));
    k[0] = 0, k[1] = 0; /* the caller's buffer is reused: the table must hold a copy */
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(tag_table_key(&t, i)[0], 1000 + i);
        assert_int_equal(tag_table_key(&t, i)[1], (uint64_t)i * i);
        assert_ptr_equal(tag_entry_key(&t, tag_table_entry(&t, i)), tag_table_key(&t, i));
    }
    tag_table_free(&t);
}

static void full_table_sends_new_keys_to_other(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 4, 0, &h), 0);
    uint64_t keys[6][2] = {{1, 10}, {1, 11}, {2, 10}, {2, 11}, {3, 10}, {3, 11}};
    struct tag_entry *e[6];
    for (int i = 0; i < 6; i++) {
        e[i] = tag_table_insert(&t, keys[i]);
        if (i >= 4) assert_int_equal(t.why, TAG_OTHER_FULL);
    }
    for (int i = 0; i < 4; i++)
        assert_false(tag_table_is_other(&t, e[i]));
    assert_true(tag_table_is_other(&t, e[4]));
    assert_true(tag_table_is_other(&t, e[5]));
    assert_ptr_equal(e[4], tag_table_other(&t));
    assert_int_equal(t.n_entries, 4);
    /* the keys already in still find their own entries, by insert and by lookup */
    for (int i = 0; i < 4; i++) {
        assert_ptr_equal(tag_table_insert(&t, keys[i]), e[i]);
        assert_ptr_equal(tag_table_lookup(&t, keys[i]), e[i]);
    }
    for (int i = 0; i < 100; i++) {
        uint64_t k[2] = {50 + (uint64_t)i, 7};
        assert_true(tag_table_is_other(&t, tag_table_insert(&t, k)));
        assert_int_equal(t.why, TAG_OTHER_FULL);
    }
    assert_int_equal(t.n_entries, 4);
    /* the insert says why; the caller, which knows what a sample is, counts them */
    assert_int_equal(t.other_why[TAG_OTHER_FULL], 0);
    assert_int_equal(t.other_why[TAG_OTHER_BEHIND], 0);
    assert_int_equal(tag_table_other(&t)->samples, 0);
    tag_table_free(&t);
}

static void cache_never_returns_other_for_a_new_key(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 2, 0, &h), 0);
    uint64_t a[2] = {1, 1}, b[2] = {1, 2}, c[2] = {1, 3}, d[2] = {1, 4};
    struct tag_entry *ea = tag_table_lookup(&t, a);
    struct tag_entry *eb = tag_table_lookup(&t, b);
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, c)));
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, d)));
    /* after a miss that landed in `other`, an existing key must still find its entry */
    assert_ptr_equal(tag_table_lookup(&t, a), ea);
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, c)));
    assert_ptr_equal(tag_table_lookup(&t, b), eb);
    assert_ptr_equal(tag_table_lookup(&t, b), eb); /* a cache hit */
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, c)));
    tag_table_free(&t);
}

static void cache_follows_the_last_key(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 2, 1, 8, 0, &h), 0);
    uint64_t k[2] = {9, 1};
    struct tag_entry *e1 = tag_table_lookup(&t, k);
    k[1] = 2; /* the same buffer, another key: the cache must compare contents */
    struct tag_entry *e2 = tag_table_lookup(&t, k);
    assert_ptr_not_equal(e1, e2);
    k[1] = 1;
    assert_ptr_equal(tag_table_lookup(&t, k), e1);
    assert_int_equal(t.n_entries, 2);
    tag_table_free(&t);
}

static void n_entries_stops_at_max(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 1, 100, 0, &h), 0);
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t k[1] = {i * 0x10000};
        struct tag_entry *e = tag_table_lookup(&t, k);
        assert_int_equal(tag_table_is_other(&t, e), i >= 100);
        if (i >= 100) assert_int_equal(t.why, TAG_OTHER_FULL);
    }
    assert_int_equal(t.n_entries, 100);
    for (uint32_t i = 0; i < 100; i++) {
        uint64_t k[1] = {(uint64_t)i * 0x10000};
        assert_ptr_equal(tag_table_lookup(&t, k), tag_table_entry(&t, i));
    }
    tag_table_free(&t);
}

/* A limit past the first chunk is reached exactly, and is said to be the limit: a keeper
 * that prepared everything the limit allows has nothing more to do. */
static void max_entries_past_the_first_chunk_says_full(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    const uint32_t max = TAG_CHUNK + 5;
    assert_int_equal(tag_table_init(&t, 3, 1, max, 0, &h), 0);
    uint64_t k[3];
    for (uint64_t j = 0; j < max + 10; j++) {
        if (j % 1024 == 0) {
            assert_true(tag_table_prepare(&t) >= 0);
            tag_table_adopt(&t);
        }
        key_of(j, k);
        struct tag_entry *e = tag_table_insert(&t, k);
        assert_int_equal(tag_table_is_other(&t, e), j >= max);
        if (j >= max) assert_int_equal(t.why, TAG_OTHER_FULL);
    }
    assert_int_equal(t.n_entries, max);
    for (uint64_t j = 0; j < max; j++) {
        key_of(j, k);
        assert_ptr_equal(tag_table_insert(&t, k), tag_table_entry(&t, (uint32_t)j));
    }
    assert_int_equal(tag_table_prepare(&t), 0);
    tag_table_free(&t);
}

/* Without a keeper a table holds its first chunk: the next new key is counted as behind
 * (the store is not full, the room was not prepared), and gets its own entry once the
 * keeper has prepared the next chunk. */
static void without_a_keeper_a_table_holds_its_first_chunk(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 3, 2, DEFAULT_MAX_ENTRIES, 0, &h), 0);
    uint64_t k[3];
    for (uint64_t j = 0; j < TAG_CHUNK; j++) {
        key_of(j, k);
        assert_false(tag_table_is_other(&t, tag_table_lookup(&t, k)));
    }
    assert_int_equal(t.n_entries, TAG_CHUNK);
    key_of(TAG_CHUNK, k);
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, k)));
    assert_int_equal(t.why, TAG_OTHER_BEHIND);
    assert_true(tag_table_is_other(&t, tag_table_lookup(&t, k))); /* not cached as `other` */
    assert_int_equal(t.n_entries, TAG_CHUNK);
    for (uint64_t j = 0; j < TAG_CHUNK; j += 1000) {
        uint64_t old[3];
        key_of(j, old);
        assert_ptr_equal(tag_table_lookup(&t, old), tag_table_entry(&t, (uint32_t)j));
    }
    /* the keeper's first round prepares the chunks ahead; a second has nothing to do */
    assert_int_equal(tag_table_prepare(&t), 1);
    assert_int_equal(t.chunks_ready, 1 + 1 + 2); /* the full one, the next and two ahead */
    assert_int_equal(tag_table_prepare(&t), 0);
    tag_table_adopt(&t);
    struct tag_entry *e = tag_table_lookup(&t, k);
    assert_false(tag_table_is_other(&t, e));
    assert_ptr_equal(e, tag_table_entry(&t, TAG_CHUNK));
    assert_true(key_is(tag_entry_key(&t, e), TAG_CHUNK));
    tag_table_free(&t);

    /* a table whose limit is its first chunk is full there, not behind */
    assert_int_equal(tag_table_init(&t, 3, 2, TAG_CHUNK, 0, &h), 0);
    for (uint64_t j = 0; j <= TAG_CHUNK; j++) {
        key_of(j, k);
        tag_table_lookup(&t, k);
    }
    assert_int_equal(t.n_entries, TAG_CHUNK);
    assert_int_equal(t.why, TAG_OTHER_FULL);
    assert_int_equal(tag_table_prepare(&t), 0); /* one chunk is all it may have */
    tag_table_free(&t);
}

/* The index is kept at most 7/8 full: while the observer has not adopted the larger index
 * the keeper prepared, new keys stop there and are counted as behind. Adopting it brings
 * the keys inserted after the keeper's snapshot along, and new keys get entries again. */
static void an_index_not_adopted_stops_at_seven_eighths(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 3, 1, DEFAULT_MAX_ENTRIES, 0, &h), 0);
    const uint32_t size = t.index_mask + 1, limit = size / 8 * 7;
    assert_int_equal(size, 2 * TAG_CHUNK);
    uint64_t k[3];
    uint64_t j = 0;
    for (; j < limit; j++) {
        if (j % 1024 == 0) assert_true(tag_table_prepare(&t) >= 0);
        key_of(j, k);
        assert_false(tag_table_is_other(&t, tag_table_insert(&t, k)));
    }
    assert_true(handover_pending(&t.index_swap)); /* prepared, waiting for a batch boundary */
    assert_true(t.next_n < limit);
    key_of(j, k);
    assert_true(tag_table_is_other(&t, tag_table_insert(&t, k)));
    assert_int_equal(t.why, TAG_OTHER_BEHIND);
    assert_int_equal(t.n_entries, limit);
    tag_table_adopt(&t);
    assert_false(handover_pending(&t.index_swap));
    assert_int_equal(t.index_mask + 1, 2 * size);
    assert_ptr_equal(tag_table_insert(&t, k), tag_table_entry(&t, limit));
    for (uint64_t i = 0; i <= limit; i++) {
        key_of(i, k);
        t.last = NULL;
        assert_ptr_equal(tag_table_lookup(&t, k), tag_table_entry(&t, (uint32_t)i));
    }
    /* the observer handed the old index back; the keeper frees it on its next round */
    assert_non_null(t.index_swap.back);
    assert_int_equal(tag_table_prepare(&t), 1);
    assert_null(t.index_swap.back);
    tag_table_free(&t);
}

/* A million tuples in one thread, the keeper's rounds and the adoptions interleaved at
 * fixed points: every key gets its own entry and is found again afterwards. */
static void grows_to_a_million_tuples(void **state)
{
    (void)state;
    enum { N = 1000000 };
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 3, 2, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_DETAIL, &h), 0);
    uint64_t k[3];
    uint32_t others = 0, adoptions = 0;
    for (uint64_t j = 0; j < N; j++) {
        if (j % 4096 == 0) {
            uint32_t mask = t.index_mask;
            assert_true(tag_table_prepare(&t) >= 0);
            tag_table_adopt(&t);
            adoptions += t.index_mask != mask;
        }
        key_of(j, k);
        others += tag_table_is_other(&t, tag_table_lookup(&t, k));
    }
    assert_int_equal(others, 0);
    assert_int_equal(t.n_entries, N);
    assert_true(adoptions >= 6); /* 2^15 slots at first, 2^21 for a million */
    assert_true((uint64_t)(t.index_mask + 1) / 8 * 7 >= N);
    for (uint64_t j = 0; j < N; j++) {
        key_of(j, k);
        t.last = NULL; /* through the index, not the cache */
        struct tag_entry *e = tag_table_lookup(&t, k);
        assert_ptr_equal(e, tag_table_entry(&t, (uint32_t)j));
        assert_true(key_is(tag_entry_key(&t, e), j));
    }
    assert_int_equal(t.n_entries, N);
    /* compact: a tuple costs about its entry, plus its share of the index, of the chunks
     * prepared ahead and of the detail pool */
    double per_tuple = (double)t.bytes / t.n_entries;
    print_message("%.1f bytes per tuple held for %u tuples (key_words 3, n_rates 2); an entry "
                  "is %zu bytes\n",
                  per_tuple, t.n_entries, t.entry_bytes);
    assert_true(t.bytes >= (size_t)N * t.entry_bytes);
    assert_true(per_tuple < 1.25 * t.entry_bytes);
    tag_table_free(&t);
}

struct keeper {
    struct tag_table *t;
    int stop, failed;
};

/* What libshim's keeper does: prepare, nap, again, until told to stop. */
static void *keeper_loop(void *arg)
{
    struct keeper *k = arg;
    const struct timespec nap = {0, 50000};
    while (!__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE)) {
        if (tag_table_prepare(k->t) < 0) k->failed = 1;
        nanosleep(&nap, NULL);
    }
    return NULL;
}

/* The observer inserting and adopting at batch boundaries while a keeper thread prepares:
 * each key gets its own entry or is counted as behind, never both, never twice, and the
 * entries hold exactly the keys inserted. How many are behind depends on the scheduler,
 * so it is printed, not asserted. */
static void grows_while_a_keeper_thread_prepares(void **state)
{
    (void)state;
    enum { N = 300000 };
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 3, 2, DEFAULT_MAX_ENTRIES, 16, &h), 0);
    struct tag_entry **got = calloc(N, sizeof *got); /* key j's entry, NULL: `other` */
    unsigned char *seen = calloc(N, 1);
    assert_non_null(got);
    assert_non_null(seen);
    struct keeper keeper = {.t = &t};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, keeper_loop, &keeper), 0);
    /* no assertion while the keeper runs: a failed one would leave it on a dead table */
    uint32_t behind = 0, wrong_why = 0, wrong_key = 0;
    uint64_t k[3];
    for (uint64_t j = 0; j < N; j++) {
        if (j % 256 == 0) tag_table_adopt(&t);
        key_of(j, k);
        struct tag_entry *e = tag_table_lookup(&t, k);
        if (tag_table_is_other(&t, e)) {
            behind++;
            wrong_why += t.why != TAG_OTHER_BEHIND;
        } else {
            got[j] = e;
            wrong_key += !key_is(tag_entry_key(&t, e), j);
        }
    }
    __atomic_store_n(&keeper.stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_false(keeper.failed);
    assert_int_equal(wrong_why, 0);
    assert_int_equal(wrong_key, 0);
    assert_int_equal(t.n_entries + behind, N);
    assert_true(t.index_mask + 1 > 2 * TAG_CHUNK); /* at least one index was adopted */
    for (uint32_t i = 0; i < t.n_entries; i++) {
        const uint64_t *key = tag_table_key(&t, i);
        uint64_t j = key[1];
        assert_true(j < N);
        assert_true(key_is(key, j)); /* a key that was inserted */
        assert_false(seen[j]);       /* in one entry only */
        seen[j] = 1;
        assert_ptr_equal(got[j], tag_table_entry(&t, i));
    }
    for (uint64_t j = 0; j < N; j++) {
        assert_int_equal(seen[j], got[j] != NULL); /* behind, or in its own entry */
        if (!got[j]) continue;
        key_of(j, k);
        t.last = NULL;
        assert_ptr_equal(tag_table_lookup(&t, k), got[j]);
    }
    print_message("%u of %u new tuples were behind the keeper; the index has %u slots\n", behind,
                  (unsigned)N, t.index_mask + 1);
    free(got);
    free(seen);
    tag_table_free(&t);
}

static void entries_and_detail_records_start_empty(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    enum { RATES = 3, DETAIL = 4 };
    assert_int_equal(tag_table_init(&t, 2, RATES, DEFAULT_MAX_ENTRIES, DETAIL, &h), 0);
    assert_int_equal(tag_table_prepare(&t), 1); /* prepared chunks start empty too */
    uint32_t n = t.chunks_ready * TAG_CHUNK;
    for (uint32_t i = 0; i <= n; i++) { /* `other` last */
        const struct tag_entry *e = i < n ? tag_table_entry(&t, i) : tag_table_other(&t);
        assert_int_equal(e->samples, 0);
        assert_int_equal(e->cycles, 0);
        assert_int_equal(e->kept, 0);
        assert_int_equal(e->straddled, 0);
        assert_int_equal(e->detail, i < n ? 0 : 1); /* only `other` has a record at once */
        for (unsigned r = 0; r < RATES; r++) {
            const struct rate_sums *s = &e->sums[r];
            assert_int_equal(s->periods, 0);
            assert_true(s->sum_a == 0 && s->sum_b == 0 && s->sum_aa == 0 && s->sum_bb == 0 &&
                        s->sum_ab == 0);
        }
    }
    assert_ptr_equal(tag_entry_detail(&t, tag_table_other(&t)), &t.detail[0]);
    assert_int_equal(t.max_detail, DETAIL + 1);
    for (uint32_t d = 0; d < t.max_detail; d++) {
        const struct tag_detail *rec = &t.detail[d];
        assert_int_equal(rec->since, 0);
        assert_null(rec->by); /* until tag_table_add_by */
        for (unsigned r = 0; r < RATES; r++) {
            assert_int_equal(rec->dist[r].n, 0);
            assert_true(isinf(rec->dist[r].min) && rec->dist[r].min > 0);
            assert_true(isinf(rec->dist[r].max) && rec->dist[r].max < 0);
            assert_true(rec->dist[r].sum == 0 && rec->dist[r].sumsq == 0);
            for (uint32_t w = 0; w < HIST_WORDS(&h); w++)
                assert_int_equal(rec->hist[r * HIST_WORDS(&h) + w], 0);
        }
    }
    tag_table_free(&t);
}

static void rate_sums_bookkeeping(void **state)
{
    (void)state;
    struct rate_sums s = {0};
    rate_sums_add(&s, 2.0, 4.0);
    rate_sums_add(&s, 3.0, 2.0);
    rate_sums_add(&s, 1.0, 0.0); /* b = 0: no rate of its own, but it is in the sums */
    assert_int_equal(s.periods, 3);
    assert_true(s.sum_a == 6.0);
    assert_true(s.sum_b == 6.0);
    assert_true(s.sum_aa == 4.0 + 9.0 + 1.0);
    assert_true(s.sum_bb == 16.0 + 4.0);
    assert_true(s.sum_ab == 8.0 + 6.0);
}

static void rate_dist_keeps_finite_rates(void **state)
{
    (void)state;
    struct rate_dist s = {.min = INFINITY, .max = -INFINITY};
    rate_dist_add(&s, 0.5);
    rate_dist_add(&s, 1.5);
    rate_dist_add(&s, 0.0);
    rate_dist_add(&s, NAN); /* 0 / 0 */
    rate_dist_add(&s, INFINITY);
    rate_dist_add(&s, -INFINITY);
    assert_int_equal(s.n, 3);
    assert_true(s.sum == 2.0);
    assert_true(s.sumsq == 0.25 + 2.25);
    assert_true(s.min == 0.0);
    assert_true(s.max == 1.5);
}

static void rate_dist_single_value_sets_min_and_max(void **state)
{
    (void)state;
    struct rate_dist s = {.min = INFINITY, .max = -INFINITY};
    rate_dist_add(&s, 3.5);
    assert_true(s.min == 3.5 && s.max == 3.5);
    rate_dist_add(&s, -1.0);
    assert_true(s.min == -1.0 && s.max == 3.5);
}

static void detail_records_do_not_overlap(void **state)
{
    (void)state;
    struct hist_spec h;
    assert_int_equal(hist_spec_init(&h, 10, 0, 1), 0);
    struct tag_table t;
    enum { RATES = 3, DETAIL = 3 };
    assert_int_equal(tag_table_init(&t, 1, RATES, 8, DETAIL, &h), 0);
    uint32_t words = HIST_WORDS(&h), nd = t.max_detail;
    /* mark every word of every (record, rate) histogram and distribution with its own
     * value, `other`'s record included; then check none was overwritten */
    for (uint32_t d = 0; d < nd; d++)
        for (uint32_t r = 0; r < RATES; r++) {
            uint32_t id = d * RATES + r;
            for (uint32_t w = 0; w < words; w++)
                t.detail[d].hist[r * words + w] = 1 + id * words + w;
            t.detail[d].dist[r] = (struct rate_dist){id, id, id, id, id};
        }
    for (uint32_t d = 0; d < nd; d++)
        for (uint32_t r = 0; r < RATES; r++) {
            uint32_t id = d * RATES + r;
            for (uint32_t w = 0; w < words; w++)
                assert_int_equal(t.detail[d].hist[r * words + w], 1 + id * words + w);
            assert_int_equal(t.detail[d].dist[r].n, id);
            assert_true(t.detail[d].dist[r].sum == id && t.detail[d].dist[r].max == id);
        }
    tag_table_free(&t);
}

static void hist_add_touches_one_record_and_rate(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    enum { RATES = 2 };
    assert_int_equal(tag_table_init(&t, 1, RATES, 4, 2, &h), 0);
    uint64_t k[1] = {42};
    struct tag_entry *e = tag_table_insert(&t, k);
    tag_table_give_detail(&t, e);
    struct tag_detail *mine = tag_entry_detail(&t, e);
    uint64_t *hist = mine->hist + 1 * HIST_WORDS(&h);
    hist_add(&h, hist, 1.0);   /* rate 1, bucket 125 */
    hist_add(&h, hist, NAN);   /* rate 1, nan */
    hist_add(&h, hist, 100.0); /* rate 1, overflow */
    rate_dist_add(&mine->dist[1], 1.0);
    for (uint32_t d = 0; d < t.max_detail; d++) {
        for (unsigned r = 0; r < RATES; r++) {
            uint64_t total = 0;
            for (uint32_t w = 0; w < HIST_WORDS(&h); w++)
                total += t.detail[d].hist[r * HIST_WORDS(&h) + w];
            int touched = &t.detail[d] == mine && r == 1;
            assert_int_equal(total, touched ? 3 : 0);
            assert_int_equal(t.detail[d].dist[r].n, touched ? 1 : 0);
        }
    }
    assert_int_equal(hist[125], 1);
    assert_int_equal(hist[HIST_NAN(&h)], 1);
    assert_int_equal(hist[HIST_OVERFLOW(&h)], 1);
    tag_table_free(&t);
}

/* A pool of 8 records: the first half go to tuples holding 1/1024 of the samples so far,
 * the second half only to tuples holding 1/64, so that start-up cannot take them all;
 * none before 64 samples, however large the share. */
static void detail_records_go_to_tuples_that_earn_them(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    enum { POOL = 8 };
    assert_int_equal(tag_table_init(&t, 1, 2, 64, POOL, &h), 0);
    uint64_t k[1] = {1};
    struct tag_entry *e = tag_table_insert(&t, k);
    e->samples = 63;
    assert_false(tag_table_wants_detail(&t, e, 63));
    e->samples = 64;
    struct tag_detail *given[POOL];
    for (uint32_t n = 0; n <= POOL; n++) {
        if (n < POOL / 2) { /* less than half the pool used: 1/1024 */
            assert_true(tag_table_wants_detail(&t, e, 64 * 1024));
            assert_false(tag_table_wants_detail(&t, e, 64 * 1024 + 1));
        } else if (n < POOL) { /* the rest is kept for larger shares: 1/64 */
            assert_false(tag_table_wants_detail(&t, e, 64 * 1024));
            assert_true(tag_table_wants_detail(&t, e, 64 * 64));
            assert_false(tag_table_wants_detail(&t, e, 64 * 64 + 1));
        } else { /* exhausted */
            assert_false(tag_table_wants_detail(&t, e, 64));
            break;
        }
        uint64_t kn[1] = {100 + n};
        struct tag_entry *f = tag_table_insert(&t, kn);
        f->samples = 64 + 10 * n;
        assert_true(tag_table_wants_detail(&t, f, f->samples));
        tag_table_give_detail(&t, f);
        given[n] = tag_entry_detail(&t, f);
        assert_non_null(given[n]);
        assert_int_equal(given[n]->since, f->samples);           /* describes what comes after */
        assert_false(tag_table_wants_detail(&t, f, f->samples)); /* one record each */
        assert_ptr_not_equal(given[n], &t.detail[0]);
        for (uint32_t m = 0; m < n; m++)
            assert_ptr_not_equal(given[n], given[m]);
    }
    assert_int_equal(t.n_detail, t.max_detail);
    assert_null(tag_entry_detail(&t, e));
    /* `other` always has record 0, whatever was given */
    assert_ptr_equal(tag_entry_detail(&t, tag_table_other(&t)), &t.detail[0]);
    assert_false(tag_table_wants_detail(&t, tag_table_other(&t), 1));
    tag_table_free(&t);
}

static void add_by_gives_every_record_its_own_slots(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    enum { SLOTS = 5 };
    assert_int_equal(tag_table_init(&t, 1, 2, 8, 3, &h), 0);
    size_t before = t.bytes;
    assert_int_equal(tag_table_add_by(&t, SLOTS), 0);
    assert_int_equal(t.by_slots, SLOTS);
    assert_int_equal(t.bytes, before + (size_t)t.max_detail * SLOTS * 3 * sizeof(double));
    for (uint32_t d = 0; d < t.max_detail; d++) {
        assert_non_null(t.detail[d].by);
        for (uint32_t i = 0; i < SLOTS * 3; i++) {
            assert_true(t.detail[d].by[i] == 0);
            t.detail[d].by[i] = 1 + d * SLOTS * 3 + i;
        }
    }
    for (uint32_t d = 0; d < t.max_detail; d++)
        for (uint32_t i = 0; i < SLOTS * 3; i++)
            assert_true(t.detail[d].by[i] == 1 + d * SLOTS * 3 + i);
    tag_table_free(&t);
}

/* Two observers' tables into one: equal keys add up (samples, cycles, kept, rate sums,
 * detail records), other keys come along with their records, what finds the table full
 * goes to `other`, and the reasons `other` was given add up. */
static void merge_adds_equal_keys_and_brings_the_rest(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table a, b;
    assert_int_equal(tag_table_init(&a, 2, 1, 2, 4, &h), 0);
    assert_int_equal(tag_table_init(&b, 2, 1, 4, 4, &h), 0);
    assert_int_equal(tag_table_add_by(&a, 2), 0);
    assert_int_equal(tag_table_add_by(&b, 2), 0);
    uint64_t k1[2] = {7, 1}, k2[2] = {7, 2}, k3[2] = {8, 1};
    struct tag_entry *e = tag_table_insert(&a, k1);
    e->samples = 3, e->cycles = 300, e->kept = 2, e->straddled = 1;
    rate_sums_add(&e->sums[0], 1.0, 2.0);
    tag_table_give_detail(&a, e);
    rate_dist_add(&tag_entry_detail(&a, e)->dist[0], 0.5);
    hist_add(&h, tag_entry_detail(&a, e)->hist, 0.5);
    tag_entry_detail(&a, e)->by[3] = 1.0;
    a.other->samples = 2, a.other_why[TAG_OTHER_FULL] = 2;
    rate_dist_add(&tag_entry_detail(&a, a.other)->dist[0], 3.0);

    e = tag_table_insert(&b, k1);
    e->samples = 5, e->cycles = 500, e->kept = 5;
    rate_sums_add(&e->sums[0], 3.0, 2.0);
    tag_table_give_detail(&b, e);
    rate_dist_add(&tag_entry_detail(&b, e)->dist[0], 1.5);
    hist_add(&h, tag_entry_detail(&b, e)->hist, 1.5);
    tag_entry_detail(&b, e)->by[3] = 2.0;
    e = tag_table_insert(&b, k2);
    e->samples = 4;
    tag_table_give_detail(&b, e);
    rate_dist_add(&tag_entry_detail(&b, e)->dist[0], 2.0);
    tag_table_insert(&b, k3)->samples = 6; /* a's third key: a is full */
    b.other->samples = 1, b.other_why[TAG_OTHER_BEHIND] = 1;
    rate_dist_add(&tag_entry_detail(&b, b.other)->dist[0], 3.5);

    tag_table_merge(&a, &b);
    assert_int_equal(a.n_entries, 2);
    e = tag_table_insert(&a, k1);
    assert_int_equal(e->samples, 8);
    assert_int_equal(e->cycles, 800);
    assert_int_equal(e->kept, 7);
    assert_int_equal(e->straddled, 1);
    assert_int_equal(e->sums[0].periods, 2);
    assert_true(e->sums[0].sum_a == 4.0 && e->sums[0].sum_b == 4.0);
    const struct tag_detail *d = tag_entry_detail(&a, e);
    assert_int_equal(d->dist[0].n, 2);
    assert_true(d->dist[0].min == 0.5 && d->dist[0].max == 1.5);
    assert_int_equal(d->hist[hist_slot(&h, 0.5)] + d->hist[hist_slot(&h, 1.5)], 2);
    assert_true(d->by[3] == 3.0);
    /* k2 came along, and was given a record of a's pool for b's */
    e = tag_table_insert(&a, k2);
    assert_int_equal(e->samples, 4);
    d = tag_entry_detail(&a, e);
    assert_non_null(d);
    assert_int_equal(d->dist[0].n, 1);
    assert_true(d->dist[0].sum == 2.0);
    /* `other`: a's own, b's, and k3 that found a full */
    assert_int_equal(tag_table_other(&a)->samples, 2 + 1 + 6);
    assert_int_equal(a.other_why[TAG_OTHER_FULL], 2 + 6);
    assert_int_equal(a.other_why[TAG_OTHER_BEHIND], 1);
    d = tag_entry_detail(&a, tag_table_other(&a));
    assert_ptr_equal(d, &a.detail[0]);
    assert_int_equal(d->dist[0].n, 2);
    assert_true(d->dist[0].min == 3.0 && d->dist[0].max == 3.5);
    tag_table_free(&a);
    tag_table_free(&b);
}

/* Merging needs no keeper: dst grows past its first chunk as it goes. */
static void merge_grows_dst_past_its_first_chunk(void **state)
{
    (void)state;
    enum { N = TAG_CHUNK + TAG_CHUNK / 2, COMMON = 1000, OWN = 100 };
    struct hist_spec h = default_hist();
    struct tag_table dst, src;
    assert_int_equal(tag_table_init(&dst, 3, 2, DEFAULT_MAX_ENTRIES, 0, &h), 0);
    assert_int_equal(tag_table_init(&src, 3, 2, DEFAULT_MAX_ENTRIES, 0, &h), 0);
    uint64_t k[3];
    for (uint64_t j = 0; j < N; j++) {
        if (j % 4096 == 0) {
            assert_true(tag_table_prepare(&src) >= 0);
            tag_table_adopt(&src);
        }
        key_of(j, k);
        struct tag_entry *e = tag_table_insert(&src, k);
        assert_false(tag_table_is_other(&src, e));
        e->samples = j + 1;
        rate_sums_add(&e->sums[1], (double)j, 1.0);
    }
    for (uint64_t j = 0; j < COMMON; j++) { /* keys both have */
        key_of(j, k);
        tag_table_insert(&dst, k)->samples = 1;
    }
    for (uint64_t j = N; j < N + OWN; j++) { /* keys only dst has */
        key_of(j, k);
        tag_table_insert(&dst, k)->samples = 1;
    }
    tag_table_merge(&dst, &src);
    assert_int_equal(dst.n_entries, N + OWN);
    assert_int_equal(tag_table_other(&dst)->samples, 0);
    assert_int_equal(dst.other_why[TAG_OTHER_FULL] + dst.other_why[TAG_OTHER_BEHIND], 0);
    for (uint64_t j = 0; j < N + OWN; j++) {
        key_of(j, k);
        dst.last = NULL;
        struct tag_entry *e = tag_table_lookup(&dst, k);
        assert_false(tag_table_is_other(&dst, e));
        assert_true(key_is(tag_entry_key(&dst, e), j));
        assert_int_equal(e->samples, j < N ? j + 1 + (j < COMMON) : 1);
        assert_int_equal(e->sums[1].periods, j < N ? 1 : 0);
    }
    tag_table_free(&dst);
    tag_table_free(&src);
}

/* The tuples of src that find dst at its limit are counted in dst's `other`, full, by
 * their samples; so `other`'s samples stay the sum of its reasons. */
static void merge_counts_what_finds_dst_full_by_samples(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table dst, src;
    assert_int_equal(tag_table_init(&dst, 3, 1, 3, 0, &h), 0);
    assert_int_equal(tag_table_init(&src, 3, 1, 64, 0, &h), 0);
    uint64_t k[3];
    key_of(1000, k);
    tag_table_insert(&dst, k)->samples = 1;
    dst.other->samples = 4, dst.other_why[TAG_OTHER_BEHIND] = 4;
    for (uint64_t j = 0; j < 10; j++) {
        key_of(j, k);
        tag_table_insert(&src, k)->samples = 10 * (j + 1);
    }
    src.other->samples = 7, src.other_why[TAG_OTHER_FULL] = 2, src.other_why[TAG_OTHER_BEHIND] = 5;
    tag_table_merge(&dst, &src);
    assert_int_equal(dst.n_entries, 3); /* its own key and src's first two */
    uint64_t lost = 0;
    for (uint64_t j = 2; j < 10; j++)
        lost += 10 * (j + 1);
    assert_int_equal(dst.other_why[TAG_OTHER_FULL], 2 + lost);
    assert_int_equal(dst.other_why[TAG_OTHER_BEHIND], 4 + 5);
    assert_int_equal(tag_table_other(&dst)->samples,
                     dst.other_why[TAG_OTHER_FULL] + dst.other_why[TAG_OTHER_BEHIND]);
    key_of(1, k);
    assert_int_equal(tag_table_lookup(&dst, k)->samples, 20);
    tag_table_free(&dst);
    tag_table_free(&src);
}

/* A detail record describes an entry's samples after `since`: after a merge, samples -
 * since must still be the samples its distributions describe, that is since = what
 * dst's record did not describe + what src's did not (all of an entry's samples when it
 * had no record). */
static void merge_keeps_since_the_samples_no_record_describes(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table a, b;
    assert_int_equal(tag_table_init(&a, 1, 1, 16, 4, &h), 0);
    assert_int_equal(tag_table_init(&b, 1, 1, 16, 4, &h), 0);
    uint64_t k1[1] = {1}, k2[1] = {2}, k3[1] = {3};
    struct tag_entry *e;
    /* k1: a record in both (a's describes 36 samples, b's 120) */
    e = tag_table_insert(&a, k1);
    e->samples = 64;
    tag_table_give_detail(&a, e);
    e->samples = 100;
    e = tag_table_insert(&b, k1);
    e->samples = 80;
    tag_table_give_detail(&b, e);
    e->samples = 200;
    /* k2: only b's has a record (describing 120 samples) */
    tag_table_insert(&a, k2)->samples = 100;
    e = tag_table_insert(&b, k2);
    e->samples = 80;
    tag_table_give_detail(&b, e);
    e->samples = 200;
    /* k3: only a's has a record (describing 36 samples) */
    e = tag_table_insert(&a, k3);
    e->samples = 64;
    tag_table_give_detail(&a, e);
    e->samples = 100;
    tag_table_insert(&b, k3)->samples = 50;
    tag_table_merge(&a, &b);
    e = tag_table_insert(&a, k1);
    assert_int_equal(e->samples, 300);
    assert_int_equal(tag_entry_detail(&a, e)->since, 64 + 80);
    e = tag_table_insert(&a, k2);
    assert_int_equal(e->samples, 300);
    assert_int_equal(tag_entry_detail(&a, e)->since, 100 + 80);
    e = tag_table_insert(&a, k3);
    assert_int_equal(e->samples, 150);
    assert_int_equal(tag_entry_detail(&a, e)->since, 64 + 50);
    tag_table_free(&a);
    tag_table_free(&b);
}

static void free_twice_is_harmless(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 1, 4, 2, &h), 0);
    assert_int_equal(tag_table_add_by(&t, 3), 0);
    tag_table_free(&t);
    tag_table_free(&t); /* free zeroes the table */
    assert_null(t.chunk[0]);
    assert_null(t.other);
    assert_null(t.detail);
}

/* The time batches: every sample counts in the table's batch of its time, and in its
 * entry's once the entry has a detail record (given at `given`, after `since` samples);
 * kept periods' a and b go into the record's batches of their rate. */
static void batches_count_samples_and_rates_over_time(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 2, 16, 4, &h), 0);
    uint64_t k[1] = {7}, w = (uint64_t)1 << TAG_BATCH_SHIFT; /* one batch at level 0 */
    t.batch_origin = 1000;
    assert_int_equal(tag_table_clock(&t, 999), 0); /* before the origin: time 0 */
    struct tag_entry *e = tag_table_insert(&t, k);
    for (int i = 0; i < 3; i++) { /* batch 0, before the record */
        e->samples++;
        tag_table_count_batch(&t, e, tag_table_clock(&t, 1000 + 10 * (uint64_t)i));
    }
    tag_table_count_batch(&t, e, tag_table_clock(&t, 1000 + w + 5)); /* batch 1 */
    e->samples++;
    tag_table_give_detail(&t, e);
    struct tag_detail *d = tag_entry_detail(&t, e);
    assert_int_equal(d->since, 4);
    assert_int_equal(d->batches.given, w + 5);
    for (int i = 0; i < 5; i++) { /* batch 3 */
        e->samples++;
        tag_table_count_batch(&t, e, 3 * w + (uint64_t)i);
        tag_detail_batch_rate(d, t.n_rates, 1, 3 * w + (uint64_t)i, 2.0, 10.0);
    }
    assert_int_equal(t.batch_level, 0);
    assert_int_equal(t.batch_samples[0], 3);
    assert_int_equal(t.batch_samples[1], 1);
    assert_int_equal(t.batch_samples[3], 5);
    assert_int_equal(d->batches.samples[1], 0); /* counted before the record */
    assert_int_equal(d->batches.samples[3], 5);
    assert_true(d->batches.sums[(2 * 1) * TAG_BATCHES + 3] == 10.0);     /* rate 1's a */
    assert_true(d->batches.sums[(2 * 1 + 1) * TAG_BATCHES + 3] == 50.0); /* and its b */
    assert_true(d->batches.sums[0 * TAG_BATCHES + 3] == 0.0);            /* rate 0: none */
    tag_table_free(&t);
}

/* A sample past the last batch folds pairs of batches together, level by level, so the
 * batches always cover the run: a record folds its own arrays when its next sample comes,
 * and writing brings every record to one level (tag_detail_batches_to). Counts and sums
 * survive every fold. */
static void batches_fold_pairs_when_the_run_outgrows_them(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table t;
    assert_int_equal(tag_table_init(&t, 1, 1, 16, 4, &h), 0);
    uint64_t k1[1] = {1}, k2[1] = {2}, w = (uint64_t)1 << TAG_BATCH_SHIFT;
    struct tag_entry *a = tag_table_insert(&t, k1), *b = tag_table_insert(&t, k2);
    tag_table_give_detail(&t, a);
    tag_table_give_detail(&t, b);
    uint64_t n = 0;
    for (uint64_t j = 0; j < 3 * TAG_BATCHES; j++) { /* a: one sample per level-0 batch */
        a->samples++, n++;
        tag_table_count_batch(&t, a, j * w);
        tag_detail_batch_rate(tag_entry_detail(&t, a), 1, 0, j * w, 1.0, 2.0);
    }
    b->samples++, n++;
    tag_table_count_batch(&t, b, w);    /* b: one sample, early; never folded since */
    assert_int_equal(t.batch_level, 2); /* 3 x 64 level-0 batches need level 2 */
    struct tag_detail *da = tag_entry_detail(&t, a), *db = tag_entry_detail(&t, b);
    assert_int_equal(da->batches.level, 2);
    assert_int_equal(db->batches.level, 0);
    uint64_t sum = 0, sa = 0;
    for (unsigned j = 0; j < TAG_BATCHES; j++) {
        sum += t.batch_samples[j];
        sa += da->batches.samples[j];
        if (j < 48) assert_int_equal(da->batches.samples[j], 4); /* 4 level-0 batches each */
        if (j >= 48) assert_int_equal(da->batches.samples[j], 0);
    }
    assert_int_equal(sum, n);
    assert_int_equal(sa, 3 * TAG_BATCHES);
    assert_true(da->batches.sums[0] == 4.0 && da->batches.sums[TAG_BATCHES] == 8.0);
    tag_detail_batches_to(db, 1, 2);
    assert_int_equal(db->batches.level, 2);
    assert_int_equal(db->batches.samples[0], 1); /* level-0 batch 1 is in level-2 batch 0 */
    tag_table_free(&t);
}

/* Merged tables (several observers) line their batches up: the lower level is folded to
 * the higher, then counts add; a record that misses samples of its tuple (the other side
 * kept none, so they are in no batch) is marked broken, and the later `given` wins. */
static void merge_lines_batches_up(void **state)
{
    (void)state;
    struct hist_spec h = default_hist();
    struct tag_table a, b;
    assert_int_equal(tag_table_init(&a, 1, 1, 16, 4, &h), 0);
    assert_int_equal(tag_table_init(&b, 1, 1, 16, 4, &h), 0);
    uint64_t k1[1] = {1}, k2[1] = {2}, w = (uint64_t)1 << TAG_BATCH_SHIFT;
    struct tag_entry *a1 = tag_table_insert(&a, k1), *b1 = tag_table_insert(&b, k1),
                     *b2 = tag_table_insert(&b, k2), *a2 = tag_table_insert(&a, k2);
    tag_table_give_detail(&a, a1);
    a.batch_clock = 5 * w;
    tag_table_give_detail(&b, b1);
    a1->samples++;
    tag_table_count_batch(&a, a1, 2 * w); /* level 0, batch 2 */
    for (uint64_t j = 0; j < 2; j++) {    /* b reaches level 1 */
        b1->samples++;
        tag_table_count_batch(&b, b1, (j ? 100 : 3) * w);
    }
    tag_table_give_detail(&b, b2); /* b2 has a record, a2 has samples and none */
    a2->samples += 3;
    b2->samples++;
    tag_table_count_batch(&b, b2, 4 * w);
    assert_int_equal(tag_table_merge(&a, &b), 0);
    assert_int_equal(a.batch_level, 1);
    struct tag_detail *d1 = tag_entry_detail(&a, a1), *d2 = tag_entry_detail(&a, a2);
    assert_int_equal(d1->batches.level, 1);
    assert_int_equal(d1->batches.samples[1], 2); /* a's batch 2 and b's batch 3 */
    assert_int_equal(d1->batches.samples[50], 1);
    assert_int_equal(d1->batches.broken, 0);
    assert_int_equal(a.batch_samples[1], 2);
    assert_int_equal(a.batch_samples[2], 1); /* b2's, level-0 batch 4 */
    assert_non_null(d2);
    assert_int_equal(d2->batches.broken, 1); /* a2's 3 samples are in no batch */
    tag_table_free(&a);
    tag_table_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_rejects_bad_sizes),
        cmocka_unit_test(entry_bytes_per_tuple),
        cmocka_unit_test(init_without_rates),
        cmocka_unit_test(insert_equal_and_different_keys),
        cmocka_unit_test(keys_are_stored),
        cmocka_unit_test(full_table_sends_new_keys_to_other),
        cmocka_unit_test(cache_never_returns_other_for_a_new_key),
        cmocka_unit_test(cache_follows_the_last_key),
        cmocka_unit_test(n_entries_stops_at_max),
        cmocka_unit_test(max_entries_past_the_first_chunk_says_full),
        cmocka_unit_test(without_a_keeper_a_table_holds_its_first_chunk),
        cmocka_unit_test(an_index_not_adopted_stops_at_seven_eighths),
        cmocka_unit_test(grows_to_a_million_tuples),
        cmocka_unit_test(grows_while_a_keeper_thread_prepares),
        cmocka_unit_test(entries_and_detail_records_start_empty),
        cmocka_unit_test(rate_sums_bookkeeping),
        cmocka_unit_test(rate_dist_keeps_finite_rates),
        cmocka_unit_test(rate_dist_single_value_sets_min_and_max),
        cmocka_unit_test(detail_records_do_not_overlap),
        cmocka_unit_test(hist_add_touches_one_record_and_rate),
        cmocka_unit_test(detail_records_go_to_tuples_that_earn_them),
        cmocka_unit_test(add_by_gives_every_record_its_own_slots),
        cmocka_unit_test(merge_adds_equal_keys_and_brings_the_rest),
        cmocka_unit_test(merge_grows_dst_past_its_first_chunk),
        cmocka_unit_test(merge_counts_what_finds_dst_full_by_samples),
        cmocka_unit_test(merge_keeps_since_the_samples_no_record_describes),
        cmocka_unit_test(batches_count_samples_and_rates_over_time),
        cmocka_unit_test(batches_fold_pairs_when_the_run_outgrows_them),
        cmocka_unit_test(merge_lines_batches_up),
        cmocka_unit_test(free_twice_is_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
