/*
 * cloexec_check.c -- a preloaded library that watches the files libshim opens: every
 * open of a descriptor by libshim must be close-on-exec ("e" for fopen, O_CLOEXEC for
 * open), or a program that starts another while observing hands it shim's files.
 *
 * It interposes fopen and open (and their 64 and at variants), asks dladdr whether the
 * caller lies in libshim, and writes one line to stderr for each such open without
 * close-on-exec; at exit, how many opens by libshim it saw, so a test knows it watched
 * anything at all. Everything is passed on to the C library's functions unchanged.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long seen;

static int from_libshim(const void *caller)
{
    Dl_info info;
    return dladdr(caller, &info) && info.dli_fname && strstr(info.dli_fname, "libshim.so");
}

static void check(const void *caller, const char *what, const char *path, int cloexec)
{
    if (!from_libshim(caller)) return;
    __atomic_add_fetch(&seen, 1, __ATOMIC_RELAXED);
    if (!cloexec) fprintf(stderr, "cloexec: libshim %s %s without close-on-exec\n", what, path);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "cloexec_check: %lu opens by libshim\n", seen);
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

typedef FILE *(*fopen_fn)(const char *, const char *);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

FILE *fopen(const char *path, const char *mode)
{
    check(__builtin_return_address(0), "fopen", path, strchr(mode, 'e') != NULL);
    return REAL("fopen", fopen_fn)(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
    check(__builtin_return_address(0), "fopen", path, strchr(mode, 'e') != NULL);
    return REAL("fopen64", fopen_fn)(path, mode);
}

/* The mode argument is there only when the flags create a file. */
#define MODE_ARG(flags)                                                                            \
    mode_t mode = 0;                                                                               \
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                                   \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode = (mode_t)va_arg(ap, int);                                                            \
        va_end(ap);                                                                                \
    }

int open(const char *path, int flags, ...)
{
    MODE_ARG(flags);
    check(__builtin_return_address(0), "open", path, flags & O_CLOEXEC);
    return REAL("open", open_fn)(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    MODE_ARG(flags);
    check(__builtin_return_address(0), "open", path, flags & O_CLOEXEC);
    return REAL("open64", open_fn)(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...)
{
    MODE_ARG(flags);
    check(__builtin_return_address(0), "openat", path, flags & O_CLOEXEC);
    return REAL("openat", openat_fn)(dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
    MODE_ARG(flags);
    check(__builtin_return_address(0), "openat", path, flags & O_CLOEXEC);
    return REAL("openat64", openat_fn)(dir, path, flags, mode);
}
