/*
 * table_split.c -- turns a profile whose entries are all in its JSON into the form of a
 * large profile (docs/profile-format.md, "Large profiles"): the tag entries without a
 * detail record and every calling-context tree go to a table file, written by libshim's
 * own table writer (libshim/profile_table.c), and the JSON becomes version 2 and names it.
 * The same entries are also written as a version 1 profile holding what the table keeps
 * of them (as shim writes an entry without a detail record: no distribution, `by` slots
 * of 0, the share as samples over the attributed samples), and test_table.sh checks that
 * shimview says the same of the two.
 *
 *     table_split IN.json INLINE.json SPLIT.json   (and SPLIT.json.table)
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libshim/profile_table.h"

static uint64_t u(const json_t *v)
{
    return (uint64_t)json_integer_value(v);
}

static double d(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

static json_t *text(const char *s)
{
    return json_string(s);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: table_split IN.json INLINE.json SPLIT.json\n");
        return 2;
    }
    json_error_t err;
    json_t *root = json_load_file(argv[1], 0, &err);
    if (!root) {
        fprintf(stderr, "table_split: %s: %s\n", argv[1], err.text);
        return 1;
    }
    struct table_writer w;
    char why[512];
    table_init(&w, argv[3]);
    json_t *tags = json_object_get(root, "tags"), *kept = json_array(), *e;
    json_t *samples = json_object_get(root, "samples");
    double attributed =
        (double)(u(json_object_get(samples, "total")) - u(json_object_get(samples, "interrupted")));
    size_t nrates = json_array_size(json_object_get(root, "rates")), i;
    struct tag_entry *te = calloc(1, sizeof *te + (nrates + 1) * sizeof(struct rate_sums));
    json_array_foreach(tags, i, e)
    {
        const json_t *detail = json_object_get(e, "detail");
        if (detail && !json_is_null(detail)) {
            json_array_append(kept, e);
            continue;
        }
        json_t *values = json_object_get(e, "values"), *names = json_object_get(e, "names");
        size_t nv = json_array_size(values);
        uint64_t v[nv + 1];
        for (size_t k = 0; k < nv; k++) {
            v[k] = u(json_array_get(values, k));
            const char *name = json_string_value(json_array_get(names, k));
            if (name) table_name(&w, (unsigned)k, v[k], name);
        }
        te->samples = u(json_object_get(e, "samples"));
        te->cycles = u(json_object_get(e, "cycles"));
        te->kept = u(json_object_get(e, "kept"));
        te->straddled = (uint32_t)u(json_object_get(e, "straddled"));
        for (size_t k = 0; k < nrates; k++) {
            const json_t *r = json_array_get(json_object_get(e, "rates"), k);
            const json_t *periods = json_object_get(r, "periods"); /* older: n */
            te->sums[k] = (struct rate_sums){u(periods ? periods : json_object_get(r, "n")),
                                             d(r, "sum_a"),
                                             d(r, "sum_b"),
                                             d(r, "sum_aa"),
                                             d(r, "sum_bb"),
                                             d(r, "sum_ab")};
        }
        table_entry(&w, u(json_object_get(e, "thread")), v, (unsigned)nv, te, (unsigned)nrates);
        /* the inline form: what the table keeps */
        json_object_set_new(e, "share",
                            json_real(attributed > 0 ? (double)te->samples / attributed : 0));
        json_object_set_new(e, "detail", json_null());
        for (size_t k = 0; k < nrates; k++) {
            json_t *r = json_array_get(json_object_get(e, "rates"), k);
            static const char *const dist[] = {"n", "mean", "sum", "sumsq", "min", "max", "hist"};
            for (size_t q = 0; q < sizeof dist / sizeof *dist; q++)
                json_object_del(r, dist[q]);
            json_object_set_new(r, "periods", json_integer((json_int_t)te->sums[k].periods));
            if (te->sums[k].periods && te->sums[k].sum_b != 0)
                json_object_set_new(r, "rate", json_real(te->sums[k].sum_a / te->sums[k].sum_b));
        }
        json_t *by = json_object_get(e, "by"), *slot;
        size_t b;
        json_array_foreach(by, b, slot)
            json_array_set_new(by, b, json_pack("[i, f, f]", 0, 0.0, 0.0));
    }
    free(te);
    if (json_dump_file(root, argv[2], JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
        fprintf(stderr, "table_split: cannot write %s\n", argv[2]);
        return 1;
    }
    json_object_set_new(root, "tags", kept);
    json_t *threads = json_object_get(json_object_get(root, "cct"), "threads"), *t;
    json_array_foreach(threads, i, t)
    {
        json_t *rows = json_object_get(t, "nodes");
        size_t n = json_array_size(rows);
        uint64_t *col = malloc((n + 1) * 3 * sizeof *col);
        for (size_t k = 0; k < n; k++) {
            json_t *row = json_array_get(rows, k), *f = json_array_get(row, 1),
                   *s = json_array_get(row, 2);
            col[k] = u(json_array_get(row, 0));
            col[n + k] = json_is_null(f) ? 0 : u(f) + 1;
            col[2 * n + k] = json_is_null(s) ? 0 : u(s) + 1;
        }
        table_tree(&w, (uint32_t)u(json_object_get(t, "index")), n, col, col + n, col + 2 * n);
        free(col);
        json_object_set_new(t, "nodes", json_null());
    }
    if (table_finish(&w, why, sizeof why) != 0 || table_commit(&w, why, sizeof why) != 0) {
        fprintf(stderr, "table_split: %s\n", why);
        return 1;
    }
    json_object_set_new(root, "version", json_integer(2));
    json_object_set_new(root, "table", table_json(&w, text));
    if (json_dump_file(root, argv[3], JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
        fprintf(stderr, "table_split: cannot write %s\n", argv[3]);
        return 1;
    }
    json_decref(root);
    return 0;
}
