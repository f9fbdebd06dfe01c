/*
 * frames_nofp_unframed.c -- the function of frames_nofp.c built without a frame pointer
 * (-fomit-frame-pointer): the frame pointer its hooks see is its caller's.
 */
#include <x86intrin.h>

extern unsigned long long t_unframed;
void unframed(unsigned n);

static volatile unsigned long sink;

__attribute__((noinline)) void unframed(unsigned n)
{
    unsigned long long t0 = __rdtsc();
    for (unsigned i = 0; i < n; i++)
        sink += i * 3u;
    t_unframed += __rdtsc() - t0;
}
