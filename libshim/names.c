/*
 * names.c -- the registry behind shim_name_slot(), shim_name_tag() and
 * shim_name_counter().
 *
 * Names are set by the program, from any thread, at any time, and read only when a
 * profile is written, so a mutex is right and nothing here is near the observer. Tag
 * value names sit in one array kept sorted by (slot, value): binary search on lookup,
 * insertion in place (naming is rare; reports look names up once per tag entry).
 * Strings are copied; naming the same thing again replaces the name.
 */
#include "libshim/names.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

#define NAME_MAX_LEN 256

struct tag_name {
    unsigned slot;
    uint64_t value;
    char *name;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *slot_name[SHIM_TAG_SLOTS];
static char *counter_name[SHIM_COUNTER_SLOTS];
static struct tag_name *tags;
static size_t n_tags, cap_tags;
static uint32_t tag_slots_named;

void names_lock(void)
{
    pthread_mutex_lock(&lock);
}
void names_unlock(void)
{
    pthread_mutex_unlock(&lock);
}
void names_after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

static char *copy_name(const char *name)
{
    if (!name || !*name) return NULL;
    return strndup(name, NAME_MAX_LEN);
}

static int set_name(char **where, const char *name)
{
    char *copy = copy_name(name);
    if (!copy) return name && *name ? SHIM_ENOMEM : SHIM_EINVAL;
    free(*where);
    *where = copy;
    return 0;
}

int shim_name_slot(unsigned slot, const char *name)
{
    if (slot >= SHIM_TAG_SLOTS) return SHIM_EINVAL;
    names_lock();
    int rc = set_name(&slot_name[slot], name);
    if (rc == 0) tag_slots_named |= 1u << slot;
    names_unlock();
    return rc;
}

int shim_name_counter(unsigned slot, const char *name)
{
    if (slot >= SHIM_COUNTER_SLOTS) return SHIM_EINVAL;
    names_lock();
    int rc = set_name(&counter_name[slot], name);
    names_unlock();
    return rc;
}

/* First index whose (slot, value) is not below the given one. */
static size_t tag_lower_bound(unsigned slot, uint64_t value)
{
    size_t lo = 0, hi = n_tags;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tags[mid].slot < slot || (tags[mid].slot == slot && tags[mid].value < value))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int shim_name_tag(unsigned slot, uint64_t value, const char *name)
{
    if (slot >= SHIM_TAG_SLOTS || !name || !*name) return SHIM_EINVAL;
    int rc = 0;
    names_lock();
    size_t i = tag_lower_bound(slot, value);
    if (i < n_tags && tags[i].slot == slot && tags[i].value == value) {
        rc = set_name(&tags[i].name, name);
    } else {
        char *copy = copy_name(name);
        if (n_tags == cap_tags) {
            size_t cap = cap_tags ? 2 * cap_tags : 16;
            struct tag_name *t = realloc(tags, cap * sizeof *t);
            if (t) tags = t, cap_tags = cap;
        }
        if (!copy || n_tags == cap_tags) {
            free(copy);
            rc = SHIM_ENOMEM;
        } else {
            memmove(&tags[i + 1], &tags[i], (n_tags - i) * sizeof *tags);
            tags[i] = (struct tag_name){slot, value, copy};
            n_tags++;
        }
    }
    if (rc == 0) tag_slots_named |= 1u << slot;
    names_unlock();
    return rc;
}

uint32_t names_tag_slots_named(void)
{
    return tag_slots_named;
}

uint32_t names_counters_named(void)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < SHIM_COUNTER_SLOTS; i++)
        if (counter_name[i]) m |= 1u << i;
    return m;
}

const char *names_slot(unsigned slot)
{
    return slot < SHIM_TAG_SLOTS ? slot_name[slot] : NULL;
}

const char *names_counter(unsigned slot)
{
    return slot < SHIM_COUNTER_SLOTS ? counter_name[slot] : NULL;
}

size_t names_tag_count(void)
{
    return n_tags;
}

const char *names_tag_at(size_t i, unsigned *slot, uint64_t *value)
{
    if (i >= n_tags) return NULL;
    *slot = tags[i].slot;
    *value = tags[i].value;
    return tags[i].name;
}

const char *names_tag(unsigned slot, uint64_t value)
{
    size_t i = tag_lower_bound(slot, value);
    return i < n_tags && tags[i].slot == slot && tags[i].value == value ? tags[i].name : NULL;
}
