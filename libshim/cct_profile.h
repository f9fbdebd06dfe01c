/*
 * cct_profile.h -- the calling-context members of a profile (modules, functions, cct).
 */
#ifndef SHIM_LIBSHIM_CCT_PROFILE_H
#define SHIM_LIBSHIM_CCT_PROFILE_H

#include <jansson.h>

/* When the program ran instrumented code (-finstrument-functions), add `modules`,
 * `functions` and `cct` to the profile's root; `text` makes a JSON string of program-
 * supplied text (UTF-8 sanitised). 0, or -1 out of memory (nothing added). */
int cct_profile_add(json_t *root, json_t *(*text)(const char *));

#endif
