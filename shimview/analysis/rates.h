/*
 * rates.h -- choosing the rate a view shows (see rates.c).
 */
#ifndef SHIMVIEW_RATES_H
#define SHIMVIEW_RATES_H

#include "shimview/model/profile.h"

#include <stddef.h>

/* The rate drawn when none is asked for: ipc when the profile has it, else its first. */
size_t rates_default(const struct profile *p);

/* The index of the rate named `name` in p, or of the default rate when name is NULL, in
 * *out: 0; or EXIT_USAGE_ERROR after a message for command cmd (no such rate, naming the
 * rates there are). */
int rates_find(const struct profile *p, const char *name, const char *cmd, size_t *out);

#endif /* SHIMVIEW_RATES_H */
