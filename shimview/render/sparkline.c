/*
 * sparkline.c -- rate histograms as lines of block characters (see sparkline.h).
 *
 * Heights are linear in the count, in eight levels, the lowest kept for any cell that
 * has samples at all: rates counted in whole events over short periods put most samples
 * in one bucket (often at 0), and a log scale would make that spike look like its
 * neighbours, while plain rounding would erase the rest of the distribution.
 */
#include "shimview/render/sparkline.h"
#include "shimview/render/plot.h"

#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define LEVELS 8

static const char *const utf8_levels[LEVELS] = {
    "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
    "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
};
static const char ascii_levels[LEVELS + 1] = "._-:=+*#";

enum sparkline_style sparkline_style_from_locale(void)
{
    if (!setlocale(LC_CTYPE, "")) return SPARKLINE_ASCII; /* a locale that is not installed */
    const char *set = nl_langinfo(CODESET);
    return set && (strcasecmp(set, "UTF-8") == 0 || strcasecmp(set, "utf8") == 0) ? SPARKLINE_UTF8
                                                                                  : SPARKLINE_ASCII;
}

int sparkline_range(const struct profile *p, size_t rate, double *lo, double *hi)
{
    if (rate >= p->nrates) return -1;
    const struct plot_ctx c = {.p = p, .rate = rate};
    return plot_rate_range(&c, 1, lo, hi);
}

char *sparkline_format(const struct profile_linhist *h, double lo, double hi,
                       enum sparkline_style style, char *buf, size_t len)
{
    uint64_t cells[SPARKLINE_CELLS] = {0}, max = 0;
    double width = (h->hi - h->lo) / (double)h->buckets;
    for (size_t i = 0; hi > lo && i < h->ncounts; i++) {
        double mid = h->lo + ((double)h->counts[i].index + 0.5) * width;
        double k = floor((mid - lo) / (hi - lo) * SPARKLINE_CELLS);
        if (!(k >= 0 && k < SPARKLINE_CELLS)) continue;
        cells[(size_t)k] += h->counts[i].count;
        if (cells[(size_t)k] > max) max = cells[(size_t)k];
    }
    size_t o = 0;
    buf[0] = '\0';
    if (max == 0) {
        snprintf(buf, len, "-");
        return buf;
    }
    for (size_t i = 0; i < SPARKLINE_CELLS; i++) {
        int level = (int)ceil((double)cells[i] / (double)max * LEVELS);
        char one[2] = {ascii_levels[level > 0 ? level - 1 : 0], '\0'};
        const char *c = cells[i] == 0             ? " "
                        : style == SPARKLINE_UTF8 ? utf8_levels[level - 1]
                                                  : one;
        size_t n = strlen(c);
        if (o + n >= len) break;
        memcpy(buf + o, c, n + 1);
        o += n;
    }
    while (o > 0 && buf[o - 1] == ' ') /* blank cells at the end would be trailing blanks */
        buf[--o] = '\0';
    return buf;
}

const char *sparkline_ramp(enum sparkline_style style)
{
    return style == SPARKLINE_UTF8 ? "\xe2\x96\x81\xe2\x96\x82\xe2\x96\x83\xe2\x96\x84\xe2\x96\x85"
                                     "\xe2\x96\x86\xe2\x96\x87\xe2\x96\x88"
                                   : ascii_levels;
}
