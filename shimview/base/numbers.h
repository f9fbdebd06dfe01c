/*
 * numbers.h -- how shimview writes a count, the same in every table, note and figure
 * (see numbers.c).
 */
#ifndef SHIMVIEW_NUMBERS_H
#define SHIMVIEW_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* v with thousands separators: 1234567 -> "1,234,567". */
const char *fmt_count(uint64_t v, char *buf, size_t len);

#endif /* SHIMVIEW_NUMBERS_H */
