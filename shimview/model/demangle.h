/*
 * demangle.h -- C++ (and Rust, D) symbol names as their programmers write them.
 *
 * A profile names each function by the symbol its object file gives it, which for C++ is
 * the mangled form (_ZN5shape4areaEv). shimview turns every such name into the source
 * form (shape::area()) as the profile is loaded, so every view and export reads the same
 * names, and keeps the symbol as written beside it (profile_function.symbol) for what
 * must match the binary: pprof's system_name, and FUNCTION arguments, which may be given
 * either way. `--no-demangle`, on any command, keeps the symbols as written.
 */
#ifndef SHIMVIEW_DEMANGLE_H
#define SHIMVIEW_DEMANGLE_H

struct profile;

/* Whether profile_load() demangles (1 unless --no-demangle was given). */
extern int demangle_names;

/* The source form of symbol, in memory the caller frees; NULL when it is not a mangled
 * name (a C function's) or memory ran out. */
char *demangle_symbol(const char *symbol);

/* Every function name of a loaded profile in its source form, when demangle_names is
 * set; the symbols as written stay in profile_function.symbol. Names that do not
 * demangle, and a profile when memory runs out, are left as they are. */
void profile_demangle(struct profile *p);

/* Frees what profile_demangle() made; profile_free() calls it. */
void profile_demangle_free(struct profile *p);

#endif /* SHIMVIEW_DEMANGLE_H */
