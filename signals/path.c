/*
 * path.c -- the per-thread rings that code built with the compiler pass appends its
 * completed Ball-Larus paths to (path.h says what is written and how it is read).
 *
 * Like signal blocks, every thread starts pointing at one shared dummy ring, so the
 * generated code never tests a pointer: an unobserved thread's paths go to the dummy,
 * where nothing reads them. A thread that is observed gets a ring that belongs to its
 * signal block (the block's SHIM_BLOCK_PATH_RING word, where the observer finds it),
 * mapped when the block first needs one and never unmapped, so the observer may read
 * it at any moment and a thread that keeps its pointer past shim_stop() never writes
 * into freed memory. A block that passes to another thread keeps its ring, and the
 * completion numbers go on from where the ring stands, so no number is ever seen twice.
 */
#include "signals/path.h"

#include "signals/signal_block.h"

#include <stddef.h>
#include <sys/mman.h>

struct shim_path_ring shim_dummy_path_ring;

__thread struct shim_path_ring *shim_tls_path_ring __attribute__((tls_model("initial-exec"))) =
    &shim_dummy_path_ring;

int path_ring_attach(struct shim_block *b)
{
    uint64_t *word = &b->reserved[SHIM_BLOCK_PATH_RING];
    struct shim_path_ring *r = (struct shim_path_ring *)(uintptr_t)*word;
    if (!r) {
        void *m = mmap(NULL, sizeof(struct shim_path_ring), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return -1;
        r = m; /* zeroed by the kernel: head 0, no entries */
        __atomic_store_n(word, (uint64_t)(uintptr_t)r, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&shim_tls_path_ring, r, __ATOMIC_RELEASE);
    return 0;
}

void path_ring_detach(void)
{
    shim_tls_path_ring = &shim_dummy_path_ring;
}
