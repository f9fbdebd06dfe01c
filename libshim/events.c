/*
 * events.c -- hardware events: names through libpfm4, perf_event_open, mmap pages and
 * what to say when any of it fails.
 */
#include "libshim/events.h"

#include <cpuid.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

const char *event_scope_name(enum event_scope s)
{
    switch (s) {
    case EVENT_SCOPE_CORE:
        return "core";
    case EVENT_SCOPE_OBSERVER:
        return "observer";
    case EVENT_SCOPE_THREAD:
        return "thread";
    default:
        return "auto";
    }
}

int events_parse_list(const char *list, char names[][EVENT_NAME_MAX], unsigned *n, char *why,
                      size_t whylen)
{
    *n = 0;
    for (const char *p = list;;) {
        /* a comma inside PMU/term=value,.../ separates terms, not events */
        size_t len = 0;
        for (int slashes = 0; p[len] && (p[len] != ',' || slashes == 1); len++)
            slashes += p[len] == '/';
        const char *start = p, *end = p + len;
        while (start < end && *start == ' ')
            start++;
        while (end > start && end[-1] == ' ')
            end--;
        if (end == start) return snprintf(why, whylen, "an empty event name"), -1;
        if ((size_t)(end - start) >= EVENT_NAME_MAX)
            return snprintf(why, whylen, "an event name longer than %d characters",
                            EVENT_NAME_MAX - 1),
                   -1;
        for (const char *c = start; c < end; c++)
            if (*c <= ' ' || *c > '~')
                return snprintf(why, whylen, "a space or control character inside \"%.*s\"",
                                (int)(end - start), start),
                       -1;
        if (*n == EVENTS_MAX) return snprintf(why, whylen, "more than %d events", EVENTS_MAX), -1;
        memcpy(names[*n], start, (size_t)(end - start));
        names[*n][end - start] = 0;
        for (unsigned i = 0; i < *n; i++)
            if (!strcmp(names[i], names[*n]))
                return snprintf(why, whylen, "%s is named twice", names[*n]), -1;
        ++*n;
        if (!p[len]) return 0;
        p += len + 1;
    }
}

void event_label(const char *name, const char *prefix, char *out, size_t len)
{
    size_t keep = strlen(name);
    if (keep > 1 && name[keep - 1] == '/') keep--; /* PMU/EVENT/ -> PMU.EVENT */
    int n = snprintf(out, len, "%s%.*s", prefix, (int)keep, name);
    size_t end = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
    for (size_t i = strlen(prefix); i < end; i++) {
        char c = out[i];
        if (c == '/')
            out[i] = '.';
        else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '.'))
            out[i] = '_';
    }
}

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init_once(void)
{
    pfm_status = pfm_initialize();
}

int events_init(char *why, size_t whylen)
{
    pthread_once(&pfm_once, pfm_init_once);
    if (pfm_status == PFM_SUCCESS) return 0;
    snprintf(why, whylen, "libpfm4 cannot initialise: %s", pfm_strerror(pfm_status));
    return -1;
}

/* Any-thread counting is a modifier of the core PMU's native events; the perf generic
 * names have no modifiers, so in core scope they become the architectural events every
 * Intel core PMU in libpfm4 has. */
static const char *native_for_any_thread(const char *name)
{
    if (!strcmp(name, "cycles") || !strcmp(name, "cpu-cycles")) return "UNHALTED_CORE_CYCLES";
    if (!strcmp(name, "instructions")) return "INSTRUCTION_RETIRED";
    return name;
}

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* The first line of a small sysfs file, or NULL. */
static char *sysfs_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char *line = fgets(buf, (int)len, f);
    fclose(f);
    if (!line) return NULL;
    buf[strcspn(buf, "\n")] = 0;
    return buf;
}

/* Put `value` into the attr fields a PMU's format file names for a term, e.g.
 * "config:0-7,32-35" (the value's low bits fill the ranges in order). */
static int place_term(struct perf_event_attr *attr, const char *format, uint64_t value)
{
    __u64 *field = !strncmp(format, "config:", 7)    ? &attr->config
                   : !strncmp(format, "config1:", 8) ? &attr->config1
                   : !strncmp(format, "config2:", 8) ? &attr->config2
                                                     : NULL;
    if (!field) return -1;
    const char *p = strchr(format, ':') + 1;
    unsigned used = 0;
    while (*p) {
        char *end;
        unsigned long lo = strtoul(p, &end, 10), hi = lo;
        if (end == p || lo > 63) return -1;
        if (*end == '-') {
            p = end + 1;
            hi = strtoul(p, &end, 10);
            if (end == p || hi > 63 || hi < lo) return -1;
        }
        for (unsigned long b = lo; b <= hi; b++, used++)
            if (used < 64 && ((value >> used) & 1)) *field |= (__u64)1 << b;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return used < 64 && (value >> used) ? -1 : 0; /* the value does not fit */
}

/* A kernel PMU's event named as perf does, "PMU/EVENT/" (an alias listed in the PMU's
 * events directory, e.g. uncore_imc_0/cas_count_read/) or "PMU/term=value,.../" (terms
 * from its format directory, e.g. amd_df/event=0x07,umask=0x38/): for the PMUs libpfm4
 * does not know, such as AMD's data fabric. A PMU with a cpumask counts system-wide. */
static int encode_sysfs(const char *name, struct hw_event *ev, char *why, size_t whylen)
{
    char pmu[64], terms[256], path[512], buf[256];
    const char *slash = strchr(name, '/');
    size_t plen = (size_t)(slash - name), len = strlen(name);
    if (plen == 0 || plen >= sizeof pmu || len < plen + 3 || name[len - 1] != '/' ||
        len - plen - 2 >= sizeof terms)
        return snprintf(why, whylen, "\"%s\" is not PMU/EVENT/ or PMU/term=value,.../", name),
               EINVAL;
    memcpy(pmu, name, plen);
    pmu[plen] = 0;
    memcpy(terms, slash + 1, len - plen - 2);
    terms[len - plen - 2] = 0;
    snprintf(path, sizeof path, SYSFS_PMUS "/%s/type", pmu);
    if (!sysfs_line(path, buf, sizeof buf))
        return snprintf(why, whylen, "the kernel has no PMU \"%s\" (see %s)", pmu, SYSFS_PMUS),
               ENOENT;
    ev->attr.type = (uint32_t)strtoul(buf, NULL, 10);
    if (!strchr(terms, '=')) { /* an alias: its terms come from the events directory */
        snprintf(path, sizeof path, SYSFS_PMUS "/%s/events/%s", pmu, terms);
        if (!sysfs_line(path, buf, sizeof buf))
            return snprintf(why, whylen, "PMU %s has no event \"%s\" (see %s/%s/events)", pmu,
                            terms, SYSFS_PMUS, pmu),
                   ENOENT;
        snprintf(path, sizeof path, SYSFS_PMUS "/%s/events/%s.scale", pmu, terms);
        if (sysfs_line(path, buf + 128, 128)) ev->scale = strtod(buf + 128, NULL);
        snprintf(path, sizeof path, SYSFS_PMUS "/%s/events/%s.unit", pmu, terms);
        if (sysfs_line(path, buf + 128, 128))
            snprintf(ev->unit, sizeof ev->unit, "%.15s", buf + 128);
        if (!(ev->scale > 0)) ev->scale = 1.0;
        snprintf(terms, sizeof terms, "%s", buf);
    }
    for (char *save = NULL, *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        uint64_t value = 1;
        if (eq) {
            char *end;
            *eq = 0;
            errno = 0;
            value = strtoull(eq + 1, &end, 0);
            if (errno || end == eq + 1 || *end)
                return snprintf(why, whylen, "the value of %s is not a number that fits in 64 bits",
                                t),
                       EINVAL;
        }
        snprintf(path, sizeof path, SYSFS_PMUS "/%s/format/%s", pmu, t);
        if (!sysfs_line(path, buf, sizeof buf) || place_term(&ev->attr, buf, value) != 0)
            return snprintf(why, whylen, "PMU %s has no term %s, or the value does not fit in it",
                            pmu, t),
                   EINVAL;
    }
    snprintf(path, sizeof path, SYSFS_PMUS "/%s/cpumask", pmu);
    if (sysfs_line(path, buf, sizeof buf)) {
        ev->uncore = 1;
        ev->cpu = atoi(buf); /* the first CPU the PMU counts on */
    }
    snprintf(ev->fqstr, sizeof ev->fqstr, "%s", name);
    snprintf(ev->pmu_name, sizeof ev->pmu_name, "%s", pmu);
    ev->attr.size = sizeof ev->attr;
    ev->attr.exclude_kernel = 0; /* kernel PMUs outside the core take no exclusions */
    return 0;
}

int event_encode(const char *name, int any_thread, struct hw_event *ev, char *why, size_t whylen)
{
    char spec[EVENT_NAME_MAX + 8];
    char *fqstr = NULL;
    pfm_perf_encode_arg_t arg;
    memset(ev, 0, sizeof *ev);
    snprintf(ev->name, sizeof ev->name, "%s", name);
    ev->cpu = -1;
    ev->scale = 1.0;
    if (strchr(name, '/')) {
        if (any_thread)
            return snprintf(why, whylen, "core scope needs an event of the core PMU that takes :t"),
                   EINVAL;
        return encode_sysfs(name, ev, why, whylen);
    }
    if (events_init(why, whylen) != 0) return ENOENT;
    snprintf(spec, sizeof spec, "%s%s", any_thread ? native_for_any_thread(name) : name,
             any_thread ? ":t=1" : "");
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    arg.attr = &ev->attr;
    arg.fstr = &fqstr;
    /* user level unless the name says otherwise (":k", ":u"): what perf_event_paranoid 2,
     * Debian's default, allows */
    int rc = pfm_get_os_event_encoding(spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc != PFM_SUCCESS) {
        int cls = rc == PFM_ERR_NOTFOUND ? ENOENT : EINVAL;
        snprintf(why, whylen, "libpfm4 cannot encode \"%s\": %s (%s)", spec, pfm_strerror(rc),
                 cls == ENOENT ? "no such event on the PMUs libpfm4 found here: see shim-info"
                 : any_thread  ? "core scope needs an event of the core PMU that takes :t"
                               : "a modifier or value this event does not take");
        free(fqstr);
        return cls;
    }
    snprintf(ev->fqstr, sizeof ev->fqstr, "%s", fqstr ? fqstr : spec);
    free(fqstr);
    ev->attr.size = sizeof ev->attr;
    pfm_event_info_t info;
    pfm_pmu_info_t pinfo;
    memset(&info, 0, sizeof info);
    memset(&pinfo, 0, sizeof pinfo);
    info.size = sizeof info;
    pinfo.size = sizeof pinfo;
    if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &info) == PFM_SUCCESS &&
        pfm_get_pmu_info(info.pmu, &pinfo) == PFM_SUCCESS) {
        ev->uncore = pinfo.type == PFM_PMU_TYPE_UNCORE;
        snprintf(ev->pmu_name, sizeof ev->pmu_name, "%s", pinfo.name ? pinfo.name : "");
        snprintf(ev->pmu_desc, sizeof ev->pmu_desc, "%s", pinfo.desc ? pinfo.desc : "");
    }
    return 0;
}

const char *event_open_cause(int err)
{
    switch (err) {
    case ENOENT:
        return "no PMU, or an event this CPU does not have";
    case EACCES:
    case EPERM:
        return "not permitted by kernel.perf_event_paranoid: lower it with "
               "sysctl kernel.perf_event_paranoid=1 (or run with CAP_PERFMON)";
    case EINVAL:
        return "a modifier or attribute this kernel or PMU refuses";
    case EOPNOTSUPP:
        return "not supported by this PMU (e.g. sampling or exclusion it cannot do)";
    case EBUSY:
        return "the counters are taken (another tool, or the NMI watchdog)";
    case EMFILE:
        return "too many open files";
    default:
        return "refused";
    }
}

int event_open(struct perf_event_attr *attr, pid_t pid, int cpu, char *why, size_t whylen)
{
    int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) return fd;
    int err = errno;
    snprintf(why, whylen, "perf_event_open fails with %s (%s): %s", strerrorname_np(err),
             strerror(err), event_open_cause(err));
    errno = err;
    return -1;
}

struct perf_event_mmap_page *event_mmap(int fd)
{
    void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

void event_munmap(struct perf_event_mmap_page *page)
{
    if (page) munmap(page, (size_t)sysconf(_SC_PAGESIZE));
}

int event_read(int fd, uint64_t *count, uint64_t *enabled, uint64_t *running)
{
    uint64_t v[3];
    if (read(fd, v, sizeof v) != (ssize_t)sizeof v) return -1;
    *count = v[0];
    *enabled = v[1];
    *running = v[2];
    return 0;
}

int cpu_any_thread(char *why, size_t whylen)
{
    unsigned a, b, c, d;
    char vendor[13] = {0};
    __cpuid(0, a, b, c, d);
    memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4);
    if (strcmp(vendor, "GenuineIntel") != 0)
        return snprintf(why, whylen,
                        "%s CPUs have no any-thread counting (a counter counts one hardware "
                        "thread only)",
                        vendor),
               0;
    if (a < 0xa)
        return snprintf(why, whylen, "no architectural performance monitoring leaf (CPUID 0xA)"), 0;
    __cpuid(0xa, a, b, c, d);
    unsigned version = a & 0xff;
    int deprecated = (d >> 15) & 1; /* CPUID.0AH:EDX[15]: AnyThread deprecation */
    if (version < 3)
        return snprintf(why, whylen, "architectural PMU version %u (any-thread needs 3)", version),
               0;
    if (deprecated)
        return snprintf(why, whylen,
                        "this CPU deprecates any-thread counting (Ice Lake and later Intel "
                        "cores)"),
               0;
    snprintf(why, whylen, "Intel architectural PMU version %u with the AnyThread bit", version);
    return 1;
}
