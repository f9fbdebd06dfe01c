/*
 * sidetable.c -- finds what the compiler pass recorded about each function it
 * instrumented: a `shim_sidetable` section per module, each record naming the
 * function by its address and pointing at a JSON text (its loops, blocks and the
 * Ball-Larus edge values; docs/compiler-pass.md).
 *
 * The records are read in memory, not from the file: their two pointers are
 * relocated by the dynamic loader, so a record's function address is the same number
 * the generated code stores in the method signal, in a PIE executable or a shared
 * object alike. The section's place comes from the module's file (section headers are
 * not loaded), through symbols_sections_checked(), which reads none of a module whose
 * file was rebuilt or replaced since it was loaded (its section addresses would point
 * at other bytes of the image, or past it) and counts those in `stale`. A record whose magic word
 * is wrong ends that section's walk: the section is then not the pass's, or not of this format.
 */
#include "libshim/sidetable.h"

#include <jansson.h>
#include <stdlib.h>

#include "libshim/symbols.h"

int sidetable_present(void)
{
    return symbols_sections("shim_sidetable", NULL, NULL) > 0;
}

static void add_section(uint64_t addr, uint64_t size, void *ctx)
{
    struct sidetable *st = ctx;
    const struct sidetable_record *r = (const struct sidetable_record *)(uintptr_t)addr;
    for (uint64_t i = 0; i < size / sizeof *r && r[i].magic == SIDETABLE_MAGIC; i++) {
        if (st->n == st->cap) {
            size_t cap = st->cap ? 2 * st->cap : 256;
            const struct sidetable_record **p = realloc(st->rec, cap * sizeof *p);
            if (!p) {
                st->out_of_memory = 1;
                return;
            }
            st->rec = p, st->cap = cap;
        }
        st->rec[st->n++] = &r[i];
    }
}

static int by_fn(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)(*(const struct sidetable_record *const *)a)->fn;
    uintptr_t y = (uintptr_t)(*(const struct sidetable_record *const *)b)->fn;
    return x < y ? -1 : x > y;
}

int sidetable_open(struct sidetable *st)
{
    *st = (struct sidetable){0};
    symbols_sections_checked("shim_sidetable", add_section, st, &st->stale);
    if (st->out_of_memory) {
        sidetable_close(st);
        return -1;
    }
    if (st->n) qsort(st->rec, st->n, sizeof *st->rec, by_fn);
    return 0;
}

void sidetable_close(struct sidetable *st)
{
    free(st->rec);
    *st = (struct sidetable){0};
}

const struct sidetable_record *sidetable_lookup(const struct sidetable *st, uint64_t fn)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)st->rec[mid]->fn < fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->n && (uintptr_t)st->rec[lo]->fn == fn ? st->rec[lo] : NULL;
}

uint64_t *sidetable_pathed(const struct sidetable *st, size_t *n)
{
    uint64_t *a = malloc((st->n ? st->n : 1) * sizeof *a);
    *n = 0;
    if (!a) return NULL;
    for (size_t i = 0; i < st->n; i++) { /* records are sorted by function */
        json_t *t = json_loadb(st->rec[i]->json, (size_t)st->rec[i]->json_len, 0, NULL);
        json_t *paths = t ? json_object_get(t, "paths") : NULL;
        if (paths && json_is_integer(paths) && json_integer_value(paths) > 0)
            a[(*n)++] = (uint64_t)(uintptr_t)st->rec[i]->fn;
        json_decref(t);
    }
    return a;
}
