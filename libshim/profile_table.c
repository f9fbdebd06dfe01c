/*
 * profile_table.c -- writes the table file of a large profile (formats/profile_table.proto).
 *
 * A profile of a million tag entries is 200 MB of JSON that takes seconds to build, write
 * and read again; the same entries as protocol buffers are a quarter of the size and are
 * written as the writer walks the tag table, with no document in memory. The file is one
 * Table message: its header (format, id) packed by protobuf-c, then each element of its
 * repeated fields packed by protobuf-c and written as that field's element (its key and
 * length, then its bytes), which is how the wire format carries a repeated field anyway.
 *
 * The file is written under a temporary name beside the profile and renamed into place
 * just before the profile is, so a reader never sees a half-written table.
 */
#include "libshim/profile_table.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats/profile_table.pb-c.h"

/* ProtobufCBuffer that appends to the table's file. */
struct file_buffer {
    ProtobufCBuffer base;
    struct table_writer *w;
};

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    struct table_writer *w = ((struct file_buffer *)b)->w;
    if (w->err) return;
    if (fwrite(data, 1, len, w->f) != len) w->err = errno ? errno : EIO;
    w->bytes += len;
}

void table_init(struct table_writer *w, const char *profile_path)
{
    memset(w, 0, sizeof *w);
    if (snprintf(w->path, sizeof w->path, "%s.table", profile_path) >= (int)sizeof w->path)
        w->err = ENAMETOOLONG;
    if (getrandom(&w->id, sizeof w->id, 0) != sizeof w->id)
        w->id = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
}

/* Create the temporary file (exclusively, never following a planted link) and write the
 * header. */
static int table_open(struct table_writer *w)
{
    if (w->err) return -1;
    if (w->f) return 0;
    w->opened = 1;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != sizeof r) r = w->id + (uint64_t)attempt;
        snprintf(w->tmp, sizeof w->tmp, "%s.%016" PRIx64 ".tmp", w->path, r);
        fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
        w->err = errno ? errno : EIO;
        if (fd >= 0) close(fd), unlink(w->tmp);
        return -1;
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    ShimTable__Table head = SHIM_TABLE__TABLE__INIT;
    head.format = "shim-profile-table";
    head.id = w->id;
    struct file_buffer b = {{file_append}, w};
    shim_table__table__pack_to_buffer(&head, &b.base);
    return w->err ? -1 : 0;
}

/* One element of the Table's repeated field `field`: key, length, the packed message. */
static void put_element(struct table_writer *w, unsigned field, const ProtobufCMessage *m)
{
    if (table_open(w) != 0) return;
    uint8_t head[16];
    size_t n = 0;
    uint64_t v = ((uint64_t)field << 3) | 2; /* wire type 2: length-delimited */
    for (int k = 0; k < 2; k++, v = protobuf_c_message_get_packed_size(m)) {
        while (v >= 0x80) {
            head[n++] = (uint8_t)(v | 0x80);
            v >>= 7;
        }
        head[n++] = (uint8_t)v;
    }
    struct file_buffer b = {{file_append}, w};
    file_append(&b.base, n, head);
    protobuf_c_message_pack_to_buffer(m, &b.base);
}

void table_entry(struct table_writer *w, uint64_t thread, const uint64_t *values, unsigned nvalues,
                 const struct tag_entry *e, unsigned nrates)
{
    ShimTable__Entry m = SHIM_TABLE__ENTRY__INIT;
    ShimTable__Rate rates[nrates ? nrates : 1], *rp[nrates ? nrates : 1];
    m.thread = thread;
    m.n_values = nvalues;
    m.values = (uint64_t *)values;
    m.samples = e->samples;
    m.cycles = e->cycles;
    m.kept = e->kept;
    m.straddled = e->straddled;
    for (unsigned i = 0; i < nrates; i++) {
        const struct rate_sums *s = &e->sums[i];
        shim_table__rate__init(&rates[i]);
        rates[i].periods = s->periods;
        rates[i].sum_a = s->sum_a;
        rates[i].sum_b = s->sum_b;
        rates[i].sum_aa = s->sum_aa;
        rates[i].sum_bb = s->sum_bb;
        rates[i].sum_ab = s->sum_ab;
        rp[i] = &rates[i];
    }
    m.n_rates = nrates;
    m.rates = rp;
    put_element(w, 4, &m.base);
    w->entries++;
}

void table_name(struct table_writer *w, unsigned tag, uint64_t value, const char *name)
{
    ShimTable__Name m = SHIM_TABLE__NAME__INIT;
    m.tag = tag;
    m.value = value;
    m.name = (char *)name;
    put_element(w, 3, &m.base);
}

void table_tree(struct table_writer *w, uint32_t index, size_t n, uint64_t *parent,
                uint64_t *function, uint64_t *site)
{
    ShimTable__Tree m = SHIM_TABLE__TREE__INIT;
    m.index = index;
    m.n_parent = m.n_function = m.n_site = n;
    m.parent = parent;
    m.function = function;
    m.site = site;
    put_element(w, 5, &m.base);
    w->nodes += n;
}

int table_finish(struct table_writer *w, char *why, size_t whylen)
{
    if (w->f) {
        if (fflush(w->f) != 0 && !w->err) w->err = errno;
        if (!w->err && fsync(fileno(w->f)) != 0) w->err = errno;
        if (fclose(w->f) != 0 && !w->err) w->err = errno;
        w->f = NULL;
    }
    if (!w->err) return 0;
    snprintf(why, whylen, "cannot write the profile's table %s: %s", w->path, strerror(w->err));
    table_abort(w);
    return -1;
}

int table_commit(struct table_writer *w, char *why, size_t whylen)
{
    if (!w->opened) return 0;
    if (rename(w->tmp, w->path) == 0) return 0;
    snprintf(why, whylen, "cannot write the profile's table %s: %s", w->path, strerror(errno));
    table_abort(w);
    return -1;
}

void table_abort(struct table_writer *w)
{
    if (w->f) fclose(w->f), w->f = NULL;
    if (w->opened) unlink(w->tmp);
}

json_t *table_json(const struct table_writer *w, json_t *(*text)(const char *))
{
    const char *base = strrchr(w->path, '/');
    char id[24];
    snprintf(id, sizeof id, "%016" PRIx64, w->id);
    return json_pack("{s:o, s:s, s:I, s:I, s:I}", "file", text(base ? base + 1 : w->path), "id", id,
                     "entries", (json_int_t)w->entries, "nodes", (json_int_t)w->nodes, "bytes",
                     (json_int_t)w->bytes);
}
