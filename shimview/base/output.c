/*
 * output.c -- the files shimview writes, written whole or not at all.
 *
 * A figure or an export goes to a temporary file beside its path ("<path>.XXXXXX.tmp",
 * created exclusively), which is renamed over the path once everything is written and
 * closed. So a write that fails half-way (a full disk, a file size limit, out of memory
 * while drawing) leaves whatever was at the path as it was and nothing else behind, and
 * a symlink at the path is replaced, never followed: the file it points to is neither
 * overwritten nor removed. The mode is the one fopen would give (0666 less the umask).
 *
 * A path that exists and is not a regular file (a terminal, /dev/stdout, a FIFO the
 * user reads from) cannot be replaced by a rename; it is written directly, and never
 * removed.
 *
 * -o means one thing in every command (output_path): the place the output goes, a file
 * or a directory that takes the file under its default name; and the directories a path
 * names are made when they do not exist, so `-o out/run.html` and `-o out/` both work in
 * a fresh tree.
 */
#include "shimview/base/output.h"

#include "shimview/base/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int say(const char *path, int err)
{
    fprintf(stderr, "shimview: %s: %s\n", path, strerror(err ? err : EIO));
    return EXIT_FILE_ERROR;
}

char *output_in_dir(const char *dir, const char *name)
{
    char *path = NULL;
    size_t len = dir ? strlen(dir) : 0;
    int n = !dir || !len ? asprintf(&path, "%s", name)
                         : asprintf(&path, "%s%s%s", dir, dir[len - 1] == '/' ? "" : "/", name);
    return n < 0 ? NULL : path;
}

char *output_path(const char *given, const char *name)
{
    struct stat st;
    if (given && given[0] && given[strlen(given) - 1] != '/' &&
        !(stat(given, &st) == 0 && S_ISDIR(st.st_mode)))
        return strdup(given);
    return output_in_dir(given, name);
}

/* Make the directories above path that do not exist (mkdir -p of its dirname); 0, or
 * EXIT_FILE_ERROR after a line naming the one that could not be made. */
static int make_parents(const char *path)
{
    char *dir = strdup(path);
    if (!dir) return say(path, ENOMEM);
    int rc = 0;
    for (char *p = dir + 1; rc == 0 && (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) rc = say(dir, errno);
        *p = '/';
    }
    free(dir);
    return rc;
}

int output_open(struct output *o, const char *path)
{
    struct stat st;
    *o = (struct output){.path = path};
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return 0;
    }
    if (make_parents(path) != 0) return EXIT_FILE_ERROR;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        if (!(o->f = fopen(path, "we"))) return say(path, errno);
        return 0;
    }
    if (asprintf(&o->tmp, "%s.XXXXXX.tmp", path) < 0) {
        o->tmp = NULL;
        return say(path, ENOMEM);
    }
    int fd = mkostemps(o->tmp, 4, O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        free(o->tmp);
        o->tmp = NULL;
        return say(path, err);
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        int err = errno;
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return say(path, err);
    }
    return 0;
}

int output_close(struct output *o, int failed)
{
    int to_stdout = o->f == stdout;
    int err = ferror(o->f) ? (errno ? errno : EIO) : 0;
    if (to_stdout ? fflush(o->f) != 0 : fclose(o->f) != 0)
        if (!err) err = errno ? errno : EIO;
    o->f = NULL;
    if (!failed && !err && o->tmp && rename(o->tmp, o->path) != 0) err = errno;
    if (o->tmp && (failed || err)) unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    if (failed) return EXIT_FILE_ERROR;
    if (err) return say(to_stdout ? "standard output" : o->path, err);
    return 0;
}

int output_write(const char *path, int (*draw)(FILE *, const void *), const void *arg)
{
    struct output out;
    if (output_open(&out, path) != 0) return EXIT_FILE_ERROR;
    int rc = draw(out.f, arg);
    if (rc != 0)
        fprintf(stderr, "shimview: %s: out of memory while drawing\n",
                out.f == stdout ? "standard output" : path);
    int to_stdout = out.f == stdout;
    if (output_close(&out, rc != 0) != 0) return EXIT_FILE_ERROR;
    if (!to_stdout) printf("%s\n", path);
    return 0;
}
