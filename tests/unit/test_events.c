/*
 * test_events.c -- specifies how hardware events are named (libshim/events.c): the
 * SHIM_EVENTS list, counter labels, libpfm4 encodings of names every machine knows, the
 * kernel's sysfs PMU syntax (checked against the msr PMU where the kernel has it, and
 * against its errors everywhere), and the one-line causes of perf_event_open failures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "libshim/events.h"

static void lists(void **state)
{
    (void)state;
    char names[EVENTS_MAX][EVENT_NAME_MAX], why[128];
    unsigned n;
    assert_int_equal(events_parse_list(" cycles , INST_RETIRED:ANY_P:u", names, &n, why, 128), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "cycles");
    assert_string_equal(names[1], "INST_RETIRED:ANY_P:u");
    /* commas inside PMU/.../ separate terms */
    assert_int_equal(
        events_parse_list("amd_df/event=0x07,umask=0x38/,cycles,msr/tsc/", names, &n, why, 128), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "amd_df/event=0x07,umask=0x38/");
    assert_string_equal(names[2], "msr/tsc/");
    const char *bad[] = {"", ",", "a,,b", "a,a", "a b", "cycles,", "e1,e2,e3,e4,e5,e6,e7,e8,e9"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        why[0] = 0;
        assert_int_equal(events_parse_list(bad[i], names, &n, why, 128), -1);
        assert_true(why[0] != 0);
    }
    events_parse_list("a,a", names, &n, why, 128);
    assert_string_equal(why, "a is named twice");
}

static void labels(void **state)
{
    (void)state;
    char out[EVENT_LABEL_MAX];
    event_label("INST_RETIRED:ANY_P", "", out, sizeof out);
    assert_string_equal(out, "INST_RETIRED_ANY_P");
    event_label("cycles", "observer.", out, sizeof out);
    assert_string_equal(out, "observer.cycles");
    event_label("msr/tsc/", "", out, sizeof out);
    assert_string_equal(out, "msr.tsc");
    event_label("amd_df/event=0x07,umask=0x38/", "", out, sizeof out);
    assert_string_equal(out, "amd_df.event_0x07_umask_0x38");
    event_label("task-clock", "", out, sizeof out);
    assert_string_equal(out, "task_clock");
}

/* Names libpfm4 encodes on any x86 machine, PMU or not: the generic ones. */
static void libpfm4_generic_names(void **state)
{
    (void)state;
    struct hw_event ev;
    char why[512];
    assert_int_equal(event_encode("task-clock", 0, &ev, why, sizeof why), 0);
    assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
    assert_int_equal(ev.attr.config, PERF_COUNT_SW_TASK_CLOCK);
    assert_int_equal(ev.attr.exclude_kernel, 1); /* user level by default */
    assert_int_equal(ev.uncore, 0);
    assert_int_equal(event_encode("instructions", 0, &ev, why, sizeof why), 0);
    assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
    assert_int_equal(ev.attr.config, PERF_COUNT_HW_INSTRUCTIONS);
    assert_int_equal(event_encode("cycles:k", 0, &ev, why, sizeof why), 0);
    assert_int_equal(ev.attr.exclude_kernel, 0);
    assert_int_equal(event_encode("no_such_event", 0, &ev, why, sizeof why), ENOENT);
    assert_non_null(strstr(why, "event not found"));
    assert_int_equal(event_encode("task-clock:zz=1", 0, &ev, why, sizeof why), EINVAL);
    assert_non_null(strstr(why, "a modifier or value this event does not take"));
    /* core scope asks the core PMU for any-thread counting: a software event has none */
    assert_int_equal(event_encode("task-clock", 1, &ev, why, sizeof why) != 0, 1);
}

static void sysfs_names(void **state)
{
    (void)state;
    struct hw_event ev;
    char why[512];
    assert_int_equal(event_encode("nopmu_here/x/", 0, &ev, why, sizeof why), ENOENT);
    assert_non_null(strstr(why, "the kernel has no PMU \"nopmu_here\""));
    assert_int_equal(event_encode("msr/event=1", 0, &ev, why, sizeof why), EINVAL);
    assert_int_equal(event_encode("/x/", 0, &ev, why, sizeof why), EINVAL);
    if (access("/sys/bus/event_source/devices/msr/format/event", R_OK) != 0) {
        print_message("skipped: no msr PMU (the sysfs encoding is checked for errors only)\n");
        return;
    }
    FILE *f = fopen("/sys/bus/event_source/devices/msr/type", "r");
    unsigned type = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%u", &type), 1);
    fclose(f);
    assert_int_equal(event_encode("msr/event=0x2/", 0, &ev, why, sizeof why), 0);
    assert_int_equal(ev.attr.type, type);
    assert_int_equal(ev.attr.config, 2);
    assert_int_equal(ev.attr.exclude_kernel, 0);
    assert_int_equal(event_encode("msr/tsc/", 0, &ev, why, sizeof why), 0); /* an alias */
    assert_int_equal(ev.attr.config, 0);
    assert_true(ev.scale == 1.0);
    assert_int_equal(event_encode("msr/bogus/", 0, &ev, why, sizeof why), ENOENT);
    assert_non_null(strstr(why, "PMU msr has no event \"bogus\""));
    assert_int_equal(event_encode("msr/zz=2/", 0, &ev, why, sizeof why), EINVAL);
    assert_non_null(strstr(why, "PMU msr has no term zz"));
    assert_int_equal(event_encode("msr/event=0x1ffffffffffffffff/", 0, &ev, why, sizeof why),
                     EINVAL);
}

static void causes(void **state)
{
    (void)state;
    assert_non_null(strstr(event_open_cause(ENOENT), "no PMU"));
    assert_non_null(strstr(event_open_cause(EACCES), "sysctl kernel.perf_event_paranoid="));
    assert_string_equal(event_open_cause(EPERM), event_open_cause(EACCES));
    assert_non_null(strstr(event_open_cause(EINVAL), "modifier"));
    assert_non_null(strstr(event_open_cause(EBUSY), "taken"));
    char why[256];
    assert_int_equal(cpu_any_thread(why, sizeof why) == 0 || cpu_any_thread(why, sizeof why) == 1,
                     1);
    assert_true(why[0] != 0); /* a reason either way */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists),
        cmocka_unit_test(labels),
        cmocka_unit_test(libpfm4_generic_names),
        cmocka_unit_test(sysfs_names),
        cmocka_unit_test(causes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
