/*
 * symtest_lib.c -- the shared object test_symbols loads with dlopen: one exported
 * function, one static function, and a way to reach the static one's address. Built
 * four times (tests/CMakeLists.txt): as is, stripped of .symtab, without a build id, and
 * once more to be loaded late.
 *
 * The static function is defined after the exported ones, and built in source order, so
 * that it lies after them: in the stripped copy an exported function of known size then
 * precedes it, and the lookup must not lend it that function's name.
 */
#include <stdint.h>

static int symtest_lib_hidden(int x);

int symtest_lib_exported(int x)
{
    return x * 3 + 2;
}

void *symtest_lib_hidden_addr(void)
{
    return (void *)(uintptr_t)symtest_lib_hidden;
}

/* Its address must stay a function of its own: no inlining, kept although only its
 * address is taken. */
__attribute__((noinline, used)) static int symtest_lib_hidden(int x)
{
    return x * 7 + 1;
}
