/*
 * store_scale.c -- the attribution store at 10^3, 10^5 and 10^6 tag tuples.
 *
 * For each size N, the program starts shim at the defaults, signals N distinct tag values
 * one after another, each for --hold cycles (4000: long enough for the observer to sample each),
 * and stops shim, which writes the profile. It reports, per N: the tuples the profile
 * holds and how many samples went to `other`, the store's memory at the end
 * (cost.tag_table_bytes) and per tuple, the time shim_stop() took (writing the profile),
 * the profile's size (JSON and, beyond SHIM_INLINE_MAX entries, its table file), and the
 * time shimview takes to read it and print a report, an HTML page, a pprof export and a
 * comparison with itself (which reads it twice).
 *
 * Usage: store_scale SHIMVIEW [--sizes N,N,...] [--hold CYCLES] [--csv FILE] [--dir DIR]
 * SHIM_QUIET=0 shows shim's exit line; STORE_SCALE_KEEP=1 keeps the profiles.
 */
#include <shim.h>

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>
#include <x86intrin.h>

/* Cycles each value is held: long enough for the observer to sample each (--hold). */
static uint64_t hold_cycles = 4000;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

int main(int argc, char **argv)
{
    const char *sizes = "1000,100000,1000000", *csv = NULL, *dir = "/tmp";
    if (argc < 2) {
        fprintf(stderr, "usage: store_scale SHIMVIEW [--sizes N,...] [--hold CYCLES] [--csv FILE] "
                        "[--dir DIR]\n");
        return 2;
    }
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes"))
            sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--csv"))
            csv = argv[i + 1];
        else if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
        else if (!strcmp(argv[i], "--hold"))
            hold_cycles = strtoull(argv[i + 1], NULL, 10);
        else
            return fprintf(stderr, "store_scale: unknown option %s\n", argv[i]), 2;
    }
    FILE *out = csv ? fopen(csv, "w") : NULL;
    const char *head = "tuples_signalled,tuples,other,store_bytes,bytes_per_tuple,entry_bytes,"
                       "write_s,profile_mb,report_s,html_s,pprof_s,compare_s";
    printf("%s\n", head);
    if (out) fprintf(out, "%s\n", head);
    for (const char *p = sizes; *p;) {
        long n = strtol(p, (char **)&p, 10);
        p += *p == ',';
        char path[512], cmd[1200];
        snprintf(path, sizeof path, "%s/shim-store-scale-%ld.json", dir, n);
        struct shim_config cfg;
        shim_config_init(&cfg);
        cfg.output = path;
        setenv("SHIM_QUIET", "1", 0);
        if (shim_start(&cfg) != 0) return 1;
        for (long v = 0; v < n; v++) {
            SHIM_SIGNAL(0, (uint64_t)v + 1);
            uint64_t t0 = __rdtsc();
            while (__rdtsc() - t0 < hold_cycles)
                sink++;
        }
        double t0 = now();
        shim_stop();
        double write_s = now() - t0;
        /* each view's whole time, -1 when it failed */
        static const char *const views[] = {
            "'%s' report '%s' >/dev/null", "'%s' html '%s' -o /dev/null",
            "'%s' export -f pprof '%s' -o /dev/null", "'%1$s' compare '%2$s' '%2$s' >/dev/null"};
        double view_s[4];
        for (int k = 0; k < 4; k++) {
            snprintf(cmd, sizeof cmd, views[k], argv[1], path);
            t0 = now();
            int rc = system(cmd);
            view_s[k] = rc == 0 ? now() - t0 : -1;
        }
        struct stat st, tst;
        char table[600];
        snprintf(table, sizeof table, "%s.table", path);
        stat(path, &st);
        if (stat(table, &tst) == 0) st.st_size += tst.st_size;
        json_error_t err;
        json_t *d = json_load_file(path, 0, &err);
        if (!d) return fprintf(stderr, "store_scale: %s: %s\n", path, err.text), 1;
        json_t *s = json_object_get(d, "samples"), *c = json_object_get(d, "cost");
        double tuples = json_number_value(json_object_get(s, "distinct_tags"));
        double bytes = json_number_value(json_object_get(c, "tag_table_bytes"));
        char line[512];
        snprintf(line, sizeof line, "%ld,%.0f,%.0f,%.0f,%.1f,%.0f,%.3f,%.1f,%.3f,%.3f,%.3f,%.3f", n,
                 tuples, json_number_value(json_object_get(s, "other")), bytes, bytes / tuples,
                 json_number_value(json_object_get(c, "tag_entry_bytes")), write_s,
                 (double)st.st_size / 1e6, view_s[0], view_s[1], view_s[2], view_s[3]);
        json_decref(d);
        if (!getenv("STORE_SCALE_KEEP")) unlink(path), unlink(table);
        printf("%s\n", line);
        if (out) fprintf(out, "%s\n", line);
    }
    if (out) fclose(out);
    return 0;
}
