/*
 * keeper.c -- the store keeper: a thread that prepares the attribution stores' growth.
 *
 * The observer may not allocate (observer/README.md), yet a real program's tuples cannot
 * be counted before it runs. The keeper wakes now and then, and for each table allocates
 * and touches the chunks the observer will need next and builds a larger index when the
 * current one fills (tag_table_prepare); the observer adopts the index at its next batch
 * boundary.
 *
 * The keeper runs on the observer's CPU, so each wake-up is an interrupted sample period
 * (about 20 microseconds on the development VMs, a context switch each way), time in
 * which the program is not observed and runs without the observer's reads. Waking every
 * 200 microseconds took 10% of the observer's time and biased software rates by about
 * -1%: the keeper sleeps KEEPER_NAP_MS when it had nothing to do (0.2% of the time) and
 * KEEPER_BUSY_MS while the tables grow. At most one tuple arrives per sample, and the
 * keeper stays two chunks (32768 tuples) ahead: a tuple that finds no room all the same
 * is counted as `other`, "behind". A snapshot that swaps an observer's tables holds the
 * keeper off meanwhile (keeper_pause), since the keeper's table is then exchanged.
 */
#include "libshim/keeper.h"

#include <signal.h>
#include <time.h>

#include "libshim/threads.h"

#define KEEPER_NAP_MS  10
#define KEEPER_BUSY_MS 1

void keeper_add(struct keeper *k, struct tag_table *t)
{
    if (k->n_tables < KEEPER_MAX_TABLES) k->table[k->n_tables++] = t;
}

static void *keeper_main(void *arg)
{
    struct keeper *k = arg;
    const struct timespec nap = {0, KEEPER_NAP_MS * 1000000L},
                          busy = {0, KEEPER_BUSY_MS * 1000000L};
    while (!__atomic_load_n(&k->stop, __ATOMIC_ACQUIRE)) {
        int did = 0;
        pthread_mutex_lock(&k->lock);
        for (unsigned i = 0; i < k->n_tables; i++) {
            int rc = k->table[i] ? tag_table_prepare(k->table[i]) : 0;
            if (rc < 0) {
                k->failed = 1;
                k->table[i] = NULL; /* it stops growing; its overflow is counted */
            }
            did |= rc > 0;
        }
        pthread_mutex_unlock(&k->lock);
        nanosleep(did ? &busy : &nap, NULL);
    }
    return NULL;
}

int keeper_start(struct keeper *k, const cpu_set_t *cpus)
{
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_mutex_init(&k->lock, NULL);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof *cpus, cpus);
    k->stop = 0;
    sigfillset(&all); /* the program's signals are the program's threads' to take */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = threads_create_internal(&k->thread, &attr, keeper_main, k);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (!err) pthread_setname_np(k->thread, "shim-keeper");
    k->running = err == 0;
    return err;
}

void keeper_pause(struct keeper *k)
{
    pthread_mutex_lock(&k->lock);
}

void keeper_resume(struct keeper *k)
{
    pthread_mutex_unlock(&k->lock);
}

void keeper_stop(struct keeper *k)
{
    if (!k->running) return;
    __atomic_store_n(&k->stop, 1, __ATOMIC_RELEASE);
    pthread_join(k->thread, NULL);
    k->running = 0;
}
