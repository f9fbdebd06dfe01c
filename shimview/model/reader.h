/*
 * reader.h -- typed reads from a jansson document, with the JSON path in every error.
 *
 * A `struct reader` carries the file name, the path of the value being read ("tags[3]
 * .samples") and the caller's error buffer. Entering a member or an array element
 * appends ".key" or "[i]" and returns a mark to truncate back to; every read that fails
 * writes one message, "<file>: <path>: expected a non-negative integer, found -4", at
 * the point of failure, when the path is exact, and returns -1. Reads return 0 on
 * success, so a reader of a whole object is a chain of `||`.
 *
 * Values are read by `value_fn`s, which store through a `void *` whose type each one
 * documents; the member_* wrappers with a typed pointer are preferred where they exist.
 * Arrays are allocated, published to the caller's pointer and count, then filled, so a
 * caller can free a half-read array and an element can look at the ones before it.
 */
#ifndef SHIMVIEW_READER_H
#define SHIMVIEW_READER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct reader {
    const char *file;
    char path[256];
    size_t len;
    char *err;
    size_t errlen;
};

/* Read the file at path ("-": standard input) whole into a buffer of *len bytes (free()
 * it), refusing a file of more than limit bytes, a whole number of MiB: a regular file
 * before reading it, anything else once limit + 1 bytes have come. NULL with the message
 * set; messages name r->file, not path. */
char *reader_read_file(struct reader *r, const char *path, size_t limit, size_t *len);

/* Parse len bytes with jansson (duplicate keys rejected). NULL with the message set. */
json_t *reader_parse(struct reader *r, const char *data, size_t len);

/* The path: append, then restore to the returned mark. */
size_t path_key(struct reader *r, const char *key);
size_t path_index(struct reader *r, size_t i);
void path_restore(struct reader *r, size_t mark);

/* Write "<file>: <path>: <message>" and return -1. */
int reader_fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "missing, expected <what>" when v is NULL, else "expected <what>, found <v>"; -1. */
int reader_expected(struct reader *r, const json_t *v, const char *what);

/* Value readers; v may be NULL (a missing member). */
typedef int (*value_fn)(struct reader *r, const json_t *v, void *out);
int value_u64(struct reader *r, const json_t *v, void *out);            /* uint64_t: integer >= 0 */
int value_integer(struct reader *r, const json_t *v, void *out);        /* uint64_t: any integer,
                                                                           modulo 2^64 */
int value_number(struct reader *r, const json_t *v, void *out);         /* double: finite */
int value_positive(struct reader *r, const json_t *v, void *out);       /* double: > 0 */
int value_nonnegative(struct reader *r, const json_t *v, void *out);    /* double: >= 0 */
int value_fraction(struct reader *r, const json_t *v, void *out);       /* double: in [0, 1] */
int value_string(struct reader *r, const json_t *v, void *out);         /* const char * */
int value_string_or_null(struct reader *r, const json_t *v, void *out); /* NULL for null */
int value_bool(struct reader *r, const json_t *v, void *out);           /* int: 0 or 1 */

/* Member key of object o (o may be NULL: then every member is missing). */
int member(struct reader *r, const json_t *o, const char *key, value_fn fn, void *out);

/* An optional member: absent or null leaves *out alone and *present (if given) 0. */
int member_optional(struct reader *r, const json_t *o, const char *key, value_fn fn, void *out,
                    int *present);

/* A member that must be absent or null. */
int member_null(struct reader *r, const json_t *o, const char *key, const char *why);

/* Enter member key, which must be an object; the caller restores *mark when done. */
int member_object(struct reader *r, const json_t *o, const char *key, json_t **out, size_t *mark);

static inline int member_u64(struct reader *r, const json_t *o, const char *k, uint64_t *out)
{
    return member(r, o, k, value_u64, out);
}
static inline int member_number(struct reader *r, const json_t *o, const char *k, double *out)
{
    return member(r, o, k, value_number, out);
}
static inline int member_string(struct reader *r, const json_t *o, const char *k, const char **out)
{
    return member(r, o, k, value_string, out);
}
static inline int member_bool(struct reader *r, const json_t *o, const char *k, int *out)
{
    return member(r, o, k, value_bool, out);
}

/* Arrays. `out` points to the caller's element pointer (e.g. &p->tags), which receives a
 * zeroed allocation of the array's length before the elements are read. */
typedef int (*element_fn)(struct reader *r, const json_t *v, void *elem, void *ctx);
int array_read(struct reader *r, const json_t *arr, size_t elem_size, element_fn fn, void *ctx,
               void *out, size_t *n);
int member_array(struct reader *r, const json_t *o, const char *key, size_t elem_size,
                 element_fn fn, void *ctx, void *out, size_t *n);
/* An array of scalars, each read by fn. */
int array_values(struct reader *r, const json_t *arr, size_t elem_size, value_fn fn, void *out,
                 size_t *n);
int member_values(struct reader *r, const json_t *o, const char *key, size_t elem_size, value_fn fn,
                  void *out, size_t *n);

/* If arr is an array, it must have want elements; why says what fixes that number. */
int array_length(struct reader *r, const json_t *arr, size_t want, const char *why);

/* A fixed-length array such as [lo, hi, count]: v if it is one, else NULL (message set). */
const json_t *value_tuple(struct reader *r, const json_t *v, size_t n, const char *what);
/* Item i of a tuple. */
int tuple_item(struct reader *r, const json_t *t, size_t i, value_fn fn, void *out);

#endif /* SHIMVIEW_READER_H */
