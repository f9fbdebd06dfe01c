/*
 * tags.c -- naming and ordering tag entries, shared by `report` and `plot` so that a tag
 * reads the same in a table and in a figure.
 *
 * In a calling-context profile the two reserved slots hold run-time addresses and node
 * numbers, which say nothing to a reader and differ from run to run; they are named
 * instead by the function (slot 8) and by the context's path (slot 9), so a report reads
 * "heavy/main > heavy" and `compare` matches the same function across two runs.
 */
#include "tags.h"
#include "calltree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Value i of entry t, which has no name of its own: a function, a context, or
 * "slotname=value". */
static void write_value(FILE *f, const struct profile *p, const struct profile_tag *t, size_t i)
{
    char buf[256];
    if (p->has_cct && i == p->cct.method_tag && (t->function || t->values[i] == 0)) {
        fputs(t->function ? calltree_function_label(t->function, buf, sizeof buf) : "(none)", f);
    } else if (p->has_cct && i == p->cct.cct_tag && t->context_thread) {
        calltree_write_path(f, t->context_thread, NULL, t->context_node, " > ");
    } else if (p->has_cct && i == p->cct.method_tag) {
        fprintf(f, "%s=%#" PRIx64, p->signals.tags[i].name, t->values[i]);
    } else {
        fprintf(f, "%s=%" PRIu64, p->signals.tags[i].name, t->values[i]);
    }
}

char *tag_entry_name(const struct profile *p, const struct profile_tag *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    if (t->is_other) fputs("other", f);
    if (!t->is_other && t->nvalues == 0) fputs("(untagged)", f);
    for (size_t i = 0; !t->is_other && i < t->nvalues; i++) {
        if (i > 0) fputc('/', f);
        if (t->names[i])
            fputs(t->names[i], f);
        else
            write_value(f, p, t, i);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int by_samples_desc(const void *a, const void *b)
{
    const struct named_tag *x = a, *y = b;
    if (x->tag->samples != y->tag->samples) return x->tag->samples < y->tag->samples ? 1 : -1;
    return x->tag < y->tag ? -1 : x->tag > y->tag; /* file order among equals */
}

struct named_tag *named_tags(const struct profile *p, int with_other, size_t *n)
{
    struct named_tag *t = calloc(p->ntags + 1, sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < p->ntags; i++)
        t[i].tag = &p->tags[i];
    qsort(t, p->ntags, sizeof *t, by_samples_desc);
    *n = p->ntags;
    if (with_other && p->other.samples > 0) t[(*n)++].tag = &p->other;
    for (size_t i = 0; i < *n; i++) {
        t[i].name = tag_entry_name(p, t[i].tag);
        if (!t[i].name) {
            named_tags_free(t, i);
            return NULL;
        }
    }
    return t;
}

void named_tags_free(struct named_tag *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        free(t[i].name);
    free(t);
}

const char *fmt_count(uint64_t v, char *buf, size_t len)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}
