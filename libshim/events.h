/*
 * events.h -- hardware events by name: SHIM_EVENTS parsing, libpfm4 encoding,
 * perf_event_open, the mmap page, and the one-line causes of failures. Shared by the
 * coordinator (hardware.c opens what SHIM_EVENTS asks for) and shim-info (which probes).
 */
#ifndef SHIM_LIBSHIM_EVENTS_H
#define SHIM_LIBSHIM_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EVENTS_MAX      8   /* events per run: core scope reads two counters for each */
#define EVENT_NAME_MAX  128 /* as written in SHIM_EVENTS */
#define EVENT_LABEL_MAX 80  /* the counter name rates and the profile use */

/* Whose events are counted (SHIM_EVENT_SCOPE). */
enum event_scope {
    EVENT_SCOPE_AUTO,     /* core where the machine allows it, else nothing, with a reason */
    EVENT_SCOPE_CORE,     /* SMT sibling + any-thread: core-wide count minus the observer's */
    EVENT_SCOPE_OBSERVER, /* the observer thread's own events (its own work) */
    EVENT_SCOPE_THREAD,   /* the observed thread's, with read(), every slow period */
};

const char *event_scope_name(enum event_scope s);

/* A comma-separated SHIM_EVENTS value: 0, or -1 with what is wrong in why. Names are
 * trimmed of spaces; empty, duplicate or too long names and more than EVENTS_MAX are
 * refused. Whether libpfm4 knows a name is found out at start. */
int events_parse_list(const char *list, char names[][EVENT_NAME_MAX], unsigned *n, char *why,
                      size_t whylen);

/* `name` turned into a counter label that SHIM_RATES can name: '/' becomes '.' (a
 * trailing one is dropped) and other characters than letters, digits, '_' and '.' become
 * '_' (INST_RETIRED:ANY_P -> INST_RETIRED_ANY_P, msr/tsc/ -> msr.tsc). */
void event_label(const char *name, const char *prefix, char *out, size_t len);

/* One event, encoded by libpfm4 for perf_event_open. */
struct hw_event {
    char name[EVENT_NAME_MAX]; /* as written */
    char fqstr[256];           /* libpfm4's fully qualified name */
    struct perf_event_attr attr;
    int uncore;         /* a PMU outside the core (memory controller, data fabric, ...) */
    char pmu_name[64];  /* libpfm4's PMU name */
    char pmu_desc[128]; /* and its description */
    int cpu;            /* system-wide events: the CPU to open them on, else -1 */
    double scale;       /* the kernel's scale for the count (an alias's .scale file), else 1 */
    char unit[16];      /* what the scaled count is in (the .unit file, e.g. MiB), or "" */
};

/* Initialise libpfm4 once; 0, or -1 with the reason in why. */
int events_init(char *why, size_t whylen);

/* Encode `name` (with ":t=1" appended when any_thread): a name libpfm4 knows, or a
 * kernel PMU's event as perf writes it, "PMU/EVENT/" or "PMU/term=value,.../". 0, or an
 * errno-like class with one line in why: ENOENT (no such event, or no PMU for it),
 * EINVAL (a modifier, term or value it refuses). */
int event_encode(const char *name, int any_thread, struct hw_event *ev, char *why, size_t whylen);

/* perf_event_open(attr, pid, cpu): the fd, or -1 with errno kept and one line in why
 * naming the cause (event_open_cause). */
int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, char *why, size_t whylen);

/* Why perf_event_open failed, in one phrase, with what to do where there is something. */
const char *event_open_cause(int err);

/* The fd's mmap page (read-only), or NULL. */
struct perf_event_mmap_page *event_mmap(int fd);
void event_munmap(struct perf_event_mmap_page *page);

/* The count, read() with the read_format events_read_format(); running/enabled give
 * the fraction of time the event was on a counter. 0, or -1 (nothing to read: the event
 * was never scheduled, or is in an error state). */
#define EVENTS_READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
int event_read(int fd, uint64_t *count, uint64_t *enabled, uint64_t *running);

/* Whether this CPU can count for both hardware threads of a core (Intel's AnyThread bit,
 * CPUID leaf 0xA: architectural PMU version 3 or later, not deprecated): 1 or 0, with
 * the reason in why either way. */
int cpu_any_thread(char *why, size_t whylen);

#endif
