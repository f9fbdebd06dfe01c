/*
 * path.c -- the per-thread rings that code built with the compiler pass appends its
 * completed Ball-Larus paths to (path.h says what is written and how it is read).
 *
 * Like signal blocks, every thread starts pointing at one shared dummy ring, so the
 * generated code never tests a pointer: an unobserved thread's paths go to the dummy,
 * where nothing reads them. A thread that is observed gets its own ring, mapped on
 * first use and never unmapped, so the observer may read it at any moment and a thread
 * that keeps its pointer past shim_stop() never writes into freed memory. The
 * completion numbers go on from where the thread's ring stands, so a ring reattached
 * by a second shim_start() never repeats a number the observer has seen.
 */
#include "path.h"

#include <stddef.h>
#include <sys/mman.h>

struct shim_path_ring shim_dummy_path_ring;

__thread struct shim_path_ring *shim_tls_path_ring __attribute__((tls_model("initial-exec"))) =
    &shim_dummy_path_ring;

static __thread struct shim_path_ring *own_ring;

struct shim_path_ring *path_ring_acquire(void)
{
    if (own_ring) return own_ring;
    void *m = mmap(NULL, sizeof(struct shim_path_ring), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    own_ring = m; /* zeroed by the kernel: head 0, no entries */
    return own_ring;
}

void path_ring_attach(struct shim_path_ring *r)
{
    __atomic_store_n(&shim_tls_path_ring, r, __ATOMIC_RELEASE);
}

void path_ring_detach(void)
{
    shim_tls_path_ring = &shim_dummy_path_ring;
}
