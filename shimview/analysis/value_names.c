/*
 * value_names.c -- the name of every (slot, value) a trace record holds, looked up as
 * records stream past (timeline, the perfetto export; see value_names.h).
 *
 * A trace record holds raw slot values; the profile's tag entries hold their names (the
 * program's shim_name_tag names, and for the reserved slots the function, context and
 * loop tags.c names). The names are gathered once per slot into an array sorted by
 * value, and each record's values are found by bisection.
 */
#include "shimview/analysis/value_names.h"

#include "shimview/analysis/tags.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Cut a string that snprintf truncated back to a whole UTF-8 character, so that it
 * stays valid UTF-8 (jansson refuses anything else). */
static void utf8_trim(char *buf, size_t n)
{
    size_t i = n;
    while (i > 0 && ((unsigned char)buf[i - 1] & 0xc0) == 0x80)
        i--;
    if (i == 0 || (unsigned char)buf[i - 1] < 0xc0) return;
    unsigned char lead = (unsigned char)buf[i - 1];
    size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (n - (i - 1) < need) buf[i - 1] = '\0';
}

const char *tag_value_label(const char *slot_name, const char *name, uint64_t value, char *buf,
                            size_t len)
{
    int n = name         ? snprintf(buf, len, "%s", name)
            : value == 0 ? snprintf(buf, len, "%s", TAG_VALUE_UNSET)
                         : snprintf(buf, len, "%s=%" PRIu64, slot_name, value);
    if (n >= 0 && (size_t)n >= len && len > 0) utf8_trim(buf, len - 1);
    return buf;
}

static int by_value(const void *a, const void *b)
{
    const struct value_name *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Keep a name made here, to be freed with the rest. The list grows as names come, never
 * from a count guessed in advance: an entry names up to three reserved slots (function,
 * context and loop when a program is built with both -finstrument-functions and the
 * pass), and a list sized for two per entry was once overrun. */
static int keep_owned(struct value_names *vn, char *name)
{
    if (vn->nowned == vn->cap_owned) {
        size_t cap = vn->cap_owned ? 2 * vn->cap_owned : 64;
        char **more = cap > SIZE_MAX / sizeof *more ? NULL : realloc(vn->owned, cap * sizeof *more);
        if (!more) {
            free(name);
            return -1;
        }
        vn->owned = more;
        vn->cap_owned = cap;
    }
    vn->owned[vn->nowned++] = name;
    return 0;
}

int value_names_init(struct value_names *vn, const struct profile *p)
{
    size_t ns = p->signals.ntags;
    *vn = (struct value_names){.p = p};
    vn->n = calloc(ns ? ns : 1, sizeof *vn->n);
    vn->by_slot = calloc(ns ? ns : 1, sizeof *vn->by_slot);
    if (!vn->n || !vn->by_slot) goto oom;
    for (size_t s = 0; s < ns; s++) {
        /* the function column of a program whose -finstrument-functions hooks stored
         * exits (cct.exits): their words too, named as the function the entries were */
        size_t exits = p->has_cct && s == p->cct.method_tag ? p->cct.nexits : 0;
        struct value_name *v = malloc((p->ntags + exits ? p->ntags + exits : 1) * sizeof *v);
        if (!v) goto oom;
        vn->by_slot[s] = v;
        size_t k = 0;
        for (size_t i = 0; i < p->ntags; i++) {
            const char *name = p->tags[i].names[s];
            /* the reserved slots' addresses and node numbers: named as the report names
             * them (tags.c), by function, context and loop */
            char *made = name ? NULL : tag_value_name(p, &p->tags[i], s);
            if (made && keep_owned(vn, made) != 0) goto oom;
            if (made) name = made;
            if (name) v[k++] = (struct value_name){p->tags[i].values[s], name};
        }
        qsort(v, k, sizeof *v, by_value);
        size_t u = 0; /* one name per value (a value has one name: shim_name_tag's) */
        for (size_t i = 0; i < k; i++)
            if (u == 0 || v[u - 1].value != v[i].value) v[u++] = v[i];
        for (size_t i = 0, named = u; i < exits; i++) {
            struct value_name key = {p->cct.exits[i].fn, NULL};
            const struct value_name *hit = bsearch(&key, v, named, sizeof key, by_value);
            if (hit) v[u++] = (struct value_name){p->cct.exits[i].word, hit->name};
        }
        qsort(v, u, sizeof *v, by_value);
        vn->n[s] = u;
    }
    return 0;
oom:
    value_names_free(vn);
    return -1;
}

void value_names_free(struct value_names *vn)
{
    for (size_t s = 0; vn->by_slot && s < vn->p->signals.ntags; s++)
        free(vn->by_slot[s]);
    free(vn->by_slot);
    free(vn->n);
    for (size_t i = 0; i < vn->nowned; i++)
        free(vn->owned[i]);
    free(vn->owned);
    vn->by_slot = NULL;
    vn->n = NULL;
    vn->owned = NULL;
    vn->nowned = vn->cap_owned = 0;
}

const char *value_names_get(const struct value_names *vn, size_t slot, uint64_t value, char *buf,
                            size_t len)
{
    struct value_name key = {value, NULL};
    const struct value_name *hit =
        bsearch(&key, vn->by_slot[slot], vn->n[slot], sizeof key, by_value);
    return tag_value_label(vn->p->signals.tags[slot].name, hit ? hit->name : NULL, value, buf, len);
}
