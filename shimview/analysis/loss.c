/*
 * loss.c -- the sentence about samples that are not their own tuple's (loss.h).
 *
 * A sample goes to `other` when the observer's store had no room for its tuple: the
 * store reached its limit (config.max_tags, SHIM_MAX_TAGS), or, in a profile that says
 * why (samples.other_why), it could not grow in time. Profiles from before other_why
 * had a table of fixed size, so there every such sample was the table being full.
 */
#include "shimview/analysis/loss.h"
#include "shimview/analysis/stats.h"

#include <inttypes.h>

int loss_describe(const struct profile *p, char *buf, size_t len)
{
    const struct profile_samples *s = &p->samples;
    uint64_t attributed = s->total - s->interrupted;
    buf[0] = '\0';
    if (s->other == 0) return 0;
    char share[32];
    stats_format_share(attributed ? (double)s->other / (double)attributed : 1.0, share,
                       sizeof share);
    int n = snprintf(buf, len,
                     "%s of the attributed samples (%" PRIu64 ") are in \"other\", not "
                     "their own tag tuple: ",
                     share, s->other);
    size_t at = n > 0 && (size_t)n < len ? (size_t)n : len - 1;
    if (!s->has_other_why)
        snprintf(buf + at, len - at,
                 "the tag table was full at %" PRIu64 " tuples (raise SHIM_MAX_TAGS)",
                 p->config.max_tags);
    else
        snprintf(buf + at, len - at,
                 "%" PRIu64 " because the store reached its limit of %" PRIu64
                 " tuples (raise SHIM_MAX_TAGS), %" PRIu64
                 " because it could not grow in time (a larger SHIM_PERIOD gives it time)",
                 s->other_full, p->config.max_tags, s->other_behind);
    return 1;
}

void loss_print(const struct profile *p, FILE *f)
{
    char line[512];
    if (loss_describe(p, line, sizeof line)) fprintf(f, "warning: %s\n", line);
}
