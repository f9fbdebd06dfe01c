/*
 * test_config.c -- specifies shim's configuration (libshim/config.{h,c}): the defaults,
 * every SHIM_* variable with good and bad values, the environment scan, the program's
 * struct shim_config, and the expansion of the output pattern.
 *
 * A bad value is refused completely (no sign, space, exponent or trailing text where a
 * whole number is asked for; nothing out of range), with one message that names the
 * variable, quotes the value and says what is expected, and the settings are left as
 * they were. An unknown SHIM_* name is a warning; a name set twice is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libshim/config.h"
#include "observer/histogram.h"

/* ---- capturing messages: one stream at a time, into a static buffer ---- */

static char msg_buf[16384];
static FILE *msg_stream;

static const char *msg_text(void);

static FILE *msg_open(void)
{
    (void)msg_text(); /* close the previous stream, if any */
    memset(msg_buf, 0, sizeof msg_buf);
    msg_stream = fmemopen(msg_buf, sizeof msg_buf - 1, "w");
    assert_non_null(msg_stream);
    return msg_stream;
}

/* Closes the stream (if open) and returns what was written. */
static const char *msg_text(void)
{
    if (msg_stream) fclose(msg_stream);
    msg_stream = NULL;
    return msg_buf;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void assert_contains(const char *text, const char *needle)
{
    if (!strstr(text, needle)) fail_msg("expected \"%s\" in: %s", needle, text);
}

/* ---- every variable, good and bad values ---- */

#define MAX_VALUES 16
struct var_case {
    const char *name;
    const char *good[MAX_VALUES];
    const char *bad[MAX_VALUES];
};

static char long_value[5001];

static const struct var_case var_cases[] = {
    {"SHIM_PERIOD",
     {"0", "1000", "1000000000000"},
     {"", "abc", "-5", "+5", " 5", "5 ", "1e3", "1000000000001", "99999999999999999999999",
      "0x10"}},
    {"SHIM_DTE",
     {"0.01", "1%", "0", "1", "off", "100%", "0.5%"},
     {"2", "101%", "nan", "inf", "-0.1", "1%%", "", "%", "1 %", "abc", "0.01x"}},
    {"SHIM_OBSERVER_CPU",
     {"auto", "-1", "0", "3", "1023"},
     {"-2", "x", "1024", "", "1.0", "99999999999999999999"}},
    {"SHIM_STRICT",
     {"0", "1", "yes", "no", "true", "false", "on", "off"},
     {"2", "", "maybe", " 1"}},
    {"SHIM_DISABLE",
     {"0", "1", "yes", "no", "true", "false", "on", "off"},
     {"2", "", "maybe", "10"}},
    {"SHIM_QUIET", {"0", "1", "yes", "no", "true", "false", "on", "off"}, {"2", "", "maybe", "-1"}},
    {"SHIM_OUTPUT",
     {"a.json", "/tmp/x-%p-%e.json", "100%%.json", "%p"},
     {"", "%x.json", "trailing%", long_value}},
    {"SHIM_JITTER", {"0", "0.5", "1", "1.0"}, {"1.5", "-0.1", "", "nan", "0.5x", "inf"}},
    {"SHIM_TAGS",
     {"none", "auto", "0", "0,1,15", "15,3"},
     {"16", "0,0", "0,", ",", "a", "", ",0", "0,,1", "0:1", "-1"}},
    {"SHIM_COUNTERS",
     {"0", "0:1000,1", "7:0.5", "none", "auto", "1,0:2"},
     {"8", "0:0", "0:-1", "0:abc", "0,0", "", "0:", "0:inf", "0:1e400", "0,"}},
    {"SHIM_HIST",
     {"500:0:4", "10:-1:1", "1:0:1e-3", "100000:0:1"},
     {"0:0:4", "500:4:0", "500:0", "500:0:4:5", "x:0:4", "100001:0:1", "500:1:1", "", "500",
      "500::4", "500:0:inf", "-5:0:4"}},
    {"SHIM_MAX_TAGS", {"1", "16777216", "1024"}, {"0", "16777217", "", "-1", "1k"}},
    {"SHIM_HIST_TUPLES", {"0", "65536", "256"}, {"65537", "", "-1", "1k"}},
    {"SHIM_INLINE_MAX", {"0", "16777216", "100000"}, {"16777217", "", "-1", "1k"}},
    {"SHIM_RATES",
     {"a=x/y", "bpi=bytes/items, ipkc=items*1000/cycles", "r=a*0.5/cycles", "c.d=e_f/g.h"},
     {"", "x", "x=", "x=a", "x=a/", "=a/b", "x=a*0/b", "x=a*-1/b", "x=a/b,x=c/d", "x=a/b;",
      "1x=a/b", "x=a*/b"}},
    {"SHIM_EVENTS",
     {"none", "cycles", "cycles,instructions", " cycles , instructions ", "INST_RETIRED:ANY_P:u",
      "amd_df/event=0x07,umask=0x38/,cycles", "e1,e2,e3,e4,e5,e6,e7,e8"},
     {"", ",", "a,,b", "a,a", "a b", "cycles,", "e1,e2,e3,e4,e5,e6,e7,e8,e9", "a\tb"}},
    {"SHIM_EVENT_SCOPE", {"auto", "core", "observer", "thread"}, {"", "Core", "all", "thread "}},
    {"SHIM_SLOW_PERIOD",
     {"100000", "2000000", "1000000000000"},
     {"", "99999", "0", "-1", "1e6", "1000000000001"}},
    {"SHIM_BY",
     {"a:b", "mem_per_100c:ipc", "y:x:40", "y:x:40:0:4", "observer.ipc:x:1:-1:1e3"},
     {"", "a", "a:", "a:a", "a:b:0", "a:b:100001", "a:b:10:4:0", "a:b:10:0", "a:b:10:0:4:5",
      "a:b:x"}},
    {"SHIM_AUTOSTART", {"0", "1", "yes", "off"}, {"", "2", "maybe"}},
    {"SHIM_ALLOC", {"on", "off", "auto"}, {"", "ON", "1", "yes", "on ", "maybe", "jemalloc"}},
    {"SHIM_SIGINT", {"on", "off", "auto", "1", "0"}, {"", "on ", "maybe", "2", "ignore"}},
    {"SHIM_AUTOSTART_CHILDREN", {"0", "1"}, {"", "-1", "all"}},
    {"SHIM_THREAD_ID", {"auto", "bpf", "pinned"}, {"", "BPF", "kernel", "pinned "}},
    {"SHIM_HOOKS", {"tree", "frames", "auto"}, {"", "Frames", "walk", "tree ", "Auto"}},
    {"SHIM_OBSERVERS", {"1", "2", "64", "auto"}, {"", "0", "65", "-1", "two", "auto "}},
    {"SHIM_SNAPSHOT",
     {"1", "0.5", "0.1", "86400", "0", "off", "60"},
     {"", "0.05", "86401", "-1", "1s", "on", "nan", "inf", "1,5"}},
    {"SHIM_SNAPSHOT_KEEP", {"0", "1", "10", "100000"}, {"", "-1", "100001", "two", "1.5"}},
    {"SHIM_TRACE",
     {"none", "64K", "64M", "64G", "trace.bin", "/tmp/t-%p.trace:1G", "t:x"},
     {"", "1K", "63K", "65G", "%q.trace", ":64M", "99999999999999999999"}},
};
#define N_VAR_CASES (sizeof var_cases / sizeof var_cases[0])

static int close_stream(void **state)
{
    (void)state;
    (void)msg_text();
    return 0;
}

static int setup_long_value(void **state)
{
    (void)state;
    memset(long_value, 'a', sizeof long_value - 1);
    long_value[sizeof long_value - 1] = 0;
    return 0;
}

static void every_variable_has_cases(void **state)
{
    (void)state;
    int n = 0;
    for (const struct config_var *v = config_vars; v->name; v++, n++) {
        assert_int_equal(strncmp(v->name, "SHIM_", 5), 0);
        assert_true(v->accepts && *v->accepts);
        size_t i = 0;
        while (i < N_VAR_CASES && strcmp(var_cases[i].name, v->name) != 0)
            i++;
        if (i == N_VAR_CASES) fail_msg("%s has no good/bad values in this test", v->name);
    }
    assert_int_equal(n, N_VAR_CASES);
}

static void good_values_accepted(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_VAR_CASES; i++) {
        for (const char *const *g = var_cases[i].good; *g; g++) {
            struct shim_settings s;
            config_defaults(&s);
            int rc = config_apply_var(&s, var_cases[i].name, *g, msg_open());
            if (rc != 0) fail_msg("%s=\"%s\" refused: %s", var_cases[i].name, *g, msg_text());
            assert_string_equal(msg_text(), "");
            assert_ptr_equal(s.cfg.output, s.output);
        }
    }
}

static void bad_values_refused_with_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_VAR_CASES; i++) {
        const struct var_case *vc = &var_cases[i];
        for (const char *const *b = vc->bad; *b; b++) {
            struct shim_settings s, before;
            config_defaults(&s);
            /* start from a non-default state: the first good value applied */
            assert_int_equal(config_apply_var(&s, vc->name, vc->good[0], stderr), 0);
            memcpy(&before, &s, sizeof s);
            int rc = config_apply_var(&s, vc->name, *b, msg_open());
            const char *msg = msg_text();
            if (rc != -1) fail_msg("%s=\"%.40s\" accepted", vc->name, *b);
            char quoted[256];
            snprintf(quoted, sizeof quoted, strlen(*b) <= 200 ? "%s=\"%s\"" : "%s=\"%.200s",
                     vc->name, *b);
            assert_contains(msg, quoted);
            assert_contains(msg, "expected");
            assert_int_equal(count_lines(msg), 1);
            if (memcmp(&before, &s, sizeof s) != 0)
                fail_msg("%s=\"%.40s\" changed the settings", vc->name, *b);
        }
    }
}

static void message_says_what_is_accepted(void **state)
{
    (void)state;
    for (const struct config_var *v = config_vars; v->name; v++) {
        struct shim_settings s;
        config_defaults(&s);
        assert_int_equal(config_apply_var(&s, v->name, "", msg_open()), -1);
        assert_contains(msg_text(), v->accepts);
    }
}

/* A member of a struct, by offset and type, set to or read as a number (or a string). */
struct field_case {
    const char *field; /* what the message must name, or the variable to set */
    size_t offset;     /* of the member */
    char type;         /* u: uint64_t, w: uint32_t, i: int, d: double, s: const char * */
    double number;
    const char *text;
};

/* the inside of one table entry */
#define FIELD(f, m, t, n, s)   f, offsetof(struct shim_config, m), t, n, s
#define SETTING(v, s, m, t, n) v, offsetof(struct shim_settings, m), t, n, s

static void spoil(void *c, const struct field_case *f)
{
    void *m = (char *)c + f->offset;
    switch (f->type) {
    case 'u':
        *(uint64_t *)m = (uint64_t)f->number;
        break;
    case 'w':
        *(uint32_t *)m = (uint32_t)f->number;
        break;
    case 'i':
        *(int *)m = (int)f->number;
        break;
    case 'd':
        *(double *)m = f->number;
        break;
    default:
        *(const char **)m = f->text;
    }
}

static double member_value(const void *c, const struct field_case *f)
{
    const void *m = (const char *)c + f->offset;
    switch (f->type) {
    case 'u':
        return (double)*(const uint64_t *)m;
    case 'w':
        return *(const uint32_t *)m;
    case 'i':
        return *(const int *)m;
    default:
        return *(const double *)m;
    }
}

/* Applied in this order to one settings struct; each sets the member to the number. */
static const struct field_case effects[] = {
    {SETTING("SHIM_PERIOD", "1000000000000", cfg.period, 'u', 1e12)},
    {SETTING("SHIM_PERIOD", "0", cfg.period, 'u', 0)},
    {SETTING("SHIM_DTE", "off", cfg.dte_off, 'i', 1)},
    {SETTING("SHIM_DTE", "1%", cfg.dte_off, 'i', 0)},
    {SETTING("SHIM_DTE", "1%", cfg.dte_tolerance, 'd', 0.01)},
    {SETTING("SHIM_DTE", "0.5%", cfg.dte_tolerance, 'd', 0.005)},
    {SETTING("SHIM_DTE", "100%", cfg.dte_tolerance, 'd', 1)},
    {SETTING("SHIM_DTE", "0", cfg.dte_tolerance, 'd', 0)},
    {SETTING("SHIM_OBSERVER_CPU", "3", cfg.observer_cpu, 'i', 3)},
    {SETTING("SHIM_OBSERVER_CPU", "auto", cfg.observer_cpu, 'i', -1)},
    {SETTING("SHIM_STRICT", "yes", cfg.strict, 'i', 1)},
    {SETTING("SHIM_DISABLE", "on", disable, 'i', 1)},
    {SETTING("SHIM_QUIET", "true", quiet, 'i', 1)},
    {SETTING("SHIM_QUIET", "off", quiet, 'i', 0)},
    {SETTING("SHIM_JITTER", "0", cfg.jitter, 'd', 0)},
    {SETTING("SHIM_TAGS", "0,1,15", cfg.tag_slots, 'w', 0x8003)},
    {SETTING("SHIM_TAGS", "none", cfg.tag_slots, 'w', SHIM_TAGS_NONE)},
    {SETTING("SHIM_TAGS", "auto", cfg.tag_slots, 'w', 0)},
    {SETTING("SHIM_COUNTERS", "0:1000,1", cfg.counter_slots, 'w', 0x3)},
    {SETTING("SHIM_COUNTERS", "0:1000,1", cfg.counter_scale[0], 'd', 1000)},
    {SETTING("SHIM_COUNTERS", "7:0.5", cfg.counter_slots, 'w', 0x80)},
    {SETTING("SHIM_COUNTERS", "7:0.5", cfg.counter_scale[7], 'd', 0.5)},
    {SETTING("SHIM_HIST", "10:-1:1", cfg.hist_buckets, 'w', 10)},
    {SETTING("SHIM_HIST", "10:-1:1", cfg.hist_lo, 'd', -1)},
    {SETTING("SHIM_HIST", "1:0:1e-3", cfg.hist_hi, 'd', 1e-3)},
    {SETTING("SHIM_MAX_TAGS", "16777216", cfg.max_tags, 'w', 16777216)},
    {SETTING("SHIM_HIST_TUPLES", "4096", hist_tuples, 'w', 4096)},
    {SETTING("SHIM_INLINE_MAX", "7", inline_max, 'u', 7)},
    {SETTING("SHIM_SNAPSHOT", "0.5", snapshot, 'd', 0.5)},
    {SETTING("SHIM_SNAPSHOT", "off", snapshot, 'd', 0)},
    {SETTING("SHIM_SNAPSHOT_KEEP", "12", snapshot_keep, 'w', 12)},
    {SETTING("SHIM_ALLOC", "on", alloc, 'i', ALLOC_ON)},
    {SETTING("SHIM_ALLOC", "off", alloc, 'i', ALLOC_OFF)},
    {SETTING("SHIM_ALLOC", "auto", alloc, 'i', ALLOC_AUTO)},
    {SETTING("SHIM_SIGINT", "on", sigint, 'i', SIGINT_ON)},
    {SETTING("SHIM_SIGINT", "1", sigint, 'i', SIGINT_ON)},
    {SETTING("SHIM_SIGINT", "off", sigint, 'i', SIGINT_OFF)},
    {SETTING("SHIM_SIGINT", "auto", sigint, 'i', SIGINT_AUTO)},
};

static void good_values_take_effect(void **state)
{
    (void)state;
    struct shim_settings s;
    config_defaults(&s);
    for (size_t i = 0; i < sizeof effects / sizeof effects[0]; i++) {
        const struct field_case *f = &effects[i];
        assert_int_equal(config_apply_var(&s, f->field, f->text, stderr), 0);
        if (member_value(&s, f) != f->number)
            fail_msg("%s=%s gives %g, expected %g", f->field, f->text, member_value(&s, f),
                     f->number);
    }
    assert_int_equal(config_apply_var(&s, "SHIM_OUTPUT", "/tmp/x-%p-%e.json", stderr), 0);
    assert_string_equal(s.output, "/tmp/x-%p-%e.json");
    assert_ptr_equal(s.cfg.output, s.output);
}

/* A histogram shape config accepts must be one the observer can build: otherwise the
 * setting is silently replaced by an empty histogram spec when the observer starts. */
static void accepted_hist_is_buildable(void **state)
{
    (void)state;
    struct shim_settings s;
    struct hist_spec h;
    config_defaults(&s);
    int rc = config_apply_var(&s, "SHIM_HIST", "100000:0:1e-304", msg_open());
    if (rc == 0)
        assert_int_equal(hist_spec_init(&h, s.cfg.hist_buckets, s.cfg.hist_lo, s.cfg.hist_hi), 0);
}

static void unknown_variable_refused(void **state)
{
    (void)state;
    struct shim_settings s, before;
    config_defaults(&s);
    memcpy(&before, &s, sizeof s);
    assert_int_equal(config_apply_var(&s, "SHIM_PERIDO", "5", msg_open()), -1);
    assert_contains(msg_text(), "SHIM_PERIDO");
    assert_memory_equal(&before, &s, sizeof s);
    assert_int_equal(config_apply_var(&s, "SHIM_PERIOD_X", "5", msg_open()), -1);
    assert_int_equal(config_apply_var(&s, "SHIM_PERIO", "5", msg_open()), -1);
}

/* ---- config_apply_env ---- */

static void env_applies_shim_variables_only(void **state)
{
    (void)state;
    struct shim_settings s;
    char *envp[] = {"PATH=/usr/bin:/bin", "SHIM_PERIOD=5", "MY_SHIM_PERIOD=abc",
                    "HOME=/root",         "SHIM_NOEQUALS", NULL};
    config_defaults(&s);
    assert_int_equal(config_apply_env(&s, envp, msg_open()), 0);
    assert_string_equal(msg_text(), "");
    assert_int_equal(s.cfg.period, 5);
    assert_int_equal(config_apply_env(&s, NULL, stderr), 0);
}

static void env_unknown_name_is_a_warning(void **state)
{
    (void)state;
    struct shim_settings s, before;
    char *envp[] = {"SHIM_PERIDO=5", NULL};
    config_defaults(&s);
    memcpy(&before, &s, sizeof s);
    assert_int_equal(config_apply_env(&s, envp, msg_open()), 0);
    const char *msg = msg_text();
    assert_contains(msg, "SHIM_PERIDO");
    assert_contains(msg, "warning");
    assert_int_equal(count_lines(msg), 1);
    assert_memory_equal(&before, &s, sizeof s);
}

static void env_name_twice_is_an_error(void **state)
{
    (void)state;
    struct shim_settings s;
    char *envp[] = {"SHIM_PERIOD=5", "PATH=/bin", "SHIM_PERIOD=6", NULL};
    config_defaults(&s);
    assert_int_equal(config_apply_env(&s, envp, msg_open()), 1);
    const char *msg = msg_text();
    assert_contains(msg, "SHIM_PERIOD");
    assert_contains(msg, "more than once");
}

static void env_counts_every_bad_value(void **state)
{
    (void)state;
    struct shim_settings s;
    char *envp[] = {"SHIM_PERIOD=abc", "SHIM_JITTER=0.25", "SHIM_DTE=2", NULL};
    config_defaults(&s);
    assert_int_equal(config_apply_env(&s, envp, msg_open()), 2);
    const char *msg = msg_text();
    assert_contains(msg, "SHIM_PERIOD=\"abc\"");
    assert_contains(msg, "SHIM_DTE=\"2\"");
    assert_int_equal(count_lines(msg), 2);
    assert_true(s.cfg.jitter == 0.25); /* the good one still applies */
}

/* ---- config_apply_struct ---- */

static void struct_zeroed_refused(void **state)
{
    (void)state;
    struct shim_settings s, before;
    struct shim_config cfg;
    memset(&cfg, 0, sizeof cfg);
    config_defaults(&s);
    memcpy(&before, &s, sizeof s);
    assert_true(config_apply_struct(&s, &cfg, msg_open()) > 0);
    assert_contains(msg_text(), "shim_config_init");
    assert_memory_equal(&before, &s, sizeof s);

    shim_config_init(&cfg);
    cfg.size = sizeof cfg + 8; /* from a newer library than this one */
    assert_true(config_apply_struct(&s, &cfg, msg_open()) > 0);
}

static void struct_from_init_accepted(void **state)
{
    (void)state;
    struct shim_settings s;
    struct shim_config cfg;
    shim_config_init(&cfg);
    config_defaults(&s);
    assert_int_equal(config_apply_struct(&s, &cfg, msg_open()), 0);
    assert_string_equal(msg_text(), "");
    assert_ptr_equal(s.cfg.output, s.output);
    assert_string_equal(s.output, SHIM_DEFAULT_OUTPUT);
    assert_int_equal(s.cfg.period, 1000);

    cfg.output = "run-%p.json";
    cfg.period = 2500;
    cfg.max_tags = 7;
    assert_int_equal(config_apply_struct(&s, &cfg, stderr), 0);
    assert_string_equal(s.output, "run-%p.json");
    assert_ptr_equal(s.cfg.output, s.output); /* a copy, not the program's pointer */
    assert_int_equal(s.cfg.period, 2500);
    assert_int_equal(s.cfg.max_tags, 7);
}

static void struct_shorter_from_older_program(void **state)
{
    (void)state;
    struct shim_settings s;
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.size = (uint32_t)offsetof(struct shim_config, jitter);
    cfg.period = 777;
    cfg.jitter = 5.0; /* beyond the old struct: not read */
    config_defaults(&s);
    assert_int_equal(config_apply_struct(&s, &cfg, stderr), 0);
    assert_int_equal(s.cfg.period, 777);
    assert_true(s.cfg.jitter == 0.5);
    assert_int_equal(s.cfg.size, sizeof cfg);
}

static const struct field_case field_cases[] = {
    {FIELD("period", period, 'u', 1000000000001.0, NULL)},
    {FIELD("observer_cpu", observer_cpu, 'i', -2, NULL)},
    {FIELD("observer_cpu", observer_cpu, 'i', CPU_SETSIZE, NULL)},
    {FIELD("dte_tolerance", dte_tolerance, 'd', 1.5, NULL)},
    {FIELD("dte_tolerance", dte_tolerance, 'd', NAN, NULL)},
    {FIELD("dte_tolerance", dte_tolerance, 'd', -0.01, NULL)},
    {FIELD("jitter", jitter, 'd', 2, NULL)},
    {FIELD("tag_slots", tag_slots, 'w', 1u << 16, NULL)},
    {FIELD("counter_slots", counter_slots, 'w', 1u << 8, NULL)},
    {FIELD("counter_scale", counter_scale[0], 'd', -1, NULL)},
    {FIELD("counter_scale", counter_scale[0], 'd', NAN, NULL)},
    {FIELD("counter_scale", counter_scale[5], 'd', INFINITY, NULL)},
    {FIELD("hist_buckets", hist_buckets, 'w', 0, NULL)},
    {FIELD("hist_buckets", hist_buckets, 'w', SHIM_MAX_BUCKETS + 1, NULL)},
    {FIELD("hist_lo", hist_lo, 'd', 4, NULL)}, /* == hist_hi */
    {FIELD("hist_lo", hist_lo, 'd', 5, NULL)},
    {FIELD("hist_lo", hist_lo, 'd', NAN, NULL)},
    {FIELD("hist_hi", hist_hi, 'd', INFINITY, NULL)},
    {FIELD("max_tags", max_tags, 'w', 0, NULL)},
    {FIELD("max_tags", max_tags, 'w', SHIM_MAX_TAG_CAP + 1, NULL)},
    {FIELD("output", output, 's', 0, "%q")},
    {FIELD("output", output, 's', 0, "")},
};

static void struct_bad_fields_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof field_cases / sizeof field_cases[0]; i++) {
        struct shim_settings s, before;
        struct shim_config cfg;
        shim_config_init(&cfg);
        spoil(&cfg, &field_cases[i]);
        config_defaults(&s);
        memcpy(&before, &s, sizeof s);
        int bad = config_apply_struct(&s, &cfg, msg_open());
        const char *msg = msg_text();
        if (bad != 1)
            fail_msg("case %zu (%s): %d bad fields: %s", i, field_cases[i].field, bad, msg);
        assert_contains(msg, field_cases[i].field);
        assert_int_equal(count_lines(msg), 1);
        if (memcmp(&before, &s, sizeof s) != 0)
            fail_msg("case %zu (%s) changed the settings", i, field_cases[i].field);
    }
}

static void struct_counts_every_bad_field(void **state)
{
    (void)state;
    struct shim_settings s;
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.period = SHIM_MAX_PERIOD + 1;
    cfg.jitter = 2;
    cfg.max_tags = 0;
    config_defaults(&s);
    assert_int_equal(config_apply_struct(&s, &cfg, msg_open()), 3);
    assert_int_equal(count_lines(msg_text()), 3);
}

/* A refused struct is not applied in part: not even its (valid) output pattern. */
static void struct_refused_leaves_output_alone(void **state)
{
    (void)state;
    struct shim_settings s;
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.output = "elsewhere-%p.json";
    cfg.period = SHIM_MAX_PERIOD + 1;
    config_defaults(&s);
    assert_int_equal(config_apply_struct(&s, &cfg, msg_open()), 1);
    assert_string_equal(s.output, SHIM_DEFAULT_OUTPUT);
}

static void struct_zero_scale_means_one(void **state)
{
    (void)state;
    struct shim_settings s;
    struct shim_config cfg;
    shim_config_init(&cfg);
    for (int i = 0; i < SHIM_COUNTER_SLOTS; i++)
        cfg.counter_scale[i] = 0;
    cfg.counter_scale[3] = 1000;
    config_defaults(&s);
    assert_int_equal(config_apply_struct(&s, &cfg, stderr), 0);
    for (int i = 0; i < SHIM_COUNTER_SLOTS; i++)
        assert_true(s.cfg.counter_scale[i] == (i == 3 ? 1000.0 : 1.0));
}

static void struct_accepts_the_edges(void **state)
{
    (void)state;
    struct shim_settings s;
    struct shim_config cfg;
    shim_config_init(&cfg);
    cfg.period = SHIM_MAX_PERIOD;
    cfg.observer_cpu = CPU_SETSIZE - 1;
    cfg.dte_tolerance = 1.0;
    cfg.jitter = 1.0;
    cfg.tag_slots = SHIM_TAGS_NONE;
    cfg.counter_slots = 0xff;
    cfg.hist_buckets = SHIM_MAX_BUCKETS;
    cfg.max_tags = SHIM_MAX_TAG_CAP;
    config_defaults(&s);
    assert_int_equal(config_apply_struct(&s, &cfg, stderr), 0);
    assert_int_equal(s.cfg.tag_slots, SHIM_TAGS_NONE);
}

/* ---- config_expand_output ---- */

static void expand_output(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(config_expand_output("shim-%e-%p.json", 42, "demo", out, sizeof out), 0);
    assert_string_equal(out, "shim-demo-42.json");
    assert_int_equal(config_expand_output("%%", 42, "demo", out, sizeof out), 0);
    assert_string_equal(out, "%");
    assert_int_equal(config_expand_output("100%%-%p%p", 7, "x", out, sizeof out), 0);
    assert_string_equal(out, "100%-77");
    assert_int_equal(config_expand_output("plain.json", 1, "x", out, sizeof out), 0);
    assert_string_equal(out, "plain.json");
}

static void expand_output_refusals(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(config_expand_output("%q", 42, "demo", out, sizeof out), -1);
    assert_int_equal(config_expand_output("a%", 42, "demo", out, sizeof out), -1);
    assert_int_equal(config_expand_output("", 42, "demo", out, sizeof out), -1);
    assert_int_equal(config_expand_output("%e", 42, "", out, sizeof out), -1); /* empty */
    /* 15 characters and the terminator fit in 16; 16 do not */
    assert_int_equal(config_expand_output("abcdefghijklmno", 1, "x", out, sizeof out), 0);
    assert_string_equal(out, "abcdefghijklmno");
    assert_int_equal(config_expand_output("abcdefghijklmnop", 1, "x", out, sizeof out), -1);
    assert_int_equal(config_expand_output("%e", 1, "a-very-long-program", out, sizeof out), -1);
    assert_int_equal(config_expand_output("x-%p", 12345678901234L, "x", out, sizeof out), -1);
}

/* ---- defaults ---- */

static void defaults(void **state)
{
    (void)state;
    struct shim_settings s;
    config_defaults(&s);
    assert_int_equal(s.cfg.size, sizeof(struct shim_config));
    assert_int_equal(s.cfg.period, 1000);
    assert_true(s.cfg.dte_tolerance == 0.01);
    assert_false(s.cfg.dte_off);
    assert_false(s.cfg.strict);
    assert_int_equal(s.cfg.hist_buckets, 500);
    assert_true(s.cfg.hist_lo == 0.0 && s.cfg.hist_hi == 4.0);
    assert_int_equal(s.cfg.max_tags, 1048576);
    assert_int_equal(s.hist_tuples, 256);
    assert_int_equal(s.cfg.observer_cpu, -1);
    assert_string_equal(s.output, "shim-%e-%p.json");
    assert_ptr_equal(s.cfg.output, s.output);
    assert_true(s.cfg.jitter >= 0 && s.cfg.jitter <= 1);
    for (int i = 0; i < SHIM_COUNTER_SLOTS; i++)
        assert_true(s.cfg.counter_scale[i] == 1.0);
    assert_false(s.disable);
    assert_false(s.quiet);

    struct shim_config cfg;
    memset(&cfg, 0xff, sizeof cfg);
    shim_config_init(&cfg);
    assert_null(cfg.output);
    assert_int_equal(cfg.size, sizeof cfg);
    assert_int_equal(cfg.tag_slots, 0);
    assert_int_equal(cfg.counter_slots, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variable_has_cases),
        cmocka_unit_test(good_values_accepted),
        cmocka_unit_test(bad_values_refused_with_message),
        cmocka_unit_test(message_says_what_is_accepted),
        cmocka_unit_test(good_values_take_effect),
        cmocka_unit_test(accepted_hist_is_buildable),
        cmocka_unit_test(unknown_variable_refused),
        cmocka_unit_test(env_applies_shim_variables_only),
        cmocka_unit_test(env_unknown_name_is_a_warning),
        cmocka_unit_test(env_name_twice_is_an_error),
        cmocka_unit_test(env_counts_every_bad_value),
        cmocka_unit_test(struct_zeroed_refused),
        cmocka_unit_test(struct_from_init_accepted),
        cmocka_unit_test(struct_shorter_from_older_program),
        cmocka_unit_test(struct_bad_fields_refused),
        cmocka_unit_test(struct_counts_every_bad_field),
        cmocka_unit_test(struct_refused_leaves_output_alone),
        cmocka_unit_test(struct_zero_scale_means_one),
        cmocka_unit_test(struct_accepts_the_edges),
        cmocka_unit_test(expand_output),
        cmocka_unit_test(expand_output_refusals),
        cmocka_unit_test(defaults),
    };
    return cmocka_run_group_tests(tests, setup_long_value, close_stream);
}
