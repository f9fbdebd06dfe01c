/*
 * hardware.c -- the hardware events of a run: which thread's events can honestly be
 * counted from where the observer sits, opening them, their readings and default rates.
 *
 * An observer that reads its own counters sees its own work, not the program's. What it
 * can count for the observed thread depends on the machine (SHIM paper, 6.3):
 *  - core: on an SMT sibling of an Intel core with any-thread counting, each event is
 *    opened twice for the observer thread, core-wide (":t=1") and for itself; the
 *    observed thread's delta is the difference (probe_plan.h, core_minus_own). Both are
 *    read with rdpmc inside the DTE window.
 *  - observer: the observer's own events, named "observer.<event>", which measure the
 *    observer itself (its IPC, its cache misses: its observer effect).
 *  - thread: the observed thread's events, opened for that thread and read with read()
 *    every slow period: the kernel interrupts the observed CPU for each read, so they
 *    cannot be read at the sample period.
 *  - uncore (memory controller, data fabric): system-wide events read every slow period.
 * auto is core where the machine allows it; elsewhere shim says why in one line and
 * reads no core events, rather than a number that looks like the program's and is not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libshim/internal.h"

/* The reading for one opened event. */
static unsigned add_reading(struct shim_run *r, struct probe_plan *p, const struct hw_event *ev,
                            unsigned event_index, const char *label, const char *scope, int fd,
                            int slow)
{
    unsigned i = p->n_hw++;
    struct run_counter *c = &r->counter[i];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", label);
    snprintf(c->event, sizeof c->event, "%s", ev->fqstr);
    c->kind = "hardware";
    c->scope = scope;
    c->slot = event_index;
    c->scale = ev->scale;
    snprintf(c->unit, sizeof c->unit, "%s", ev->unit);
    c->fd = fd;
    c->width = 64;
    p->hw[i] = (struct probe_hw){.fd = fd, .slow = slow};
    p->mask[i] = ~(uint64_t)0; /* read() and rdpmc both give 64-bit counts */
    if (!slow) {
        c->page = event_mmap(fd);
        p->hw[i].page = c->page;
        if (!c->page) p->hw[i].read = probe_hw_read_fd;
        c->rdpmc = c->page && c->page->cap_user_rdpmc;
    } else {
        p->hw[i].read = probe_hw_read_fd;
    }
    r->n_counters = p->n_hw;
    return i;
}

/* Why the observer cannot count the observed thread's core events here ("" if it can). */
static void core_scope_obstacle(const struct shim_run *r, char *why, size_t len)
{
    char any[256];
    *why = 0;
    if (strcmp(r->placement.relation, "smt-sibling") != 0)
        snprintf(why, len,
                 "the observer runs on CPU %d, a separate core from the observed CPU %d (no SMT "
                 "sibling), and a core's counters count only that core",
                 r->placement.observer_cpu, r->placement.observed_cpu);
    else if (!cpu_any_thread(any, sizeof any))
        snprintf(why, len, "the observer is the observed CPU's SMT sibling, but %s", any);
}

static int open_for(struct perf_event_attr *attr, pid_t pid, int cpu, int pinned, char *why,
                    size_t len)
{
    attr->read_format = EVENTS_READ_FORMAT;
    attr->pinned = (unsigned)pinned; /* on a counter all the time, or in error: never multiplexed */
    attr->disabled = 0;
    return event_open(attr, pid, cpu, why, len);
}

int hardware_open(struct shim_run *r, struct probe_plan *p)
{
    const struct shim_settings *s = &r->settings;
    int strict = s->cfg.strict;
    char why[768];
    int failed = 0;
    if (s->n_events == 0) return 0;
    if (events_init(why, sizeof why) != 0) {
        run_complain(strict, "no hardware events are read", "SHIM_EVENTS: %s", why);
        return 0;
    }
    struct hw_event ev[EVENTS_MAX];
    int ok[EVENTS_MAX], n_core = 0;
    for (unsigned k = 0; k < s->n_events; k++) {
        ok[k] = event_encode(s->event_names[k], 0, &ev[k], why, sizeof why) == 0;
        if (!ok[k])
            failed++, run_complain(strict, "the other signals are read", "SHIM_EVENTS: %s: %s",
                                   s->event_names[k], why);
        n_core += ok[k] && !ev[k].uncore;
    }
    enum event_scope scope = s->event_scope;
    if (n_core && (scope == EVENT_SCOPE_AUTO || scope == EVENT_SCOPE_CORE)) {
        char obstacle[512];
        core_scope_obstacle(r, obstacle, sizeof obstacle);
        if (*obstacle) {
            failed++;
            run_complain(strict,
                         "these events are not read (SHIM_EVENT_SCOPE=observer counts the "
                         "observer's own events, SHIM_EVENT_SCOPE=thread the observed thread's "
                         "every SHIM_SLOW_PERIOD cycles)",
                         "SHIM_EVENTS: the observer cannot count the observed thread's events "
                         "here%s: %s",
                         scope == EVENT_SCOPE_CORE ? " (SHIM_EVENT_SCOPE=core)" : "", obstacle);
            scope = EVENT_SCOPE_AUTO; /* nothing of the core is read */
        } else {
            scope = EVENT_SCOPE_CORE;
        }
    }
    /* Readings in the order the observer needs: fast (core-wide, then own), then slow
     * (the observed thread's, then uncore). */
    int core_fd[EVENTS_MAX], own_fd[EVENTS_MAX];
    struct hw_event core_ev[EVENTS_MAX];
    unsigned core_at[EVENTS_MAX];
    for (unsigned k = 0; k < s->n_events; k++) {
        core_fd[k] = own_fd[k] = -1;
        if (!ok[k] || ev[k].uncore) continue;
        if (scope == EVENT_SCOPE_CORE) {
            if (event_encode(s->event_names[k], 1, &core_ev[k], why, sizeof why) != 0 ||
                (core_fd[k] = open_for(&core_ev[k].attr, r->observer_tid, -1, 1, why, sizeof why)) <
                    0 ||
                (own_fd[k] = open_for(&ev[k].attr, r->observer_tid, -1, 1, why, sizeof why)) < 0) {
                failed++, run_complain(strict, "the other signals are read", "SHIM_EVENTS: %s: %s",
                                       s->event_names[k], why);
                if (core_fd[k] >= 0) close(core_fd[k]);
                core_fd[k] = -1;
            }
        } else if (scope == EVENT_SCOPE_OBSERVER) {
            if ((own_fd[k] = open_for(&ev[k].attr, r->observer_tid, -1, 1, why, sizeof why)) < 0)
                failed++, run_complain(strict, "the other signals are read", "SHIM_EVENTS: %s: %s",
                                       s->event_names[k], why);
        }
    }
    char label[EVENT_LABEL_MAX];
    for (unsigned k = 0; k < s->n_events; k++)
        if (core_fd[k] >= 0) {
            event_label(s->event_names[k], "", label, sizeof label);
            core_at[k] = add_reading(r, p, &core_ev[k], k, label, "core", core_fd[k], 0);
        }
    for (unsigned k = 0; k < s->n_events; k++)
        if (own_fd[k] >= 0) {
            event_label(s->event_names[k], "observer.", label, sizeof label);
            unsigned i = add_reading(r, p, &ev[k], k, label, "observer", own_fd[k], 0);
            if (core_fd[k] >= 0) p->hw[core_at[k]].own = i;
        }
    for (unsigned k = 0; k < s->n_events; k++) {
        if (!ok[k] || (scope != EVENT_SCOPE_THREAD && !ev[k].uncore)) continue;
        /* the observed thread's events, or a memory controller's seen from the observer's
         * CPU (the kernel reads an uncore event on the CPU its PMU designates) */
        int cpu = ev[k].cpu >= 0 ? ev[k].cpu : r->placement.observer_cpu;
        int fd = ev[k].uncore ? open_for(&ev[k].attr, -1, cpu, 0, why, sizeof why)
                              : open_for(&ev[k].attr, r->observed_tid, -1, 1, why, sizeof why);
        if (fd < 0) {
            failed++, run_complain(strict, "the other signals are read", "SHIM_EVENTS: %s: %s",
                                   s->event_names[k], why);
            continue;
        }
        event_label(s->event_names[k], "", label, sizeof label);
        add_reading(r, p, &ev[k], k, label, ev[k].uncore ? "uncore" : "thread", fd, 1);
    }
    char names[256] = "";
    unsigned no_rdpmc = 0;
    for (unsigned i = 0; i < p->n_hw; i++)
        if (!p->hw[i].slow && !r->counter[i].rdpmc &&
            strlen(names) + EVENT_LABEL_MAX + 3 < sizeof names) {
            if (no_rdpmc++) strcat(names, ", ");
            strcat(names, r->counter[i].name);
        }
    if (no_rdpmc)
        fprintf(stderr,
                "shim: note: rdpmc cannot read %s (the kernel's software events and some PMUs "
                "have no counter user space may read; for the core PMU see "
                "/sys/bus/event_source/devices/cpu/rdpmc): read with read(), a system call of "
                "about a microsecond inside DTE's window, so the observer samples more slowly "
                "and DTE keeps fewer samples\n",
                names);
    return strict && failed ? SHIM_EINVAL : 0;
}

/* The default rates of the hardware readings: each event per TSC cycle ("cpc" for
 * cycles: core cycles per TSC cycle, the clock's speed-up or slow-down), and ipc where
 * cycles and instructions are read in the same scope. Own readings of core scope only
 * serve the subtraction and get no rates. */
int hardware_default_rates(struct shim_run *r, struct probe_plan *p)
{
    for (unsigned i = 0; i < p->n_hw; i++) {
        const struct run_counter *c = &r->counter[i];
        int own_of_core = 0;
        for (unsigned j = 0; j < p->n_hw; j++)
            own_of_core |= p->hw[j].own == i && p->hw[j].own;
        if (own_of_core) continue;
        const char *prefix = !strcmp(c->scope, "observer") ? "observer." : "";
        const char *bare = c->name + strlen(prefix);
        char name[EVENT_LABEL_MAX];
        int is_cycles = !strcmp(bare, "cycles") || !strcmp(bare, "cpu_cycles");
        snprintf(name, sizeof name, "%s%s", is_cycles ? prefix : "", is_cycles ? "cpc" : c->name);
        if (run_add_rate(r, p, (int)i, PROBE_RATE_PER_TSC, c->scale, name, NULL) != 0) return -1;
        if (!is_cycles) continue;
        for (unsigned j = 0; j < p->n_hw; j++)
            if (!strcmp(r->counter[j].scope, c->scope) &&
                !strcmp(r->counter[j].name + strlen(prefix), "instructions")) {
                snprintf(name, sizeof name, "%sipc", prefix);
                if (run_add_rate(r, p, (int)j, (int)i, 1.0, name, c->name) != 0) return -1;
            }
    }
    return 0;
}

void hardware_check(struct shim_run *r)
{
    for (unsigned i = 0; i < r->n_counters; i++) {
        struct run_counter *c = &r->counter[i];
        uint64_t count, enabled, running;
        if (c->fd < 0) continue;
        if (event_read(c->fd, &count, &enabled, &running) != 0 || enabled == 0) {
            c->counting = 0.0;
        } else {
            c->counting = (double)running / (double)enabled;
        }
        if (c->counting < 0.999)
            fprintf(stderr,
                    "shim: warning: event %s was on a counter for %.0f%% of the run (more events "
                    "than counters, or a counter taken by another user): its rates cover only "
                    "that time\n",
                    c->name, 100.0 * c->counting);
    }
}

void hardware_close(struct shim_run *r)
{
    for (unsigned i = 0; i < r->n_counters; i++) {
        struct run_counter *c = &r->counter[i];
        if (c->fd < 0) continue;
        event_munmap(c->page);
        close(c->fd);
        c->page = NULL;
        c->fd = -1;
    }
}
