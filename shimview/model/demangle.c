/*
 * demangle.c -- C++ names in their source form (demangle.h), with libiberty's demangler,
 * the one c++filt, gdb and perf use, so shimview reads a name as those tools do.
 *
 * The demangled name replaces profile_function.name and is owned by the profile: a
 * function whose `symbol` is set has a `name` this file allocated. A function the profile
 * names only through its compiler-pass table (no symbol: a stripped binary) gets its name
 * from there, demangled the same way.
 */
#include "shimview/model/demangle.h"
#include "shimview/model/profile.h"

#include <libiberty/demangle.h>
#include <stdlib.h>

int demangle_names = 1;

char *demangle_symbol(const char *symbol)
{
    if (!symbol || symbol[0] != '_') return NULL; /* every mangling starts with '_' */
    return cplus_demangle(symbol, DMGL_PARAMS | DMGL_ANSI);
}

void profile_demangle(struct profile *p)
{
    if (!demangle_names) return;
    for (size_t i = 0; i < p->nfunctions; i++) {
        struct profile_function *f = &p->functions[i];
        const char *symbol = f->name ? f->name : f->pass ? f->pass->name : NULL;
        char *name = demangle_symbol(symbol);
        if (!name) continue;
        f->symbol = symbol;
        f->name = name;
    }
}

void profile_demangle_free(struct profile *p)
{
    for (size_t i = 0; p->functions && i < p->nfunctions; i++) {
        struct profile_function *f = &p->functions[i];
        if (!f->symbol) continue;
        free((char *)f->name);
        f->name = f->symbol;
        f->symbol = NULL;
    }
}
