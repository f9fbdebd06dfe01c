/*
 * files.c -- the files a profile names (its trace, the source files of the compiler
 * pass's views): where to find them, and opening them without trusting what is there.
 *
 * A profile names paths as the program saw them: absolute, or relative to where it ran.
 * Read elsewhere, a relative path is tried as given, then beside the profile. Whatever
 * is found is opened for reading without waiting (a FIFO planted at the path would hang
 * the command) and refused unless it is a regular file.
 */
#include "shimview/model/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *profile_resolve_path(const struct profile *p, const char *given, int from_profile)
{
    const char *slash = strrchr(p->file, '/');
    char *path = NULL;
    if (!from_profile || given[0] == '/' || access(given, F_OK) == 0 || !slash ||
        strcmp(p->file, PROFILE_STDIN_NAME) == 0)
        return strdup(given);
    if (asprintf(&path, "%.*s/%s", (int)(slash - p->file), p->file, given) < 0) return NULL;
    if (access(path, F_OK) == 0) return path;
    free(path);
    return strdup(given); /* neither exists: the message names the path as written */
}

FILE *named_file_open(const char *path, int *err)
{
    struct stat st;
    FILE *f = NULL;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return *err = errno, NULL;
    int flags;
    if (fstat(fd, &st) != 0)
        *err = errno;
    else if (!S_ISREG(st.st_mode))
        *err = NAMED_NOT_REGULAR;
    else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
             !(f = fdopen(fd, "rb")))
        *err = errno;
    if (!f) close(fd);
    return f;
}

const char *named_file_strerror(int err)
{
    return err == NAMED_NOT_REGULAR ? "not a regular file" : strerror(err);
}
