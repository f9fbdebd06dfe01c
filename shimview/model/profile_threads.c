/*
 * profile_threads.c -- the members of `placement` that say which threads were observed
 * (docs/profile-format.md), read and checked as profile.c reads the rest, and the one
 * rule every command uses to tell the program's samples from the others'.
 *
 * When the observer learns the thread on its CPU from the kernel (thread_identity
 * "bpf"), the thread word of a sample is whatever ran there: one of the program's
 * threads, a thread of another process, or the idle task (tid 0). Only the list in
 * `placement.threads` says which tids are the program's, so that list decides: a tid it
 * holds is the program's, 0 is idle, anything else is "other processes" -- which also
 * takes threads of the program beyond the list's cap, and threads shim does not observe
 * (its own), since their samples carry no tags of the program's. A profile without the
 * list (written before it existed, or by hand) is all the program's, as it was when the
 * thread word could only be an observed thread.
 *
 * All four members are optional, each on its own; what is present is checked strictly: a
 * tid of 0 in the list is refused (the idle task is no thread of the program), an
 * observer's CPUs are numbers, `thread_identity.why` is a string or null.
 */
#include "shimview/model/profile_threads.h"
#include "shimview/model/keys.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int element_thread(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_thread *t = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object {\"tid\", \"name\"}");
    if (member_u64(r, v, "tid", &t->tid) || member_string(r, v, "name", &t->name)) return -1;
    if (t->tid == 0) {
        path_key(r, "tid");
        return reader_fail(r, "0 is the idle task, not a thread of the program");
    }
    return 0;
}

static int element_observer(struct reader *r, const json_t *v, void *elem, void *ctx)
{
    struct profile_observer *o = elem;
    (void)ctx;
    if (!json_is_object(v)) return reader_expected(r, v, "an object");
    if (member_u64(r, v, "observed_cpu", &o->observed_cpu) ||
        member_u64(r, v, "observer_cpu", &o->observer_cpu) ||
        member_string(r, v, "relation", &o->relation) ||
        member_string(r, v, "shared", &o->shared) || member_u64(r, v, "samples", &o->samples))
        return -1;
    return 0;
}

static int read_identity(struct reader *r, const json_t *placement, struct profile_placement *pl)
{
    json_t *o;
    size_t mark;
    const json_t *v = json_object_get(placement, "thread_identity");
    if (!v || json_is_null(v)) return 0;
    if (member_object(r, placement, "thread_identity", &o, &mark) ||
        member_string(r, o, "source", &pl->identity_source) ||
        member_optional(r, o, "why", value_string, &pl->identity_why, NULL))
        return -1;
    path_restore(r, mark);
    return 0;
}

static int read_list(struct reader *r, const json_t *placement, struct profile_placement *pl)
{
    const json_t *v = json_object_get(placement, "threads");
    if (!v || json_is_null(v)) return 0;
    if (member_array(r, placement, "threads", sizeof *pl->threads, element_thread, NULL,
                     &pl->threads, &pl->nthreads))
        return -1;
    pl->has_threads = 1;
    pl->threads_attached = pl->nthreads ? pl->nthreads - 1 : 0;
    if (member_optional(r, placement, "threads_attached", value_u64, &pl->threads_attached, NULL))
        return -1;
    pl->thread_index = key_index(pl->threads, pl->nthreads, sizeof *pl->threads,
                                 offsetof(struct profile_thread, tid));
    return pl->thread_index ? 0 : reader_fail(r, "out of memory");
}

int profile_read_threads(struct reader *r, const json_t *placement, struct profile_placement *pl)
{
    const json_t *v = json_object_get(placement, "observers");
    if (read_list(r, placement, pl) || read_identity(r, placement, pl)) return -1;
    if (!v || json_is_null(v)) return 0;
    return member_array(r, placement, "observers", sizeof *pl->observers, element_observer, NULL,
                        &pl->observers, &pl->nobservers);
}

void profile_threads_free(struct profile_placement *pl)
{
    free(pl->threads);
    free(pl->thread_index);
    free(pl->observers);
}

const struct profile_thread *profile_thread_find(const struct profile *p, uint64_t tid)
{
    const struct profile_placement *pl = &p->placement;
    long i = pl->has_threads ? key_find(pl->thread_index, pl->nthreads, tid) : -1;
    return i >= 0 ? &pl->threads[i] : NULL;
}

enum thread_group profile_thread_group(const struct profile *p, uint64_t tid)
{
    if (!p->placement.has_threads) return THREAD_PROGRAM;
    if (tid == 0) return THREAD_IDLE;
    return profile_thread_find(p, tid) ? THREAD_PROGRAM : THREAD_OTHER;
}

enum thread_group tag_thread_group(const struct profile *p, const struct profile_tag *t)
{
    return t->is_other ? THREAD_PROGRAM : profile_thread_group(p, t->thread);
}

const char *thread_group_name(enum thread_group g)
{
    return g == THREAD_OTHER ? THREADS_OTHER_NAME : g == THREAD_IDLE ? THREADS_IDLE_NAME : NULL;
}
