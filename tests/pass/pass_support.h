/*
 * pass_support.h -- what a test program built with the compiler pass reads back of
 * itself: its side-table records (between __start_shim_sidetable and
 * __stop_shim_sidetable, relocated like any data) and a path ring, written as one JSON
 * document for the checks in Python. Compiled without the pass.
 */
#ifndef SHIM_TEST_PASS_SUPPORT_H
#define SHIM_TEST_PASS_SUPPORT_H

#include <stddef.h>
#include <stdio.h>

#include "signals/path.h"

/* A function whose address the checks need, under a name of the test's choosing. */
struct pass_anchor {
    const char *name;
    const void *addr;
};

/* {"anchors": {name: address, ...},
 *  "records": [{"fn": address, "magic": ok, "length": ok, "table": {...}}, ...],
 *  "ring": {"head": n, "entries": [[seq, fn, path], ...]}}   (ring NULL: no "ring")
 * Returns 0, or -1 when the file could not be written. */
int pass_support_dump(const char *path, const struct pass_anchor *anchors, size_t nanchors,
                      const struct shim_path_ring *ring);

/* Number of side-table records in the program. */
size_t pass_support_records(void);

#endif
