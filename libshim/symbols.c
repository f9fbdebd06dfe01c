/*
 * symbols.c -- function addresses of this process to module, offset, build id and name.
 *
 * The profile writer has, at shim_stop(), the runtime addresses of the functions the
 * calling-context hooks saw. A runtime address means nothing once the process is gone
 * (address-space randomisation moves every PIE executable and shared object), so each is
 * written as (module file, build id, offset inside the module, name).
 *
 * symbols_open() takes a snapshot of the loaded modules with dl_iterate_phdr: for each,
 * its path, its load bias, the address ranges of its PT_LOAD segments, and its GNU build
 * id, read from the PT_NOTE segments already in memory (no file access, and it is the
 * build id of what was actually loaded). The segments of all modules go into one array
 * sorted by start address, so finding the module of an address is a binary search.
 *
 * Names come from the module's file, read with libelf on the first lookup that falls in
 * that module and never again: .symtab when the file has one (it names static functions
 * too; dladdr, which sees only the dynamic symbols, does not), else .dynsym (exported
 * functions only). The function symbols (STT_FUNC, STT_GNU_IFUNC) are copied into an
 * array sorted by address, their names into one pool, and the file is closed. A lookup
 * picks the function whose [start, start + size) holds the offset; a symbol of unknown
 * size (size 0, as assembly often leaves them) names the addresses after it up to the
 * next symbol or the end of its section. An address past the end of a function of known
 * size gets no name rather than its neighbour's: in a stripped file the neighbour is an
 * exported function and the address belongs to a static function .dynsym cannot name,
 * and a wrong name is worse than none. Symbols may nest (an alias of part of a
 * function), so each remembers the nearest earlier symbol that contains its start; a
 * lookup that misses the nearest symbol walks that chain outwards.
 *
 * When a module's file no longer carries the build id that was loaded (it was rebuilt
 * or replaced while the program ran), its names would be wrong, so it gets none; and its
 * sections (symbols_sections(): the compiler pass's side table) are not read, since the
 * file's section addresses no longer describe the loaded image.
 *
 * Offsets are ELF virtual addresses: the runtime address minus the load bias, which is
 * what the symbol tables and `nm` hold, for PIE (bias = where it was loaded) and non-PIE
 * executables (bias 0) alike.
 */
#include "libshim/symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NO_PARENT UINT32_MAX

struct function {
    uint64_t start, size;
    uint64_t limit;  /* end of its section: bounds a symbol of unknown size */
    uint32_t name;   /* offset in the module's name pool */
    uint32_t parent; /* nearest earlier function containing start, or NO_PARENT */
};

struct module {
    char *path;
    char *build_id;
    uint64_t bias;
    int is_executable;
    int read; /* its symbol table was read (or found unreadable) */
    struct function *fn;
    size_t n_fn;
    char *names;
};

struct segment {
    uint64_t start, end;
    size_t module;
};

struct symbols {
    struct module *mod;
    size_t n_mod, cap_mod;
    struct segment *seg;
    size_t n_seg, cap_seg;
    int out_of_memory;
};

/* Binary search in an array sorted by the uint64_t `start` that heads each element
 * (struct segment, struct function): how many elements start at or before `key`. */
_Static_assert(offsetof(struct segment, start) == 0, "start heads struct segment");
_Static_assert(offsetof(struct function, start) == 0, "start heads struct function");

static size_t count_starting_by(const void *array, size_t n, size_t size, uint64_t key)
{
    const char *a = array;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t start;
        memcpy(&start, a + mid * size, sizeof start);
        if (start <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- build ids ---- */

static char *hex_string(const unsigned char *bytes, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *s = malloc(2 * n + 1);
    if (!s) return NULL;
    for (size_t i = 0; i < n; i++) {
        s[2 * i] = digits[bytes[i] >> 4];
        s[2 * i + 1] = digits[bytes[i] & 15];
    }
    s[2 * n] = 0;
    return s;
}

static uint64_t align_up(uint64_t x, uint64_t align)
{
    return (x + align - 1) & ~(align - 1);
}

/*
 * The NT_GNU_BUILD_ID note among `len` bytes of notes, as a new hex string; NULL when
 * there is none. Notes are padded to 4 bytes, or 8 in a segment aligned to 8 (as
 * .note.gnu.property is). Every length is checked against what remains, so a damaged
 * note ends the walk instead of reading past it.
 */
static char *build_id_in_notes(const unsigned char *p, uint64_t len, uint64_t align)
{
    if (align != 8) align = 4;
    while (len >= 12) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, p, 4);
        memcpy(&descsz, p + 4, 4);
        memcpy(&type, p + 8, 4);
        uint64_t desc = 12 + align_up(namesz, align);
        if (desc > len || descsz > len - desc) return NULL;
        if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + 12, "GNU", 4) == 0)
            return hex_string(p + desc, descsz);
        uint64_t next = desc + align_up(descsz, align);
        if (next >= len) return NULL;
        p += next;
        len -= next;
    }
    return NULL;
}

/* The build id of the loaded image, from its PT_NOTE segments in memory. */
static char *build_id_in_memory(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        char *id = build_id_in_notes((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
                                     ph->p_memsz, ph->p_align);
        if (id) return id;
    }
    return strdup("");
}

/* The build id the file carries in its SHT_NOTE sections, "" when none. */
static char *build_id_in_file(Elf *e)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
        Elf_Data *d = elf_rawdata(scn, NULL);
        if (!d || !d->d_buf) continue;
        char *id = build_id_in_notes(d->d_buf, d->d_size, sh.sh_addralign);
        if (id) return id;
    }
    return strdup("");
}

/* ---- the snapshot of loaded modules ---- */

static int grow(void **array, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? 2 * *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, n * size);
    if (!p) return -1;
    *array = p;
    *cap = n;
    return 0;
}

/* The path a later reader can open: the executable's real path (dl_iterate_phdr names
 * it ""), a shared object's path made absolute when it still exists. */
static char *module_path(const char *name, int is_executable)
{
    char buf[PATH_MAX];
    if (is_executable) {
        ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
        if (n <= 0) return strdup("/proc/self/exe");
        buf[n] = 0;
        return strdup(buf);
    }
    if (strchr(name, '/') && realpath(name, buf)) return strdup(buf);
    return strdup(name);
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct symbols *s = data;
    /* The first entry is the executable; the vDSO and objects without a file have a
     * name that is not a path, and are kept (they hold addresses) without names. */
    int is_executable = s->n_mod == 0 && (!info->dlpi_name || !info->dlpi_name[0]);
    int loads = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        loads += info->dlpi_phdr[i].p_type == PT_LOAD;
    if (loads == 0) return 0;
    if (grow((void **)&s->mod, &s->cap_mod, s->n_mod + 1, sizeof *s->mod) ||
        grow((void **)&s->seg, &s->cap_seg, s->n_seg + loads, sizeof *s->seg)) {
        s->out_of_memory = 1;
        return 1;
    }
    struct module *m = &s->mod[s->n_mod];
    memset(m, 0, sizeof *m);
    m->is_executable = is_executable;
    m->bias = info->dlpi_addr;
    m->path = module_path(info->dlpi_name ? info->dlpi_name : "", is_executable);
    m->build_id = build_id_in_memory(info);
    if (!m->path || !m->build_id) {
        free(m->path);
        free(m->build_id);
        s->out_of_memory = 1;
        return 1;
    }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || ph->p_memsz == 0) continue;
        uint64_t start = info->dlpi_addr + ph->p_vaddr;
        s->seg[s->n_seg++] = (struct segment){start, start + ph->p_memsz, s->n_mod};
    }
    s->n_mod++;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct segment *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

struct symbols *symbols_open(void)
{
    struct symbols *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    dl_iterate_phdr(add_module, s);
    if (s->out_of_memory) {
        symbols_close(s);
        return NULL;
    }
    qsort(s->seg, s->n_seg, sizeof *s->seg, by_start);
    return s;
}

void symbols_close(struct symbols *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_mod; i++) {
        free(s->mod[i].path);
        free(s->mod[i].build_id);
        free(s->mod[i].fn);
        free(s->mod[i].names);
    }
    free(s->mod);
    free(s->seg);
    free(s);
}

size_t symbols_module_count(const struct symbols *s)
{
    return s ? s->n_mod : 0;
}

int symbols_module(const struct symbols *s, size_t i, struct symbol_module *out)
{
    if (!s || i >= s->n_mod) return -1;
    *out = (struct symbol_module){s->mod[i].path, s->mod[i].build_id, s->mod[i].bias};
    return 0;
}

/* ---- reading a module's symbol table ---- */

/* A function symbol while the table is built; names point into the open file. */
struct candidate {
    uint64_t start, size, limit;
    const char *name;
    int rank; /* which of several symbols at one address names it: lower is better */
};

/* At one address, prefer a symbol of known size, then global over weak over local
 * binding (`malloc` over `__libc_malloc`), then the name, so the choice is the same on
 * every run. */
static int by_start_then_rank(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->start != y->start) return (x->start > y->start) - (x->start < y->start);
    if (x->rank != y->rank) return x->rank - y->rank;
    return strcmp(x->name, y->name);
}

static int symbol_rank(const GElf_Sym *sym)
{
    int bind = GELF_ST_BIND(sym->st_info);
    int r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    return (sym->st_size == 0) * 4 + r;
}

/* The symbol table to read: .symtab when there is one, else .dynsym; NULL for none. */
static Elf_Scn *symbol_table(Elf *e, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL, *dynsym = NULL;
    GElf_Shdr dyn_sh;
    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, sh)) continue;
        if (sh->sh_type == SHT_SYMTAB) return scn;
        if (sh->sh_type == SHT_DYNSYM) {
            dynsym = scn;
            dyn_sh = *sh;
        }
    }
    if (dynsym) *sh = dyn_sh;
    return dynsym;
}

/* The function symbols of one table, sorted, one per address. */
static struct candidate *read_candidates(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, size_t *n)
{
    *n = 0;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || sh->sh_entsize == 0) return NULL;
    size_t count = sh->sh_size / sh->sh_entsize, shnum;
    if (elf_getshdrnum(e, &shnum) != 0) return NULL;
    struct candidate *c = malloc((count ? count : 1) * sizeof *c);
    if (!c) return NULL;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(d, (int)i, &sym)) break;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
        if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= shnum || sym.st_name == 0) continue;
        const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
        GElf_Shdr in;
        if (!name || !*name || !gelf_getshdr(elf_getscn(e, sym.st_shndx), &in)) continue;
        c[*n] = (struct candidate){sym.st_value, sym.st_size, in.sh_addr + in.sh_size, name,
                                   symbol_rank(&sym)};
        ++*n;
    }
    qsort(c, *n, sizeof *c, by_start_then_rank);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (kept == 0 || c[kept - 1].start != c[i].start) c[kept++] = c[i];
    *n = kept;
    return c;
}

/* Copies the candidates into the module's arrays and links each to the nearest earlier
 * function that contains its start (a stack of the functions still open). */
static void keep_functions(struct module *m, const struct candidate *c, size_t n)
{
    size_t pool = 0;
    for (size_t i = 0; i < n; i++)
        pool += strlen(c[i].name) + 1;
    if (n == 0 || pool > UINT32_MAX) return;
    m->fn = malloc(n * sizeof *m->fn);
    m->names = malloc(pool);
    uint32_t *open = malloc(n * sizeof *open);
    if (!m->fn || !m->names || !open) {
        free(m->fn);
        free(m->names);
        free(open);
        m->fn = NULL;
        m->names = NULL;
        return;
    }
    size_t used = 0, depth = 0;
    for (size_t i = 0; i < n; i++) {
        while (depth && m->fn[open[depth - 1]].start + m->fn[open[depth - 1]].size <= c[i].start)
            depth--;
        size_t len = strlen(c[i].name) + 1;
        memcpy(m->names + used, c[i].name, len);
        m->fn[i] = (struct function){c[i].start, c[i].size, c[i].limit, (uint32_t)used,
                                     depth ? open[depth - 1] : NO_PARENT};
        used += len;
        if (c[i].size) open[depth++] = (uint32_t)i;
    }
    m->n_fn = n;
    free(open);
}

static void read_module(struct module *m)
{
    m->read = 1;
    /* /proc/self/exe opens the executable even if its path was replaced or deleted. */
    const char *file = m->is_executable ? "/proc/self/exe" : m->path;
    if (!strchr(file, '/') || elf_version(EV_CURRENT) == EV_NONE) return;
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (e && elf_kind(e) == ELF_K_ELF) {
        char *file_id = build_id_in_file(e);
        /* A file rebuilt since it was loaded would name the wrong functions. */
        if (file_id && (!m->build_id[0] || strcmp(file_id, m->build_id) == 0)) {
            GElf_Shdr sh;
            Elf_Scn *scn = symbol_table(e, &sh);
            size_t n = 0;
            struct candidate *c = scn ? read_candidates(e, scn, &sh, &n) : NULL;
            keep_functions(m, c, n);
            free(c);
        }
        free(file_id);
    }
    if (e) elf_end(e);
    close(fd);
}

/* The function of module m that names `offset`, or NULL. */
static const struct function *function_at(const struct module *m, uint64_t offset)
{
    size_t k = count_starting_by(m->fn, m->n_fn, sizeof *m->fn, offset);
    if (k == 0) return NULL;
    const struct function *nearest = &m->fn[k - 1];
    for (const struct function *f = nearest; f;
         f = f->parent == NO_PARENT ? NULL : &m->fn[f->parent])
        if (f->size && offset - f->start < f->size) return f;
    if (nearest->size == 0 && offset < nearest->limit) return nearest;
    return NULL;
}

int symbols_lookup(struct symbols *s, uint64_t addr, struct symbol_info *out)
{
    if (!s) return -1;
    size_t k = count_starting_by(s->seg, s->n_seg, sizeof *s->seg, addr);
    if (k == 0 || addr >= s->seg[k - 1].end) return -1;
    size_t i = s->seg[k - 1].module;
    struct module *m = &s->mod[i];
    if (!m->read) read_module(m);
    uint64_t offset = addr - m->bias;
    const struct function *f = function_at(m, offset);
    *out = (struct symbol_info){
        i, m->path, m->build_id, offset, f ? m->names + f->name : NULL, f ? offset - f->start : 0};
    return 0;
}

/* ---- reading every loaded module's file ---- */

/* Looks into a module's ELF file, at the module's load bias, with the loaded image's
 * program headers (what the file said when it was loaded); nonzero stops the walk. */
typedef int (*module_file_fn)(Elf *e, const struct dl_phdr_info *info, void *ctx);

struct module_walk {
    module_file_fn fn;
    void *ctx;
    int first, stop;
};

static int walk_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct module_walk *q = data;
    const char *path = info->dlpi_name;
    if (q->first) path = "/proc/self/exe"; /* the executable comes first, unnamed */
    q->first = 0;
    int fd = path && strchr(path, '/') ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) return 0;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (e) {
        q->stop = q->fn(e, info, q->ctx);
        elf_end(e);
    }
    close(fd);
    return q->stop;
}

/* Calls fn on the file of each loaded module that has one, the executable first, until
 * it returns nonzero: that value, or 0. */
static int each_module_file(module_file_fn fn, void *ctx)
{
    struct module_walk q = {fn, ctx, 1, 0};
    if (elf_version(EV_CURRENT) == EV_NONE) return 0;
    dl_iterate_phdr(walk_module, &q);
    return q.stop;
}

/* ---- does the process call a function it does not define? ---- */

/* 1 when the file's .dynsym has `name` undefined: the module calls it from outside. */
static int file_references(Elf *e, const struct dl_phdr_info *info, void *name)
{
    (void)info;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize) continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *n;
            if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx == SHN_UNDEF &&
                (n = elf_strptr(e, sh.sh_link, sym.st_name)) && !strcmp(n, name))
                return 1;
        }
    }
    return 0;
}

int symbols_referenced(const char *name)
{
    return each_module_file(file_references, (void *)name);
}

/* ---- sections the program's modules bring (the compiler pass's side table) ---- */

struct section_search {
    const char *name;
    symbols_section_fn fn;
    void *ctx;
    size_t found, stale;
};

/* Whether the file is the one that was loaded: it carries the loaded image's build id
 * (both have none counts too: then only the segment check below guards). */
static int file_is_loaded_image(Elf *e, const struct dl_phdr_info *info)
{
    char *loaded = build_id_in_memory(info), *file = build_id_in_file(e);
    int same = loaded && file && strcmp(loaded, file) == 0;
    free(loaded);
    free(file);
    return same;
}

/* Whether [vaddr, vaddr + size) lies inside one PT_LOAD segment of the loaded image. */
static int inside_loaded_segment(const struct dl_phdr_info *info, uint64_t vaddr, uint64_t size)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && size <= ph->p_memsz &&
            vaddr - ph->p_vaddr <= ph->p_memsz - size)
            return 1;
    }
    return 0;
}

/* Each section of the file called `name` that is loaded in memory, at its run-time
 * address (the module's load bias plus the section's address). The section headers come
 * from the file on disk, which may have been rebuilt or replaced since the module was
 * loaded: then its addresses say nothing about the loaded image, and reading there reads
 * another section's bytes, or unmapped memory. So the file must carry the loaded image's
 * build id, and each section must lie inside a loaded segment; a file that has the
 * section but fails either is counted in `stale`, not read. */
static int file_sections(Elf *e, const struct dl_phdr_info *info, void *data)
{
    struct section_search *q = data;
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    int checked = 0, same = 0;
    if (elf_getshdrstrndx(e, &shstrndx) != 0) return 0;
    while ((scn = elf_nextscn(e, scn))) {
        const char *n;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
            !(n = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(n, q->name))
            continue;
        if (!checked) same = file_is_loaded_image(e, info), checked = 1;
        if (!same || !inside_loaded_segment(info, sh.sh_addr, sh.sh_size)) {
            q->stale++;
            continue;
        }
        q->found++;
        if (q->fn) q->fn(info->dlpi_addr + sh.sh_addr, sh.sh_size, q->ctx);
    }
    return 0;
}

size_t symbols_sections(const char *name, symbols_section_fn fn, void *ctx)
{
    return symbols_sections_checked(name, fn, ctx, NULL);
}

size_t symbols_sections_checked(const char *name, symbols_section_fn fn, void *ctx, size_t *stale)
{
    struct section_search q = {name, fn, ctx, 0, 0};
    each_module_file(file_sections, &q);
    if (stale) *stale = q.stale;
    return q.found;
}

/* ---- whether the code that calls a function keeps frame pointers ---- */

struct framed_count {
    const char *name;
    size_t framed, total;
};

/* Whether a function symbol is one the compiler or the C runtime made rather than the
 * program's source: gcc's cold parts of a function (`f.cold`, `f.cold.1`), which keep
 * no frame of their own, the start-up and teardown code, and constructors and destructors
 * the compiler makes (a sanitizer's). */
static int made_by_tools(const char *name)
{
    static const char *const crt[] = {"_start",
                                      "_init",
                                      "_fini",
                                      "deregister_tm_clones",
                                      "register_tm_clones",
                                      "__do_global_dtors_aux",
                                      "frame_dummy",
                                      "__libc_csu_init",
                                      "__libc_csu_fini"};
    for (size_t i = 0; i < sizeof crt / sizeof *crt; i++)
        if (!strcmp(name, crt[i])) return 1;
    return strstr(name, ".cold") || !strncmp(name, "_sub_I_", 7) || !strncmp(name, "_sub_D_", 7) ||
           !strncmp(name, "_GLOBAL__sub_", 13);
}

/* Counts the functions of a module that calls `name` whose code starts by setting up a
 * frame pointer: push %rbp; mov %rsp,%rbp, after an endbr64 where there is one (what gcc
 * and clang make of every function of the source with -fno-omit-frame-pointer, and at
 * -O0), leaving out those the tools made (above). Read from the loaded image, for files
 * that are the loaded one; at most FRAMED_SAMPLE functions a module, spread over it. */
#define FRAMED_SAMPLE 4096
static int file_framed(Elf *e, const struct dl_phdr_info *info, void *data)
{
    static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
    static const unsigned char prologue[] = {0x55, 0x48, 0x89, 0xe5};
    struct framed_count *c = data;
    if (!file_references(e, info, (void *)c->name) || !file_is_loaded_image(e, info)) return 0;
    GElf_Shdr sh;
    Elf_Scn *scn = symbol_table(e, &sh);
    size_t n = 0;
    struct candidate *f = scn ? read_candidates(e, scn, &sh, &n) : NULL;
    size_t step = n / FRAMED_SAMPLE + 1;
    for (size_t i = 0; i < n; i += step) {
        if (f[i].size < sizeof endbr64 + sizeof prologue || made_by_tools(f[i].name) ||
            !inside_loaded_segment(info, f[i].start, sizeof endbr64 + sizeof prologue))
            continue;
        const unsigned char *code = (const unsigned char *)(info->dlpi_addr + f[i].start);
        if (!memcmp(code, endbr64, sizeof endbr64)) code += sizeof endbr64;
        c->total++;
        c->framed += !memcmp(code, prologue, sizeof prologue);
    }
    free(f);
    return 0;
}

size_t symbols_framed_callers(const char *name, size_t *total)
{
    struct framed_count c = {name, 0, 0};
    each_module_file(file_framed, &c);
    *total = c.total;
    return c.framed;
}
