/*
 * symbols.h -- function addresses of this process to module, offset, build id and name
 * (see symbols.c).
 *
 * The profile writer turns the addresses the calling-context hooks published (runtime
 * addresses, as passed to __cyg_profile_func_enter) into what stays true after the
 * process is gone: the module's file, the offset inside it as an ELF virtual address
 * (the address minus the module's load bias, so `nm`, `addr2line -e module offset` or
 * any later reader of the file can symbolise it again), the module's GNU build id (to
 * find the right file, or its debug file, later), and the function's name.
 *
 * Use from one thread at a time, never from the observer: opening reads the list of
 * loaded modules under the dynamic loader's lock, and the first lookup in a module
 * reads its file.
 */
#ifndef SHIM_LIBSHIM_SYMBOLS_H
#define SHIM_LIBSHIM_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct symbols;

/* One loaded module: the executable or a shared object. */
struct symbol_module {
    const char *path;     /* absolute path of its file; the executable's is what
                             /proc/self/exe names; the vDSO's is its soname */
    const char *build_id; /* NT_GNU_BUILD_ID as lowercase hex, "" when it has none */
    uint64_t base;        /* load bias: runtime address = base + ELF virtual address
                             (0 for a non-PIE executable) */
};

/* What symbols_lookup() found. The strings belong to the struct symbols and stay
 * valid until symbols_close(). */
struct symbol_info {
    size_t module;           /* index for symbols_module() */
    const char *module_path; /* as in struct symbol_module */
    const char *build_id;    /* as in struct symbol_module */
    uint64_t offset;         /* the address minus the module's load bias */
    const char *name;        /* the function, or NULL when the module's symbol tables
                                do not name it (e.g. a static function of a stripped
                                file) */
    uint64_t sym_offset;     /* offset - the function's start (0 when name is NULL) */
};

/* A snapshot of the modules loaded now (dl_iterate_phdr). Symbol tables are read later,
 * on the first lookup that falls in each module. NULL when memory runs out. Addresses
 * of a module unloaded before this call, or loaded after it, are in no module. */
struct symbols *symbols_open(void);

/* Symbolises one runtime address: 0 when a loaded segment of a module holds it (`out`
 * filled; out->name may still be NULL), -1 when none does. Two binary searches, after
 * the module's symbol tables have been read once. */
int symbols_lookup(struct symbols *s, uint64_t addr, struct symbol_info *out);

/* The modules of the snapshot, in the loader's order (the executable first). */
size_t symbols_module_count(const struct symbols *s);
int symbols_module(const struct symbols *s, size_t i, struct symbol_module *out); /* 0 / -1 */

void symbols_close(struct symbols *s);

/* Whether a loaded module calls `name` without defining it (an undefined symbol of its
 * .dynsym): e.g. "__cyg_profile_func_enter", which code built with -finstrument-functions
 * calls. Reads the modules' files; 0 when none does or nothing can be read. */
int symbols_referenced(const char *name);

/* Of the functions (with a symbol, in their module's loaded image, not made by the
 * compiler or the C runtime: cold parts, start-up code, made constructors) of the modules
 * that call `name` without defining it, how many start by setting up a frame pointer
 * (push %rbp; mov %rsp,%rbp, after an endbr64 where there is one); *total gets how many
 * were looked at (at most 4096 a module). Reads the modules' files and code; a stripped
 * file has only its exported functions. */
size_t symbols_framed_callers(const char *name, size_t *total);

/* Calls fn(run-time address, size, ctx) for each section called `name` that a loaded
 * module's file has and loads into memory (fn may be NULL); returns how many there
 * were. Reads the modules' files. A file that no longer carries the build id of the
 * image that was loaded (rebuilt or replaced while the program ran), or whose section
 * lies outside the image's loaded segments, is not read: its section addresses do not
 * describe what is in memory. symbols_sections_checked() also counts those sections in
 * *stale (which may be NULL). */
typedef void (*symbols_section_fn)(uint64_t addr, uint64_t size, void *ctx);
size_t symbols_sections(const char *name, symbols_section_fn fn, void *ctx);
size_t symbols_sections_checked(const char *name, symbols_section_fn fn, void *ctx, size_t *stale);

#endif
