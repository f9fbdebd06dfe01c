/*
 * cct_check.h -- what the calling-context tests share (cct_check.c, compiled without
 * -finstrument-functions, so calling these helpers is no call as far as the tree knows:
 * the slots and the current node stay those of the instrumented caller).
 */
#ifndef SHIM_TESTS_CCT_CHECK_H
#define SHIM_TESTS_CCT_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "signals/cct.h"

/* Keeps the call structure of a test what its source says at -O1. */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

/* A function pointer as the hooks see it. */
#define FN(f) ((uint64_t)(uintptr_t)(f))

/* Gives the calling thread a real signal block, so the hooks store slots 8 and 9, and
 * republishes them, as shim_start() does. */
void check_attach(void);

/* Installs handler for signal sig with sigaction flags, no signal blocked while it runs
 * but sig itself; fails the test where it cannot. */
void check_install(int sig, void (*handler)(int), int flags);

/* The calling thread's arena (fails the test when it has none) and its nodes. */
const struct cct_arena *check_arena(void);
const struct cct_node *check_node_at(uint32_t id);

/* The node of the calling thread's current context. */
uint32_t check_node(void);

/* Fails unless slot 8 of the thread's block names fn, slot 9 equals cct_current(), and
 * the current node is fn's (or the overflow node). Returns the current node. */
#define check_here(fn) check_here_((void *)(fn), #fn, __FILE__, __LINE__)
uint32_t check_here_(void *fn, const char *name, const char *file, int line);

/* The same without cmocka, for signal handlers: nonzero when it holds. */
int check_here_quiet(void *fn);

/* Whole-tree invariants of an arena: every parent id below its child's, depth = the
 * parent's + 1, no function twice on any chain (recursion folded), no two children of
 * one node with the same (fn, call_site). Returns the node count checked. */
uint32_t check_tree(const struct cct_arena *a);

/* Nodes in the subtree of `id` (itself included); *max_depth gets the deepest depth. */
uint32_t check_subtree(const struct cct_arena *a, uint32_t id, uint32_t *max_depth);

/* Children of `parent` whose function is fn; the first one's id in *first (0: none). */
uint32_t check_children(const struct cct_arena *a, uint32_t parent, uint64_t fn, uint32_t *first);

#endif
