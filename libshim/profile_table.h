/*
 * profile_table.h -- the table file of a large profile (profile_table.c): tag entries and
 * calling-context trees in the protocol buffer of formats/profile_table.proto, written
 * beside the JSON document when they outnumber SHIM_INLINE_MAX (docs/profile-format.md,
 * "Large profiles").
 */
#ifndef SHIM_LIBSHIM_PROFILE_TABLE_H
#define SHIM_LIBSHIM_PROFILE_TABLE_H

#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "observer/tag_table.h"

struct table_writer {
    char path[PATH_MAX + 8];
    char tmp[PATH_MAX + 32];
    FILE *f;     /* NULL until the first element, or after table_finish() */
    uint64_t id; /* random: the JSON names it, so a stale table is never read */
    uint64_t entries, nodes, bytes;
    int err;    /* errno of the first failure; every later call does nothing */
    int opened; /* something was written: the profile needs the table */
};

/* A writer for the table beside profile_path (the same name with ".table" added). Nothing
 * is created until the first element is written. */
void table_init(struct table_writer *w, const char *profile_path);

/* Add one tag entry: its thread word, its values (nvalues words), its counts and the sums
 * of nrates rates. */
void table_entry(struct table_writer *w, uint64_t thread, const uint64_t *values, unsigned nvalues,
                 const struct tag_entry *e, unsigned nrates);

/* Add the name of value `value` in tag column `tag`. */
void table_name(struct table_writer *w, unsigned tag, uint64_t value, const char *name);

/* Add a thread's calling-context tree of n rows: parent row, function id + 1 (0: none)
 * and call site + 1 (0: none) per row. */
void table_tree(struct table_writer *w, uint32_t index, size_t n, uint64_t *parent,
                uint64_t *function, uint64_t *site);

/* Flush and close the temporary file (when one was opened). 0, or -1 with why. */
int table_finish(struct table_writer *w, char *why, size_t whylen);

/* Rename the finished temporary file into place; table_abort() removes it instead. */
int table_commit(struct table_writer *w, char *why, size_t whylen);
void table_abort(struct table_writer *w);

/* The profile's `table` member, once finished: file (the name beside the profile), id,
 * entries, nodes and bytes; text() makes the file's name a JSON string. */
json_t *table_json(const struct table_writer *w, json_t *(*text)(const char *));

#endif
