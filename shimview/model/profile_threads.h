/*
 * profile_threads.h -- whose samples a profile holds: the program's threads, other
 * processes, or nobody (profile_threads.c).
 *
 * The observer learns which thread runs on the CPU it watches and files each sample under
 * that thread's tid, so a profile's tag entries belong to three kinds of thread: the
 * program's own (`placement.threads`), whatever else the kernel ran there (other
 * processes, and threads of the program that shim did not observe), and the idle task
 * (tid 0). A profile written before the thread list existed has every entry from the
 * program: that is what it observed.
 */
#ifndef SHIMVIEW_PROFILE_THREADS_H
#define SHIMVIEW_PROFILE_THREADS_H

#include "shimview/model/profile.h"
#include "shimview/model/reader.h"

/* The rows the samples of other threads are shown as, wherever tags are listed. */
#define THREADS_OTHER_NAME "(other processes)"
#define THREADS_IDLE_NAME  "(idle)"

enum thread_group {
    THREAD_PROGRAM, /* a thread of the program, or any thread of a profile without the list */
    THREAD_OTHER,   /* a tid the list does not hold: another process ran on the CPU */
    THREAD_IDLE,    /* tid 0: the CPU was idle */
};

/* Read and check the optional members of `placement` that say which threads were
 * observed (`threads`, `threads_attached`, `thread_identity`, `observers`) into pl.
 * 0, or -1 with the message set. */
int profile_read_threads(struct reader *r, const json_t *placement, struct profile_placement *pl);

/* Free what profile_read_threads allocated (also after it failed half-way). */
void profile_threads_free(struct profile_placement *pl);

/* The program's thread of that tid in placement.threads; NULL when the list does not
 * hold it (or the profile has no list). */
const struct profile_thread *profile_thread_find(const struct profile *p, uint64_t tid);

/* Whose samples thread word tid stands for. */
enum thread_group profile_thread_group(const struct profile *p, uint64_t tid);

/* THREADS_OTHER_NAME or THREADS_IDLE_NAME; NULL for the program. */
const char *thread_group_name(enum thread_group g);

/* The group of a tag entry: its thread word's; `other` (the table was full) is counted
 * with the program, since it mixes every thread. */
enum thread_group tag_thread_group(const struct profile *p, const struct profile_tag *t);

#endif /* SHIMVIEW_PROFILE_THREADS_H */
