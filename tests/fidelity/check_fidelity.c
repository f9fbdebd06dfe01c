/*
 * check_fidelity.c -- holds a shim profile against the truth a program measured itself.
 *
 * The planted-phase example (examples/phases.c) times each phase with the TSC and
 * counts the items it finished there, and writes one line per phase: name, share of
 * the phases' time, items per 1000 cycles, over the cycles the phase had the CPU (an
 * item that took over 50,000 cycles lost it), then optionally the same two over all
 * the phase's cycles, lost stretches included. Which truth a profile is held against
 * depends on what shim could see: a run whose thread identity is `pinned` (no BPF) cannot
 * tell when the observed thread is off its CPU, so that time counts for the tags it left
 * (docs/threads.md), and the profile is held against the second truth; with BPF, the
 * first. This checker finds each phase in the profile (by tag name) and compares:
 *   - the share of samples, and the share of time (TSC cycles of its periods), both
 *     taken over the phases only (the program also runs briefly outside them);
 *   - the phase's rate (the profile's `rate`, sum of counts over sum of cycles).
 *
 * and, with --other-pct, the share of the attributed samples that went to `other` (no
 * room for their tuple) must stay below X percent.
 *
 * A last line "# lost-cpu F" (the share of the time the program lost its CPU) is for
 * busy.py, which run_fidelity.sh asks after a failed run whether the machine was busy.
 *
 * Usage: check_fidelity PROFILE TRUTH [--samples-pp X] [--time-pp X] [--rate-pct X]
 *                       [--other-pct X]
 * A limit of 0 (or absent) skips that check. Exit 0 when every check passes.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PHASES 16

struct phase {
    char name[64];
    double true_share, true_rate;
    double wall_share, wall_rate; /* lost stretches included; NAN: not given */
    double samples, cycles, rate;
    int found;
};

static int load_truth(const char *path, struct phase *p, int *n)
{
    FILE *f = fopen(path, "r");
    if (!f) return perror(path), -1;
    *n = 0;
    char line[512];
    while (*n < MAX_PHASES && fgets(line, sizeof line, f)) {
        struct phase *q = &p[*n];
        if (line[0] == '#') continue; /* "# lost-cpu": busy.py's */
        int got = sscanf(line, "%63s %lf %lf %lf %lf", q->name, &q->true_share, &q->true_rate,
                         &q->wall_share, &q->wall_rate);
        if (got < 3) break;
        if (got < 5) q->wall_share = q->wall_rate = NAN;
        (*n)++;
    }
    fclose(f);
    return *n ? 0 : -1;
}

static double other_pct; /* of the attributed samples, from the profile */
static int pinned;       /* the profile's thread identity is `pinned` (no BPF) */

static int load_profile(const char *path, struct phase *p, int n)
{
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    if (!doc) {
        fprintf(stderr, "%s:%d: %s\n", path, err.line, err.text);
        return -1;
    }
    json_t *s = json_object_get(doc, "samples"), *tags = json_object_get(doc, "tags"), *t;
    double attributed = json_number_value(json_object_get(s, "total")) -
                        json_number_value(json_object_get(s, "interrupted"));
    other_pct = 100 * json_number_value(json_object_get(s, "other")) / attributed;
    const char *source = json_string_value(json_object_get(
        json_object_get(json_object_get(doc, "placement"), "thread_identity"), "source"));
    pinned = source && strcmp(source, "pinned") == 0;
    size_t i;
    json_array_foreach(tags, i, t)
    {
        const char *name = json_string_value(json_array_get(json_object_get(t, "names"), 0));
        for (int k = 0; name && k < n; k++) {
            if (strcmp(name, p[k].name) != 0) continue;
            json_t *rate = json_array_get(json_object_get(t, "rates"), 0);
            p[k].found = 1;
            p[k].samples = json_number_value(json_object_get(t, "samples"));
            p[k].cycles = json_number_value(json_object_get(t, "cycles"));
            p[k].rate = rate ? json_number_value(json_object_get(rate, "rate")) : NAN;
        }
    }
    json_decref(doc);
    return 0;
}

int main(int argc, char **argv)
{
    double samples_pp = 0, time_pp = 0, rate_pct = 0, other_limit = 0;
    struct phase p[MAX_PHASES] = {0};
    int n, passed = 0, failed = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROFILE TRUTH [--samples-pp X] [--time-pp X] [--rate-pct X]\n",
                argv[0]);
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        double v = atof(argv[i + 1]);
        if (strcmp(argv[i], "--samples-pp") == 0)
            samples_pp = v;
        else if (strcmp(argv[i], "--time-pp") == 0)
            time_pp = v;
        else if (strcmp(argv[i], "--rate-pct") == 0)
            rate_pct = v;
        else if (strcmp(argv[i], "--other-pct") == 0)
            other_limit = v;
        else
            return fprintf(stderr, "unknown option %s\n", argv[i]), 2;
    }
    if (load_truth(argv[2], p, &n) != 0 || load_profile(argv[1], p, n) != 0) return 1;
    int wall = pinned;
    for (int k = 0; k < n; k++)
        wall = wall && !isnan(p[k].wall_share);
    for (int k = 0; wall && k < n; k++) {
        p[k].true_share = p[k].wall_share;
        p[k].true_rate = p[k].wall_rate;
    }
    printf("truth: %s\n",
           wall ? "over all of each phase's cycles, those it lost the CPU included (the "
                  "thread identity is pinned: shim cannot tell them)"
                : "over the cycles each phase had the CPU");
    double all_samples = 0, all_cycles = 0;
    for (int k = 0; k < n; k++) {
        all_samples += p[k].samples;
        all_cycles += p[k].cycles;
    }
    printf("%-8s %9s %9s %9s %9s %9s %9s\n", "phase", "truth%", "samples%", "time%", "truth/kc",
           "shim/kc", "rate err");
    for (int k = 0; k < n; k++) {
        double ss = 100 * p[k].samples / all_samples, ts = 100 * p[k].cycles / all_cycles;
        double truth = 100 * p[k].true_share, err = 100 * (p[k].rate / p[k].true_rate - 1);
        int ok = p[k].found && (!samples_pp || fabs(ss - truth) <= samples_pp) &&
                 (!time_pp || fabs(ts - truth) <= time_pp) && (!rate_pct || fabs(err) <= rate_pct);
        printf("%-8s %9.2f %9.2f %9.2f %9.4f %9.4f %+8.2f%% %s\n", p[k].name, truth, ss, ts,
               p[k].true_rate, p[k].rate, err, ok ? "ok" : "FAIL");
        ok ? passed++ : failed++;
    }
    if (other_limit) {
        int ok = other_pct < other_limit;
        printf("other: %.3f%% of the attributed samples (limit %.1f%%) %s\n", other_pct,
               other_limit, ok ? "ok" : "FAIL");
        ok ? passed++ : failed++;
    }
    printf("limits: samples %.1f pp, time %.1f pp, rate %.1f%% (0 = not checked)\n", samples_pp,
           time_pp, rate_pct);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
