/*
 * plot_ctx.c -- what every figure is drawn from (struct plot_ctx, plot.h): the profile,
 * the rate, the top tags by samples with their display names; and the writing of a
 * figure's file, which reaches its path only when written whole (output.c).
 *
 * `plot`, `html`, `compare` and `timeline` each fill one context and hand it to the
 * figures they draw, so a tag is named and ranked alike in all of them.
 */
#include "shimview/base/output.h"
#include "shimview/render/plot.h"
#include "shimview/analysis/rates.h"
#include "shimview/base/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

const char *plot_source_name(const char *file)
{
    if (strcmp(file, "-") == 0) return "stdin";
    const char *slash = strrchr(file, '/');
    return slash && slash[1] ? slash + 1 : file;
}

void plot_file_stem(const char *file, char *buf, size_t len)
{
    snprintf(buf, len, "%s", plot_source_name(file));
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
    if (!buf[0] || strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0) snprintf(buf, len, "profile");
}

/* ---- the rate and the tags ---- */

/* The top `top` tag entries by samples (not `other`), named; NULL if memory ran out. */
static struct named_tag *top_tags(const struct profile *p, long top, size_t *n)
{
    size_t all;
    struct named_tag *t = named_tags(p, 0, &all);
    if (!t) return NULL;
    for (size_t i = (size_t)top; i < all; i++) { /* keep the names of the top ones only */
        free(t[i].name);
        t[i].name = NULL;
    }
    *n = (size_t)top < all ? (size_t)top : all;
    return t;
}

int plot_ctx_init(struct plot_ctx *c, const struct profile *p, const char *file, const char *rate,
                  long top, const char *cmd)
{
    *c = (struct plot_ctx){.p = p, .source = plot_source_name(file), .kind = SVG_DOCUMENT};
    int rc = rates_find(p, rate, cmd, &c->rate);
    if (rc) return rc;
    c->top = top_tags(p, top, &c->ntop);
    if (!c->top) {
        fprintf(stderr, "shimview: %s: out of memory\n", p->file);
        return EXIT_FILE_ERROR;
    }
    return 0;
}

void plot_ctx_free(struct plot_ctx *c)
{
    named_tags_free(c->top, c->ntop);
    c->top = NULL;
    c->ntop = 0;
}

/* ---- writing ---- */

struct figure {
    int (*draw)(FILE *, const struct plot_ctx *);
    const struct plot_ctx *c;
};

static int draw_figure(FILE *f, const void *arg)
{
    const struct figure *g = arg;
    return g->draw(f, g->c);
}

int plot_write_file(const char *path, int (*draw)(FILE *, const struct plot_ctx *),
                    const struct plot_ctx *c)
{
    struct figure g = {draw, c};
    return output_write(path, draw_figure, &g);
}

int plot_write_output(const char *given, int dir, const char *name,
                      int (*draw)(FILE *, const struct plot_ctx *), const struct plot_ctx *c)
{
    char *path = dir ? output_in_dir(given, name) : output_path(given, name);
    if (!path) {
        fprintf(stderr, "shimview: out of memory\n");
        return EXIT_FILE_ERROR;
    }
    int rc = plot_write_file(path, draw, c);
    free(path);
    return rc;
}
