/*
 * unread.h -- slots the program writes that the run does not read, said at the stop.
 *
 * A program that counts with SHIM_COUNT into a slot it never named, or signals into a
 * tag slot it never named, is observed without them (SHIM_COUNTERS=auto reads the named
 * counters, SHIM_TAGS=auto slot 0 and the named slots), and would get no rate and no word
 * about it. The watch takes each signal block's unread user slots at the start and
 * compares them at the stop; a slot that changed is named, in one line, with the setting
 * that reads it (unread.c).
 */
#ifndef SHIM_LIBSHIM_UNREAD_H
#define SHIM_LIBSHIM_UNREAD_H

#include <stddef.h>
#include <stdint.h>

struct shim_run;

struct unread_watch {
    uint32_t tags, counters; /* the user slots not read: masks of slots 0-7 */
    uint64_t *before;        /* per block of the pool: its unread tags, then its counters */
    uint32_t changed_tags, changed_counters; /* at the stop */
};

/* Takes the unread slots of every block at the start of run r (its slots chosen): 0, or
 * -1 when memory ran out (then nothing is said at the stop). */
int unread_watch_start(struct unread_watch *w, const struct shim_run *r);

/* At the stop: which unread slots changed since the start, in w->changed_*. */
void unread_watch_stop(struct unread_watch *w);

/* The line that says so, without "shim: " and the newline, in buf; 0 when nothing
 * changed (buf then empty), else its length. */
size_t unread_watch_message(const struct unread_watch *w, const struct shim_run *r, char *buf,
                            size_t len);

void unread_watch_free(struct unread_watch *w);

#endif
