/*
 * paths.c -- the compiler pass's tables as the views show them: a Ball-Larus path number
 * turned back into its blocks, a loop signal named, a function found by name.
 *
 * A path number is the sum of the vals of the edges the path took through the acyclic
 * graph the pass numbered (Ball and Larus: each edge out of a node adds the number of
 * paths through the edges before it), so it is regenerated greedily: from ENTRY, with
 * the number as what remains, take the edge whose val is the largest not above what
 * remains, subtract it, and go on from its target until EXIT, where nothing may remain.
 * Edges into a block from which no path reaches EXIT (one that ends in `unreachable`)
 * are passed over: they carry the same val as the next edge and no path goes through
 * them. The loader sorted each node's edges by val and refused a graph with a cycle, so
 * one step is a bisection and a walk always ends; one that ends badly says the id is
 * not a path of the function, or that the table does not number its paths the way its
 * `paths` says, and the caller is told which.
 */
#include "shimview/analysis/paths.h"
#include "shimview/analysis/calltree.h"
#include "shimview/base/usage.h"
#include "shimview/model/profile_pass.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- regeneration ---- */

enum path_walk_result path_regenerate(const struct profile_pass *f, uint64_t id,
                                      struct path_walk *w)
{
    *w = (struct path_walk){.blocks = w->blocks, .at = PASS_NODE_ENTRY, .remaining = id};
    if (f->paths == 0) return PATH_WALK_NO_NUMBERING;
    if (id >= f->paths) return PATH_WALK_OUT_OF_RANGE;
    for (int first = 1; w->at != PASS_NODE_EXIT; first = 0) {
        size_t lo = f->out[w->at + 1], e = lo, hi = f->out[w->at + 2];
        while (e < hi) { /* e: the first edge whose val is above what remains */
            size_t mid = e + (hi - e) / 2;
            if (f->edges[mid].val <= w->remaining)
                e = mid + 1;
            else
                hi = mid;
        }
        while (e > lo && f->np[f->edges[e - 1].to + 2] == 0)
            e--;
        if (e == lo) return PATH_WALK_STUCK;
        const struct pass_edge *x = &f->edges[e - 1];
        if (first) w->from_loop_head = x->kind == PASS_EDGE_START;
        w->to_back_edge = x->kind == PASS_EDGE_END;
        w->remaining -= x->val;
        w->at = x->to;
        if (x->to >= 0) w->blocks[w->nblocks++] = (size_t)x->to;
    }
    return w->remaining ? PATH_WALK_LEFTOVER : PATH_WALK_OK;
}

void path_walk_explain(char *buf, size_t len, const struct profile_pass *f, const char *name,
                       uint64_t id, enum path_walk_result res, const struct path_walk *w)
{
    switch (res) {
    case PATH_WALK_OK:
        snprintf(buf, len, "path %" PRIu64 " of %s", id, name);
        break;
    case PATH_WALK_NO_NUMBERING:
        snprintf(buf, len, "%s has no path numbering: %s", name,
                 f->fallback ? f->fallback : "it was built without the path signal");
        break;
    case PATH_WALK_OUT_OF_RANGE:
        snprintf(buf, len,
                 "%s has %" PRIu64 " paths, numbered 0 to %" PRIu64 ": %" PRIu64
                 " is not one of them",
                 name, f->paths, f->paths - 1, id);
        break;
    case PATH_WALK_STUCK:
        if (w->at == PASS_NODE_ENTRY)
            snprintf(buf, len,
                     "path %" PRIu64 " of %s does not regenerate: no edge out of ENTRY has a "
                     "val of at most %" PRIu64,
                     id, name, w->remaining);
        else
            snprintf(buf, len,
                     "path %" PRIu64 " of %s does not regenerate: no edge out of block %" PRId64
                     " (%s) has a val of at most %" PRIu64,
                     id, name, w->at, f->blocks[w->at].name, w->remaining);
        break;
    case PATH_WALK_LEFTOVER:
        snprintf(buf, len,
                 "path %" PRIu64 " of %s does not regenerate: the walk reaches EXIT with %" PRIu64
                 " left over",
                 id, name, w->remaining);
        break;
    }
}

void path_span(const struct profile_pass *f, const struct path_walk *w, uint64_t *first,
               uint64_t *last)
{
    *first = *last = 0;
    for (size_t i = 0; i < w->nblocks; i++) {
        const struct pass_block *b = &f->blocks[w->blocks[i]];
        for (size_t k = 0; k < b->nlines; k++) {
            uint64_t line = b->lines[k];
            if (line == 0) continue;
            if (*first == 0 || line < *first) *first = line;
            if (line > *last) *last = line;
        }
    }
}

/* ---- names ---- */

const char *pass_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *pass_loop_where(const struct profile_pass *f, uint64_t loop, char *buf, size_t len)
{
    buf[0] = '\0';
    if (loop == 0 || loop > f->nloops) return buf;
    const struct pass_loop *l = &f->loops[loop - 1];
    const char *file = l->file ? l->file : f->file;
    if (file && l->line)
        snprintf(buf, len, "%s:%" PRIu64, pass_basename(file), l->line);
    else if (l->line)
        snprintf(buf, len, "line %" PRIu64, l->line);
    else if (file)
        snprintf(buf, len, "%s", pass_basename(file));
    return buf;
}

void pass_write_loop(FILE *out, const struct profile_function *fn, uint64_t value, uint64_t loop)
{
    char buf[256];
    if (value == 0) {
        fputs("(none)", out);
        return;
    }
    if (fn)
        fputs(calltree_function_label(fn, buf, sizeof buf), out);
    else
        fprintf(out, "%#" PRIx64, value & ((UINT64_C(1) << PROFILE_LOOP_SHIFT) - 1));
    if (loop == 0) {
        fputs(" (no loop)", out);
        return;
    }
    fprintf(out, " loop %" PRIu64, loop);
    if (fn && fn->pass && *pass_loop_where(fn->pass, loop, buf, sizeof buf))
        fprintf(out, " (%s)", buf);
}

/* ---- finding a function ---- */

static int names_function(const struct profile_function *f, const char *name, uint64_t address)
{
    if (address) return f->address == address;
    return (f->name && strcmp(f->name, name) == 0) || (f->symbol && strcmp(f->symbol, name) == 0) ||
           (f->pass && strcmp(f->pass->name, name) == 0);
}

/* The functions with a table, as a list for a message: those whose names are close to
 * `name` when some are, else all of them (the first few). */
static void list_names(FILE *f, const struct profile *p, const char *name)
{
    size_t close = 0, listed = 0, all = 0, most = 8;
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct profile_pass *t = p->functions[i].pass;
        if (!t) continue;
        all++;
        close += usage_near(name, t->name);
    }
    if (all == 0) {
        fputs("no function has a table from the compiler pass", f);
        return;
    }
    fputs(close ? "close names: " : "functions with a table: ", f);
    for (size_t i = 0; i < p->nfunctions && listed < most; i++) {
        const struct profile_pass *t = p->functions[i].pass;
        if (!t || (close && !usage_near(name, t->name))) continue;
        fprintf(f, "%s%s", listed++ ? ", " : "", t->name);
    }
    if ((close ? close : all) > listed) fprintf(f, ", ...%zu more", (close ? close : all) - listed);
}

int pass_find_function(const struct profile *p, const char *name, const char *cmd,
                       const struct profile_function **out)
{
    char *end, *list = NULL;
    size_t len = 0, found = 0, with_table = 0;
    uint64_t address = 0;
    if (strncmp(name, "0x", 2) == 0 && name[2]) {
        address = strtoull(name + 2, &end, 16);
        if (*end || address == 0) address = 0;
    }
    *out = NULL;
    for (size_t i = 0; i < p->nfunctions; i++) {
        const struct profile_function *f = &p->functions[i];
        if (!names_function(f, name, address)) continue;
        found++;
        with_table += f->pass != NULL;
        if (!*out || (!(*out)->pass && f->pass)) *out = f;
    }
    if (found > 0 && with_table <= 1) return 0;
    FILE *m = open_memstream(&list, &len);
    if (!m) return usage_error(cmd, "no function '%s' in %s", name, p->file);
    for (size_t i = 0, k = 0; found && i < p->nfunctions; i++)
        if (names_function(&p->functions[i], name, address) && p->functions[i].pass)
            fprintf(m, "%s%#" PRIx64, k++ ? ", " : "", p->functions[i].address);
    if (!found) list_names(m, p, name);
    int rc = fclose(m) == 0 ? 0 : -1;
    if (found)
        rc = usage_error(cmd, "'%s' names %zu functions with a table (at %s): give its address",
                         name, with_table, rc == 0 ? list : "several addresses");
    else
        rc = usage_error(cmd, "no function '%s' in %s (%s)", name, p->file,
                         rc == 0 ? list : "out of memory");
    free(list);
    return rc;
}
