/*
 * symtest_probe.c -- a program that symbolises two of its own functions and prints what
 * symbols_lookup() said, for test_symbols to hold against readelf and nm. Built as a PIE
 * and as a non-PIE executable, each also stripped (tests/CMakeLists.txt); linked with
 * -rdynamic so that its global functions are in .dynsym and a stripped copy can still
 * name them.
 *
 * Output, one line per function:
 *   <label> addr=<hex> rc=<0|-1> module=<path> build_id=<hex> offset=<hex> name=<name|->
 *           sym_offset=<n>
 * and `maps_base=<hex>`: the lowest address /proc/self/maps shows for the executable's
 * file, which for these executables (first PT_LOAD at file offset 0) is where its first
 * segment starts: the load bias of a PIE, and the link address of a non-PIE.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libshim/symbols.h"

__attribute__((noinline, used)) static int hidden_fn(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) int symtest_probe_global(int x)
{
    return hidden_fn(x) + 1;
}

static void report(struct symbols *s, const char *label, uint64_t addr)
{
    struct symbol_info si = {0};
    int rc = symbols_lookup(s, addr, &si);
    printf("%s addr=%" PRIx64 " rc=%d module=%s build_id=%s offset=%" PRIx64
           " name=%s sym_offset=%" PRIu64 "\n",
           label, addr, rc, rc == 0 ? si.module_path : "-",
           rc == 0 && si.build_id[0] ? si.build_id : "-", si.offset, si.name ? si.name : "-",
           si.sym_offset);
}

static uint64_t maps_base(void)
{
    char exe[PATH_MAX], line[PATH_MAX + 128];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *f = fopen("/proc/self/maps", "r");
    if (n <= 0 || !f) return 0;
    exe[n] = 0;
    uint64_t lowest = UINT64_MAX;
    while (fgets(line, sizeof line, f)) {
        unsigned long long start;
        char *path = strchr(line, '/');
        if (!path || sscanf(line, "%llx-", &start) != 1) continue;
        path[strcspn(path, "\n")] = 0;
        if (strcmp(path, exe) == 0 && start < lowest) lowest = start;
    }
    fclose(f);
    return lowest;
}

int main(void)
{
    struct symbols *s = symbols_open();
    if (!s) return 1;
    report(s, "global", (uint64_t)(uintptr_t)symtest_probe_global);
    report(s, "hidden", (uint64_t)(uintptr_t)hidden_fn);
    report(s, "inside", (uint64_t)(uintptr_t)symtest_probe_global + 1);
    printf("maps_base=%" PRIx64 "\n", maps_base());
    symbols_close(s);
    return symtest_probe_global(0) == 2 ? 0 : 1;
}
