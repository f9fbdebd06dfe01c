/*
 * test_symbols.c -- specifies symbolisation (libshim/symbols.{h,c}): a runtime function
 * address becomes its module's file, the offset inside it (the ELF virtual address:
 * address minus load bias), the module's GNU build id and the function's name.
 *
 * The expected values come from outside the code under test: `readelf -n` for build ids,
 * `readelf -s` for symbol values and sizes, /proc/self/maps for where an executable was
 * loaded. Cases: this test program's global and static functions (and every function
 * symbol it has), an address inside a function, data, addresses in no module, a shared
 * object loaded with dlopen, the same object stripped of .symtab (exported functions
 * still named from .dynsym, a static function not named at all rather than misnamed),
 * one without a build id, one whose file was replaced after loading (its names, and its
 * compiler-pass side table, are not read), a system library,
 * and helper programs built as PIE and as non-PIE executables, each also stripped
 * (tests/symbols/symtest_probe.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libshim/sidetable.h"
#include "libshim/symbols.h"

#ifndef SYMTEST_READELF
#define SYMTEST_READELF "readelf"
#endif

/* ---- functions and data of this program to look up ---- */

__attribute__((noinline)) int symtest_global_fn(int x)
{
    return x * 5 + 3;
}

__attribute__((noinline, used)) static void hidden_fn(void)
{
    __asm__ volatile("" ::: "memory");
}

int symtest_data_word = 42;

/* Symbols as hand-written assembly leaves them: one of unknown size (no .size), and a
 * function of 16 bytes with a 4-byte function symbol nested inside it at +4. Never
 * called, only looked up. */
__asm__(".pushsection .text\n"
        ".globl symtest_unsized\n.type symtest_unsized, @function\n"
        "symtest_unsized:\n\tnop\n\tnop\n\tnop\n\tret\n"
        ".globl symtest_outer\n.type symtest_outer, @function\n"
        "symtest_outer:\n\t.fill 4, 1, 0x90\n"
        ".globl symtest_inner\n.type symtest_inner, @function\n"
        "symtest_inner:\n\t.fill 4, 1, 0x90\n.size symtest_inner, 4\n"
        "\t.fill 7, 1, 0x90\n\tret\n.size symtest_outer, 16\n"
        ".popsection\n");
extern const char symtest_unsized[], symtest_outer[], symtest_inner[];

static uint64_t addr_of(void (*f)(void))
{
    return (uint64_t)(uintptr_t)f;
}

/* ---- what readelf says ---- */

static char *run(const char *fmt, ...)
{
    char cmd[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
    }
    out[len] = 0;
    assert_int_equal(pclose(p), 0);
    return out;
}

/* The build id `readelf -n` prints, "" when it prints none. */
static char *readelf_build_id(const char *file)
{
    char *out = run("%s -n '%s'", SYMTEST_READELF, file);
    const char *p = strstr(out, "Build ID: ");
    char *id = strdup("");
    if (p) {
        p += strlen("Build ID: ");
        free(id);
        id = strndup(p, strspn(p, "0123456789abcdef"));
    }
    free(out);
    return id;
}

struct elf_func {
    uint64_t value, size;
    char name[1024]; /* C++ names in a sanitizer's runtime run long */
};

/* The defined function symbols `readelf -sW` lists (both tables), versions cut off. */
static struct elf_func *readelf_functions(const char *file, size_t *n)
{
    char *out = run("%s -sW '%s'", SYMTEST_READELF, file);
    size_t cap = 1024;
    struct elf_func *f = malloc(cap * sizeof *f);
    *n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char value[32], size[32], type[32], bind[32], vis[32], ndx[32], name[1024];
        int k = sscanf(line, " %*[0-9]: %31s %31s %31s %31s %31s %31s %1023s", value, size, type,
                       bind, vis, ndx, name);
        if (k != 7 || (strcmp(type, "FUNC") && strcmp(type, "IFUNC")) || !strcmp(ndx, "UND"))
            continue;
        if (*n == cap) f = realloc(f, (cap *= 2) * sizeof *f);
        name[strcspn(name, "@")] = 0;
        f[*n].value = strtoull(value, NULL, 16);
        f[*n].size = strtoull(size, NULL, 0);
        snprintf(f[*n].name, sizeof f[*n].name, "%s", name);
        ++*n;
    }
    free(out);
    return f;
}

/* Function `name` of `file`; fails the test when it has none. */
static struct elf_func readelf_function(const char *file, const char *name)
{
    size_t n;
    struct elf_func *f = readelf_functions(file, &n), found;
    for (size_t i = 0; i < n; i++)
        if (strcmp(f[i].name, name) == 0) {
            found = f[i];
            free(f);
            return found;
        }
    fail_msg("%s has no function %s", file, name);
    return (struct elf_func){0};
}

static uint64_t readelf_value(const char *file, const char *name)
{
    return readelf_function(file, name).value;
}

static uint64_t readelf_size(const char *file, const char *name)
{
    return readelf_function(file, name).size;
}

static int has_section(const char *file, const char *section)
{
    char *out = run("%s -SW '%s'", SYMTEST_READELF, file);
    char needle[64];
    snprintf(needle, sizeof needle, " %s ", section);
    int found = strstr(out, needle) != NULL;
    free(out);
    return found;
}

static char *real(const char *path)
{
    char *r = realpath(path, NULL);
    assert_non_null(r);
    return r;
}

/* Looks `addr` up and expects it in module `path` (NULL: any module) at `offset`, in the
 * function `name`, `sym_offset` bytes after its start (name NULL: in no function). */
static struct symbol_info expect(struct symbols *s, uint64_t addr, const char *path,
                                 uint64_t offset, const char *name, uint64_t sym_offset)
{
    struct symbol_info si;
    assert_int_equal(symbols_lookup(s, addr, &si), 0);
    if (path) assert_string_equal(si.module_path, path);
    assert_int_equal(si.offset, offset);
    if (name) {
        assert_non_null(si.name);
        assert_string_equal(si.name, name);
    } else {
        assert_null(si.name);
    }
    assert_int_equal(si.sym_offset, sym_offset);
    return si;
}

/* ---- this program ---- */

/* Where this program was loaded, by readelf: 0 unless it is a PIE. */
static uint64_t exe_bias(void)
{
    char *exe = real("/proc/self/exe");
    uint64_t bias =
        (uint64_t)(uintptr_t)symtest_global_fn - readelf_value(exe, "symtest_global_fn");
    free(exe);
    return bias;
}

static void global_function_of_the_executable(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    assert_non_null(s);
    char *exe = real("/proc/self/exe");
    char *id = readelf_build_id(exe);
    assert_true(strlen(id) >= 16);

    uint64_t addr = (uint64_t)(uintptr_t)symtest_global_fn;
    struct symbol_info si =
        expect(s, addr, exe, readelf_value(exe, "symtest_global_fn"), "symtest_global_fn", 0);
    assert_string_equal(si.build_id, id);

    /* the executable is the first module, and its base is the load bias */
    struct symbol_module m;
    assert_int_equal(si.module, 0);
    assert_int_equal(symbols_module(s, 0, &m), 0);
    assert_string_equal(m.path, exe);
    assert_string_equal(m.build_id, id);
    assert_int_equal(m.base, addr - si.offset);
    assert_int_equal(symbols_module(s, symbols_module_count(s), &m), -1);
    free(id);
    free(exe);
    symbols_close(s);
}

static void static_function_of_the_executable(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    char *exe = real("/proc/self/exe");
    expect(s, addr_of(hidden_fn), exe, readelf_value(exe, "hidden_fn"), "hidden_fn", 0);
    free(exe);
    symbols_close(s);
}

static void address_inside_a_function(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    struct symbol_info start;
    uint64_t addr = (uint64_t)(uintptr_t)symtest_global_fn;
    assert_int_equal(symbols_lookup(s, addr, &start), 0);
    expect(s, addr + 3, start.module_path, start.offset + 3, "symtest_global_fn", 3);
    symbols_close(s);
}

/* Every function symbol of this program, at its start and in its middle, comes back
 * with its own name (or an alias at the same address) -- thousands of lookups. */
static void every_function_of_the_executable(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    char *exe = real("/proc/self/exe");
    size_t n;
    struct elf_func *f = readelf_functions(exe, &n);
    assert_true(n > 20);
    uint64_t bias = exe_bias();
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (f[i].size == 0) continue;
        for (uint64_t at = 0; at < f[i].size; at += f[i].size / 2 + 1) {
            struct symbol_info si;
            assert_int_equal(symbols_lookup(s, bias + f[i].value + at, &si), 0);
            assert_non_null(si.name);
            assert_int_equal(si.offset, f[i].value + at);
            /* the name given is a function holding the offset */
            int holds = 0;
            for (size_t j = 0; j < n && !holds; j++)
                holds = f[j].value == si.offset - si.sym_offset &&
                        si.sym_offset < (f[j].size ? f[j].size : 1) &&
                        strcmp(f[j].name, si.name) == 0;
            if (!holds)
                fail_msg("%s+%" PRIu64 " named %s+%" PRIu64, f[i].name, at, si.name, si.sym_offset);
            checked++;
        }
    }
    assert_true(checked > 20);
    free(f);
    free(exe);
    symbols_close(s);
}

/* A symbol of unknown size names what follows it up to the next symbol; in a function
 * with a nested symbol, an address past the nested one belongs to the outer function. */
static void unsized_and_nested_symbols(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    uint64_t unsized = (uint64_t)(uintptr_t)symtest_unsized;
    uint64_t outer = (uint64_t)(uintptr_t)symtest_outer;
    uint64_t inner = (uint64_t)(uintptr_t)symtest_inner;
    assert_int_equal(outer, unsized + 4);
    assert_int_equal(inner, outer + 4);

    uint64_t bias = exe_bias();
    expect(s, unsized + 2, NULL, unsized + 2 - bias, "symtest_unsized", 2);
    expect(s, outer + 2, NULL, outer + 2 - bias, "symtest_outer", 2);
    expect(s, inner + 3, NULL, inner + 3 - bias, "symtest_inner", 3);
    expect(s, outer + 12, NULL, outer + 12 - bias, "symtest_outer", 12);
    symbols_close(s);
}

static void data_is_in_the_module_but_no_function(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    struct symbol_info si;
    assert_int_equal(symbols_lookup(s, (uint64_t)(uintptr_t)&symtest_data_word, &si), 0);
    assert_int_equal(si.module, 0);
    assert_null(si.name);
    assert_int_equal(si.sym_offset, 0);
    symbols_close(s);
}

static void addresses_in_no_module(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    struct symbol_info si;
    assert_int_equal(symbols_lookup(s, 0, &si), -1);
    assert_int_equal(symbols_lookup(s, 0x10, &si), -1);
    assert_int_equal(symbols_lookup(s, UINT64_MAX, &si), -1);
    void *page = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(page != MAP_FAILED);
    assert_int_equal(symbols_lookup(s, (uint64_t)(uintptr_t)page + 16, &si), -1);
    munmap(page, 4096);
    assert_int_equal(symbols_lookup(NULL, (uint64_t)(uintptr_t)symtest_global_fn, &si), -1);
    symbols_close(s);
    symbols_close(NULL);
}

/* ---- shared objects ---- */

struct loaded {
    void *handle;
    uint64_t exported, hidden;
};

static struct loaded load(const char *path)
{
    struct loaded l;
    l.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!l.handle) fail_msg("dlopen %s: %s", path, dlerror());
    void *exported = dlsym(l.handle, "symtest_lib_exported");
    void *(*hidden_addr)(void) =
        (void *(*)(void))(uintptr_t)dlsym(l.handle, "symtest_lib_hidden_addr");
    assert_non_null(exported);
    assert_non_null(hidden_addr);
    l.exported = (uint64_t)(uintptr_t)exported;
    l.hidden = (uint64_t)(uintptr_t)hidden_addr();
    return l;
}

static void library_loaded_with_dlopen(void **state)
{
    (void)state;
    struct loaded l = load(SYMTEST_LIB);
    struct symbols *s = symbols_open();
    char *lib = real(SYMTEST_LIB);
    char *id = readelf_build_id(lib);
    assert_true(strlen(id) >= 16);

    struct symbol_info e = expect(s, l.exported, lib, readelf_value(lib, "symtest_lib_exported"),
                                  "symtest_lib_exported", 0);
    assert_string_equal(e.build_id, id);
    assert_true(e.module > 0);
    struct symbol_info h =
        expect(s, l.hidden, lib, readelf_value(lib, "symtest_lib_hidden"), "symtest_lib_hidden", 0);
    assert_int_equal(h.module, e.module);

    struct symbol_module m;
    assert_int_equal(symbols_module(s, e.module, &m), 0);
    assert_string_equal(m.path, lib);
    assert_int_equal(m.base, l.exported - e.offset);
    assert_int_equal(m.base, l.hidden - h.offset);
    free(id);
    free(lib);
    symbols_close(s);
    dlclose(l.handle);
}

/* Without .symtab, .dynsym still names exported functions; the static function gets no
 * name -- not the name of the exported function before it. */
static void stripped_library(void **state)
{
    (void)state;
    char *lib = real(SYMTEST_LIB_STRIPPED);
    assert_false(has_section(lib, ".symtab"));
    assert_true(has_section(lib, ".dynsym"));
    struct loaded l = load(lib);
    struct symbols *s = symbols_open();

    struct symbol_info e = expect(s, l.exported, lib, readelf_value(lib, "symtest_lib_exported"),
                                  "symtest_lib_exported", 0);
    /* what makes the case: an exported function lies before the static one */
    assert_true(l.exported + readelf_size(lib, "symtest_lib_exported") <= l.hidden);
    struct symbol_info h = expect(s, l.hidden, lib, l.hidden - (l.exported - e.offset), NULL, 0);

    char *id = readelf_build_id(lib);
    assert_string_equal(h.build_id, id);
    free(id);
    free(lib);
    symbols_close(s);
    dlclose(l.handle);
}

static void library_without_build_id(void **state)
{
    (void)state;
    char *lib = real(SYMTEST_LIB_NOID);
    char *id = readelf_build_id(lib);
    assert_string_equal(id, "");
    struct loaded l = load(lib);
    struct symbols *s = symbols_open();
    struct symbol_info h =
        expect(s, l.hidden, lib, readelf_value(lib, "symtest_lib_hidden"), "symtest_lib_hidden", 0);
    assert_string_equal(h.build_id, "");
    free(id);
    free(lib);
    symbols_close(s);
    dlclose(l.handle);
}

/* Copies the file `from` to a new temporary directory `dir` (a "/tmp/...XXXXXX"
 * template) as `name`; its path goes into lib. */
static void temp_copy(char *dir, const char *from, const char *name, char lib[PATH_MAX])
{
    assert_non_null(mkdtemp(dir));
    snprintf(lib, PATH_MAX, "%s/%s", dir, name);
    free(run("cp '%s' '%s'", from, lib));
}

/* A module's file replaced after it was loaded (a rebuild): its symbols would name the
 * wrong functions, so there are none; the build id is still the loaded one. */
static void replaced_file_gives_no_names(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_symbols.XXXXXX", lib[PATH_MAX];
    temp_copy(dir, SYMTEST_LIB, "libreplaced.so", lib);
    struct loaded l = load(lib);
    char *id = readelf_build_id(lib);
    /* rename, not overwrite: the mapped pages must keep the loaded contents */
    free(run("cp '%s' '%s.new' && mv '%s.new' '%s'", SYMTEST_LIB_RENAMED, lib, lib, lib));
    char *new_id = readelf_build_id(lib);
    assert_string_not_equal(id, new_id);
    /* the new file has a function, under another name, where the loaded one had its own */
    assert_int_equal(readelf_value(lib, "renamed_exported"),
                     readelf_value(SYMTEST_LIB, "symtest_lib_exported"));

    struct symbols *s = symbols_open();
    struct symbol_info si =
        expect(s, l.exported, lib, readelf_value(SYMTEST_LIB, "symtest_lib_exported"), NULL, 0);
    assert_string_equal(si.build_id, id);
    symbols_close(s);
    dlclose(l.handle);
    free(run("rm -r '%s'", dir));
    free(id);
    free(new_id);
}

/* A module built with the compiler pass whose file is rebuilt while the program runs:
 * the new file's section headers place its side table elsewhere (here past the end of
 * user address space, added to the loaded module's bias), so reading the table there
 * crashed the profile writer at exit. The table is not read, and it is counted. */
static void replaced_file_gives_no_side_table(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_symbols.XXXXXX", lib[PATH_MAX];
    temp_copy(dir, SYMTEST_SIDETABLE, "libsidetable.so", lib);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) fail_msg("dlopen %s: %s", lib, dlerror());
    uint64_t fn = (uint64_t)(uintptr_t)dlsym(h, "symtest_sidetable_fn");
    assert_true(fn != 0);

    struct sidetable st;
    assert_int_equal(sidetable_open(&st), 0);
    assert_non_null(sidetable_lookup(&st, fn));
    assert_int_equal(st.stale, 0);
    sidetable_close(&st);

    /* rename, not overwrite: the mapped pages keep the loaded contents */
    free(run("cp '%s' '%s.new' && mv '%s.new' '%s'", SYMTEST_SIDETABLE_FAR, lib, lib, lib));
    assert_int_equal(sidetable_open(&st), 0);
    assert_null(sidetable_lookup(&st, fn));
    assert_int_equal(st.stale, 1);
    sidetable_close(&st);
    dlclose(h);
    free(run("rm -r '%s'", dir));
}

/* The C library (its .symtab stripped by the distribution): a name from .dynsym that
 * the dynamic linker resolves to the same address. */
static void system_library(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    uint64_t addr = (uint64_t)(uintptr_t)getpid;
    struct symbol_info si;
    assert_int_equal(symbols_lookup(s, addr, &si), 0);
    assert_non_null(strstr(si.module_path, "libc"));
    assert_non_null(si.name);
    assert_int_equal(si.sym_offset, 0);
    assert_int_equal((uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, si.name), addr);
    symbols_close(s);
}

/* A module loaded after the snapshot is not in it. */
static void snapshot_is_taken_at_open(void **state)
{
    (void)state;
    struct symbols *s = symbols_open();
    struct loaded l = load(SYMTEST_LIB_LATE);
    struct symbol_info si;
    assert_int_equal(symbols_lookup(s, l.exported, &si), -1);
    symbols_close(s);
    dlclose(l.handle);
}

/* ---- PIE and non-PIE executables, stripped or not ---- */

struct probe_line {
    uint64_t addr, offset, sym_offset;
    int rc;
    char module[PATH_MAX], build_id[130], name[128];
};

static void probe_line(const char *out, const char *label, struct probe_line *p)
{
    char key[32];
    snprintf(key, sizeof key, "%s addr=", label);
    const char *line = strstr(out, key);
    if (!line) fail_msg("no %s line in:\n%s", label, out);
    int k = sscanf(line + strlen(label),
                   " addr=%" SCNx64 " rc=%d module=%4095s build_id=%129s offset=%" SCNx64
                   " name=%127s sym_offset=%" SCNu64,
                   &p->addr, &p->rc, p->module, p->build_id, &p->offset, p->name, &p->sym_offset);
    assert_int_equal(k, 7);
}

static void check_probe(const char *probe, const char *unstripped, int pie, int stripped)
{
    char *file = real(probe);
    char *header = run("%s -h '%s'", SYMTEST_READELF, file);
    assert_non_null(strstr(header, pie ? "DYN (" : "EXEC ("));
    free(header);
    assert_int_equal(has_section(file, ".symtab"), !stripped);

    char *out = run("'%s'", file);
    struct probe_line g, h, in;
    probe_line(out, "global", &g);
    probe_line(out, "hidden", &h);
    probe_line(out, "inside", &in);
    const char *mb = strstr(out, "maps_base=");
    assert_non_null(mb);
    uint64_t maps_base = strtoull(mb + strlen("maps_base="), NULL, 16);

    char *id = readelf_build_id(file);
    assert_true(strlen(id) >= 16);
    uint64_t global_value = readelf_value(unstripped, "symtest_probe_global");
    uint64_t hidden_value = readelf_value(unstripped, "hidden_fn");

    assert_int_equal(g.rc, 0);
    assert_string_equal(g.module, file);
    assert_string_equal(g.build_id, id);
    assert_string_equal(g.name, "symtest_probe_global");
    assert_int_equal(g.offset, global_value);
    assert_int_equal(g.sym_offset, 0);

    /* the offset is the address minus the load bias: where a PIE was loaded, 0 for a
     * non-PIE executable, whose symbols hold run-time addresses */
    if (pie) {
        assert_int_equal(g.addr - g.offset, maps_base);
        assert_true(maps_base != 0);
    } else {
        assert_int_equal(g.addr, g.offset);
    }

    assert_int_equal(h.rc, 0);
    assert_int_equal(h.offset, hidden_value);
    assert_int_equal(h.addr - h.offset, g.addr - g.offset);
    assert_string_equal(h.name, stripped ? "-" : "hidden_fn");

    assert_int_equal(in.rc, 0);
    assert_string_equal(in.name, "symtest_probe_global");
    assert_int_equal(in.sym_offset, 1);
    assert_int_equal(in.offset, global_value + 1);
    free(id);
    free(out);
    free(file);
}

static void pie_executable(void **state)
{
    (void)state;
    check_probe(SYMTEST_PROBE_PIE, SYMTEST_PROBE_PIE, 1, 0);
}

static void non_pie_executable(void **state)
{
    (void)state;
    check_probe(SYMTEST_PROBE_NOPIE, SYMTEST_PROBE_NOPIE, 0, 0);
}

static void stripped_pie_executable(void **state)
{
    (void)state;
    check_probe(SYMTEST_PROBE_PIE_STRIPPED, SYMTEST_PROBE_PIE, 1, 1);
}

static void stripped_non_pie_executable(void **state)
{
    (void)state;
    check_probe(SYMTEST_PROBE_NOPIE_STRIPPED, SYMTEST_PROBE_NOPIE, 0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(global_function_of_the_executable),
        cmocka_unit_test(static_function_of_the_executable),
        cmocka_unit_test(address_inside_a_function),
        cmocka_unit_test(every_function_of_the_executable),
        cmocka_unit_test(unsized_and_nested_symbols),
        cmocka_unit_test(data_is_in_the_module_but_no_function),
        cmocka_unit_test(addresses_in_no_module),
        cmocka_unit_test(library_loaded_with_dlopen),
        cmocka_unit_test(stripped_library),
        cmocka_unit_test(library_without_build_id),
        cmocka_unit_test(replaced_file_gives_no_names),
        cmocka_unit_test(replaced_file_gives_no_side_table),
        cmocka_unit_test(system_library),
        cmocka_unit_test(snapshot_is_taken_at_open),
        cmocka_unit_test(pie_executable),
        cmocka_unit_test(non_pie_executable),
        cmocka_unit_test(stripped_pie_executable),
        cmocka_unit_test(stripped_non_pie_executable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
