/*
 * trace.c -- reading a shim trace (docs/trace-format.md); see trace.h.
 *
 * The file is a 64-byte header and fixed-size records of little-endian 64-bit words.
 * Its size gives the number of whole records; a trailing partial record (the program
 * was killed while the writer was busy) is ignored, as the format says readers do. The
 * header is checked against the profile before any record is read: a trace whose
 * records hold other slots or rates than the profile names, or that another process
 * wrote, would otherwise be read as numbers that mean something else.
 *
 * Records are read in blocks of a few thousand into one buffer and decoded one by one,
 * byte by byte, so the reader does not depend on the host's byte order or alignment.
 * Rates are IEEE-754 doubles stored as the bits of a word; memcpy turns them back.
 *
 * The `trace` member of the profile is read with reader.h, like every other member, so
 * its messages name the JSON path. It is checked as profile.c checks what it reads:
 * every period is recorded or dropped for one of two reasons, so records + dropped_full
 * + dropped_limit is samples.total, and a record holds 5 + slots + rates words.
 */
#include "trace.h"

#include "commands.h"
#include "reader.h"
#include "tags.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK_RECORDS 4096

static const char magic[8] = {'S', 'H', 'I', 'M', 'T', 'R', 'C', '1'};

/* ---- the profile's member ---- */

int trace_info_read(const struct profile *p, struct trace_info *ti, char *err, size_t errlen)
{
    struct reader r = {.file = p->file, .err = err, .errlen = errlen};
    const json_t *v = json_object_get(p->root, "trace");
    json_t *o;
    size_t mark;
    *ti = (struct trace_info){0};
    if (!v || json_is_null(v)) return 0;
    if (member_object(&r, p->root, "trace", &o, &mark) || member_string(&r, o, "path", &ti->path) ||
        member_u64(&r, o, "records", &ti->records) ||
        member_u64(&r, o, "dropped_full", &ti->dropped_full) ||
        member_u64(&r, o, "dropped_limit", &ti->dropped_limit) ||
        member_u64(&r, o, "max_bytes", &ti->max_bytes) ||
        member_u64(&r, o, "record_words", &ti->record_words))
        return -1;
    if (!ti->path[0]) return reader_fail(&r, "path is empty");
    /* Each count is below 2^63, so records + dropped_full cannot wrap; the third term is
     * taken from the total instead. */
    uint64_t total = p->samples.total;
    if (ti->records + ti->dropped_full > total ||
        total - ti->records - ti->dropped_full != ti->dropped_limit)
        return reader_fail(&r,
                           "records (%" PRIu64 ") + dropped_full (%" PRIu64
                           ") + dropped_limit (%" PRIu64 ") != samples.total (%" PRIu64 ")",
                           ti->records, ti->dropped_full, ti->dropped_limit, total);
    uint64_t want = TRACE_FIXED_WORDS + (uint64_t)p->signals.ntags + p->nrates;
    if (ti->record_words != want)
        return reader_fail(
            &r, "record_words is %" PRIu64 ", expected %" PRIu64 " (5 + %zu tag slots + %zu rates)",
            ti->record_words, want, p->signals.ntags, p->nrates);
    path_restore(&r, mark);
    return 1;
}

/* ---- the file ---- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static double word_double(uint64_t w)
{
    double d;
    memcpy(&d, &w, sizeof d);
    return d;
}

char *profile_resolve_path(const struct profile *p, const char *given, int from_profile)
{
    const char *slash = strrchr(p->file, '/');
    char *path = NULL;
    if (!from_profile || given[0] == '/' || access(given, F_OK) == 0 || !slash ||
        strcmp(p->file, PROFILE_STDIN_NAME) == 0)
        return strdup(given);
    if (asprintf(&path, "%.*s/%s", (int)(slash - p->file), p->file, given) < 0) return NULL;
    if (access(path, F_OK) == 0) return path;
    free(path);
    return strdup(given); /* neither exists: the message names the path as written */
}

FILE *named_file_open(const char *path, int *err)
{
    struct stat st;
    FILE *f = NULL;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return *err = errno, NULL;
    int flags;
    if (fstat(fd, &st) != 0)
        *err = errno;
    else if (!S_ISREG(st.st_mode))
        *err = NAMED_NOT_REGULAR;
    else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0 ||
             !(f = fdopen(fd, "rb")))
        *err = errno;
    if (!f) close(fd);
    return f;
}

const char *named_file_strerror(int err)
{
    return err == NAMED_NOT_REGULAR ? "not a regular file" : strerror(err);
}

static int read_at(struct trace *t, uint64_t index, unsigned char *rec)
{
    off_t off = (off_t)(TRACE_HEADER_BYTES + index * t->record_words * 8);
    return fseeko(t->f, off, SEEK_SET) == 0 &&
                   fread(rec, 8, t->record_words, t->f) == t->record_words
               ? 0
               : -1;
}

static int check_header(struct trace *t, const struct profile *p, const unsigned char *h, char *err,
                        size_t errlen)
{
    if (memcmp(h, magic, sizeof magic) != 0)
        return fail(err, errlen, "%s: not a shim trace (it does not start with SHIMTRC1)", t->path);
    t->version = le32(h + 8);
    t->record_words = le32(h + 12);
    t->n_tags = le32(h + 16);
    t->n_rates = le32(h + 20);
    t->header_tsc_hz = word_double(le64(h + 24));
    t->first_tsc = le64(h + 32);
    t->pid = le64(h + 40);
    if (t->version == 0 || t->version > TRACE_FORMAT_VERSION)
        return fail(err, errlen, "%s: trace format version %" PRIu32 "; this shimview reads %d",
                    t->path, t->version, TRACE_FORMAT_VERSION);
    if (t->n_tags != p->signals.ntags || t->n_rates != p->nrates)
        return fail(err, errlen,
                    "%s: records hold %" PRIu32 " tag slots and %" PRIu32
                    " rates, but %s has %zu and %zu: not the trace of this profile",
                    t->path, t->n_tags, t->n_rates, p->file, p->signals.ntags, p->nrates);
    if (t->record_words != TRACE_FIXED_WORDS + (uint64_t)t->n_tags + t->n_rates)
        return fail(err, errlen,
                    "%s: record_words is %" PRIu32 ", expected %" PRIu64 " (5 + %" PRIu32
                    " tag slots + %" PRIu32 " rates)",
                    t->path, t->record_words, TRACE_FIXED_WORDS + (uint64_t)t->n_tags + t->n_rates,
                    t->n_tags, t->n_rates);
    if (t->pid != p->program.pid)
        return fail(err, errlen,
                    "%s: written by pid %" PRIu64 ", but %s is of pid %" PRIu64
                    ": not the trace of this run",
                    t->path, t->pid, p->file, p->program.pid);
    return 0;
}

/* The first and the last whole record give the span before any pass over the file. */
static int read_ends(struct trace *t, char *err, size_t errlen)
{
    errno = 0;
    if (t->nrecords == 0) return 0;
    if (read_at(t, 0, t->buf) != 0) goto bad;
    t->t0 = le64(t->buf + 8);
    if (read_at(t, t->nrecords - 1, t->buf) != 0) goto bad;
    t->t_end = le64(t->buf + 8) + le64(t->buf + 16);
    if (t->t_end < t->t0) t->t_end = t->t0;
    if (fseeko(t->f, TRACE_HEADER_BYTES, SEEK_SET) != 0) goto bad;
    return 0;
bad:
    return fail(err, errlen, "%s: %s", t->path, errno ? strerror(errno) : "read failed");
}

int trace_open(struct trace *t, const struct profile *p, const struct trace_info *ti,
               const char *override, char *err, size_t errlen)
{
    unsigned char h[TRACE_HEADER_BYTES];
    struct stat st;
    *t = (struct trace){.tsc_hz = p->machine.tsc_hz};
    t->path = profile_resolve_path(p, override ? override : ti->path, !override);
    if (!t->path) return fail(err, errlen, "out of memory");
    int why = 0;
    t->f = named_file_open(t->path, &why);
    if (why == NAMED_NOT_REGULAR) return fail(err, errlen, "%s: not a regular file", t->path);
    if (!t->f)
        return fail(err, errlen, "%s: %s (the trace %s)", t->path, strerror(why),
                    override ? "given with --trace" : "the profile names");
    if (fstat(fileno(t->f), &st) != 0) return fail(err, errlen, "%s: %s", t->path, strerror(errno));
    if ((uint64_t)st.st_size < TRACE_HEADER_BYTES)
        return fail(err, errlen, "%s: %jd bytes, shorter than the %d-byte trace header", t->path,
                    (intmax_t)st.st_size, TRACE_HEADER_BYTES);
    if (fread(h, 1, sizeof h, t->f) != sizeof h)
        return fail(err, errlen, "%s: %s", t->path, strerror(errno ? errno : EIO));
    if (check_header(t, p, h, err, errlen)) return -1;
    size_t rec_bytes = (size_t)t->record_words * 8;
    t->nrecords = ((uint64_t)st.st_size - TRACE_HEADER_BYTES) / rec_bytes;
    t->buf_records = BLOCK_RECORDS;
    t->buf = malloc(t->buf_records * rec_bytes);
    t->words = malloc(rec_bytes);
    t->rates = malloc((t->n_rates ? t->n_rates : 1) * sizeof *t->rates);
    if (!t->buf || !t->words || !t->rates) return fail(err, errlen, "out of memory");
    return read_ends(t, err, errlen);
}

int trace_next(struct trace *t, struct trace_record *r, char *err, size_t errlen)
{
    if (t->read == t->nrecords) return 0;
    size_t rec_bytes = (size_t)t->record_words * 8;
    if (t->buf_pos == t->buf_count) {
        uint64_t left = t->nrecords - t->read;
        size_t want = left < t->buf_records ? (size_t)left : t->buf_records;
        size_t got = fread(t->buf, rec_bytes, want, t->f);
        if (got < want && ferror(t->f))
            return fail(err, errlen, "%s: %s", t->path, strerror(errno ? errno : EIO));
        if (got == 0) { /* the file shrank since it was opened */
            t->nrecords = t->read;
            return 0;
        }
        t->buf_count = got;
        t->buf_pos = 0;
    }
    const unsigned char *b = t->buf + t->buf_pos++ * rec_bytes;
    for (size_t i = 0; i < t->record_words; i++)
        t->words[i] = le64(b + 8 * i);
    for (size_t i = 0; i < t->n_rates; i++)
        t->rates[i] = word_double(t->words[TRACE_FIXED_WORDS + t->n_tags + i]);
    *r = (struct trace_record){.seq = t->words[0],
                               .start = t->words[1],
                               .cycles = t->words[2],
                               .flags = t->words[3],
                               .thread = t->words[4],
                               .tags = t->words + TRACE_FIXED_WORDS,
                               .rates = t->rates};
    if (t->read == 0)
        r->dropped = r->seq;
    else
        r->dropped = r->seq > t->last_seq ? r->seq - t->last_seq - 1 : 0;
    t->last_seq = r->seq;
    t->read++;
    return 1;
}

void trace_close(struct trace *t)
{
    if (t->f) fclose(t->f);
    free(t->path);
    free(t->buf);
    free(t->words);
    free(t->rates);
    *t = (struct trace){0};
}

int trace_command_open(const char *file, const char *override, struct profile **pp,
                       struct trace_info *ti, struct trace *t)
{
    char err[768];
    struct profile *p = profile_load(file, err, sizeof err);
    int rc;
    *pp = NULL;
    *t = (struct trace){0};
    if (!p) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    rc = trace_info_read(p, ti, err, sizeof err);
    if (rc == 0 && !override)
        snprintf(err, sizeof err, "%s has no trace: run with SHIM_TRACE=64M", p->file);
    if (rc < 0 || (rc == 0 && !override) || trace_open(t, p, ti, override, err, sizeof err)) {
        fprintf(stderr, "shimview: %s\n", err);
        trace_close(t);
        profile_free(p);
        return EXIT_FILE_ERROR;
    }
    *pp = p;
    return 0;
}

/* ---- value names ---- */

/* Cut a string that snprintf truncated back to a whole UTF-8 character, so that it
 * stays valid UTF-8 (jansson refuses anything else). */
static void utf8_trim(char *buf, size_t n)
{
    size_t i = n;
    while (i > 0 && ((unsigned char)buf[i - 1] & 0xc0) == 0x80)
        i--;
    if (i == 0 || (unsigned char)buf[i - 1] < 0xc0) return;
    unsigned char lead = (unsigned char)buf[i - 1];
    size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (n - (i - 1) < need) buf[i - 1] = '\0';
}

const char *tag_value_label(const char *slot_name, const char *name, uint64_t value, char *buf,
                            size_t len)
{
    int n = name         ? snprintf(buf, len, "%s", name)
            : value == 0 ? snprintf(buf, len, "%s", TAG_VALUE_UNSET)
                         : snprintf(buf, len, "%s=%" PRIu64, slot_name, value);
    if (n >= 0 && (size_t)n >= len && len > 0) utf8_trim(buf, len - 1);
    return buf;
}

static int by_value(const void *a, const void *b)
{
    const struct value_name *x = a, *y = b;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Keep a name made here, to be freed with the rest. The list grows as names come, never
 * from a count guessed in advance: an entry names up to three reserved slots (function,
 * context and loop when a program is built with both -finstrument-functions and the
 * pass), and a list sized for two per entry was once overrun. */
static int keep_owned(struct value_names *vn, char *name)
{
    if (vn->nowned == vn->cap_owned) {
        size_t cap = vn->cap_owned ? 2 * vn->cap_owned : 64;
        char **more = cap > SIZE_MAX / sizeof *more ? NULL : realloc(vn->owned, cap * sizeof *more);
        if (!more) {
            free(name);
            return -1;
        }
        vn->owned = more;
        vn->cap_owned = cap;
    }
    vn->owned[vn->nowned++] = name;
    return 0;
}

int value_names_init(struct value_names *vn, const struct profile *p)
{
    size_t ns = p->signals.ntags;
    *vn = (struct value_names){.p = p};
    vn->n = calloc(ns ? ns : 1, sizeof *vn->n);
    vn->by_slot = calloc(ns ? ns : 1, sizeof *vn->by_slot);
    if (!vn->n || !vn->by_slot) goto oom;
    for (size_t s = 0; s < ns; s++) {
        struct value_name *v = malloc((p->ntags ? p->ntags : 1) * sizeof *v);
        if (!v) goto oom;
        vn->by_slot[s] = v;
        size_t k = 0;
        for (size_t i = 0; i < p->ntags; i++) {
            const char *name = p->tags[i].names[s];
            /* the reserved slots' addresses and node numbers: named as the report names
             * them (tags.c), by function, context and loop */
            char *made = name ? NULL : tag_value_name(p, &p->tags[i], s);
            if (made && keep_owned(vn, made) != 0) goto oom;
            if (made) name = made;
            if (name) v[k++] = (struct value_name){p->tags[i].values[s], name};
        }
        qsort(v, k, sizeof *v, by_value);
        size_t u = 0; /* one name per value (a value has one name: shim_name_tag's) */
        for (size_t i = 0; i < k; i++)
            if (u == 0 || v[u - 1].value != v[i].value) v[u++] = v[i];
        vn->n[s] = u;
    }
    return 0;
oom:
    value_names_free(vn);
    return -1;
}

void value_names_free(struct value_names *vn)
{
    for (size_t s = 0; vn->by_slot && s < vn->p->signals.ntags; s++)
        free(vn->by_slot[s]);
    free(vn->by_slot);
    free(vn->n);
    for (size_t i = 0; i < vn->nowned; i++)
        free(vn->owned[i]);
    free(vn->owned);
    vn->by_slot = NULL;
    vn->n = NULL;
    vn->owned = NULL;
    vn->nowned = vn->cap_owned = 0;
}

const char *value_names_get(const struct value_names *vn, size_t slot, uint64_t value, char *buf,
                            size_t len)
{
    struct value_name key = {value, NULL};
    const struct value_name *hit =
        bsearch(&key, vn->by_slot[slot], vn->n[slot], sizeof key, by_value);
    return tag_value_label(vn->p->signals.tags[slot].name, hit ? hit->name : NULL, value, buf, len);
}
