/*
 * loss.h -- what a profile did not attribute to the samples' own tag tuples, in one
 * sentence that report, functions, contexts and html print above their tables.
 *
 * Owned by loss.c; reads the profile only.
 */
#ifndef SHIMVIEW_LOSS_H
#define SHIMVIEW_LOSS_H

#include <stddef.h>
#include <stdio.h>

#include "shimview/model/profile.h"

/* The sentence into buf (NUL-terminated, cut to len): 1 when some samples went to
 * `other`, 0 (buf empty) when every attributed sample is its own tuple's. */
int loss_describe(const struct profile *p, char *buf, size_t len);

/* The sentence as a line of f, after "warning: ", when there is one. */
void loss_print(const struct profile *p, FILE *f);

#endif
