/*
 * plan.c -- the probe plan of a run: what the observer reads in each sample period and
 * the rates it forms (observer/probe_plan.h), named for the profile.
 *
 * The hardware readings come first (hardware.c opens them); then, by default, the slots
 * the program named and those its instrumentation writes (the method and context slots
 * of a program built with -finstrument-functions, the loop slot and the path ring of
 * one built with the compiler pass, the context from stack walks where frames are
 * published), the counter slots it named, the allocation counter (alloc_signal.c), the
 * derived rates of SHIM_RATES and the pair of SHIM_BY. Any name that resolves to nothing
 * is one line saying what there is instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libshim/alloc_signal.h"
#include "signals/cct.h"
#include "libshim/internal.h"
#include "libshim/names.h"
#include "signals/path.h"
#include "libshim/sidetable.h"
#include "signals/signal_block.h"
#include "signals/stackwalk.h"
#include "libshim/symbols.h"
#include "libshim/thread_identity.h"

/* Slots to read: the configured mask, or by default (0) the named ones (tags: and 0). */
static unsigned slots_of(uint32_t mask, uint32_t named, uint32_t fallback, unsigned n,
                         unsigned *out)
{
    uint32_t m = mask == SHIM_TAGS_NONE ? 0 : mask ? mask : (named | fallback);
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        if (m & (1u << i)) out[k++] = i;
    return k;
}

/* The name a counter is known by at start: its shim_name_counter() name, or counterN. */
static void counter_label(unsigned slot, char *out, size_t len)
{
    const char *name = names_counter(slot);
    if (name)
        snprintf(out, len, "%s", name);
    else
        snprintf(out, len, "counter%u", slot);
}

/* A counter of the run by name, or -1. */
static int counter_named(const struct shim_run *r, const char *name)
{
    for (unsigned i = 0; i < r->n_counters; i++)
        if (!strcmp(r->counter[i].name, name)) return (int)i;
    return -1;
}

/* The derived rates of SHIM_RATES, resolved against the counters read. A denominator
 * "tsc" is the TSC; "cycles" is the hardware cycles counter when one is read, and the
 * TSC otherwise. */
static int plan_derived_rates(struct shim_run *r, struct probe_plan *p)
{
    struct rate_spec derived[PROBE_MAX_RATES];
    char why[256], known[PROBE_MAX_COUNTERS * (EVENT_LABEL_MAX + 2) + 16] = "";
    int n = config_parse_rates(r->settings.rates, derived, PROBE_MAX_RATES, why, sizeof why);
    for (unsigned i = 0; i < r->n_counters; i++) {
        strcat(known, r->counter[i].name);
        strcat(known, ", ");
    }
    strcat(known, "tsc");
    if (n < 0) return run_fail(SHIM_EINVAL, r->settings.cfg.strict, "SHIM_RATES: %s", why);
    for (int k = 0; k < n; k++) {
        const struct rate_spec *d = &derived[k];
        int num = counter_named(r, d->num), den = counter_named(r, d->den);
        int tsc = den < 0 && (!strcmp(d->den, "tsc") || !strcmp(d->den, "cycles"));
        if (num < 0 || (den < 0 && !tsc))
            return run_fail(SHIM_EINVAL, r->settings.cfg.strict,
                            "SHIM_RATES: %s=%s/%s names %s, which is not a counter shim reads "
                            "(it reads: %s)",
                            d->name, d->num, d->den, num < 0 ? d->num : d->den, known);
        if (run_add_rate(r, p, num, tsc ? PROBE_RATE_PER_TSC : den, d->scale, d->name,
                         tsc ? "tsc" : d->den) != 0)
            return run_fail(SHIM_EINVAL, r->settings.cfg.strict,
                            "SHIM_RATES: with the counters' own rates, more than %d rates",
                            PROBE_MAX_RATES);
    }
    return 0;
}

/* A rate of the run by name, or -1. */
static int rate_named(const struct shim_run *r, const char *name)
{
    for (unsigned i = 0; i < r->n_rates; i++)
        if (!strcmp(r->rate[i].name, name)) return (int)i;
    return -1;
}

/* SHIM_BY, resolved against the rates formed. */
static int plan_by(struct shim_run *r, struct probe_plan *p)
{
    const struct shim_settings *s = &r->settings;
    if (!s->by_y[0]) return 0;
    int y = rate_named(r, s->by_y), x = rate_named(r, s->by_x);
    char known[PROBE_MAX_RATES * (EVENT_LABEL_MAX + 2) + 8] = "";
    for (unsigned i = 0; i < r->n_rates; i++) {
        if (i) strcat(known, ", ");
        strcat(known, r->rate[i].name);
    }
    if (y < 0 || x < 0)
        return run_fail(SHIM_EINVAL, s->cfg.strict,
                        "SHIM_BY: %s is not a rate shim forms (it forms: %s)",
                        y < 0 ? s->by_y : s->by_x, *known ? known : "none");
    for (int k = 0; k < 2; k++) {
        const struct probe_rate *pr = &p->rate[k ? x : y];
        if ((pr->num < (int)p->n_hw && p->hw[pr->num].slow) ||
            (pr->den >= 0 && pr->den < (int)p->n_hw && p->hw[pr->den].slow))
            return run_fail(SHIM_EINVAL, s->cfg.strict,
                            "SHIM_BY: %s is a slow rate (formed over spans, not sample periods)",
                            k ? s->by_x : s->by_y);
    }
    p->by = (struct probe_by){(unsigned)y, (unsigned)x, s->by_buckets, s->by_lo, s->by_hi};
    if (!(s->by_lo < s->by_hi)) p->by.lo = s->cfg.hist_lo, p->by.hi = s->cfg.hist_hi;
    return 0;
}

/* The plan's hardware readings are in place (hardware_open); add the software counters,
 * the tags and the rates. */
int plan_build(struct shim_run *r, struct shim_block *b, struct probe_plan *p)
{
    const struct shim_config *c = &r->settings.cfg;
    names_lock();
    /* by default, also the method and context slots of an instrumented program: one
     * that has entered an instrumented function, or (started before main(), by
     * shimrun) one whose code calls the hooks */
    int instrumented = cct_active() || symbols_referenced("__cyg_profile_func_enter");
    uint32_t cct_slots = instrumented ? (1u << SHIM_SLOT_METHOD) | (1u << SHIM_SLOT_CCT) : 0;
    /* and, for code built with the compiler pass, the method and loop slots and the
     * thread's path ring */
    if (sidetable_present()) {
        cct_slots |= (1u << SHIM_SLOT_METHOD) | (1u << SHIM_SLOT_LOOP);
        /* paths only where code appends them (not built with SHIM_PASS=method,loop) */
        p->paths = symbols_referenced("shim_tls_path_ring");
    }
    /* and for code whose pass stores the frame signal, or whose hooks do (SHIM_HOOKS=frames),
     * the context slot, from stack walks */
    int walk = symbols_sections(STACKWALK_SECTION, NULL, NULL) > 0 ||
               (instrumented && r->settings.hooks_frames);
    if (walk) cct_slots |= (1u << SHIM_SLOT_METHOD) | (1u << SHIM_SLOT_CCT);
    if (p->paths) {
        struct sidetable st;
        size_t n = 0;
        if (sidetable_open(&st) == 0) {
            r->pathed = sidetable_pathed(&st, &n);
            sidetable_close(&st);
        }
        p->pathed = r->pathed;
        p->n_pathed = (unsigned)n;
    }
    if (p->paths && path_ring_attach(b) != 0)
        run_complain(c->strict, "its paths are not attributed",
                     "no memory for the thread's path ring");
    r->n_tag_slots =
        slots_of(c->tag_slots, names_tag_slots_named() | cct_slots, 1, SHIM_TAG_SLOTS, r->tag_slot);
    r->n_counter_slots =
        slots_of(c->counter_slots, names_counters_named(), 0, SHIM_COUNTER_SLOTS, r->counter_slot);
    /* read from the block of whichever thread the thread word names */
    p->registry = &signal_registry;
    for (unsigned i = 0; i < r->n_tag_slots; i++) {
        if (r->tag_slot[i] == SHIM_SLOT_METHOD) p->method_tag = p->n_tags + 1;
        if (r->tag_slot[i] == SHIM_SLOT_CCT && walk) p->walk_tag = p->n_tags + 1;
        p->tag_slot[p->n_tags++] = r->tag_slot[i];
    }
    if (!p->method_tag) p->walk_tag = 0; /* a chain starts with the method */
    /* code built with the pass stores its function in the loop word only (path.h); the
     * hooks' tree, where it runs beside it, clears the loop word (cct.c, publish) */
    p->method_from_loop = p->method_tag && sidetable_present();
    int rc = 0;
    if (hardware_default_rates(r, p) != 0)
        rc = run_fail(SHIM_EINVAL, c->strict, "SHIM_EVENTS: more than %d rates", PROBE_MAX_RATES);
    for (unsigned i = 0; rc == 0 && i < r->n_counter_slots; i++) {
        unsigned slot = r->counter_slot[i];
        char name[EVENT_LABEL_MAX];
        counter_label(slot, name, sizeof name);
        int at = run_add_software(r, p, name, slot, (int)slot, c->counter_scale[slot]);
        if (at < 0) {
            rc = run_fail(SHIM_EINVAL, c->strict, "more than %d counters with SHIM_EVENTS",
                          PROBE_MAX_COUNTERS);
            break;
        }
        if (run_add_rate(r, p, at, PROBE_RATE_PER_TSC, c->counter_scale[slot], name, NULL) != 0)
            rc = run_fail(SHIM_EINVAL, c->strict, "more than %d rates", PROBE_MAX_RATES);
    }
    p->thread_word =
        r->ti ? thread_identity_word(r->ti, r->placement.observed_cpu) : &r->thread_word;
    if (rc == 0) rc = alloc_signal_plan(r, b, p); /* before SHIM_RATES, which may name it */
    if (rc == 0) rc = plan_derived_rates(r, p);
    if (rc == 0) rc = plan_by(r, p);
    names_unlock();
    return rc;
}
