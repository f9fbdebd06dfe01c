/*
 * signal_block.c -- the memory the SHIM_SIGNAL and SHIM_COUNT macros write, and the
 * registry of which thread owns which block.
 *
 * Each observed thread has one cache-line-aligned block; the macros reach it through the
 * initial-exec thread-local pointer shim_tls_block, so a signal costs the load of a
 * %fs-relative word and one store. Every thread starts pointing at a shared dummy
 * block, which makes the macros safe before shim_start() and in threads shim does not
 * observe; what is written there is never read (all threads share it, so it cannot
 * say what any one of them is doing): signals written before a thread is attached are
 * not seen.
 *
 * Blocks come from a static pool and their memory is never freed: the observer may read
 * a block at any moment, and a thread may keep its pointer past shim_stop(), so a block
 * must stay valid memory for the life of the process. A thread gives its block back when
 * it exits (a thread-specific key's destructor), and the next thread to ask gets it,
 * with its tags and counters zeroed before its owner is set, so an observer that finds
 * a thread's id in owner[] reads that thread's words (an observer that cached the block
 * before the handover sees the new owner and looks again). The observer finds a
 * thread's block by its kernel thread id, which the thread word gives it (the thread
 * running on the observed CPU): gettid() when a block is handed out, replaced
 * (signal_block_set_id) by the id BPF reports for the thread where the process has a PID
 * namespace of its own and the two differ.
 *
 * A thread that gives its block back stops writing it and its path ring at once: both
 * go to the next owner, and code may still run in the thread after (a later
 * thread-exit destructor built with the pass). The word that points at the thread's
 * jemalloc count (alloc_signal.c) points into the thread's thread-local storage, which
 * goes with the thread: it is cleared as the block is given back, so that no observer
 * reads it through the block afterwards.
 *
 * Each block also says where its owner's stack is, for an observer that walks it
 * (stackwalk.h); the thread's stack can be unmapped once the thread has exited, so a
 * thread that gives its block back clears the bounds and then waits until no observer
 * is inside a walk of it.
 *
 * This file depends on nothing but the public header, path.h (the path ring each block
 * carries), stackwalk.h (the words of a walk), cct.h (told when the thread's block
 * changes, for the frame signal of the hooks) and libc.
 */
#include "signals/signal_block.h"
#include "signals/cct.h"
#include "signals/path.h"
#include "signals/stackwalk.h"

#include <emmintrin.h>

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct shim_block shim_dummy_block;

__thread struct shim_block *shim_tls_block __attribute__((tls_model("initial-exec"))) =
    &shim_dummy_block;

static struct shim_block pool[SIGNAL_BLOCK_POOL];
/* Read by observers on every sample: a line apart from anything the program writes often. */
static _Alignas(64) uint64_t owner[SIGNAL_BLOCK_POOL];
static _Alignas(64) uint32_t used;

const struct signal_registry signal_registry = {pool, owner, &used};

static __thread struct shim_block *own_block;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;

static void at_thread_exit(void *unused)
{
    (void)unused;
    signal_block_release();
}

static void make_key(void)
{
    pthread_key_create(&exit_key, at_thread_exit);
}

/* The calling thread's stack, [lo, hi); 0, 0 when the thread library cannot say. */
static void stack_bounds(uint64_t *lo, uint64_t *hi)
{
    pthread_attr_t a;
    void *addr;
    size_t size;
    *lo = *hi = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0) return;
    if (pthread_attr_getstack(&a, &addr, &size) == 0 && addr && size) {
        *lo = (uint64_t)(uintptr_t)addr;
        *hi = *lo + size;
    }
    pthread_attr_destroy(&a);
}

struct shim_block *signal_block_acquire(void)
{
    if (own_block) return own_block;
    uint64_t tid = (uint64_t)syscall(SYS_gettid), lo, hi;
    stack_bounds(&lo, &hi);
    struct shim_block *b = NULL;
    pthread_mutex_lock(&lock);
    uint32_t i = 0;
    while (i < used && __atomic_load_n(&owner[i], __ATOMIC_RELAXED) != 0)
        i++;
    if (i < SIGNAL_BLOCK_POOL) {
        b = &pool[i];
        /* a reused block: start from zero, keep what belongs to the block itself (its
         * path ring: the sequence numbers go on, so none is ever seen twice) */
        memset(b->tag, 0, sizeof b->tag);
        memset(b->counter, 0, sizeof b->counter);
        __atomic_store_n(&b->reserved[SHIM_BLOCK_ALLOCATED], 0, __ATOMIC_RELAXED);
        /* low bound first: an observer reads the high one first, and walks only with both */
        __atomic_store_n(&b->reserved[SHIM_BLOCK_STACK_LO], lo, __ATOMIC_RELEASE);
        __atomic_store_n(&b->reserved[SHIM_BLOCK_STACK_HI], hi, __ATOMIC_RELEASE);
        __atomic_store_n(&owner[i], tid, __ATOMIC_RELEASE);
        if (i == used) __atomic_store_n(&used, i + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    if (b) {
        own_block = b;
        pthread_once(&key_once, make_key);
        pthread_setspecific(exit_key, b); /* non-NULL: the destructor runs at exit */
    }
    return b;
}

void signal_block_attach(struct shim_block *b)
{
    __atomic_store_n(&shim_tls_block, b, __ATOMIC_RELEASE);
    cct_frames_block(b);
}

/* The calling thread's owner entry becomes `seen`: the id the thread word gives for it
 * where that is not gettid() (BPF's, from the initial PID namespace, in a namespace of
 * the process's own). */
void signal_block_set_id(uint64_t seen)
{
    struct shim_block *b = own_block;
    if (!b || !seen) return;
    pthread_mutex_lock(&lock);
    __atomic_store_n(&owner[b - pool], seen, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

void signal_block_detach(void)
{
    shim_tls_block = &shim_dummy_block;
    cct_frames_block(&shim_dummy_block);
}

void signal_block_release(void)
{
    struct shim_block *b = own_block;
    if (!b) return;
    signal_block_detach();
    path_ring_detach();
    __atomic_store_n(&b->reserved[SHIM_BLOCK_ALLOCATED], 0, __ATOMIC_RELEASE);
    /* no walk starts on this stack from now on; wait for those under way to end */
    __atomic_store_n(&b->reserved[SHIM_BLOCK_STACK_HI], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&b->reserved[SHIM_BLOCK_STACK_LO], 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&b->reserved[SHIM_BLOCK_WALKING], __ATOMIC_SEQ_CST))
        _mm_pause();
    own_block = NULL;
    pthread_mutex_lock(&lock);
    __atomic_store_n(&owner[b - pool], 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

/*
 * In a child of fork() only the forking thread exists, under a new thread id. Its block
 * (if it had one) is registered again under that id, so that an observer the child
 * starts finds it; the blocks of the parent's other threads are free, since those
 * threads are not in the child and will never give them back; no walk is under way;
 * and the lock, which another thread of the parent may have held at the fork, is made
 * anew.
 */
void signal_block_after_fork_child(void)
{
    uint64_t tid = (uint64_t)syscall(SYS_gettid);
    pthread_mutex_init(&lock, NULL);
    for (uint32_t i = 0; i < used && i < SIGNAL_BLOCK_POOL; i++) {
        pool[i].reserved[SHIM_BLOCK_WALKING] = 0;
        if (&pool[i] == own_block)
            __atomic_store_n(&owner[i], tid, __ATOMIC_RELEASE);
        else
            __atomic_store_n(&owner[i], 0, __ATOMIC_RELEASE);
    }
}
