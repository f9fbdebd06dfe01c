/*
 * files.h -- the files a profile names, found and opened safely (see files.c).
 */
#ifndef SHIMVIEW_FILES_H
#define SHIMVIEW_FILES_H

#include "shimview/model/profile.h"

#include <stdio.h>

/* Open for reading a file a profile names (a trace, a source file). Whatever is at the
 * path, this never waits (a FIFO planted there would hang the command), and what is not
 * a regular file is refused: the stream, or NULL with *err an errno or
 * NAMED_NOT_REGULAR, which named_file_strerror() words. */
#define NAMED_NOT_REGULAR (-1)
FILE *named_file_open(const char *path, int *err);
const char *named_file_strerror(int err);

/* A path a profile names (a trace, a source file), to be read: as given when it exists,
 * is absolute, or is not from_profile (the user typed it), else in the profile's
 * directory when it exists there. Allocated; NULL if memory ran out. */
char *profile_resolve_path(const struct profile *p, const char *given, int from_profile);

#endif /* SHIMVIEW_FILES_H */
