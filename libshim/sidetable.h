/*
 * sidetable.h -- the compiler pass's side tables in the running process (sidetable.c;
 * docs/compiler-pass.md says what the pass writes).
 */
#ifndef SHIM_LIBSHIM_SIDETABLE_H
#define SHIM_LIBSHIM_SIDETABLE_H

#include <stddef.h>
#include <stdint.h>

/* "SHIPAS01", little-endian: the first word of every record. */
#define SIDETABLE_MAGIC UINT64_C(0x3130534150494853)

/* One record of a `shim_sidetable` section, as the pass lays it out. */
struct sidetable_record {
    uint64_t magic;
    const void *fn;   /* the function's run-time address (relocated by the loader) */
    const char *json; /* its table: a JSON object, json_len bytes */
    uint64_t json_len;
};

/* Every function the pass instrumented in the loaded modules, sorted by address. */
struct sidetable {
    const struct sidetable_record **rec;
    size_t n, cap;
    int out_of_memory;
    size_t stale; /* side tables not read: their module's file was rebuilt or replaced
                     since it was loaded (symbols_sections_checked()) */
};

/* Nonzero when a loaded module was built with the pass (has a side table). Reads the
 * modules' files: call at start, not in a hot path. */
int sidetable_present(void);

/* Collects the records of every loaded module: 0, or -1 out of memory. */
int sidetable_open(struct sidetable *st);
void sidetable_close(struct sidetable *st);

/* The run-time addresses of the functions whose table numbers paths (paths above 0: not
 * those the pass fell back to method and loop signals for, e.g. for an indirect branch,
 * or built without paths), sorted; *n how many. malloc'd; NULL when memory runs out. */
uint64_t *sidetable_pathed(const struct sidetable *st, size_t *n);

/* The record of the function at run-time address fn, or NULL. */
const struct sidetable_record *sidetable_lookup(const struct sidetable *st, uint64_t fn);

#endif
