/*
 * pass_support.c -- dumps a test program's own side table and a path ring as JSON (see
 * pass_support.h). The records are read exactly as libshim reads them in memory, with
 * its record layout (libshim/sidetable.h); the tables' JSON text is copied verbatim, so
 * a table that is not valid JSON makes the whole dump fail to parse.
 */
#include "pass_support.h"

#include <inttypes.h>
#include <string.h>

#include "libshim/sidetable.h"

/* Defined by the linker around the section; weak, so a program whose objects have no
 * record (SHIM_PASS=none) still links. */
extern const struct sidetable_record __start_shim_sidetable[] __attribute__((weak));
extern const struct sidetable_record __stop_shim_sidetable[] __attribute__((weak));

size_t pass_support_records(void)
{
    if (!__start_shim_sidetable || !__stop_shim_sidetable) return 0;
    return (size_t)(__stop_shim_sidetable - __start_shim_sidetable);
}

static void dump_records(FILE *f)
{
    size_t n = pass_support_records();
    fputs("\"records\": [", f);
    for (size_t i = 0; i < n; i++) {
        const struct sidetable_record *r = &__start_shim_sidetable[i];
        int magic = r->magic == SIDETABLE_MAGIC;
        int length = magic && r->json && strlen(r->json) == r->json_len;
        fprintf(
            f, "%s\n{\"fn\": %" PRIu64 ", \"magic\": %s, \"length\": %s, \"table\": ", i ? "," : "",
            (uint64_t)(uintptr_t)r->fn, magic ? "true" : "false", length ? "true" : "false");
        if (length)
            fwrite(r->json, 1, r->json_len, f);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs("]", f);
}

static void dump_ring(FILE *f, const struct shim_path_ring *ring)
{
    uint64_t head = ring->head;
    uint64_t first = head > SHIM_PATH_RING ? head - SHIM_PATH_RING + 1 : 1;
    fprintf(f, ",\n\"ring\": {\"head\": %" PRIu64 ", \"entries\": [", head);
    for (uint64_t s = first; s <= head; s++) {
        const struct shim_path_entry *e = &ring->entry[s & (SHIM_PATH_RING - 1)];
        fprintf(f, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", s == first ? "" : ",\n", e->seq,
                e->fn, e->path);
    }
    fputs("]}", f);
}

int pass_support_dump(const char *path, const struct pass_anchor *anchors, size_t nanchors,
                      const struct shim_path_ring *ring)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("{\"anchors\": {", f);
    for (size_t i = 0; i < nanchors; i++)
        fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", anchors[i].name,
                (uint64_t)(uintptr_t)anchors[i].addr);
    fputs("},\n", f);
    dump_records(f);
    if (ring) dump_ring(f, ring);
    fputs("}\n", f);
    return fclose(f) == 0 ? 0 : -1;
}
