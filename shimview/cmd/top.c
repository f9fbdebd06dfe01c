/*
 * top.c -- `shimview top`: what a running program does now, from the profile that
 * SHIM_SNAPSHOT rewrites while it runs (docs/long-running.md), as `perf top` shows a
 * running system.
 *
 * The command watches the file (its inode, size and time: every profile is renamed into
 * place whole) and reads each new profile twice: once as it is, the run so far, and once
 * less the profile read before (analysis/between.c), the last interval. Both are
 * turned into rows by what the view shows, tags (folded over threads, as `report` names
 * them: match.h), functions or calling contexts (calltree.h), and joined by name, so a
 * row's share over the interval and since the start sit side by side with the samples
 * per second and one rate over each; the rows are ordered by their share of the
 * interval. The first profile read has no interval before it: its block shows the run
 * so far in both columns.
 *
 * On a terminal each block replaces the last (the screen is cleared), the keyboard is
 * read without echo, and 'q' or Ctrl-C ends it, giving the terminal its settings back.
 * To a pipe it prints one block per profile read, separated by a blank line, so a
 * script or a test reads the intervals one after another. It ends by itself once it
 * has shown a final profile (the program's stop), or a profile without snapshots, or
 * after --count blocks. A profile that fails to load while the file keeps changing is
 * read again (a profile with a table file can be caught between its two renames); one
 * that fails and stays as it is ends the command with the loader's message.
 */
#include "shimview/analysis/intervals.h"
#include "shimview/cmd/commands.h"
#include "shimview/analysis/calltree.h"
#include "shimview/analysis/between.h"
#include "shimview/analysis/match.h"
#include "shimview/analysis/stats.h"
#include "shimview/base/numbers.h"
#include "shimview/base/table.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TOP  20
#define NAME_WIDTH   48
#define LOAD_RETRIES 20 /* loads of a file that fails while it keeps changing */

const char top_usage[] =
    "usage: shimview top [--by WHAT] [--rate NAME] [--top N] [--every SECONDS]\n"
    "                    [--count N] PROFILE\n"
    "\n"
    "Show what a running program does now, from the profile that SHIM_SNAPSHOT\n"
    "rewrites while it runs: read PROFILE again each time it changes, and show the\n"
    "tags (or functions, or calling contexts) with the largest share of the samples\n"
    "of the last interval (between the last two profiles read), beside their share\n"
    "since the start, their samples per second and a rate over each. On a terminal\n"
    "the view refreshes in place and 'q' or Ctrl-C ends it; to a pipe it prints one\n"
    "block per interval. It ends by itself after the program's final profile.\n"
    "\n"
    "  -b, --by WHAT       tags (default), functions or contexts (the last two need\n"
    "                      a calling-context profile)\n"
    "  -r, --rate NAME     the rate shown (default: the profile's first)\n"
    "  -n, --top N         show the first N rows (default 20)\n"
    "      --every SECONDS look at the file this often (default 0.2)\n"
    "      --count N       end after N blocks\n"
    "  -h, --help          print this help\n";

enum top_by { BY_TAGS, BY_FUNCTIONS, BY_CONTEXTS };

struct top_options {
    enum top_by by;
    const char *rate, *file;
    long top, count;
    double every;
};

/* One row: a name, and over the interval [0] and since the start [1] its samples,
 * cycles and the shown rate's sums. */
struct top_row {
    char *name;
    uint64_t samples[2];
    struct calltree_sums rate[2];
};

struct rows {
    struct top_row *r;
    size_t n, cap;
    int failed;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- the command line ---- */

static int parse_options(int argc, char **argv, struct top_options *o)
{
    static const struct option options[] = {
        {"by", required_argument, NULL, 'b'},
        {"rate", required_argument, NULL, 'r'},
        {"top", required_argument, NULL, 'n'},
        {"every", required_argument, NULL, 'E'},
        {"count", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    char *end;
    opterr = 0;
    o->top = DEFAULT_TOP;
    o->every = 0.2;
    while ((opt = getopt_long(argc, argv, ":b:r:n:h", options, NULL)) != -1) {
        switch (opt) {
        case 'b':
            if (!strcmp(optarg, "tags"))
                o->by = BY_TAGS;
            else if (!strcmp(optarg, "functions"))
                o->by = BY_FUNCTIONS;
            else if (!strcmp(optarg, "contexts"))
                o->by = BY_CONTEXTS;
            else
                return usage_error("top", "--by expects tags, functions or contexts, not '%s'",
                                   optarg);
            break;
        case 'r':
            o->rate = optarg;
            break;
        case 'n':
            if (parse_count_option("top", "--top", optarg, &o->top)) return EXIT_USAGE_ERROR;
            if (o->top == 0) return usage_error("top", "--top must be at least 1");
            break;
        case 'E':
            errno = 0;
            o->every = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o->every >= 0.01 && o->every <= 3600))
                return usage_error("top", "--every expects seconds from 0.01 to 3600, not '%s'",
                                   optarg);
            break;
        case 'C':
            if (parse_count_option("top", "--count", optarg, &o->count)) return EXIT_USAGE_ERROR;
            if (o->count == 0) return usage_error("top", "--count must be at least 1");
            break;
        case 'h':
            fputs(top_usage, stdout);
            return -1;
        default:
            return option_error("top", opt, argv);
        }
    }
    if (optind >= argc) return usage_error("top", "missing the PROFILE");
    if (optind + 1 < argc) return usage_error("top", "expects one PROFILE, got %d", argc - optind);
    o->file = argv[optind];
    if (!strcmp(o->file, "-"))
        return usage_error("top", "reads a file that changes, not standard input");
    return 0;
}

/* ---- rows ---- */

static struct top_row *row_add(struct rows *rs, const char *name)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        struct top_row *g = realloc(rs->r, cap * sizeof *g);
        if (!g) {
            rs->failed = 1;
            return NULL;
        }
        rs->r = g;
        rs->cap = cap;
    }
    struct top_row *r = &rs->r[rs->n];
    memset(r, 0, sizeof *r);
    if (!(r->name = strdup(name))) {
        rs->failed = 1;
        return NULL;
    }
    rs->n++;
    return r;
}

static void rows_free(struct rows *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        free(rs->r[i].name);
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

static void count_into(struct top_row *r, int since, uint64_t samples,
                       const struct calltree_sums *rate)
{
    r->samples[since] += samples;
    if (!rate) return;
    struct calltree_sums *d = &r->rate[since];
    d->n += rate->n;
    d->sum_a += rate->sum_a;
    d->sum_b += rate->sum_b;
    d->sum_aa += rate->sum_aa;
    d->sum_bb += rate->sum_bb;
    d->sum_ab += rate->sum_ab;
}

static void tag_row(struct rows *rs, const char *name, const struct profile_tag *t, long rate,
                    int since)
{
    struct top_row *r = row_add(rs, name);
    if (!r) return;
    struct calltree_sums s = {0};
    if (rate >= 0) {
        const struct profile_rate_stats *q = &t->rates[rate]; /* as calltree_count_entry */
        if (q->has_stats)
            s = (struct calltree_sums){q->n, q->sum_a, q->sum_b, q->sum_aa, q->sum_bb, q->sum_ab};
    }
    count_into(r, since, t->samples, rate >= 0 ? &s : NULL);
}

/* The folded tags of p as rows of column `since`. */
static int rows_tags(struct rows *rs, const struct profile *p, long rate, int since)
{
    struct profile view;
    char **names;
    if (match_fold(p, &view, &names) != 0) return -1;
    for (size_t i = 0; i < view.ntags; i++)
        tag_row(rs, names[i], &view.tags[i], rate, since);
    if (p->other.samples) tag_row(rs, "other", &p->other, rate, since);
    match_fold_free(&view, names);
    return rs->failed ? -1 : 0;
}

static void count_row(struct rows *rs, const char *name, const struct calltree_count *c, long rate,
                      int since)
{
    if (!c->samples) return;
    struct top_row *r = row_add(rs, name);
    if (r) count_into(r, since, c->samples, rate >= 0 ? &c->rates[rate] : NULL);
}

/* Functions (exclusive counts) or contexts of p as rows of column `since`. */
static int rows_calltree(struct rows *rs, const struct profile *p, enum top_by by, long rate,
                         int since)
{
    struct calltree *ct = calltree_build(p);
    char buf[256];
    if (!ct) return -1;
    if (by == BY_FUNCTIONS) {
        for (size_t i = 0; i < p->nfunctions; i++)
            count_row(rs, calltree_function_label(ct->functions[i].f, buf, sizeof buf),
                      &ct->functions[i].excl, rate, since);
        count_row(rs, CALLTREE_ROOT_NAME, &ct->outside, rate, since);
    }
    for (size_t t = 0; by == BY_CONTEXTS && t < ct->nthreads; t++) {
        const struct calltree_thread *th = &ct->threads[t];
        for (size_t i = 0; i < th->t->nnodes && !rs->failed; i++) {
            if (!th->excl[i].samples) continue;
            char *path = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&path, &len);
            if (!f) {
                rs->failed = 1;
                break;
            }
            calltree_write_path(f, th->t, th->twin, i, " > ");
            fclose(f);
            count_row(rs, path, &th->excl[i], rate, since);
            free(path);
        }
    }
    count_row(rs, "(no context)", &ct->no_context, rate, since);
    calltree_free(ct);
    return rs->failed ? -1 : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct top_row *)a)->name, ((const struct top_row *)b)->name);
}

static int by_interval(const void *a, const void *b)
{
    const struct top_row *x = a, *y = b;
    if (x->samples[0] != y->samples[0]) return x->samples[0] < y->samples[0] ? 1 : -1;
    if (x->samples[1] != y->samples[1]) return x->samples[1] < y->samples[1] ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Rows of one name become one; then ordered by the interval's samples. */
static void rows_settle(struct rows *rs)
{
    qsort(rs->r, rs->n, sizeof *rs->r, by_name);
    size_t k = 0;
    for (size_t i = 0; i < rs->n; i++) {
        if (k && !strcmp(rs->r[k - 1].name, rs->r[i].name)) {
            for (int c = 0; c < 2; c++)
                count_into(&rs->r[k - 1], c, rs->r[i].samples[c], &rs->r[i].rate[c]);
            free(rs->r[i].name);
        } else {
            rs->r[k++] = rs->r[i];
        }
    }
    rs->n = k;
    qsort(rs->r, rs->n, sizeof *rs->r, by_interval);
}

/* ---- one block ---- */

static uint64_t attributed(const struct profile *p)
{
    return p->samples.total - p->samples.interrupted;
}

static void share_cell(struct table *t, size_t col, uint64_t k, uint64_t n)
{
    char pct[16];
    if (n)
        table_set(t, col, "%s", stats_format_share((double)k / (double)n, pct, sizeof pct));
    else
        table_set(t, col, "-");
}

/* What the profile's `snapshot` member says: its number, and whether it is final (a
 * profile without one is final too). -1 with a message when it is malformed. */
static int snapshot_of(const struct profile *p, uint64_t *number, int *final)
{
    json_t *s = json_object_get(p->root, "snapshot");
    *number = 0;
    *final = 1;
    if (!s) return 0;
    json_t *n = json_object_get(s, "number"), *f = json_object_get(s, "final");
    if (!json_is_object(s) || !json_is_integer(n) || json_integer_value(n) < 1 ||
        !json_is_boolean(f)) {
        fprintf(stderr,
                "shimview: %s: snapshot: expected an object with a number from 1 and a "
                "boolean final\n",
                p->file);
        return -1;
    }
    *number = (uint64_t)json_integer_value(n);
    *final = json_is_true(f);
    return 0;
}

static int print_block(const struct top_options *o, const struct profile *now,
                       const struct profile *delta, long rate, int first, FILE *out)
{
    struct rows rs = {0};
    int rc = o->by == BY_TAGS ? rows_tags(&rs, delta, rate, 0) | rows_tags(&rs, now, rate, 1)
                              : rows_calltree(&rs, delta, o->by, rate, 0) |
                                    rows_calltree(&rs, now, o->by, rate, 1);
    if (rc != 0 || rs.failed) {
        rows_free(&rs);
        return -1;
    }
    rows_settle(&rs);
    uint64_t number;
    int final;
    snapshot_of(now, &number, &final);
    double span = (double)delta->run.duration_ns * 1e-9,
           whole = (double)now->run.duration_ns * 1e-9;
    uint64_t n0 = attributed(delta), n1 = attributed(now);
    char a[32], b[32];
    fprintf(out, "%s (pid %" PRIu64 ") on %s: ", now->program.name, now->program.pid,
            now->machine.hostname);
    if (number)
        fprintf(out, "%s %" PRIu64 " at %.2f s\n", final ? "final profile" : "snapshot", number,
                whole);
    else
        fprintf(out, "its profile, %.2f s (written without SHIM_SNAPSHOT)\n", whole);
    if (first)
        fprintf(out, "the run so far (no earlier profile read): %s samples, %.0f/s\n",
                fmt_count(n1, a, sizeof a), whole > 0 ? (double)n1 / whole : 0.0);
    else
        fprintf(out, "last interval %.2f s: %s samples, %.0f/s; since the start: %s samples\n",
                span, fmt_count(n0, a, sizeof a), span > 0 ? (double)n0 / span : 0.0,
                fmt_count(n1, b, sizeof b));
    const char *rname = rate >= 0 ? now->rates[rate].name : NULL;
    size_t ncols = rname ? 6 : 4;
    enum table_align align[6] = {TABLE_LEFT,  TABLE_RIGHT, TABLE_RIGHT,
                                 TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT};
    struct table *t = table_new(ncols, align);
    if (!t) {
        rows_free(&rs);
        return -1;
    }
    table_add_row(t);
    table_set(t, 0, "%s",
              o->by == BY_TAGS        ? "tag"
              : o->by == BY_FUNCTIONS ? "function"
                                      : "context");
    table_set(t, 1, "share");
    table_set(t, 2, "since start");
    table_set(t, 3, "samples/s");
    if (rname) {
        table_set(t, 4, "%s", rname);
        table_set(t, 5, "since start");
    }
    table_end_header(t);
    size_t shown = rs.n < (size_t)o->top ? rs.n : (size_t)o->top;
    for (size_t i = 0; i < shown; i++) {
        const struct top_row *r = &rs.r[i];
        table_add_row(t);
        table_set_cut(t, 0, r->name, NAME_WIDTH);
        share_cell(t, 1, r->samples[0], n0);
        share_cell(t, 2, r->samples[1], n1);
        table_set(t, 3, "%.0f", span > 0 ? (double)r->samples[0] / span : 0.0);
        if (rname) {
            calltree_rate_cell(t, 4, delta, (size_t)rate, &r->rate[0]);
            calltree_rate_cell(t, 5, now, (size_t)rate, &r->rate[1]);
        }
    }
    rc = table_print_text(t, out);
    if (rs.n > shown) fprintf(out, "(%zu more rows; --top shows more)\n", rs.n - shown);
    table_free(t);
    rows_free(&rs);
    return rc;
}

/* ---- watching the file ---- */

struct seen {
    int exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
};

static struct seen look(const char *file)
{
    struct stat st;
    struct seen s = {0};
    if (stat(file, &st) == 0) {
        s.exists = 1;
        s.dev = st.st_dev;
        s.ino = st.st_ino;
        s.size = st.st_size;
        s.mtime = st.st_mtim;
    }
    return s;
}

static int same_file(const struct seen *a, const struct seen *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* The terminal's keyboard, read key by key without echo while the view runs. */
static struct termios saved_tty;
static int tty_raw;

static void keyboard_raw(void)
{
    struct termios t;
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty) != 0) return;
    t = saved_tty;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    tty_raw = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

static void keyboard_restore(void)
{
    if (tty_raw) tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
    tty_raw = 0;
}

/* Wait up to `seconds` for 'q' (1) or a signal (1); 0 when the time passed. */
static int wait_key(double seconds)
{
    struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
    int ms = (int)(seconds * 1000 + 0.5);
    if (!tty_raw) {
        struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        return interrupted;
    }
    if (poll(&pfd, 1, ms) > 0) {
        char c;
        while (read(STDIN_FILENO, &c, 1) == 1)
            if (c == 'q' || c == 'Q') return 1;
    }
    return interrupted;
}

/* The profile at file, loaded; NULL after a message when it stays unreadable. */
static struct profile *load_settled(const char *file, struct seen *seen)
{
    char err[1024];
    for (int attempt = 0; attempt < LOAD_RETRIES && !interrupted; attempt++) {
        struct seen before = look(file);
        struct profile *p = profile_open(file, err, sizeof err);
        struct seen after = look(file);
        if (p && same_file(&before, &after)) {
            *seen = after;
            return p;
        }
        profile_free(p);
        if (!p && same_file(&before, &after) && after.exists) break; /* it is the file */
        struct timespec nap = {0, 20000000L};
        nanosleep(&nap, NULL);
    }
    if (!interrupted) fprintf(stderr, "shimview: %s\n", err);
    return NULL;
}

/* The profile at file read twice, into *now and *delta (the interval is subtracted in
 * place): 0, 1 when the file changed between the two reads (nothing kept: read again),
 * or -1 after a message. */
static int load_twice(const char *file, struct profile **now, struct profile **delta,
                      struct seen *seen)
{
    struct seen first, second;
    *now = load_settled(file, &first);
    *delta = *now ? load_settled(file, &second) : NULL;
    if (!*delta) {
        profile_free(*now);
        *now = NULL;
        return -1;
    }
    if (!same_file(&first, &second)) {
        profile_free(*now);
        profile_free(*delta);
        *now = *delta = NULL;
        return 1;
    }
    *seen = second;
    return 0;
}

static long find_rate(const struct top_options *o, const struct profile *p, int *rc)
{
    size_t i;
    *rc = 0;
    if (o->rate) {
        if ((*rc = calltree_find_rate(p, o->rate, "top", &i)) != 0) return -1;
        return (long)i;
    }
    return p->nrates ? 0 : -1;
}

static int watch(const struct top_options *o)
{
    int tty = isatty(STDOUT_FILENO), rc = 0, said_waiting = 0;
    long blocks = 0;
    struct profile *prev = NULL;
    struct seen seen = {0};
    while (!interrupted) {
        struct seen s = look(o->file);
        if (!s.exists || same_file(&s, &seen)) {
            if (!s.exists && !said_waiting++)
                fprintf(stderr, "shimview top: waiting for %s\n", o->file);
            if (wait_key(o->every)) break;
            continue;
        }
        struct profile *now, *delta;
        int got = load_twice(o->file, &now, &delta, &seen);
        if (got > 0) continue; /* a newer profile came between the two reads */
        if (got < 0) {
            rc = interrupted ? 0 : EXIT_FILE_ERROR;
            break;
        }
        uint64_t number;
        int final, first = prev == NULL;
        char why[1024];
        if (snapshot_of(now, &number, &final) != 0) {
            profile_free(now);
            profile_free(delta);
            rc = EXIT_FILE_ERROR;
            break;
        }
        if (prev && interval_subtract(delta, prev, why, sizeof why) != 0) {
            /* another run wrote the file (or an older profile came back): start again */
            fprintf(stderr, "shimview top: %s; showing it from its start\n", why);
            profile_free(now);
            profile_free(delta);
            profile_free(prev);
            prev = NULL;
            seen = (struct seen){0};
            continue;
        }
        if (o->by != BY_TAGS && !now->has_cct) {
            fprintf(stderr,
                    "shimview top: %s has no calling contexts (cct): --by %s needs a program "
                    "built with -finstrument-functions or the compiler pass; --by tags shows "
                    "its tags\n",
                    o->file, o->by == BY_FUNCTIONS ? "functions" : "contexts");
            profile_free(now);
            profile_free(delta);
            rc = EXIT_FILE_ERROR;
            break;
        }
        long rate = find_rate(o, now, &rc);
        if (rc != 0) {
            profile_free(now);
            profile_free(delta);
            break;
        }
        if (tty)
            fputs("\033[H\033[2J", stdout);
        else if (blocks)
            fputc('\n', stdout);
        if (print_block(o, now, delta, rate, first, stdout) != 0) {
            fprintf(stderr, "shimview: out of memory\n");
            rc = EXIT_FILE_ERROR;
        }
        if (tty && tty_raw) fputs("(q or Ctrl-C ends it)\n", stdout);
        fflush(stdout);
        profile_free(delta);
        profile_free(prev);
        prev = now;
        blocks++;
        if (rc != 0 || final || (o->count && blocks >= o->count)) break;
        if (wait_key(o->every)) break;
    }
    profile_free(prev);
    return rc;
}

int top_main(int argc, char **argv)
{
    struct top_options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    keyboard_raw();
    rc = watch(&o);
    keyboard_restore();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
