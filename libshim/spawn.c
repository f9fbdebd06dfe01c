/*
 * spawn.c -- a program started from a thread shim pinned gets the thread's own CPU
 * affinity, not shim's.
 *
 * A new process inherits the affinity mask of the thread that starts it, and keeps it
 * for life: a shell started with system() from the observed thread would run on the
 * observed CPU alone, and so would everything it starts. fork() is handled by the fork
 * hooks (lifecycle.c). The other ways a program starts another do not run them: exec
 * replaces the process in place, and the C library's posix_spawn, system and popen
 * clone a child that execs at once. libshim therefore defines these functions, which
 * the dynamic linker binds in place of the C library's as it does pthread_create
 * (threads.c): each gives the calling thread its own mask back (only if shim changed
 * it, and it is still shim's), calls the C library's, and, where the call returns,
 * pins the thread again. While a system() runs, the thread waits for the shell and is
 * not pinned; its own mask is what the shell inherits.
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "shim.h"
#include "libshim/internal.h"
#include "libshim/threads.h"

extern char **environ;

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

/* Around one call: the calling thread's own mask, then shim's again. */
struct unpinned {
    int moved;
    cpu_set_t shims;
};

static struct unpinned unpin(void)
{
    struct unpinned u;
    u.moved = attach_spawn_begin(&u.shims);
    return u;
}

static void repin(const struct unpinned *u)
{
    int saved = errno;
    if (u->moved) attach_spawn_end(&u->shims);
    errno = saved;
}

/* The C library's call, with the thread's own mask around it. */
#define AROUND(type, call)                                                                         \
    struct unpinned u_ = unpin();                                                                  \
    type r_ = call;                                                                                \
    repin(&u_);                                                                                    \
    return r_

SHIM_API int execve(const char *path, char *const argv[], char *const envp[])
{
    AROUND(int, NEXT(execve)(path, argv, envp));
}

SHIM_API int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

SHIM_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
    AROUND(int, NEXT(execvpe)(file, argv, envp));
}

SHIM_API int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

SHIM_API int fexecve(int fd, char *const argv[], char *const envp[])
{
    AROUND(int, NEXT(fexecve)(fd, argv, envp));
}

/* execl, execlp, execle: their arguments as an argv (and envp after the NULL). */
#define VARARGS_ARGV(first, last, argv)                                                            \
    size_t n_ = 1;                                                                                 \
    va_list ap_;                                                                                   \
    va_start(ap_, first);                                                                          \
    while (va_arg(ap_, const char *))                                                              \
        n_++;                                                                                      \
    va_end(ap_);                                                                                   \
    char *argv[n_ + 1];                                                                            \
    argv[0] = (char *)(first);                                                                     \
    va_start(ap_, first);                                                                          \
    for (size_t i_ = 1; i_ <= n_; i_++)                                                            \
        argv[i_] = va_arg(ap_, char *);                                                            \
    last;                                                                                          \
    va_end(ap_)

SHIM_API int execl(const char *path, const char *arg, ...)
{
    VARARGS_ARGV(arg, (void)0, argv);
    return execve(path, argv, environ);
}

SHIM_API int execlp(const char *file, const char *arg, ...)
{
    VARARGS_ARGV(arg, (void)0, argv);
    return execvpe(file, argv, environ);
}

SHIM_API int execle(const char *path, const char *arg, ...)
{
    char *const *envp;
    VARARGS_ARGV(arg, envp = va_arg(ap_, char *const *), argv);
    return execve(path, argv, envp);
}

SHIM_API int posix_spawn(pid_t *restrict pid, const char *restrict path,
                         const posix_spawn_file_actions_t *actions,
                         const posix_spawnattr_t *restrict attr, char *const argv[restrict],
                         char *const envp[restrict])
{
    AROUND(int, NEXT(posix_spawn)(pid, path, actions, attr, argv, envp));
}

SHIM_API int posix_spawnp(pid_t *restrict pid, const char *restrict file,
                          const posix_spawn_file_actions_t *actions,
                          const posix_spawnattr_t *restrict attr, char *const argv[restrict],
                          char *const envp[restrict])
{
    AROUND(int, NEXT(posix_spawnp)(pid, file, actions, attr, argv, envp));
}

SHIM_API int system(const char *command)
{
    AROUND(int, NEXT(system)(command));
}

SHIM_API FILE *popen(const char *command, const char *mode)
{
    AROUND(FILE *, NEXT(popen)(command, mode));
}
