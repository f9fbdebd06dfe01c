/*
 * symtest_sidetable.c -- a shared object that carries a compiler-pass side table made by
 * hand (one record, in the layout of libshim/sidetable.h), for test_symbols. Built twice
 * (tests/CMakeLists.txt): as is, and with the section linked 16 TiB away from the rest,
 * the file that replaces the loaded one in the test of a module rebuilt while the
 * program runs: its section address, added to the loaded module's bias, lies past the
 * end of user address space.
 */
#include "libshim/sidetable.h"

int symtest_sidetable_fn(int x)
{
    return x * 5 + 3;
}

__attribute__((used, section("shim_sidetable"))) static const struct sidetable_record record[] = {
    {SIDETABLE_MAGIC, (const void *)symtest_sidetable_fn, "{}", 2}};
