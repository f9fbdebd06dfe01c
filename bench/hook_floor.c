/*
 * hook_floor.c -- what -finstrument-functions hooks can cost at the least, for a hooks
 * runtime that leaves the calling context to the observer's stack walk. Built three
 * ways (HOOK_FLOOR), each a library to preload into a program built with gcc's
 * -finstrument-functions -fno-omit-frame-pointer (bench/realprog/hook_floor.sh), in
 * place of glibc's empty hooks:
 *
 *   1 stores   the entry stores the function's frame and the function; the exit stores
 *              its call site and the caller's frame: two stores a hook, no test, no
 *              state. Not safe as it stands (the exit reads the word at a frame
 *              pointer that code built without frame pointers leaves as anything) and
 *              not a runtime: the caller is named only by an address inside it;
 *   2 checked  the same, with the tests a safe hook needs: the frame inside the
 *              thread's stack and the call site above it, and whether the function
 *              runs inlined into the frame published before (gcc calls the hooks of
 *              inlined functions too);
 *   3 stack    the same, with a stack of (function, frame) pairs per thread so that an
 *              exit publishes its caller's function, as libshim's SHIM_HOOKS=frames
 *              does (with fewer words per pair and none of its care for longjmp and
 *              signal handlers).
 *
 * The words are stored into a thread-local block nobody reads: no observer, so the
 * figures are the hooks' own cost. A measurement, not part of shim.
 */
#include <stdint.h>
#include <stdlib.h>

#ifndef HOOK_FLOOR
#error "build with -DHOOK_FLOOR=1, 2 or 3"
#endif

#define NO_HOOK __attribute__((no_instrument_function, visibility("default")))
#define TLS     __attribute__((tls_model("initial-exec")))

static __thread uint64_t words[8] __attribute__((aligned(64))) TLS;

#if HOOK_FLOOR >= 2
#include <pthread.h>

struct pair {
    uint64_t fn, frame;
};

struct state {
    uint64_t lo, span; /* the thread's stack: a frame f lies inside when f - lo < span */
    struct pair *top;
    struct pair pairs[4096];
};

static __thread struct state *self TLS;

/* The thread's state, with its stack's bounds, made at its first hook. */
__attribute__((noinline, cold, no_instrument_function)) static struct state *state_new(void)
{
    struct state *s = calloc(1, sizeof *s);
    pthread_attr_t a;
    void *lo;
    size_t size;
    if (!s || pthread_getattr_np(pthread_self(), &a)) return s;
    if (!pthread_attr_getstack(&a, &lo, &size)) {
        s->lo = (uint64_t)(uintptr_t)lo;
        s->span = size - 16;
    }
    pthread_attr_destroy(&a);
    s->top = s->pairs;
    self = s;
    return s;
}

__attribute__((no_instrument_function)) static inline int framed(const struct state *s, uint64_t fp,
                                                                 uint64_t site)
{
    return fp - s->lo < s->span && !(fp & 15) && ((const uint64_t *)(uintptr_t)fp)[1] == site;
}
#endif

NO_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    uint64_t fn = (uintptr_t)this_fn, fp = *(const uint64_t *)__builtin_frame_address(0);
#if HOOK_FLOOR == 1
    (void)call_site;
#else
    struct state *s = self;
    if (__builtin_expect(s == NULL, 0) && (s = state_new()) == NULL) return;
    if (!framed(s, fp, (uintptr_t)call_site))
        fp = 0;
    else if (fp == (words[1] & ~(uint64_t)15))
        fp |= 1; /* inlined into the frame published before */
#if HOOK_FLOOR == 3
    if (__builtin_expect(s->top < &s->pairs[4095], 1)) {
        s->top++;
        s->top->fn = fn;
        s->top->frame = fp;
    }
#endif
#endif
    __atomic_store_n(&words[1], fp, __ATOMIC_RELAXED);
    __atomic_store_n(&words[0], fn, __ATOMIC_RELEASE);
}

NO_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    uint64_t xfp = *(const uint64_t *)__builtin_frame_address(0), fn = (uintptr_t)call_site, fp;
#if HOOK_FLOOR == 1
    (void)this_fn;
    fp = *(const uint64_t *)(uintptr_t)xfp;
#else
    struct state *s = self;
    if (s == NULL) return;
    if (words[1] & 1)
        fp = xfp; /* an inlined function leaves: its frame is its host's */
    else
        fp = framed(s, xfp, (uintptr_t)call_site) ? *(const uint64_t *)(uintptr_t)xfp : 0;
#if HOOK_FLOOR == 3
    if (__builtin_expect(s->top > s->pairs && s->top->fn == (uintptr_t)this_fn, 1)) {
        s->top--;
        fn = s->top->fn;
        fp = s->top->frame;
    }
#else
    (void)this_fn;
#endif
#endif
    __atomic_store_n(&words[0], fn, __ATOMIC_RELAXED);
    __atomic_store_n(&words[1], fp, __ATOMIC_RELEASE);
}
