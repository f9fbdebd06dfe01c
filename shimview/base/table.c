/*
 * table.c -- rows of strings, printed aligned or as CSV.
 *
 * Rows live in one growable array of cell pointers (row-major), so adding a row is an
 * amortised realloc and printing is two passes: measure, then emit. Widths count code
 * points, not bytes, so "±" and accented names align; wide (CJK) characters do not, a
 * limitation accepted for a terminal table.
 */
#include "shimview/base/table.h"
#include "shimview/base/markup.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct table {
    size_t ncols, nrows, cap, header_rows;
    enum table_align *align;
    unsigned char *text; /* per column: text in JSON whatever it reads as */
    const char **klass;  /* per column, for HTML; NULL: none */
    char **cells;        /* nrows * ncols, NULL for an empty cell */
    int failed;
};

struct table *table_new(size_t ncols, const enum table_align *align)
{
    struct table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->ncols = ncols;
    t->align = calloc(ncols ? ncols : 1, sizeof *t->align);
    t->klass = calloc(ncols ? ncols : 1, sizeof *t->klass);
    t->text = calloc(ncols ? ncols : 1, 1);
    if (!t->align || !t->klass || !t->text) {
        free(t->align);
        free(t->klass);
        free(t->text);
        free(t);
        return NULL;
    }
    memcpy(t->align, align, ncols * sizeof *align);
    return t;
}

void table_free(struct table *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->align);
    free(t->klass);
    free(t->text);
    free(t);
}

void table_add_row(struct table *t)
{
    if (t->failed) return;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **cells = realloc(t->cells, cap * t->ncols * sizeof *cells);
        if (!cells) {
            t->failed = 1;
            return;
        }
        t->cells = cells;
        t->cap = cap;
    }
    memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof *t->cells);
    t->nrows++;
}

void table_set(struct table *t, size_t col, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    if (t->failed || t->nrows == 0 || col >= t->ncols) return;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
        return;
    }
    char **cell = &t->cells[(t->nrows - 1) * t->ncols + col];
    free(*cell);
    *cell = s;
}

/* The number of bytes holding the first `width` code points of s. */
static size_t utf8_prefix_bytes(const char *s, size_t width)
{
    size_t i = 0, w = 0;
    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) == 0x80) continue;
        if (w++ == width) break;
    }
    return i;
}

void table_set_cut(struct table *t, size_t col, const char *text, size_t max_width)
{
    size_t width = table_text_width(text);
    if (max_width < 4 || width <= max_width) {
        table_set(t, col, "%s", text);
        return;
    }
    size_t head = (max_width - 3) / 2, tail = max_width - 3 - head;
    const char *end = text + utf8_prefix_bytes(text, width - tail);
    table_set(t, col, "%.*s...%s", (int)utf8_prefix_bytes(text, head), text, end);
}

void table_end_header(struct table *t)
{
    t->header_rows = t->nrows;
}

void table_column_text(struct table *t, size_t col)
{
    if (col < t->ncols) t->text[col] = 1;
}

void table_column_class(struct table *t, size_t col, const char *klass)
{
    if (col < t->ncols) t->klass[col] = klass;
}

size_t table_text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80) w++;
    return w;
}

static const char *cell(const struct table *t, size_t row, size_t col)
{
    const char *s = t->cells[row * t->ncols + col];
    return s ? s : "";
}

static void put_printable(const char *s, FILE *out)
{
    for (; *s; s++)
        fputc(((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s, out);
}

static void put_padding(size_t n, int c, FILE *out)
{
    while (n--)
        fputc(c, out);
}

static void print_text_row(const struct table *t, size_t row, const size_t *width, FILE *out)
{
    /* Trailing empty left-aligned cells would only add trailing blanks. */
    size_t last = t->ncols;
    while (last > 0 && t->align[last - 1] == TABLE_LEFT && !*cell(t, row, last - 1))
        last--;
    for (size_t c = 0; c < last; c++) {
        const char *s = cell(t, row, c);
        size_t pad = width[c] - table_text_width(s);
        if (c > 0) fputs("  ", out);
        if (t->align[c] == TABLE_RIGHT) put_padding(pad, ' ', out);
        put_printable(s, out);
        if (t->align[c] == TABLE_LEFT && c + 1 < last) put_padding(pad, ' ', out);
    }
    fputc('\n', out);
}

int table_print_text(const struct table *t, FILE *out)
{
    if (t->failed) return -1;
    size_t *width = calloc(t->ncols ? t->ncols : 1, sizeof *width);
    if (!width) return -1;
    size_t total = 0;
    for (size_t c = 0; c < t->ncols; c++) {
        for (size_t r = 0; r < t->nrows; r++) {
            size_t w = table_text_width(cell(t, r, c));
            if (w > width[c]) width[c] = w;
        }
        total += width[c] + (c > 0 ? 2 : 0);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        print_text_row(t, r, width, out);
        if (r + 1 == t->header_rows) {
            put_padding(total, '-', out);
            fputc('\n', out);
        }
    }
    free(width);
    return 0;
}

static void put_csv_field(const char *s, FILE *out)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int table_print_csv(const struct table *t, FILE *out)
{
    if (t->failed) return -1;
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            if (c > 0) fputc(',', out);
            put_csv_field(cell(t, r, c), out);
        }
        fputc('\n', out);
    }
    return 0;
}

/* ---- JSON ---- */

/* Does s read as a JSON number: an optional '-', digits, then an optional fraction and
 * exponent, and finite? (strtod alone takes "inf", "0x1p3" and leading blanks.) */
static int is_number(const char *s)
{
    const char *p = s + (*s == '-');
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p == '.') {
        if (p[1] < '0' || p[1] > '9') return 0;
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    }
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        if (*p < '0' || *p > '9') return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0' && isfinite(strtod(s, NULL));
}

/* The fewest significant digits that give v back (1 to 17). */
static int digits_for(double v)
{
    char buf[32];
    for (int p = 1; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return p;
    }
    return 17;
}

/* A cell as JSON: null when empty, a number in a column of numbers (an integer when it
 * has no fraction or exponent and fits), else a string. *digits grows to what the number
 * needs to read back as the cell's. */
static json_t *json_cell(const char *s, int numeric, int *digits)
{
    if (!*s) return json_null();
    if (!numeric) return json_string(s);
    if (!strpbrk(s, ".eE")) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        return errno == ERANGE ? json_string(s) : json_integer(v);
    }
    double v = strtod(s, NULL);
    int d = digits_for(v);
    if (d > *digits) *digits = d;
    return json_real(v);
}

int table_print_json(const struct table *t, FILE *out)
{
    if (t->failed) return -1;
    /* a table built for CSV may mark no header: its first row is CSV's header then */
    size_t first = t->header_rows ? t->header_rows : t->nrows > 0;
    unsigned char *numeric = calloc(t->ncols ? t->ncols : 1, 1);
    if (!numeric) return -1;
    for (size_t c = 0; c < t->ncols; c++) {
        numeric[c] = !t->text[c];
        for (size_t r = first; numeric[c] && r < t->nrows; r++)
            if (*cell(t, r, c) && !is_number(cell(t, r, c))) numeric[c] = 0;
    }
    int rc = 0;
    fputc('[', out);
    for (size_t r = first; rc == 0 && r < t->nrows; r++) {
        json_t *row = json_object();
        int digits = 1;
        for (size_t c = 0; row && c < t->ncols; c++) {
            char key[32];
            const char *name = cell(t, first - 1, c);
            if (!*name) snprintf(key, sizeof key, "column_%zu", c + 1);
            if (json_object_set_new(row, *name ? name : key,
                                    json_cell(cell(t, r, c), numeric[c], &digits)))
                rc = -1;
        }
        /* as many digits as the row's numbers need to read back as the cells' */
        char *text = row ? json_dumps(row, JSON_REAL_PRECISION(digits)) : NULL;
        if (!text) rc = -1;
        if (text) fprintf(out, "%s\n%s", r > first ? "," : "", text);
        free(text);
        json_decref(row);
    }
    fputs("\n]\n", out);
    free(numeric);
    return rc;
}

/* A cell's class attribute: "num" for a right-aligned column, then the column's class. */
static void put_html_class(const struct table *t, size_t col, FILE *out)
{
    int num = t->align[col] == TABLE_RIGHT;
    if (!num && !t->klass[col]) return;
    fputs(" class=\"", out);
    if (num) fputs("num", out);
    if (num && t->klass[col]) fputc(' ', out);
    if (t->klass[col]) markup_escape(out, t->klass[col]);
    fputc('"', out);
}

int table_print_html(const struct table *t, FILE *out)
{
    if (t->failed) return -1;
    fputs("<table>\n", out);
    for (size_t r = 0; r < t->nrows; r++) {
        int head = r < t->header_rows;
        if (r == 0) fputs(head ? "<thead>\n" : "<tbody>\n", out);
        fputs("<tr>", out);
        for (size_t c = 0; c < t->ncols; c++) {
            fputs(head ? "<th" : "<td", out);
            put_html_class(t, c, out);
            fputc('>', out);
            markup_escape(out, cell(t, r, c));
            fputs(head ? "</th>" : "</td>", out);
        }
        fputs("</tr>\n", out);
        if (r + 1 == t->header_rows)
            fputs(r + 1 < t->nrows ? "</thead>\n<tbody>\n" : "</thead>\n", out);
    }
    if (t->nrows > t->header_rows) fputs("</tbody>\n", out);
    fputs("</table>\n", out);
    return 0;
}
