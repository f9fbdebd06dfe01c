/*
 * threads.c -- threads the program creates while it is observed attach themselves.
 *
 * libshim defines pthread_create, which the dynamic linker binds in place of the C
 * library's for every object loaded after libshim (a program that links -lshim, or
 * runs under shimrun's preload). While shim is observing, the new thread runs a small
 * start routine first: shim_thread_attach() (attach.c), which gives it a signal
 * block of its own, its path ring and its calling-context slots, then the program's
 * routine. A thread that exits gives its block back (signal_block.c). Threads that
 * existed before shim_start() call shim_thread_attach() themselves.
 *
 * shim's own threads come through threads_create_internal() and are never attached.
 * The C library's pthread_create is found once with dlsym(RTLD_NEXT). Sanitizer
 * runtimes interpose pthread_create themselves and must run their own start routine
 * before any instrumented code of the new thread; in sanitizer builds libshim therefore
 * defines no pthread_create of its own, and threads attach with shim_thread_attach().
 */
#include "libshim/internal.h"
#include "libshim/threads.h"

#include <dlfcn.h>
#include <stdlib.h>

#include "shim.h"

#ifndef SHIM_NO_THREAD_WRAP
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static create_fn real_create(void)
{
    static create_fn real;
    create_fn f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!f) f = (create_fn)dlsym(RTLD_DEFAULT, "pthread_create");
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    return f;
}
#endif

int threads_create_internal(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                            void *arg)
{
#ifdef SHIM_NO_THREAD_WRAP
    return pthread_create(t, attr, fn, arg);
#else
    return real_create()(t, attr, fn, arg);
#endif
}

#ifndef SHIM_NO_THREAD_WRAP
struct start {
    void *(*fn)(void *);
    void *arg;
    int inherits;  /* the creator's mask is shim's, and attr names none */
    cpu_set_t own; /* then the creator's own, which the new thread takes */
};

/* The thread's name as it leaves (programs name their threads after creating them). */
static void leaving(void *unused)
{
    (void)unused;
    attach_thread_leaving();
}

/* A cancel the program sent at once waits until the attachment is done and the
 * cleanup handler is in place, then acts at the routine's first cancellation point; a
 * thread that ends either way gives its block back (the key's destructor in
 * signal_block.c). */
static void *start_attached(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    void *ret;
    pthread_cleanup_push(leaving, NULL);
    attach_thread(s.inherits ? &s.own : NULL);
    pthread_setcancelstate(cancel, NULL);
    ret = s.fn(s.arg);
    pthread_cleanup_pop(1);
    return ret;
}

SHIM_API int pthread_create(pthread_t *restrict t, const pthread_attr_t *restrict attr,
                            void *(*fn)(void *), void *restrict arg)
{
    create_fn real = real_create();
    struct start *s;
    if (!shim_running() || !(s = malloc(sizeof *s))) return real(t, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    /* A new thread inherits its creator's mask: where that is shim's pin and the program
     * named no mask of its own (glibc reads an attr without one as every CPU), the new
     * thread's own mask is the creator's own */
    cpu_set_t named;
    int names = attr && pthread_attr_getaffinity_np(attr, sizeof named, &named) == 0 &&
                CPU_COUNT(&named) < CPU_SETSIZE;
    s->inherits = !names && attach_own_affinity(&s->own);
    int err = real(t, attr, start_attached, s);
    if (err) free(s);
    return err;
}
#endif
