/*
 * trace_writer.c -- the thread that drains the observer's trace ring into the trace file
 * (docs/trace-format.md).
 *
 * The observer only places records into the ring; this thread, created with every signal
 * blocked and free to run on any CPU the process may use, copies them out every
 * millisecond and writes them in large blocks. It writes the header first and never more
 * than the size asked for; what it cannot write (the size is reached, or a write fails)
 * it counts, so the profile can say exactly what the trace is missing.
 *
 * The file is created the way the profile is (profile_writer.c): under a new random
 * name beside the destination, exclusively and never through a symlink, mode 0644 less
 * the umask, and renamed over the destination when the run stops. Whatever stands at
 * the destination (a FIFO that would block the open, a file of another user that
 * would be truncated and keep its mode, a symlink) is never opened, and a reader never
 * finds a trace that is still being written.
 */
#include "libshim/trace_writer.h"

#include "libshim/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define TRACE_RING_BYTES ((size_t)8 << 20)
#define TRACE_BLOCK      4096 /* records per write() at most */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Write what the ring holds; returns the number of records taken out. */
static uint64_t drain(struct trace_writer *w)
{
    uint64_t n = trace_ring_pop(&w->ring, w->block, TRACE_BLOCK);
    size_t rec = w->ring.words * sizeof(uint64_t);
    uint64_t fit = 0;
    if (!w->error && w->bytes < w->max_bytes) fit = (w->max_bytes - w->bytes) / rec;
    fit = fit < n ? fit : n;
    if (fit && write_all(w->fd, w->block, fit * rec) != 0) {
        w->error = errno ? errno : EIO;
        fit = 0;
    }
    w->bytes += fit * rec;
    w->records += fit;
    w->dropped_limit += n - fit;
    return n;
}

static void *writer_main(void *arg)
{
    struct trace_writer *w = arg;
    const struct timespec ms = {0, 1000 * 1000};
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
        if (drain(w) < TRACE_BLOCK) nanosleep(&ms, NULL);
    while (drain(w)) /* the observer has stopped: what is left */
        ;
    return NULL;
}

/* The temporary file: "<path>.<16 hex digits>.tmp", opened O_EXCL | O_NOFOLLOW. */
static int create_beside(struct trace_writer *w)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != sizeof r)
            r = (uint64_t)clock() ^ ((uint64_t)getpid() << 20) ^ (uint64_t)attempt;
        snprintf(w->tmp_path, sizeof w->tmp_path, "%s.%016llx.tmp", w->path, (unsigned long long)r);
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (w->fd >= 0 || errno != EEXIST) break;
    }
    if (w->fd < 0) w->tmp_path[0] = 0;
    return w->fd;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, sizeof v); /* x86: little-endian as the format says */
}

static void put_u64(unsigned char *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

int trace_writer_start(struct trace_writer *w, const char *path, uint64_t max_bytes,
                       const struct probe_plan *plan, double tsc_hz, uint64_t first_tsc, long pid,
                       const cpu_set_t *cpus, char *why, size_t whylen)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    snprintf(w->path, sizeof w->path, "%s", path);
    w->max_bytes = max_bytes;
    unsigned words = trace_record_words(plan);
    if (trace_ring_init(&w->ring, words, TRACE_RING_BYTES) != 0 ||
        !(w->block = calloc((size_t)TRACE_BLOCK * words, sizeof *w->block))) {
        trace_writer_free(w);
        return snprintf(why, whylen, "out of memory for the trace ring"), -1;
    }
    if (create_beside(w) < 0) {
        snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
        trace_writer_free(w);
        return -1;
    }
    unsigned char h[TRACE_HEADER_BYTES] = {0};
    memcpy(h, TRACE_MAGIC, TRACE_MAGIC_BYTES);
    put_u32(h + TRACE_HEADER_VERSION, TRACE_FORMAT_VERSION);
    put_u32(h + TRACE_HEADER_RECORD_WORDS, words);
    put_u32(h + TRACE_HEADER_TAGS, plan->n_tags);
    put_u32(h + TRACE_HEADER_RATES, plan->n_rates);
    memcpy(h + TRACE_HEADER_TSC_HZ, &tsc_hz, sizeof tsc_hz);
    put_u64(h + TRACE_HEADER_FIRST_TSC, first_tsc);
    put_u64(h + TRACE_HEADER_PID, (uint64_t)pid);
    if (max_bytes < sizeof h || write_all(w->fd, h, sizeof h) != 0) {
        snprintf(why, whylen, "cannot write %s: %s", path,
                 max_bytes < sizeof h ? "smaller than its header" : strerror(errno));
        trace_writer_free(w);
        return -1;
    }
    w->bytes = sizeof h;
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof *cpus, cpus);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = threads_create_internal(&w->thread, &attr, writer_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err) {
        snprintf(why, whylen, "cannot start the trace writer: %s", strerror(err));
        trace_writer_free(w);
        return -1;
    }
    pthread_setname_np(w->thread, "shim-trace");
    w->running = 1;
    return 0;
}

void trace_writer_stop(struct trace_writer *w)
{
    if (!w->running) return;
    __atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
    pthread_join(w->thread, NULL);
    w->running = 0;
    w->dropped_full = w->ring.dropped;
    if (fsync(w->fd) != 0 && !w->error) w->error = errno;
    if (close(w->fd) != 0 && !w->error) w->error = errno;
    w->fd = -1;
    if (rename(w->tmp_path, w->path) != 0) { /* nothing of it is at the path: all lost */
        if (!w->error) w->error = errno;
        w->dropped_limit += w->records;
        w->records = 0;
        unlink(w->tmp_path);
    }
    w->tmp_path[0] = 0;
}

void trace_writer_free(struct trace_writer *w)
{
    trace_writer_stop(w);
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    if (w->tmp_path[0]) unlink(w->tmp_path); /* it never started: no trace at all */
    w->tmp_path[0] = 0;
    trace_ring_free(&w->ring);
    free(w->block);
    w->block = NULL;
}

void trace_writer_after_fork_child(struct trace_writer *w)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    w->running = 0;
    w->tmp_path[0] = 0;
}
