/*
 * unread.c -- slots written but not read (unread.h).
 *
 * The blocks are the registry's static pool (signals/signal_block.c), read here with
 * relaxed loads as the observer reads them, while their threads may still write. A slot
 * "changed" when its value at the stop differs from its value at the start and is not 0:
 * a block taken by a thread during the run was zeroed as it was taken, and that alone
 * is no sign of the program. Only the program's slots are watched (tag slots 0-7,
 * counter slots 0-7); the reserved tag slots are shim's own to read.
 *
 * The line names each setting with the slots the run read and the ones that changed,
 * so it can be copied: "counter slot 5 changed but was not read: SHIM_COUNTERS=0,1,5
 * reads it (auto: the named counters only)". (Naming the slot before shim_start()
 * reads it too; docs/environment.md says so.)
 */
#include "libshim/unread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libshim/internal.h"
#include "signals/signal_block.h"

#define WORDS (SHIM_USER_TAG_SLOTS + SHIM_COUNTER_SLOTS) /* per block */

static uint32_t unread_mask(const unsigned *slot, unsigned n, unsigned nslots)
{
    uint32_t all = (1u << nslots) - 1, read = 0;
    for (unsigned i = 0; i < n; i++)
        if (slot[i] < nslots) read |= 1u << slot[i];
    return all & ~read;
}

static void take(const struct shim_block *b, uint64_t *out)
{
    for (unsigned s = 0; s < SHIM_USER_TAG_SLOTS; s++)
        out[s] = __atomic_load_n(&b->tag[s], __ATOMIC_RELAXED);
    for (unsigned s = 0; s < SHIM_COUNTER_SLOTS; s++)
        out[SHIM_USER_TAG_SLOTS + s] = __atomic_load_n(&b->counter[s], __ATOMIC_RELAXED);
}

int unread_watch_start(struct unread_watch *w, const struct shim_run *r)
{
    memset(w, 0, sizeof *w);
    w->tags = unread_mask(r->tag_slot, r->n_tag_slots, SHIM_USER_TAG_SLOTS);
    w->counters = unread_mask(r->counter_slot, r->n_counter_slots, SHIM_COUNTER_SLOTS);
    if (!w->tags && !w->counters) return 0;
    w->before = calloc((size_t)SIGNAL_BLOCK_POOL * WORDS, sizeof *w->before);
    if (!w->before) {
        w->tags = w->counters = 0;
        return -1;
    }
    uint32_t used = __atomic_load_n(signal_registry.used, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < used && i < SIGNAL_BLOCK_POOL; i++) /* the rest are all 0 */
        take(&signal_registry.pool[i], w->before + (size_t)i * WORDS);
    return 0;
}

void unread_watch_stop(struct unread_watch *w)
{
    if (!w->before) return;
    uint32_t used = __atomic_load_n(signal_registry.used, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < used && i < SIGNAL_BLOCK_POOL; i++) {
        uint64_t now[WORDS];
        const uint64_t *was = w->before + (size_t)i * WORDS;
        take(&signal_registry.pool[i], now);
        for (unsigned s = 0; s < SHIM_USER_TAG_SLOTS; s++)
            if ((w->tags >> s & 1) && now[s] != was[s] && now[s] != 0) w->changed_tags |= 1u << s;
        for (unsigned s = 0; s < SHIM_COUNTER_SLOTS; s++) {
            uint64_t v = now[SHIM_USER_TAG_SLOTS + s];
            if ((w->counters >> s & 1) && v != was[SHIM_USER_TAG_SLOTS + s] && v != 0)
                w->changed_counters |= 1u << s;
        }
    }
}

/* "3" or "3, 5" */
static void list_slots(FILE *f, uint32_t mask)
{
    const char *sep = "";
    for (unsigned s = 0; s < 32; s++)
        if (mask >> s & 1) {
            fprintf(f, "%s%u", sep, s);
            sep = ", ";
        }
}

/* The value of SHIM_var that reads the slots read and `more`: "0,3" (a counter's scale
 * kept: "0:1000,3"). */
static void setting(FILE *f, const unsigned *slot, unsigned n, uint32_t more, const double *scale)
{
    uint32_t all = more;
    for (unsigned i = 0; i < n; i++)
        all |= 1u << slot[i];
    const char *sep = "";
    for (unsigned s = 0; s < 32; s++)
        if (all >> s & 1) {
            fprintf(f, "%s%u", sep, s);
            if (scale && s < SHIM_COUNTER_SLOTS && scale[s] != 0 && scale[s] != 1)
                fprintf(f, ":%g", scale[s]);
            sep = ",";
        }
}

/* What the setting was: "auto: the named counters only", "none", or NULL (slots given) */
static const char *how_chosen(uint32_t mask, int tags)
{
    if (mask == SHIM_TAGS_NONE) return "none";
    if (mask) return NULL;
    return tags ? "auto: slot 0 and the named slots only" : "auto: the named counters only";
}

/* "counter slot 5 changed but was not read: SHIM_COUNTERS=0,1,5 reads it (auto: the
 * named counters only)" */
static void clause(FILE *f, const char *kind, uint32_t changed, const char *var, uint32_t chosen,
                   const unsigned *slot, unsigned n, const double *scale, int tags)
{
    int several = (changed & (changed - 1)) != 0;
    fprintf(f, "%s slot%s ", kind, several ? "s" : "");
    list_slots(f, changed);
    fprintf(f, " changed but %s not read: %s=", several ? "were" : "was", var);
    setting(f, slot, n, changed, scale);
    fprintf(f, " reads %s (", several ? "them" : "it");
    const char *how = how_chosen(chosen, tags);
    if (how) {
        fputs(how, f);
    } else {
        fprintf(f, "it is %s=", var);
        setting(f, slot, n, 0, scale);
    }
    fputc(')', f);
}

size_t unread_watch_message(const struct unread_watch *w, const struct shim_run *r, char *buf,
                            size_t len)
{
    memset(buf, 0, len);
    if (!w->changed_tags && !w->changed_counters) return 0;
    FILE *f = fmemopen(buf, len - 1, "w"); /* what does not fit is cut; buf stays a string */
    if (!f) return 0;
    const struct shim_config *c = &r->settings.cfg;
    if (w->changed_counters)
        clause(f, "counter", w->changed_counters, "SHIM_COUNTERS", c->counter_slots,
               r->counter_slot, r->n_counter_slots, c->counter_scale, 0);
    if (w->changed_counters && w->changed_tags) fputs("; ", f);
    if (w->changed_tags)
        clause(f, "tag", w->changed_tags, "SHIM_TAGS", c->tag_slots, r->tag_slot, r->n_tag_slots,
               NULL, 1);
    fclose(f);
    return strlen(buf);
}

void unread_watch_free(struct unread_watch *w)
{
    free(w->before);
    w->before = NULL;
}
