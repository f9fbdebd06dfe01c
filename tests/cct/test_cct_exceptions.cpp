/*
 * test_cct_exceptions.cpp -- C++ exceptions leave instrumented frames. g++ calls the
 * exit hooks of the frames it unwinds (they are cleanups), so the catching function is
 * current as soon as the handler runs; clang++ does not, and the frames are recognised
 * as left at the next entry or exit. Either way the next call is a child of the catcher
 * and the catcher is current after it. Plain checks, no cmocka: exits 1 on a failure.
 */
#include <cstdio>
#include <stdexcept>

extern "C" {
#include "cct_check.h"
}

#define NOINLINE_CXX __attribute__((noinline))

static int failures;

static void expect(bool ok, const char *what)
{
    if (!ok) {
        failures++;
        std::printf("FAIL: %s\n", what);
    }
}

NOINLINE_CXX static void thrower(int n)
{
    expect(check_here_quiet((void *)thrower), "thrower is current");
    if (n == 0) throw std::runtime_error("from deep down");
    thrower(n - 1);
}

NOINLINE_CXX static void middle(int n)
{
    thrower(n);
}

static uint32_t child_node;
NOINLINE_CXX static void child()
{
    child_node = check_node();
}

NOINLINE_CXX static void catcher()
{
    uint32_t me = check_node();
    expect(check_here_quiet((void *)catcher), "catcher is current");
    try {
        middle(50);
    } catch (const std::exception &) {
#if defined(__GNUC__) && !defined(__clang__)
        expect(check_here_quiet((void *)catcher) && check_node() == me,
               "g++ unwinds through the exit hooks: catcher current in its handler");
#endif
    }
    child();
    const struct cct_node *nodes = cct_arena_nodes(cct_arena_self());
    expect(nodes[child_node].fn == FN(child) && nodes[child_node].parent == me,
           "the call after the catch is the catcher's child");
    expect(check_here_quiet((void *)catcher) && check_node() == me,
           "catcher current after that call");
}

NOINLINE_CXX static void run()
{
    uint32_t me = check_node();
    catcher();
    expect(check_here_quiet((void *)run) && check_node() == me, "run current at the end");
    for (int i = 0; i < 3; i++)
        catcher(); /* the same contexts again */
    expect(check_here_quiet((void *)run) && check_node() == me, "run current again");
}

int main()
{
    check_attach();
    run();
    expect(check_tree(cct_arena_self()) > CCT_NODE_FIRST, "a well-formed tree");
    std::printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
    return failures != 0;
}
