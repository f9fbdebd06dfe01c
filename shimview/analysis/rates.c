/*
 * rates.c -- which of a profile's rates a view shows: the one the user names, else the
 * default (ipc when the profile has it, else its first). A name that is not there is a
 * mistake on the command line, answered with the rates there are.
 */
#include "shimview/analysis/rates.h"

#include "shimview/base/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int find_rate(const struct profile *p, const char *name, size_t *out)
{
    for (size_t i = 0; i < p->nrates; i++)
        if (name ? strcmp(p->rates[i].name, name) == 0 : strcasecmp(p->rates[i].name, "ipc") == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

size_t rates_default(const struct profile *p)
{
    size_t r = 0;
    find_rate(p, NULL, &r);
    return r;
}

static int unknown_rate(const struct profile *p, const char *name, const char *cmd)
{
    char *list = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&list, &len);
    if (f) {
        for (size_t i = 0; i < p->nrates; i++)
            fprintf(f, "%s%s", i ? ", " : "", p->rates[i].name);
        fclose(f);
    }
    if (p->nrates == 0)
        usage_error(cmd, "no rate '%s' in %s: it has no rates (no counters were read)", name,
                    p->file);
    else
        usage_error(cmd, "no rate '%s' in %s (rates: %s)", name, p->file, list ? list : "?");
    free(list);
    return EXIT_USAGE_ERROR;
}

int rates_find(const struct profile *p, const char *name, const char *cmd, size_t *out)
{
    if (name && find_rate(p, name, out) != 0) return unknown_rate(p, name, cmd);
    if (!name) *out = rates_default(p);
    return 0;
}
