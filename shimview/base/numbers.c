/*
 * numbers.c -- counts as people read them: digits in groups of three, so that 1234567
 * and 123456 are told apart at a glance in a column. Used by every layer that writes a
 * count for a reader (tables, notes, legends); CSV keeps plain digits.
 */
#include "shimview/base/numbers.h"

#include <inttypes.h>
#include <stdio.h>

const char *fmt_count(uint64_t v, char *buf, size_t len)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}
