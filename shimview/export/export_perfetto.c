/*
 * export_perfetto.c -- `shimview export --format perfetto`: a trace as trace-event JSON,
 * the JSON Object Format that ui.perfetto.dev and chrome://tracing open.
 *
 * The document is {"displayTimeUnit": "ns", "otherData": {...}, "traceEvents": [...]}.
 * Everything is in the program's process (pid: the profile's program.pid), with one
 * track (tid) per tag slot, named by "M" metadata events, and one more for drops:
 *
 *   "X" slices   one per run of a slot's value: consecutive records with the same value
 *                and thread word, all attributed, without a gap in seq between them. A
 *                gap, an interrupted period or another thread ends the run, since what
 *                the slot held then is unknown; the slice spans its periods exactly.
 *   "C" counters one event per rate per bin of trace time: the mean of the finite
 *                per-period rates in the bin weighted by the periods' TSC cycles (a
 *                long period counts for its length, as in the profile's sum_a / sum_b),
 *                at the bin's start. A bin is 10 us, or
 *                longer when --max-events asks for fewer events, so a long trace stays
 *                small enough to load; a bin without a rate writes nothing.
 *   "i" instants on the drops track: one per gap in seq (args: how many periods, their
 *                seq range), and one where the trace ends when the file reached its
 *                limit (dropped_limit).
 *
 * Times are microseconds since the first record's start, from the TSC at the profile's
 * calibrated frequency, rounded to the nanosecond. Each event is built as a jansson
 * object and dumped on its own, and the array around them is written by hand, so the
 * export streams: memory holds a run per slot and a bin per rate, never the records.
 */
#include "shimview/base/usage.h"
#include "shimview/export/export.h"
#include "shimview/analysis/value_names.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COUNTER_BIN_SECONDS 10e-6
#define JSON_FLAGS          (JSON_COMPACT | JSON_REAL_PRECISION(15))

struct run {
    int open;
    uint64_t value, thread, start, end, periods, first_seq;
};

struct perfetto {
    FILE *f;
    const struct export_ctx *x;
    const struct profile *p;
    struct trace *t;
    struct value_names names;
    json_int_t pid;
    size_t nevents;
    struct run *runs; /* per slot */
    double bin;       /* TSC cycles per counter bin */
    uint64_t bin_index;
    int bin_open;
    double *sum; /* per rate, in the open bin: rate x cycles */
    double *w;   /* and cycles */
};

/* Microseconds since the first record, rounded to the nanosecond. */
static double micros(const struct perfetto *pf, uint64_t tsc)
{
    double us = trace_seconds(pf->t, (double)(int64_t)(tsc - pf->t->t0)) * 1e6;
    return round(us * 1e3) / 1e3;
}

/* Write one event (and release it); -1 when it could not be built. */
static int emit(struct perfetto *pf, json_t *ev)
{
    if (!ev) return -1;
    if (pf->nevents++ > 0) fputs(",\n", pf->f);
    int rc = json_dumpf(ev, pf->f, JSON_FLAGS);
    json_decref(ev);
    return rc;
}

static json_int_t tid_of_slot(size_t slot)
{
    return (json_int_t)slot + 1;
}

static json_int_t drops_tid(const struct perfetto *pf)
{
    return (json_int_t)pf->p->signals.ntags + 1;
}

static int metadata(struct perfetto *pf)
{
    const struct profile *p = pf->p;
    if (emit(pf,
             json_pack("{s:s, s:s, s:I, s:{s:o}}", "name", "process_name", "ph", "M", "pid",
                       pf->pid, "args", "name", json_sprintf("%s (shim trace)", p->program.name))))
        return -1;
    for (size_t s = 0; s <= p->signals.ntags; s++) {
        json_int_t tid = s < p->signals.ntags ? tid_of_slot(s) : drops_tid(pf);
        json_t *name = s < p->signals.ntags
                           ? json_sprintf("tag slot %" PRIu64 ": %s", p->signals.tags[s].slot,
                                          p->signals.tags[s].name)
                           : json_string("dropped periods");
        if (emit(pf, json_pack("{s:s, s:s, s:I, s:I, s:{s:o}}", "name", "thread_name", "ph", "M",
                               "pid", pf->pid, "tid", tid, "args", "name", name)) ||
            emit(pf,
                 json_pack("{s:s, s:s, s:I, s:I, s:{s:I}}", "name", "thread_sort_index", "ph", "M",
                           "pid", pf->pid, "tid", tid, "args", "sort_index", (json_int_t)s)))
            return -1;
    }
    return 0;
}

/* ---- slices ---- */

static int end_run(struct perfetto *pf, size_t slot)
{
    struct run *r = &pf->runs[slot];
    char name[512];
    if (!r->open) return 0;
    r->open = 0;
    value_names_get(&pf->names, slot, r->value, name, sizeof name);
    double ts = micros(pf, r->start), dur = round((micros(pf, r->end) - ts) * 1e3) / 1e3;
    return emit(pf, json_pack("{s:s, s:s, s:s, s:I, s:I, s:f, s:f, s:{s:I, s:I, s:I, s:I}}", "name",
                              name, "cat", "tag", "ph", "X", "pid", pf->pid, "tid",
                              tid_of_slot(slot), "ts", ts, "dur", dur, "args", "value",
                              (json_int_t)r->value, "thread", (json_int_t)r->thread, "periods",
                              (json_int_t)r->periods, "first_seq", (json_int_t)r->first_seq));
}

static int slices(struct perfetto *pf, const struct trace_record *rec)
{
    int attributed = (rec->flags & TRACE_ATTRIBUTED) != 0;
    for (size_t s = 0; s < pf->p->signals.ntags; s++) {
        struct run *r = &pf->runs[s];
        if (r->open && (rec->dropped > 0 || !attributed || r->thread != rec->thread ||
                        r->value != rec->tags[s]))
            if (end_run(pf, s)) return -1;
        if (!attributed) continue;
        if (!r->open) *r = (struct run){1, rec->tags[s], rec->thread, rec->start, 0, 0, rec->seq};
        r->end = rec->start + rec->cycles;
        r->periods++;
    }
    return 0;
}

/* ---- counters ---- */

static int end_bin(struct perfetto *pf)
{
    if (!pf->bin_open) return 0;
    pf->bin_open = 0;
    double ts = micros(pf, pf->t->t0 + (uint64_t)((double)pf->bin_index * pf->bin));
    for (size_t i = 0; i < pf->p->nrates; i++) {
        if (!(pf->w[i] > 0)) continue;
        if (emit(pf, json_pack("{s:s, s:s, s:s, s:I, s:f, s:{s:f}}", "name", pf->p->rates[i].name,
                               "cat", "rate", "ph", "C", "pid", pf->pid, "ts", ts, "args", "value",
                               pf->sum[i] / pf->w[i])))
            return -1;
        pf->sum[i] = 0;
        pf->w[i] = 0;
    }
    return 0;
}

static int counters(struct perfetto *pf, const struct trace_record *rec)
{
    if (pf->p->nrates == 0) return 0;
    uint64_t k = (uint64_t)((double)(rec->start - pf->t->t0) / pf->bin);
    if (pf->bin_open && k > pf->bin_index && end_bin(pf)) return -1;
    if (!pf->bin_open) {
        pf->bin_open = 1;
        pf->bin_index = k;
    }
    for (size_t i = 0; i < pf->p->nrates; i++)
        if (isfinite(rec->rates[i]) && rec->cycles > 0) {
            pf->sum[i] += rec->rates[i] * (double)rec->cycles;
            pf->w[i] += (double)rec->cycles;
        }
    return 0;
}

/* ---- drops ---- */

static int drop(struct perfetto *pf, const char *name, uint64_t tsc, json_t *args)
{
    return emit(pf, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:f, s:o}", "name", name, "cat",
                              "drop", "ph", "i", "s", "t", "pid", pf->pid, "tid", drops_tid(pf),
                              "ts", micros(pf, tsc), "args", args));
}

static int drops(struct perfetto *pf, const struct trace_record *rec)
{
    if (rec->dropped == 0) return 0;
    return drop(pf, "dropped periods", rec->start,
                json_pack("{s:I, s:I, s:I}", "periods", (json_int_t)rec->dropped, "first_seq",
                          (json_int_t)(rec->seq - rec->dropped), "last_seq",
                          (json_int_t)(rec->seq - 1)));
}

/* ---- the document ---- */

static int other_data(struct perfetto *pf)
{
    const struct profile *p = pf->p;
    json_t *rates = json_object(), *d;
    for (size_t i = 0; rates && i < p->nrates; i++)
        json_object_set_new(rates, p->rates[i].name, json_string(p->rates[i].unit));
    d = json_pack("{s:s, s:s, s:s, s:I, s:f, s:I, s:I, s:I, s:f, s:o}", "producer",
                  "shimview " SHIMVIEW_VERSION, "profile", p->file, "trace", pf->t->path,
                  "program_pid", pf->pid, "tsc_hz", p->machine.tsc_hz, "records",
                  (json_int_t)pf->t->nrecords, "dropped_full", (json_int_t)pf->x->ti.dropped_full,
                  "dropped_limit", (json_int_t)pf->x->ti.dropped_limit, "counter_bin_us",
                  trace_seconds(pf->t, pf->bin) * 1e6, "rate_units", rates);
    if (!d) return -1;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":", pf->f);
    int rc = json_dumpf(d, pf->f, JSON_FLAGS);
    json_decref(d);
    fputs(",\n\"traceEvents\":[\n", pf->f);
    return rc;
}

static int stream(struct perfetto *pf)
{
    struct trace_record rec;
    char err[512];
    int rc;
    if (other_data(pf) || metadata(pf)) return -1;
    while ((rc = trace_next(pf->t, &rec, err, sizeof err)) == 1) {
        if (ferror(pf->f)) return 0; /* the caller reports it */
        if (drops(pf, &rec) || slices(pf, &rec) || counters(pf, &rec)) return -1;
    }
    if (rc < 0) {
        fprintf(stderr, "shimview: %s\n", err);
        return EXIT_FILE_ERROR;
    }
    for (size_t s = 0; s < pf->p->signals.ntags; s++)
        if (end_run(pf, s)) return -1;
    if (end_bin(pf)) return -1;
    if (pf->x->ti.dropped_limit > 0 && pf->t->nrecords > 0 &&
        drop(pf, "trace file full", pf->t->t_end,
             json_pack("{s:I, s:I}", "periods", (json_int_t)pf->x->ti.dropped_limit, "max_bytes",
                       (json_int_t)pf->x->ti.max_bytes)))
        return -1;
    fputs("\n]}\n", pf->f);
    return 0;
}

int export_perfetto(FILE *f, const struct export_ctx *x)
{
    const struct profile *p = x->p;
    struct perfetto pf = {.f = f, .x = x, .p = p, .t = x->t, .pid = (json_int_t)p->program.pid};
    double span = (double)(x->t->t_end - x->t->t0);
    pf.bin = COUNTER_BIN_SECONDS * p->machine.tsc_hz;
    if (x->o->max_events > 0 && span / (double)x->o->max_events > pf.bin)
        pf.bin = span / (double)x->o->max_events;
    if (!(pf.bin >= 1)) pf.bin = 1;
    pf.runs = calloc(p->signals.ntags + 1, sizeof *pf.runs);
    pf.sum = calloc(p->nrates + 1, sizeof *pf.sum);
    pf.w = calloc(p->nrates + 1, sizeof *pf.w);
    int rc = -1;
    if (pf.runs && pf.sum && pf.w && value_names_init(&pf.names, p) == 0) {
        rc = stream(&pf);
        value_names_free(&pf.names);
    }
    if (rc < 0 && ferror(f)) rc = 0; /* a write error: the caller reports it */
    if (rc < 0) {
        fprintf(stderr, "shimview: out of memory while writing the trace events\n");
        rc = EXIT_FILE_ERROR;
    }
    free(pf.runs);
    free(pf.sum);
    free(pf.w);
    return rc;
}
