/*
 * reader.c -- typed reads from a jansson document; see reader.h.
 *
 * jansson does the parsing and already refuses what no reader should see: malformed
 * UTF-8, NUL bytes in strings, integers beyond 64 bits, reals that overflow, NaN and
 * infinity (not JSON), nesting deeper than its limit, trailing garbage. With
 * JSON_REJECT_DUPLICATES it also refuses a key given twice, which would otherwise make
 * the value read depend on the parser. Its messages carry line and column and are passed
 * through as "<file>:<line>:<column>: <text>".
 *
 * jansson parses (and json_decref frees) by recursion, one level per nested array or
 * object, and stops at JSON_PARSER_MAX_DEPTH (2048 in jansson 2.14), so a hostile file
 * cannot exhaust the stack. Nothing here recurses: the readers in profile.c descend only
 * as deep as the format nests, whatever else the document holds.
 *
 * A file is read whole into memory and parsed from there, so a file and a buffer already
 * in memory take one path. The caller bounds the size: a regular file larger than the
 * limit is refused from its size before any of it is read, a pipe once it has sent more.
 *
 * The path buffer is fixed: the format nests a handful of levels, and should a path ever
 * outgrow it, the message shows a truncated path rather than failing.
 */
#include "shimview/model/reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the path and messages ---- */

/* Account for n characters that snprintf wanted to write at the end of the path. */
static void path_grow(struct reader *r, int n)
{
    size_t room = sizeof r->path - r->len;
    if (n > 0) r->len += (size_t)n < room ? (size_t)n : room - 1;
}

size_t path_key(struct reader *r, const char *key)
{
    size_t mark = r->len;
    path_grow(r,
              snprintf(r->path + r->len, sizeof r->path - r->len, "%s%s", r->len ? "." : "", key));
    return mark;
}

size_t path_index(struct reader *r, size_t i)
{
    size_t mark = r->len;
    path_grow(r, snprintf(r->path + r->len, sizeof r->path - r->len, "[%zu]", i));
    return mark;
}

void path_restore(struct reader *r, size_t mark)
{
    r->len = mark;
    r->path[mark] = '\0';
}

int reader_fail(struct reader *r, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->len)
        snprintf(r->err, r->errlen, "%s: %s: %s", r->file, r->path, msg);
    else
        snprintf(r->err, r->errlen, "%s: %s", r->file, msg);
    return -1;
}

/* A string for "found ...": printable, quoted, cut short. */
static void describe_string(const char *s, char *buf, size_t len)
{
    char text[40];
    size_t i = 0, o = 0;
    for (; s[i] && o < sizeof text - 4; i++)
        text[o++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    if (s[i]) text[o++] = '.', text[o++] = '.', text[o++] = '.';
    text[o] = '\0';
    snprintf(buf, len, "the string \"%s\"", text);
}

static void describe(const json_t *v, char *buf, size_t len)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        snprintf(buf, len, "an object");
        break;
    case JSON_ARRAY:
        snprintf(buf, len, "an array");
        break;
    case JSON_INTEGER:
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        snprintf(buf, len, "%.17g", json_real_value(v));
        break;
    case JSON_TRUE:
        snprintf(buf, len, "true");
        break;
    case JSON_FALSE:
        snprintf(buf, len, "false");
        break;
    case JSON_NULL:
        snprintf(buf, len, "null");
        break;
    case JSON_STRING:
        describe_string(json_string_value(v), buf, len);
        break;
    }
}

int reader_expected(struct reader *r, const json_t *v, const char *what)
{
    char found[64];
    if (!v) return reader_fail(r, "missing, expected %s", what);
    describe(v, found, sizeof found);
    return reader_fail(r, "expected %s, found %s", what, found);
}

/* ---- reading and parsing ---- */

static int too_large(struct reader *r, size_t limit)
{
    return reader_fail(r, "larger than %zu MiB; not a shim profile", limit >> 20);
}

char *reader_read_file(struct reader *r, const char *path, size_t limit, size_t *len)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    struct stat st;
    char *buf = NULL;
    size_t n = 0, cap = 64 << 10;
    if (!f) {
        reader_fail(r, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            reader_fail(r, "is a directory");
            goto fail;
        }
        if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > limit) {
            too_large(r, limit);
            goto fail;
        }
        /* One byte more than the size, so that the read that meets the end fits. */
        if (S_ISREG(st.st_mode)) cap = (size_t)st.st_size + 1;
    }
    /* The buffer never exceeds limit + 1 bytes: filling that much means too large. */
    if (cap > limit + 1) cap = limit + 1;
    for (;;) {
        if (n == cap && cap == limit + 1) {
            too_large(r, limit);
            goto fail;
        }
        if (!buf || n == cap) {
            size_t want = !buf ? cap : cap > (limit + 1) / 2 ? limit + 1 : 2 * cap;
            char *grown = realloc(buf, want);
            if (!grown) {
                reader_fail(r, "out of memory for %zu bytes", want);
                goto fail;
            }
            buf = grown;
            cap = want;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            if (ferror(f)) {
                reader_fail(r, "%s", strerror(errno));
                goto fail;
            }
            break;
        }
    }
    if (!is_stdin) fclose(f);
    *len = n;
    return buf;
fail:
    free(buf);
    if (!is_stdin) fclose(f);
    return NULL;
}

json_t *reader_parse(struct reader *r, const char *data, size_t len)
{
    json_error_t jerr;
    size_t first = 0;
    while (first < len && strchr(" \t\r\n", data[first]) && data[first])
        first++;
    /* A file that is not JSON at all is no profile: say that, not where jansson stopped
     * (a truncated profile, which begins as one, gets jansson's line and column). */
    if (first == len) {
        reader_fail(r, "empty; not a shim profile");
        return NULL;
    }
    if (data[first] != '{' && data[first] != '[') {
        json_t *any = json_loadb(data, len, JSON_DECODE_ANY, &jerr);
        reader_fail(r, "%s; not a shim profile", any ? "a JSON value, not an object" : "not JSON");
        json_decref(any);
        return NULL;
    }
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && jerr.line > 0)
        snprintf(r->err, r->errlen, "%s:%d:%d: %s", r->file, jerr.line, jerr.column, jerr.text);
    else if (!root)
        reader_fail(r, "%s", jerr.text);
    return root;
}

/* ---- values ---- */

int value_u64(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return reader_expected(r, v, "a non-negative integer");
    *(uint64_t *)out = (uint64_t)json_integer_value(v);
    return 0;
}

int value_integer(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_integer(v)) return reader_expected(r, v, "an integer");
    *(uint64_t *)out = (uint64_t)json_integer_value(v);
    return 0;
}

int value_number(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return reader_expected(r, v, "a number");
    *(double *)out = json_number_value(v);
    return 0;
}

int value_positive(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_number(v) || !(json_number_value(v) > 0) || !isfinite(json_number_value(v)))
        return reader_expected(r, v, "a positive number");
    *(double *)out = json_number_value(v);
    return 0;
}

int value_nonnegative(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_number(v) || !(json_number_value(v) >= 0) || !isfinite(json_number_value(v)))
        return reader_expected(r, v, "a non-negative number");
    *(double *)out = json_number_value(v);
    return 0;
}

int value_fraction(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_number(v) || !(json_number_value(v) >= 0 && json_number_value(v) <= 1))
        return reader_expected(r, v, "a number from 0 to 1");
    *(double *)out = json_number_value(v);
    return 0;
}

int value_string(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_string(v)) return reader_expected(r, v, "a string");
    *(const char **)out = json_string_value(v);
    return 0;
}

int value_string_or_null(struct reader *r, const json_t *v, void *out)
{
    if (json_is_null(v)) {
        *(const char **)out = NULL;
        return 0;
    }
    if (!json_is_string(v)) return reader_expected(r, v, "a string or null");
    *(const char **)out = json_string_value(v);
    return 0;
}

int value_bool(struct reader *r, const json_t *v, void *out)
{
    if (!json_is_boolean(v)) return reader_expected(r, v, "true or false");
    *(int *)out = json_is_true(v);
    return 0;
}

/* ---- members ---- */

int member(struct reader *r, const json_t *o, const char *key, value_fn fn, void *out)
{
    size_t mark = path_key(r, key);
    int rc = fn(r, json_object_get(o, key), out);
    path_restore(r, mark);
    return rc;
}

int member_optional(struct reader *r, const json_t *o, const char *key, value_fn fn, void *out,
                    int *present)
{
    const json_t *v = json_object_get(o, key);
    if (present) *present = v && !json_is_null(v);
    if (!v || json_is_null(v)) return 0;
    return member(r, o, key, fn, out);
}

int member_null(struct reader *r, const json_t *o, const char *key, const char *why)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) return 0;
    path_key(r, key);
    return reader_expected(r, v, why);
}

int member_object(struct reader *r, const json_t *o, const char *key, json_t **out, size_t *mark)
{
    *mark = path_key(r, key);
    *out = json_object_get(o, key);
    if (!json_is_object(*out)) return reader_expected(r, *out, "an object");
    return 0;
}

/* ---- arrays ---- */

int array_read(struct reader *r, const json_t *arr, size_t elem_size, element_fn fn, void *ctx,
               void *out, size_t *n)
{
    if (!json_is_array(arr)) return reader_expected(r, arr, "an array");
    size_t count = json_array_size(arr);
    char *elems = calloc(count ? count : 1, elem_size);
    if (!elems) return reader_fail(r, "out of memory for %zu elements", count);
    /* out is the address of the caller's typed pointer; memcpy stores through it
     * without an aliasing cast. */
    memcpy(out, &elems, sizeof elems);
    *n = count;
    for (size_t i = 0; i < count; i++) {
        size_t mark = path_index(r, i);
        if (fn(r, json_array_get(arr, i), elems + i * elem_size, ctx)) return -1;
        path_restore(r, mark);
    }
    return 0;
}

int member_array(struct reader *r, const json_t *o, const char *key, size_t elem_size,
                 element_fn fn, void *ctx, void *out, size_t *n)
{
    size_t mark = path_key(r, key);
    if (array_read(r, json_object_get(o, key), elem_size, fn, ctx, out, n)) return -1;
    path_restore(r, mark);
    return 0;
}

struct value_ctx {
    value_fn fn;
};

static int element_value(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    return ((const struct value_ctx *)ctx)->fn(r, v, elem);
}

int array_values(struct reader *r, const json_t *arr, size_t elem_size, value_fn fn, void *out,
                 size_t *n)
{
    struct value_ctx c = {fn};
    return array_read(r, arr, elem_size, element_value, &c, out, n);
}

int member_values(struct reader *r, const json_t *o, const char *key, size_t elem_size, value_fn fn,
                  void *out, size_t *n)
{
    struct value_ctx c = {fn};
    return member_array(r, o, key, elem_size, element_value, &c, out, n);
}

int array_length(struct reader *r, const json_t *arr, size_t want, const char *why)
{
    if (!json_is_array(arr) || json_array_size(arr) == want) return 0;
    return reader_fail(r, "has %zu entries, expected %zu (%s)", json_array_size(arr), want, why);
}

const json_t *value_tuple(struct reader *r, const json_t *v, size_t n, const char *what)
{
    if (json_is_array(v) && json_array_size(v) == n) return v;
    reader_expected(r, v, what);
    return NULL;
}

int tuple_item(struct reader *r, const json_t *t, size_t i, value_fn fn, void *out)
{
    size_t mark = path_index(r, i);
    int rc = fn(r, json_array_get(t, i), out);
    path_restore(r, mark);
    return rc;
}
