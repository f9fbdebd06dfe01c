/*
 * config.c -- configuration from three layers: defaults, the program's struct
 * shim_config, then the SHIM_* environment, which wins so that a built program can be
 * retuned without recompiling.
 *
 * Every value is checked completely: a number is all digits (no sign, no spaces, no
 * trailing text) and within range; a bad value is one line naming the variable, the
 * value as given and what is accepted. The caller decides what an error means (run
 * unprofiled, or exit under SHIM_STRICT). An unknown SHIM_* name is only a warning (it
 * is most likely a typo, and shim must not stop a program over it); a name present
 * twice in the environment is an error, since which one wins is not obvious.
 */
#include "libshim/config.h"

#include "observer/histogram.h"
#include "observer/probe_plan.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void config_defaults(struct shim_settings *s)
{
    memset(s, 0, sizeof *s);
    shim_config_init(&s->cfg);
    snprintf(s->output, sizeof s->output, "%s", SHIM_DEFAULT_OUTPUT);
    s->cfg.output = s->output;
    s->slow_period = SHIM_DEFAULT_SLOW;
    s->hist_tuples = SHIM_DEFAULT_HIST_TUPLES;
    s->inline_max = SHIM_DEFAULT_INLINE_MAX;
    s->observers = 1;
}

void shim_config_init(struct shim_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->size = sizeof *cfg;
    cfg->output = NULL;
    cfg->period = SHIM_DEFAULT_PERIOD;
    cfg->observer_cpu = -1;
    cfg->dte_tolerance = 0.01;
    cfg->hist_buckets = 500;
    cfg->hist_lo = 0.0;
    cfg->hist_hi = 4.0;
    cfg->max_tags = SHIM_DEFAULT_TAGS;
    cfg->jitter = 0.5;
    for (int i = 0; i < SHIM_COUNTER_SLOTS; i++)
        cfg->counter_scale[i] = 1.0;
}

/* ---- value parsers: 0 on success, -1 on a malformed or out-of-range value ---- */

static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
    if (!v || *v < '0' || *v > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || x > max) return -1;
    *out = x;
    return 0;
}

static int parse_double(const char *v, double lo, double hi, double *out, char **end_out)
{
    if (!v || !*v || (*v != '-' && *v != '.' && (*v < '0' || *v > '9'))) return -1;
    errno = 0;
    char *end;
    double x = strtod(v, &end);
    if (errno || end == v || !isfinite(x) || x < lo || x > hi) return -1;
    if (end_out)
        *end_out = end;
    else if (*end)
        return -1;
    *out = x;
    return 0;
}

static int parse_bool(const char *v, int *out)
{
    static const char *yes[] = {"1", "yes", "true", "on"}, *no[] = {"0", "no", "false", "off"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) return *out = 1, 0;
        if (strcasecmp(v, no[i]) == 0) return *out = 0, 0;
    }
    return -1;
}

/* ---- one parser per variable ---- */

static int var_disable(struct shim_settings *s, const char *v)
{
    return parse_bool(v, &s->disable);
}
static int var_strict(struct shim_settings *s, const char *v)
{
    return parse_bool(v, &s->cfg.strict);
}
/* Read by the library's constructor (lifecycle.c) before any configuration; checked here
 * like every other variable. */
static int var_autostart(struct shim_settings *s, const char *v)
{
    int on;
    (void)s;
    return parse_bool(v, &on);
}

static int var_quiet(struct shim_settings *s, const char *v)
{
    return parse_bool(v, &s->quiet);
}

static int var_output(struct shim_settings *s, const char *v)
{
    char probe[PATH_MAX];
    if (!*v || strlen(v) >= sizeof s->output ||
        config_expand_output(v, 4194304, "program", probe, sizeof probe) != 0)
        return -1;
    snprintf(s->output, sizeof s->output, "%s", v);
    return 0;
}

static int var_period(struct shim_settings *s, const char *v)
{
    s->period_given = 1;
    return parse_u64(v, SHIM_MAX_PERIOD, &s->cfg.period);
}

static int var_jitter(struct shim_settings *s, const char *v)
{
    return parse_double(v, 0.0, 1.0, &s->cfg.jitter, NULL);
}

static int var_observer_cpu(struct shim_settings *s, const char *v)
{
    uint64_t cpu;
    if (strcmp(v, "auto") == 0 || strcmp(v, "-1") == 0) return s->cfg.observer_cpu = -1, 0;
    if (parse_u64(v, CPU_SETSIZE - 1, &cpu) != 0) return -1;
    s->cfg.observer_cpu = (int)cpu;
    return 0;
}

static int var_dte(struct shim_settings *s, const char *v)
{
    char *end;
    double x;
    if (strcmp(v, "off") == 0) return s->cfg.dte_off = 1, 0;
    if (parse_double(v, 0.0, 100.0, &x, &end) != 0) return -1;
    if (strcmp(end, "%") == 0)
        x /= 100.0;
    else if (*end || x > 1.0)
        return -1;
    s->cfg.dte_tolerance = x;
    s->cfg.dte_off = 0;
    return 0;
}

/* "none", "auto", or a comma-separated list of distinct slots below `slots`; each item
 * may carry ":SCALE" when scales is not NULL. */
static int parse_slot_list(const char *v, unsigned slots, uint32_t *mask, double *scales)
{
    if (strcmp(v, "none") == 0) return *mask = SHIM_TAGS_NONE, 0;
    if (strcmp(v, "auto") == 0) return *mask = 0, 0;
    uint32_t m = 0;
    const char *p = v;
    for (;;) {
        char item[64], *colon;
        size_t n = strcspn(p, ",");
        uint64_t slot;
        if (n == 0 || n >= sizeof item) return -1;
        memcpy(item, p, n);
        item[n] = 0;
        colon = scales ? strchr(item, ':') : NULL;
        if (colon) *colon = 0;
        if (parse_u64(item, slots - 1, &slot) != 0 || (m & (1u << slot))) return -1;
        if (colon && parse_double(colon + 1, 1e-300, 1e300, &scales[slot], NULL) != 0) return -1;
        m |= 1u << slot;
        if (!p[n]) break;
        p += n + 1;
    }
    *mask = m;
    return 0;
}

static int var_tags(struct shim_settings *s, const char *v)
{
    return parse_slot_list(v, SHIM_TAG_SLOTS, &s->cfg.tag_slots, NULL);
}

static int var_counters(struct shim_settings *s, const char *v)
{
    double scale[SHIM_COUNTER_SLOTS];
    memcpy(scale, s->cfg.counter_scale, sizeof scale);
    if (parse_slot_list(v, SHIM_COUNTER_SLOTS, &s->cfg.counter_slots, scale) != 0) return -1;
    memcpy(s->cfg.counter_scale, scale, sizeof scale);
    return 0;
}

static int var_hist(struct shim_settings *s, const char *v)
{
    uint64_t buckets;
    double lo, hi;
    char *end;
    const char *colon = strchr(v, ':');
    char num[32];
    if (!colon || (size_t)(colon - v) >= sizeof num) return -1;
    memcpy(num, v, (size_t)(colon - v));
    num[colon - v] = 0;
    if (parse_u64(num, SHIM_MAX_BUCKETS, &buckets) != 0 || buckets == 0 ||
        parse_double(colon + 1, -1e300, 1e300, &lo, &end) != 0 || *end != ':' ||
        parse_double(end + 1, -1e300, 1e300, &hi, NULL) != 0 || !(hi > lo))
        return -1;
    struct hist_spec probe;
    if (hist_spec_init(&probe, (uint32_t)buckets, lo, hi) != 0) /* e.g. buckets too narrow */
        return -1;
    s->cfg.hist_buckets = (uint32_t)buckets;
    s->cfg.hist_lo = lo;
    s->cfg.hist_hi = hi;
    return 0;
}

/* An identifier: letters, digits, '_' and '.', starting with a letter or '_'. */
static size_t identifier(const char *p)
{
    size_t n = 0;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_')) return 0;
    while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
           (p[n] >= '0' && p[n] <= '9') || p[n] == '_' || p[n] == '.')
        n++;
    return n;
}

static int copy_identifier(const char **p, char *out, size_t len)
{
    size_t n = identifier(*p);
    if (n == 0 || n >= len) return -1;
    memcpy(out, *p, n);
    out[n] = 0;
    *p += n;
    return 0;
}

int config_parse_rates(const char *spec, struct rate_spec *out, unsigned max, char *why,
                       size_t whylen)
{
    unsigned n = 0;
    const char *p = spec;
    while (*p) {
        struct rate_spec r = {.scale = 1.0};
        while (*p == ' ')
            p++;
        if (n == max) return snprintf(why, whylen, "more than %u rates", max), -1;
        if (copy_identifier(&p, r.name, sizeof r.name) || *p++ != '=')
            return snprintf(why, whylen, "expected NAME= at \"%.40s\"", spec), -1;
        if (copy_identifier(&p, r.num, sizeof r.num))
            return snprintf(why, whylen, "expected a counter name after %s=", r.name), -1;
        if (*p == '*') {
            char *end;
            p++;
            errno = 0;
            r.scale = strtod(p, &end);
            if (end == p || errno || !isfinite(r.scale) || !(r.scale > 0))
                return snprintf(why, whylen, "%s: the scale after * must be a number > 0", r.name),
                       -1;
            p = end;
        }
        if (*p++ != '/' || copy_identifier(&p, r.den, sizeof r.den))
            return snprintf(why, whylen, "%s: expected /DENOMINATOR (a counter or cycles)", r.name),
                   -1;
        for (unsigned i = 0; i < n; i++)
            if (!strcmp(out[i].name, r.name))
                return snprintf(why, whylen, "%s is defined twice", r.name), -1;
        out[n++] = r;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p)
            return snprintf(why, whylen, "expected ',' after %s", r.name), -1;
    }
    return (int)n;
}

static int var_rates(struct shim_settings *s, const char *v)
{
    struct rate_spec specs[PROBE_MAX_RATES];
    char why[128];
    if (!*v || strlen(v) >= sizeof s->rates ||
        config_parse_rates(v, specs, PROBE_MAX_RATES, why, sizeof why) < 0)
        return -1;
    snprintf(s->rates, sizeof s->rates, "%s", v);
    return 0;
}

static int var_events(struct shim_settings *s, const char *v)
{
    char why[128], names[EVENTS_MAX][EVENT_NAME_MAX];
    unsigned n = 0;
    if (strcmp(v, "none") != 0 && events_parse_list(v, names, &n, why, sizeof why) != 0) return -1;
    memcpy(s->event_names, names, sizeof names); /* only a valid value changes anything */
    s->n_events = n;
    return 0;
}

static int var_event_scope(struct shim_settings *s, const char *v)
{
    static const enum event_scope scopes[] = {EVENT_SCOPE_AUTO, EVENT_SCOPE_CORE,
                                              EVENT_SCOPE_OBSERVER, EVENT_SCOPE_THREAD};
    for (unsigned i = 0; i < sizeof scopes / sizeof *scopes; i++)
        if (!strcmp(v, event_scope_name(scopes[i]))) return s->event_scope = scopes[i], 0;
    return -1;
}

static int var_slow_period(struct shim_settings *s, const char *v)
{
    uint64_t x;
    if (parse_u64(v, SHIM_MAX_PERIOD, &x) != 0 || x < SHIM_MIN_SLOW) return -1;
    s->slow_period = x;
    return 0;
}

/* A size: digits with an optional K, M or G (powers of 1024), 64K to 64G. */
static int parse_size(const char *v, uint64_t *out)
{
    char digits[32];
    size_t n = strspn(v, "0123456789");
    uint64_t x, unit = 1;
    if (n == 0 || n >= sizeof digits) return -1;
    if (v[n]) {
        if (v[n + 1]) return -1;
        unit = v[n] == 'K' ? 1u << 10 : v[n] == 'M' ? 1u << 20 : v[n] == 'G' ? 1u << 30 : 0;
        if (!unit) return -1;
    }
    memcpy(digits, v, n);
    digits[n] = 0;
    if (parse_u64(digits, SHIM_MAX_TRACE, &x) != 0 || x > SHIM_MAX_TRACE / unit) return -1;
    x *= unit;
    if (x < SHIM_MIN_TRACE) return -1;
    *out = x;
    return 0;
}

/* none; a size (the trace goes beside the profile); or PATH[:SIZE]. */
static int var_trace(struct shim_settings *s, const char *v)
{
    char path[PATH_MAX], probe[PATH_MAX];
    uint64_t size = SHIM_DEFAULT_TRACE;
    if (!strcmp(v, "none")) return s->trace_on = 0, 0;
    size_t digits = strspn(v, "0123456789");
    if (digits && (!v[digits] || (strchr("KMG", v[digits]) && !v[digits + 1]))) {
        if (parse_size(v, &size) != 0) return -1; /* a size, out of range */
        s->trace_on = 1, s->trace[0] = 0, s->trace_max = size;
        return 0;
    }
    if (strlen(v) >= sizeof path) return -1;
    snprintf(path, sizeof path, "%s", v);
    char *colon = strrchr(path, ':');
    if (colon && parse_size(colon + 1, &size) == 0) *colon = 0;
    if (!*path || config_expand_output(path, 4194304, "program", probe, sizeof probe) != 0)
        return -1;
    s->trace_on = 1;
    s->trace_max = size;
    snprintf(s->trace, sizeof s->trace, "%s", path);
    return 0;
}

/* Y:X[:BUCKETS[:LO:HI]], Y and X rate names. */
static int var_by(struct shim_settings *s, const char *v)
{
    char y[64], x[64];
    const char *p = v;
    uint64_t buckets = 20;
    double lo = 0, hi = 0;
    if (copy_identifier(&p, y, sizeof y) || *p++ != ':' || copy_identifier(&p, x, sizeof x))
        return -1;
    if (*p == ':') {
        char *end;
        char num[32];
        size_t n = strcspn(p + 1, ":");
        if (n == 0 || n >= sizeof num) return -1;
        memcpy(num, p + 1, n);
        num[n] = 0;
        if (parse_u64(num, 100000, &buckets) != 0 || buckets == 0) return -1;
        p += 1 + n;
        if (*p == ':') {
            if (parse_double(p + 1, -1e300, 1e300, &lo, &end) != 0 || *end != ':' ||
                parse_double(end + 1, -1e300, 1e300, &hi, &end) != 0 || *end || !(lo < hi))
                return -1;
            p = end;
        }
    }
    if (*p || !strcmp(x, y)) return -1;
    snprintf(s->by_y, sizeof s->by_y, "%s", y);
    snprintf(s->by_x, sizeof s->by_x, "%s", x);
    s->by_buckets = (unsigned)buckets;
    s->by_lo = lo;
    s->by_hi = hi;
    return 0;
}

static const char *const alloc_modes[] = {
    [ALLOC_AUTO] = "auto", [ALLOC_ON] = "on", [ALLOC_OFF] = "off"};

const char *config_alloc_name(enum alloc_mode m)
{
    return alloc_modes[m];
}

/* The index of word v in a table of n names, or -1. */
static int word_index(const char *v, const char *const *names, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(v, names[i])) return (int)i;
    return -1;
}

static int var_alloc(struct shim_settings *s, const char *v)
{
    int i = word_index(v, alloc_modes, sizeof alloc_modes / sizeof *alloc_modes);
    if (i < 0) return -1;
    s->alloc = (enum alloc_mode)i;
    return 0;
}

static const char *const sigint_modes[] = {
    [SIGINT_AUTO] = "auto", [SIGINT_ON] = "on", [SIGINT_OFF] = "off"};

static int var_sigint(struct shim_settings *s, const char *v)
{
    int i = word_index(v, sigint_modes, sizeof sigint_modes / sizeof *sigint_modes), on;
    if (i < 0 && parse_bool(v, &on) == 0) i = on ? SIGINT_ON : SIGINT_OFF; /* shimrun --sigint */
    if (i < 0) return -1;
    s->sigint = (enum sigint_mode)i;
    return 0;
}

/* SHIM_OBSERVERS: how many observers (each with an observed CPU of its own), or auto. */
static int var_observers(struct shim_settings *s, const char *v)
{
    uint64_t n;
    if (!strcmp(v, "auto")) return s->observers = 0, 0;
    if (parse_u64(v, SHIM_MAX_OBSERVERS, &n) != 0 || n == 0) return -1;
    s->observers = (unsigned)n;
    return 0;
}

/* SHIM_SNAPSHOT: seconds between snapshots of the profile (snapshot.c), 0 or off: none. */
static int var_snapshot(struct shim_settings *s, const char *v)
{
    if (!strcmp(v, "off")) return s->snapshot = 0, 0;
    double x;
    if (parse_double(v, 0, SHIM_MAX_SNAPSHOT, &x, NULL) != 0 || (x > 0 && x < SHIM_MIN_SNAPSHOT))
        return -1;
    s->snapshot = x;
    return 0;
}

static int var_snapshot_keep(struct shim_settings *s, const char *v)
{
    uint64_t n;
    if (parse_u64(v, SHIM_MAX_SNAPSHOT_KEEP, &n) != 0) return -1;
    s->snapshot_keep = (unsigned)n;
    return 0;
}

static const char *const thread_id_modes[] = {
    [THREAD_ID_AUTO] = "auto", [THREAD_ID_BPF] = "bpf", [THREAD_ID_PINNED] = "pinned"};

const char *config_thread_id_name(enum thread_id_mode m)
{
    return thread_id_modes[m];
}

static int var_thread_id(struct shim_settings *s, const char *v)
{
    int i = word_index(v, thread_id_modes, sizeof thread_id_modes / sizeof *thread_id_modes);
    if (i < 0) return -1;
    s->thread_id = (enum thread_id_mode)i;
    return 0;
}

static int var_hooks(struct shim_settings *s, const char *v)
{
    static const char *const modes[] = {"tree", "frames", "auto"};
    int i = word_index(v, modes, sizeof modes / sizeof *modes);
    if (i < 0) return -1;
    s->hooks_frames = i == 2 ? -1 : i;
    return 0;
}

static int var_max_tags(struct shim_settings *s, const char *v)
{
    uint64_t n;
    if (parse_u64(v, SHIM_MAX_TAG_CAP, &n) != 0 || n == 0) return -1;
    s->cfg.max_tags = (uint32_t)n;
    return 0;
}

static int var_hist_tuples(struct shim_settings *s, const char *v)
{
    uint64_t n;
    if (parse_u64(v, SHIM_MAX_HIST_TUPLES, &n) != 0) return -1;
    s->hist_tuples = (uint32_t)n;
    return 0;
}

static int var_inline_max(struct shim_settings *s, const char *v)
{
    return parse_u64(v, SHIM_MAX_TAG_CAP, &s->inline_max);
}

const struct config_var config_vars[] = {
    {"SHIM_DISABLE", "0 or 1 (also yes/no, true/false, on/off)", var_disable},
    {"SHIM_OUTPUT", "a non-empty path; %p is the pid, %e the program name, %% a percent sign",
     var_output},
    {"SHIM_PERIOD", "a whole number of TSC cycles from 0 (as fast as possible) to 1000000000000",
     var_period},
    {"SHIM_JITTER", "a number from 0 to 1 (the period varies by +- this fraction)", var_jitter},
    {"SHIM_OBSERVER_CPU", "auto (or -1), or a CPU number the process may run on", var_observer_cpu},
    {"SHIM_DTE", "off, a fraction from 0 to 1 (0.01), or a percentage (1%)", var_dte},
    {"SHIM_STRICT", "0 or 1", var_strict},
    {"SHIM_QUIET", "0 or 1", var_quiet},
    {"SHIM_AUTOSTART", "0 or 1", var_autostart},
    {"SHIM_AUTOSTART_CHILDREN", "0 or 1", var_autostart},
    {"SHIM_TAGS", "auto, none, or distinct tag slots 0-15 separated by commas (0,1)", var_tags},
    {"SHIM_COUNTERS",
     "auto, none, or distinct counter slots 0-7 separated by commas, each optionally "
     ":SCALE with SCALE > 0 (0:1000,1)",
     var_counters},
    {"SHIM_HIST", "BUCKETS:LO:HI with 1 <= BUCKETS <= 100000 and LO < HI (500:0:4)", var_hist},
    {"SHIM_MAX_TAGS", "a whole number from 1 to 16777216", var_max_tags},
    {"SHIM_HIST_TUPLES", "a whole number from 0 to 65536", var_hist_tuples},
    {"SHIM_INLINE_MAX", "a whole number from 0 to 16777216", var_inline_max},
    {"SHIM_RATES",
     "NAME=NUM[*SCALE]/DEN separated by commas, NUM and DEN counter names or cycles "
     "(bpi=bytes/items,ipkc=items*1000/cycles)",
     var_rates},
    {"SHIM_EVENTS",
     "none, or up to 8 hardware event names libpfm4 knows, separated by commas "
     "(cycles,instructions or INST_RETIRED:ANY_P,LLC_MISSES)",
     var_events},
    {"SHIM_EVENT_SCOPE", "auto, core, observer or thread", var_event_scope},
    {"SHIM_SLOW_PERIOD", "a whole number of TSC cycles from 100000 to 1000000000000",
     var_slow_period},
    {"SHIM_TRACE",
     "none, a size from 64K to 64G (64M: the trace goes beside the profile), or "
     "PATH[:SIZE] (%p pid, %e program name)",
     var_trace},
    {"SHIM_BY",
     "Y:X[:BUCKETS[:LO:HI]], two different rate names, 1 <= BUCKETS <= 100000, LO < HI "
     "(mem_per_100c:ipc:40:0:4)",
     var_by},
    {"SHIM_ALLOC", "auto, on or off", var_alloc},
    {"SHIM_SIGINT", "auto, on (or 1) or off (or 0)", var_sigint},
    {"SHIM_THREAD_ID", "auto, bpf or pinned", var_thread_id},
    {"SHIM_HOOKS",
     "tree, frames or auto (frames: for -finstrument-functions with frame pointers; auto: "
     "frames where the instrumented code keeps them)",
     var_hooks},
    {"SHIM_OBSERVERS", "auto or a number of observers from 1 to 64", var_observers},
    {"SHIM_SNAPSHOT", "off (or 0), or seconds between snapshots from 0.1 to 86400 (1, 0.5)",
     var_snapshot},
    {"SHIM_SNAPSHOT_KEEP", "a whole number of snapshot files to keep, from 0 to 100000",
     var_snapshot_keep},
    {NULL, NULL, NULL},
};

static const struct config_var *find_var(const char *name, size_t len)
{
    for (const struct config_var *v = config_vars; v->name; v++)
        if (strlen(v->name) == len && memcmp(v->name, name, len) == 0) return v;
    return NULL;
}

int config_apply_var(struct shim_settings *s, const char *name, const char *value, FILE *err)
{
    const struct config_var *v = find_var(name, strlen(name));
    if (!v) {
        fprintf(err, "shim: %s is not a shim variable\n", name);
        return -1;
    }
    if (v->parse(s, value) != 0) {
        fprintf(err, "shim: %s=\"%.200s\" is not valid; expected %s\n", name, value, v->accepts);
        return -1;
    }
    return 0;
}

int config_apply_env(struct shim_settings *s, char *const *envp, FILE *err)
{
    int errors = 0;
    for (char *const *e = envp; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "SHIM_", 5) != 0 || !eq) continue;
        size_t len = (size_t)(eq - *e);
        int seen_before = 0;
        for (char *const *f = envp; f != e; f++)
            if (strncmp(*f, *e, len + 1) == 0) seen_before = 1;
        if (seen_before) {
            fprintf(err, "shim: %.*s is set more than once in the environment\n", (int)len, *e);
            errors++;
        } else if (!find_var(*e, len)) {
            fprintf(err, "shim: warning: %.*s is not a shim variable; ignored\n", (int)len, *e);
        } else {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)len, *e);
            errors += config_apply_var(s, name, eq + 1, err) != 0;
        }
    }
    return errors;
}

/* One line naming the field, its value and what is accepted. */
static int struct_error(FILE *err, const char *field, const char *accepts, const char *fmt, ...)
{
    char value[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    fprintf(err, "shim: struct shim_config: %s = %s is not valid; expected %s\n", field, value,
            accepts);
    return 1;
}

int config_apply_struct(struct shim_settings *s, const struct shim_config *cfg, FILE *err)
{
    struct shim_config c;
    int bad = 0;
    if (cfg->size == 0 || cfg->size > sizeof c) {
        fprintf(err,
                "shim: struct shim_config: size is %u; fill the struct with "
                "shim_config_init() first\n",
                cfg->size);
        return 1;
    }
    shim_config_init(&c);
    memcpy(&c, cfg, cfg->size); /* a program built against an older, shorter struct */
    c.size = sizeof c;
    s->cfg.strict = c.strict; /* asked for strictness: honoured even if the rest is refused */
    if (c.period > SHIM_MAX_PERIOD)
        bad += struct_error(err, "period", "0 to 1000000000000 TSC cycles", "%llu",
                            (unsigned long long)c.period);
    if (c.observer_cpu < -1 || c.observer_cpu >= CPU_SETSIZE)
        bad +=
            struct_error(err, "observer_cpu", "-1 (choose) or a CPU number", "%d", c.observer_cpu);
    if (!(c.dte_tolerance >= 0.0 && c.dte_tolerance <= 1.0))
        bad += struct_error(err, "dte_tolerance", "a number from 0 to 1", "%g", c.dte_tolerance);
    if (!(c.jitter >= 0.0 && c.jitter <= 1.0))
        bad += struct_error(err, "jitter", "a number from 0 to 1", "%g", c.jitter);
    if (c.tag_slots != SHIM_TAGS_NONE && (c.tag_slots >> SHIM_TAG_SLOTS) != 0)
        bad += struct_error(err, "tag_slots", "a mask of slots 0-15, or SHIM_TAGS_NONE", "%#x",
                            c.tag_slots);
    if (c.counter_slots != SHIM_TAGS_NONE && (c.counter_slots >> SHIM_COUNTER_SLOTS) != 0)
        bad += struct_error(err, "counter_slots", "a mask of slots 0-7, or SHIM_TAGS_NONE", "%#x",
                            c.counter_slots);
    for (int i = 0; i < SHIM_COUNTER_SLOTS; i++) {
        if (c.counter_scale[i] == 0.0) c.counter_scale[i] = 1.0;
        if (!(c.counter_scale[i] > 0.0) || !isfinite(c.counter_scale[i]))
            bad += struct_error(err, "counter_scale[]", "a finite number > 0 (0 means 1)",
                                "%g at [%d]", c.counter_scale[i], i);
    }
    if (c.hist_buckets == 0 || c.hist_buckets > SHIM_MAX_BUCKETS)
        bad += struct_error(err, "hist_buckets", "1 to 100000", "%u", c.hist_buckets);
    struct hist_spec probe;
    if (hist_spec_init(&probe, c.hist_buckets ? c.hist_buckets : 1, c.hist_lo, c.hist_hi) != 0)
        bad += struct_error(err, "hist_lo/hist_hi",
                            "finite numbers with hist_lo < hist_hi and a representable bucket "
                            "width",
                            "%g/%g", c.hist_lo, c.hist_hi);
    if (c.max_tags == 0 || c.max_tags > SHIM_MAX_TAG_CAP)
        bad += struct_error(err, "max_tags", "1 to 16777216", "%u", c.max_tags);
    char saved[sizeof s->output];
    memcpy(saved, s->output, sizeof saved);
    if (c.output && var_output(s, c.output) != 0)
        bad += struct_error(err, "output",
                            "a non-empty path shorter than PATH_MAX with only %p, %e and %% "
                            "sequences",
                            "\"%.100s\"", c.output);
    if (bad) {
        memcpy(s->output, saved, sizeof saved); /* a refused struct changes nothing else */
        return bad;
    }
    c.output = s->output;
    s->cfg = c;
    if (c.period != SHIM_DEFAULT_PERIOD) s->period_given = 1;
    return 0;
}

int config_expand_output(const char *pattern, long pid, const char *prog, char *out, size_t outlen)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        char buf[32];
        const char *add = buf;
        if (*p != '%') {
            buf[0] = *p, buf[1] = 0;
        } else if (p[1] == 'p') {
            snprintf(buf, sizeof buf, "%ld", pid), p++;
        } else if (p[1] == 'e') {
            add = prog, p++;
        } else if (p[1] == '%') {
            buf[0] = '%', buf[1] = 0, p++;
        } else {
            return -1;
        }
        size_t len = strlen(add);
        if (n + len >= outlen) return -1;
        memcpy(out + n, add, len);
        n += len;
    }
    if (n == 0) return -1;
    out[n] = 0;
    return 0;
}
