/*
 * html.c -- `shimview html`: a profile as one self-contained HTML page.
 *
 * The page holds what `report` prints and what `plot` draws, for someone who wants one
 * file to open, mail or keep beside a run: the run's facts, how the samples were taken
 * (samples, DTE, the sample period, shim's cost), the per-tag table with a sparkline of
 * each tag's rate histogram (the program's threads added up), the threads, the table and
 * figure of one rate per bucket of another when the run set SHIM_BY, the three figures,
 * and for a calling-context profile the table of functions and the calling-context tree
 * as `shimview functions` and `shimview tree` print them, after the flame graph of
 * `shimview flame` (each thread's tree: they are drawn from the profile as loaded). A
 * table of contents links the sections the page has. Nothing is fetched: the style sheet
 * is inline, the figures are inline SVG written by the same code that writes `plot`'s and
 * `flame`'s files (SVG_INLINE leaves out the XML declaration a page must not contain).
 * Two small scripts are optional, and the page reads the same without them: the flame
 * graph's zoom, and one that sorts a table by the column whose heading is clicked (every
 * table of three rows or more but the facts and the tree, whose order is its shape).
 * Every string from the profile goes through markup_escape(), so a tag named "<script>"
 * is shown, not run.
 *
 * The page goes to its file through plot_write_file(), as each figure of `plot` does, so
 * a page that could not be written whole never reaches its path (output.c). Its
 * text comes from report.c in its HTML form, so a page and a terminal report say the
 * same things in the same words.
 */
#include "shimview/analysis/calltree.h"
#include "shimview/cmd/commands.h"
#include "shimview/base/markup.h"
#include "shimview/analysis/match.h"
#include "shimview/render/plot.h"

#include <stdio.h>

const char html_usage[] =
    "usage: shimview html [--rate NAME] [--top N] [-o PATH] (FILE | -)\n"
    "\n"
    "Write a profile as one self-contained HTML page and print its path: the run and the\n"
    "machine, samples and DTE, the per-tag table of `shimview report` (every row, with\n"
    "a sparkline of each tag's histogram of the rate), the threads (shimview threads)\n"
    "when the profile lists them, one rate per bucket of another when the run set\n"
    "SHIM_BY, the figures of `shimview plot` as inline SVG, and with a calling context\n"
    "the flame graph, the functions table and the tree (shimview flame, functions,\n"
    "tree), after a table of contents. The page needs no network, font or style sheet\n"
    "of its own: it opens in any browser, offline; its two small scripts (a click on a\n"
    "table's heading sorts it, on a frame of the flame graph zooms) are optional.\n"
    "\n"
    "  -r, --rate NAME    the rate to draw (default: ipc when present, else the first rate)\n"
    "  -n, --top N        tags to draw in the histogram and SHIM_BY figures (default\n"
    "                     4, less those under 0.1% of the samples)\n"
    "  -o, --output PATH  the page to write, or a directory (one that exists, or PATH\n"
    "                     ending in '/') to write STEM.html into, made when it does not\n"
    "                     exist; '-' writes to standard output (default: STEM.html in the\n"
    "                     current directory, run.json giving run.html)\n"
    "  -h, --help         print this help\n";

/* The page's look: readable widths, tables that scroll sideways rather than squeeze,
 * figures that shrink with the window (their viewBox keeps them sharp). */
static const char style[] =
    "body{font-family:\"DejaVu Sans\",Verdana,Arial,Helvetica,sans-serif;color:#222;"
    "margin:0 auto;padding:16px 24px 48px;max-width:1000px;line-height:1.4;font-size:14px}\n"
    "h1{font-size:22px;margin:8px 0 2px}h2{font-size:17px;margin:28px 0 8px;"
    "border-bottom:1px solid #ddd;padding-bottom:4px}\n"
    "p.sub{color:#555;margin:0 0 12px}p.note{color:#555;font-size:13px;margin:6px 0}\n"
    ".wide{overflow-x:auto}\n"
    "table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}\n"
    "th,td{padding:3px 9px;text-align:left;vertical-align:top}\n"
    "thead th{border-bottom:2px solid #999;white-space:nowrap}\n"
    "tbody tr:nth-child(even){background:#f6f6f6}\n"
    ".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.name{overflow-wrap:anywhere;min-width:8em;max-width:28em}\n"
    "td.spark{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;white-space:pre;"
    "color:#0072b2;font-size:15px;line-height:1}\n"
    "table.facts th{color:#555;font-weight:normal;white-space:nowrap;padding-left:0;"
    "min-width:6em}\n"
    "table.facts td{overflow-wrap:anywhere}\n"
    "td.tree{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;white-space:pre;"
    "line-height:1.25}\n"
    "figure{margin:12px 0 24px}figure svg{display:block;max-width:100%;height:auto;"
    "border:1px solid #e4e4e4}\n"
    "nav.toc ul{margin:4px 0 0;padding-left:20px;columns:2;max-width:36em}nav.toc li{margin:1px "
    "0}\n"
    "th.sortable{cursor:pointer}th.sortable:not([aria-sort])::after{content:\" \\2195\";"
    "color:#b0b0b0;font-weight:normal}th[aria-sort=descending]::after{content:\" \\25BE\"}"
    "th[aria-sort=ascending]::after{content:\" \\25B4\"}\n";

/* Sorting a table by the column whose heading is clicked: numbers (1,234, 12.5%) by
 * value, largest first, then by text; rows without a number last. Tables of fewer than
 * three rows are read at a glance and a column without a heading has nothing to click, so
 * neither gets the arrows. Without the script, the rows stay in the order the terminal
 * prints them. */
static const char sort_script[] =
    "(function () {\n"
    "function key(td) {\n"
    "  var t = td ? td.textContent.trim().replace(/,/g, '') : '';\n"
    "  return /^[-+]?[0-9.]+/.test(t) ? parseFloat(t) : null;\n"
    "}\n"
    "Array.prototype.forEach.call(document.querySelectorAll('table'), function (table) {\n"
    "  if (table.classList.contains('facts') || table.querySelector('td.tree') ||\n"
    "      !table.tHead || !table.tBodies.length || table.tBodies[0].rows.length < 3) return;\n"
    "  var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;\n"
    "  Array.prototype.forEach.call(heads, function (th, col) {\n"
    "    if (!th.textContent.trim()) return; /* a column without a heading */\n"
    "    th.classList.add('sortable');\n"
    "    th.title = 'sort by this column';\n"
    "    th.addEventListener('click', function () {\n"
    "      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
    "      var down = th.getAttribute('aria-sort') !== 'descending', sign = down ? 1 : -1;\n"
    "      rows.sort(function (a, b) {\n"
    "        var x = key(a.cells[col]), y = key(b.cells[col]);\n"
    "        if (x !== null && y !== null && x !== y) return sign * (y - x);\n"
    "        if ((x === null) !== (y === null)) return x === null ? 1 : -1;\n"
    "        var s = a.cells[col] ? a.cells[col].textContent : '';\n"
    "        return sign * s.localeCompare(b.cells[col] ? b.cells[col].textContent : '');\n"
    "      });\n"
    "      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });\n"
    "      th.setAttribute('aria-sort', down ? 'descending' : 'ascending');\n"
    "      rows.forEach(function (r) { body.appendChild(r); });\n"
    "    });\n"
    "  });\n"
    "});\n"
    "})();\n";

/* ---- the page ---- */

static void heading(FILE *f, const char *id, const char *text)
{
    fprintf(f, "<h2 id=\"%s\">", id);
    markup_escape(f, text);
    fputs("</h2>\n", f);
}

/* One figure, inline; 0, or -1 if memory ran out. */
static int figure(FILE *f, int (*draw)(FILE *, const struct plot_ctx *), const struct plot_ctx *c)
{
    fputs("<figure>\n", f);
    int rc = draw(f, c);
    fputs("</figure>\n", f);
    return rc;
}

/* The sections a page has, for its table of contents: id and title. */
static void contents(FILE *f, const struct plot_ctx *c)
{
    const struct profile *p = c->p;
    fputs("<nav class=\"toc\"><strong>Contents</strong>\n<ul>\n", f);
    fputs("<li><a href=\"#run\">Run and machine</a></li>\n"
          "<li><a href=\"#sampling\">Samples, DTE and cost</a></li>\n"
          "<li><a href=\"#tags\">Tags</a></li>\n",
          f);
    if (c->whole && c->whole->placement.has_threads)
        fputs("<li><a href=\"#threads\">Threads</a></li>\n", f);
    if (p->has_by) {
        fprintf(f, "<li><a href=\"#by\">");
        markup_escape(f, p->rates[p->by.rate].name);
        fputs(" by ", f);
        markup_escape(f, p->rates[p->by.by].name);
        fputs("</a></li>\n", f);
    }
    fputs("<li><a href=\"#figures\">Figures</a></li>\n", f);
    if (p->has_cct && c->whole)
        fputs("<li><a href=\"#flame\">Flame graph</a></li>\n"
              "<li><a href=\"#functions\">Functions</a></li>\n"
              "<li><a href=\"#tree\">Calling-context tree</a></li>\n",
              f);
    fputs("</ul>\n</nav>\n", f);
}

/* A calling-context profile's flame graph (coloured by the drawn rate), its functions
 * (every one with samples, every rate) and its tree (the drawn rate, contexts of 0.5% and
 * more). 0, or -1 if memory ran out. */
static int calling_context(FILE *f, const struct plot_ctx *c)
{
    struct calltree *ct = calltree_build(c->whole); /* each thread's own tree */
    long rate = c->p->nrates ? (long)c->rate : -1;
    if (!ct) return -1;
    heading(f, "flame", "Flame graph");
    fputs("<figure>\n", f);
    int rc = flame_figure(f, ct, c->source, rate);
    fputs("</figure>\n", f);
    heading(f, "functions", "Functions");
    fputs("<div class=\"wide\">\n", f);
    if (rc == 0) rc = functions_write(f, REPORT_HTML, ct, -1, -1);
    fputs("</div>\n", f);
    heading(f, "tree", "Calling-context tree");
    fputs("<div class=\"wide\">\n", f);
    if (rc == 0) rc = tree_write(f, REPORT_HTML, ct, rate, 0.005, 0, 1);
    fputs("</div>\n", f);
    calltree_free(ct);
    return rc;
}

static int write_page(FILE *f, const struct plot_ctx *c)
{
    int rc;
    const struct profile *p = c->p;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    markup_escape(f, p->program.name);
    fputs(" \xe2\x80\x94 shim profile</title>\n<style>\n", f);
    fputs(style, f);
    fputs("</style>\n</head>\n<body>\n<h1>", f);
    markup_escape(f, p->program.name);
    fputs("</h1>\n<p class=\"sub\">shim profile ", f);
    markup_escape(f, c->source);
    fputs(", written by shim ", f);
    markup_escape(f, p->shim_version);
    fputs("; drawn by shimview " SHIMVIEW_VERSION "</p>\n", f);
    contents(f, c);

    heading(f, "run", "Run and machine");
    report_write_run(f, REPORT_HTML, p);
    heading(f, "sampling", "Samples, DTE and cost");
    rc = report_write_sampling(f, REPORT_HTML, p);

    heading(f, "tags", "Tags");
    fputs("<div class=\"wide\">\n", f);
    if (rc == 0) rc = report_write_tags(f, REPORT_HTML, p, -1, p->nrates ? (long)c->rate : -1);
    fputs("</div>\n", f);

    if (c->whole && c->whole->placement.has_threads) { /* who ran on the observed CPU */
        struct match_table_options all = {.all = 1};
        heading(f, "threads", "Threads");
        fputs("<div class=\"wide\">\n", f);
        if (rc == 0) rc = threads_write(f, REPORT_HTML, c->whole, -1, &all);
        fputs("</div>\n", f);
    }

    if (p->has_by) { /* one rate per bucket of another: its table, and its figure below it */
        char title[256];
        snprintf(title, sizeof title, "%s by %s", p->rates[p->by.rate].name,
                 p->rates[p->by.by].name);
        heading(f, "by", title);
        fputs("<div class=\"wide\">\n", f);
        if (rc == 0) rc = report_write_by(f, REPORT_HTML, p, (long)c->ntop);
        fputs("</div>\n", f);
        if (rc == 0) rc = figure(f, plot_by_write, c);
    }

    heading(f, "figures", "Figures");
    if (p->nrates > 0) {
        if (rc == 0) rc = figure(f, plot_hist_write, c);
        if (rc == 0) rc = figure(f, plot_cdf_write, c);
    } else {
        fputs("<p class=\"note\">The profile has no rates (no counters were read), so it has no "
              "rate histograms: only the sampling figure is drawn.</p>\n",
              f);
    }
    if (rc == 0) rc = figure(f, plot_sampling_write, c);
    if (rc == 0 && p->has_cct && c->whole) rc = calling_context(f, c);
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", sort_script);
    return rc;
}

/* ---- the command ---- */

static int html_page(const struct plot_options *o, struct plot_ctx *c)
{
    char stem[256], name[272];
    c->kind = SVG_INLINE;
    plot_file_stem(o->file, stem, sizeof stem);
    snprintf(name, sizeof name, "%s.html", stem);
    return plot_write_output(o->output, 0, name, write_page, c);
}

int html_main(int argc, char **argv)
{
    return plot_command(argc, argv, "html", html_usage, "a file name", html_page);
}
