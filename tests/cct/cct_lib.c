/*
 * cct_lib.c -- an instrumented shared library (see cct_lib.h). Its hook calls resolve
 * to the program's hooks, so its functions join the calling thread's tree like the
 * program's own, and a callback into the program nests below them.
 */
#include "cct_lib.h"

__attribute__((noinline)) int cct_lib_inner(int (*cb)(int), int x)
{
    return cb(x) + 1;
}

__attribute__((noinline)) int cct_lib_outer(int (*cb)(int), int x)
{
    int r = cct_lib_inner(cb, x);
    return r + cct_lib_inner(cb, x);
}

__attribute__((noinline)) int cct_lib_recurse(int n)
{
    return n == 0 ? 0 : cct_lib_recurse(n - 1) + 1;
}
