/*
 * tags.c -- naming and ordering tag entries, shared by `report` and `plot` so that a tag
 * reads the same in a table and in a figure.
 *
 * The reserved slots hold run-time addresses, node numbers and loop signals, which say
 * nothing to a reader and differ from run to run; they are named instead by the function
 * (slot 8), by the context's path (slot 9) and by the loop and its source line (slot 10),
 * so a report reads "heavy/main > heavy" or "sum/sum loop 1 (sum.c:12)", and `compare`
 * matches the same function or loop across two runs.
 */
#include "shimview/analysis/tags.h"
#include "shimview/analysis/calltree.h"
#include "shimview/analysis/paths.h"
#include "shimview/model/profile_threads.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value i of entry t as a reserved slot names it, written to f: a function, a context, a
 * loop. 0 when slot i is not one of those, or its value names nothing the profile has. */
static int write_reserved(FILE *f, const struct profile *p, const struct profile_tag *t, size_t i)
{
    char buf[256];
    if (p->has_function_slot && i == p->function_tag && (t->function || t->values[i] == 0))
        fputs(t->function ? calltree_function_label(t->function, buf, sizeof buf) : "(none)", f);
    else if (p->has_cct && i == p->cct.cct_tag && t->context_thread)
        calltree_write_path(f, t->context_thread, NULL, t->context_node, " > ");
    else if (p->has_loop_slot && i == p->loop_tag)
        pass_write_loop(f, t->loop_function, t->values[i], t->loop);
    else
        return 0;
    return 1;
}

char *tag_value_name(const struct profile *p, const struct profile_tag *t, size_t i)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    int named = write_reserved(f, p, t, i);
    if (fclose(f) != 0 || !named) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Value i of entry t, which has no name of its own: a reserved slot's name, or
 * "slotname=value" (an address in hex); 0, which every thread's slots hold until it
 * signals, is TAG_VALUE_UNSET. */
static void write_value(FILE *f, const struct profile *p, const struct profile_tag *t, size_t i)
{
    if (write_reserved(f, p, t, i)) return;
    if (t->values[i] == 0)
        fputs(TAG_VALUE_UNSET, f);
    else if (p->has_function_slot && i == p->function_tag)
        fprintf(f, "%s=%#" PRIx64, p->signals.tags[i].name, t->values[i]);
    else
        fprintf(f, "%s=%" PRIu64, p->signals.tags[i].name, t->values[i]);
}

char *tag_entry_name(const struct profile *p, const struct profile_tag *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    /* Another process's tags are not the program's: its entries share one name. */
    const char *group = thread_group_name(tag_thread_group(p, t));
    int tuple = !t->is_other && !group;
    if (t->is_other) fputs("other", f);
    if (group) fputs(group, f);
    if (tuple && t->nvalues == 0) fputs("(untagged)", f);
    /* a slot the program never signalled says nothing, unless it is all there is */
    uint32_t all = t->nvalues >= 32 ? UINT32_MAX : (UINT32_C(1) << t->nvalues) - 1;
    uint32_t skip = (p->silent_tags & all) == all ? 0 : p->silent_tags;
    for (size_t i = 0, first = 1; tuple && i < t->nvalues; i++) {
        if (i < 32 && (skip >> i & 1)) continue;
        if (!first) fputc('/', f);
        first = 0;
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

/* Move the entries of other threads after the program's, keeping the order within each
 * group: the program's tags come first wherever tags are ranked. 0, or -1. */
static int program_first(struct named_tag *t, size_t n)
{
    struct named_tag *sorted = malloc((n ? n : 1) * sizeof *sorted);
    size_t k = 0;
    if (!sorted) return -1;
    for (int g = THREAD_PROGRAM; g <= THREAD_IDLE; g++)
        for (size_t i = 0; i < n; i++)
            if (t[i].group == (enum thread_group)g) sorted[k++] = t[i];
    memcpy(t, sorted, n * sizeof *t);
    free(sorted);
    return 0;
}

/* named_tags, ranked by samples or left in file order. */
static struct named_tag *named(const struct profile *p, int with_other, int ranked, size_t *n)
{
    struct named_tag *t = calloc(p->ntags + 1, sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < p->ntags; i++) {
        t[i].tag = &p->tags[i];
        t[i].group = tag_thread_group(p, t[i].tag);
    }
    if (ranked) qsort(t, p->ntags, sizeof *t, by_samples_desc);
    if (p->placement.has_threads && program_first(t, p->ntags)) {
        free(t);
        return NULL;
    }
    *n = p->ntags;
    if (with_other && p->other.samples > 0) {
        t[*n].tag = &p->other;
        t[(*n)++].group = tag_thread_group(p, &p->other);
    }
    for (size_t i = 0; i < *n; i++) {
        t[i].name = tag_entry_name(p, t[i].tag);
        if (!t[i].name) {
            named_tags_free(t, i);
            return NULL;
        }
    }
    return t;
}

struct named_tag *named_tags(const struct profile *p, int with_other, size_t *n)
{
    return named(p, with_other, 1, n);
}

struct named_tag *named_tags_unranked(const struct profile *p, size_t *n)
{
    return named(p, 0, 0, n);
}

void named_tags_free(struct named_tag *t, size_t n)
{
    for (size_t i = 0; t && i < n; i++)
        free(t[i].name);
    free(t);
}
