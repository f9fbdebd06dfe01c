/*
 * profile.h -- the profile's format (docs/profile-format.md): the name and the version
 * its top-level `format` and `version` members carry, defined once for the writer
 * (libshim/profile_writer.c) and the reader (shimview/model/profile.c).
 *
 * A reader takes every version up to PROFILE_FORMAT_VERSION and refuses a newer one,
 * naming both. The writer writes version 1, and version 2 when part of the profile is in
 * its table file (profile_table.proto; docs/profile-format.md, "Large profiles").
 */
#ifndef SHIM_FORMATS_PROFILE_H
#define SHIM_FORMATS_PROFILE_H

#define PROFILE_FORMAT_NAME           "shim-profile"
#define PROFILE_FORMAT_VERSION        2 /* the newest version written and read */
#define PROFILE_FORMAT_VERSION_INLINE 1 /* a profile whose entries are all in the JSON */

#include <math.h>
#include <stdio.h>

/* A value read from a histogram bucket `width` wide, as text to the precision the bucket
 * has: to the decimal place of its width, or, wider than 10, to its tens (hundreds, ...)
 * only ("10100" from a bucket 256 wide, not "10111"). shimview's quantiles and the line
 * shim prints at exit both print so (docs/statistics.md, "Precision of printed numbers"). */
static inline const char *profile_bucket_text(double v, double width, char *buf, size_t len)
{
    int d = -(int)floor(log10(width));
    if (d < 0) {
        double unit = pow(10, -d);
        snprintf(buf, len, "%.0f", round(v / unit) * unit);
    } else {
        snprintf(buf, len, "%.*f", d > 9 ? 9 : d, v);
    }
    return buf;
}

/* Whether the programs a process started, unobserved, used enough CPU (run.children_cpu_
 * seconds) to be why its profile has no signal: a tenth of the run's time at least (a
 * shell, make), not the odd `uname` of a popen. The line shim prints at exit and
 * shimview's report both ask it. */
static inline int profile_children_matter(double children_cpu_seconds, double run_seconds)
{
    return children_cpu_seconds >= 0.01 && children_cpu_seconds >= 0.1 * run_seconds;
}

#endif /* SHIM_FORMATS_PROFILE_H */
