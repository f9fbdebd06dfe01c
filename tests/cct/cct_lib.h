/*
 * cct_lib.h -- an instrumented shared library for test_cct_library (cct_lib.c).
 */
#ifndef SHIM_TESTS_CCT_LIB_H
#define SHIM_TESTS_CCT_LIB_H

/* Calls cb(x) through cct_lib_inner, from two call sites; returns the sum of both + 2. */
int cct_lib_outer(int (*cb)(int), int x);
int cct_lib_inner(int (*cb)(int), int x);

/* Recurses n deep; returns n. */
int cct_lib_recurse(int n);

#endif
