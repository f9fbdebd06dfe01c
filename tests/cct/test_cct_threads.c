/*
 * test_cct_threads.c -- each thread that enters an instrumented function gets its own
 * tree, with its own thread index in slot 9, its kernel thread id, and only its own
 * calls; another thread may read a tree while it grows and always finds complete nodes.
 * A thread that exits gives back its arena but for its tree, which stays readable: the
 * address space, resident memory and mappings an exited thread keeps are measured
 * (thread-per-request servers, `ulimit -v`).
 */
#include "cct_check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Levels of four call sites each. */
static NOINLINE void level3(void)
{
    (void)check_here_quiet(level3);
}

static NOINLINE void level2(void)
{
    level3();
    level3();
    level3();
    level3();
}

static NOINLINE void level1(void)
{
    level2();
    level2();
    level2();
    level2();
}

static NOINLINE void level0(void)
{
    level1();
    level1();
    level1();
    level1();
}

/* A function per stage, so that each stage adds 1 + 1 + 4 + 16 + 64 nodes whatever the
 * compiler merges. */
static NOINLINE void stage0(void)
{
    level0();
}
static NOINLINE void stage1(void)
{
    level0();
}
static NOINLINE void stage2(void)
{
    level0();
}
static NOINLINE void stage3(void)
{
    level0();
}

static NOINLINE void fanout(int stage)
{
    static void (*const stages[])(void) = {stage0, stage1, stage2, stage3};
    stages[stage]();
}

static NOINLINE void other_work(int n)
{
    if (n > 0) other_work(n - 1);
}

struct worker {
    int which;
    int bad;
    int32_t tid;
    const struct cct_arena *arena;
    uint64_t context;    /* slot 9 inside the thread's start function */
    volatile int stages; /* rounds of work */
    int seen;            /* snapshots the reader has taken */
    volatile int done;
};

static NOINLINE void *worker_main(void *arg)
{
    struct worker *w = arg;
    check_attach();
    w->tid = (int32_t)syscall(SYS_gettid);
    __atomic_store_n(&w->arena, cct_arena_self(), __ATOMIC_RELEASE);
    w->bad += !check_here_quiet(worker_main);
    w->context = shim_tls_block->tag[SHIM_SLOT_CCT];
    /* worker 0 grows its tree in stages, each after the reader has seen the last */
    for (int stage = 0; stage < w->stages; stage++) {
        while (__atomic_load_n(&w->seen, __ATOMIC_ACQUIRE) <= stage)
            continue;
        if (w->which == 0)
            fanout(stage);
        else
            other_work(100);
    }
    w->bad += !check_here_quiet(worker_main);
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* What a reader may rely on at any moment: nodes [0, count) complete and consistent. */
static int snapshot_ok(const struct cct_arena *a, const uint64_t *fns, int nfns)
{
    uint32_t n = cct_arena_node_count(a);
    const struct cct_node *nodes = cct_arena_nodes(a);
    if (n < CCT_NODE_FIRST || n > cct_arena_capacity(a)) return 0;
    for (uint32_t id = CCT_NODE_FIRST; id < n; id++) {
        const struct cct_node *x = &nodes[id];
        int known = 0;
        for (int i = 0; i < nfns; i++)
            known |= x->fn == fns[i];
        if (!known || x->parent >= id || x->depth != nodes[x->parent].depth + 1) return 0;
    }
    return 1;
}

static void threads_have_separate_trees(void **state)
{
    (void)state;
    check_attach();
    uint32_t me = check_here(threads_have_separate_trees);
    struct worker w[2] = {{.which = 0, .stages = 4}, {.which = 1, .stages = 4, .seen = 4}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);

    /* read the first worker's tree while it grows */
    const uint64_t fanout_fns[] = {FN(worker_main), FN(fanout), FN(stage0), FN(stage1), FN(stage2),
                                   FN(stage3),      FN(level0), FN(level1), FN(level2), FN(level3)};
    int snapshots = 0, bad_snapshots = 0;
    while (!__atomic_load_n(&w[0].done, __ATOMIC_ACQUIRE)) {
        const struct cct_arena *a = __atomic_load_n(&w[0].arena, __ATOMIC_ACQUIRE);
        if (a == NULL) continue;
        snapshots++;
        cct_read_begin(); /* the worker may be exiting, its nodes moving */
        bad_snapshots += !snapshot_ok(a, fanout_fns, 10);
        cct_read_end();
        __atomic_store_n(&w[0].seen, snapshots, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    print_message("%d snapshots of a growing tree\n", snapshots);
    assert_int_equal(bad_snapshots, 0);

    for (int i = 0; i < 2; i++) {
        assert_int_equal(w[i].bad, 0);
        assert_non_null(w[i].arena);
        assert_true(w[i].arena != check_arena());
        assert_int_equal(cct_arena_tid(w[i].arena), w[i].tid);
        assert_int_equal(CCT_SIGNAL_THREAD(w[i].context), cct_arena_index(w[i].arena));
        assert_ptr_equal(cct_arena_at(cct_arena_index(w[i].arena)), w[i].arena);
        check_tree(w[i].arena);
    }
    assert_true(cct_arena_index(w[0].arena) != cct_arena_index(w[1].arena));
    assert_int_equal(cct_arena_tid(check_arena()), (int32_t)syscall(SYS_gettid));
    /* worker 0: its start function, fanout, 4 stages of 1 + 1 + 4 + 16 + 64 */
    assert_int_equal(cct_arena_node_count(w[0].arena), CCT_NODE_FIRST + 2 + 4 * 86);
    assert_true(snapshot_ok(w[0].arena, fanout_fns, 10));
    /* worker 1: its start function and other_work; none of worker 0's functions */
    const uint64_t other_fns[] = {FN(worker_main), FN(other_work)};
    assert_int_equal(cct_arena_node_count(w[1].arena), CCT_NODE_FIRST + 2);
    assert_true(snapshot_ok(w[1].arena, other_fns, 2));
    /* and this thread's tree has none of theirs */
    assert_int_equal(check_children(check_arena(), me, FN(fanout), NULL), 0);
    assert_int_equal(check_here(threads_have_separate_trees), me);
}

/* The process's address space and resident memory, in bytes (/proc/self/statm), and
 * its mappings (/proc/self/maps). */
static NOINLINE void memory_now(uint64_t *size, uint64_t *resident, int *mappings)
{
    unsigned long long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%llu %llu", &pages, &res), 2);
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    *size = pages * (uint64_t)page;
    *resident = res * (uint64_t)page;
    char line[512];
    *mappings = 0;
    assert_non_null(f = fopen("/proc/self/maps", "r"));
    while (fgets(line, sizeof line, f))
        *mappings += strchr(line, '\n') != NULL;
    fclose(f);
}

#define EXITED 32

static NOINLINE void *short_lived(void *arg)
{
    struct worker *w = arg;
    w->tid = (int32_t)syscall(SYS_gettid);
    fanout(w->which % 4);
    other_work(20);
    __atomic_store_n(&w->arena, cct_arena_self(), __ATOMIC_RELEASE);
    return NULL;
}

/* Threads that ran instrumented code and exited, one after the other: each keeps at most
 * a few KiB of address space and of resident memory (its nodes, copied into the kept
 * trees; before, its whole arena, 96 MiB of address space and ~30 KiB resident), the kept
 * trees share their mappings, and each tree is still whole for the profile writer. */
static void exited_threads_give_back_their_arenas(void **state)
{
    (void)state;
    static struct worker w[EXITED];
    pthread_t t;
    /* a first thread, so that the thread library's stack cache and the like are set up */
    struct worker warm = {.which = 0};
    assert_int_equal(pthread_create(&t, NULL, short_lived, &warm), 0);
    pthread_join(t, NULL);
    uint64_t size0, res0, size1, res1;
    int maps0, maps1;
    memory_now(&size0, &res0, &maps0);
    for (int i = 0; i < EXITED; i++) {
        w[i].which = i;
        assert_int_equal(pthread_create(&t, NULL, short_lived, &w[i]), 0);
        pthread_join(t, NULL);
    }
    memory_now(&size1, &res1, &maps1);
    double per_size = ((double)size1 - (double)size0) / EXITED;
    double per_res = ((double)res1 - (double)res0) / EXITED;
    print_message("per exited thread: %.1f KiB of address space, %.1f KiB resident; "
                  "%d mappings more after %d threads\n",
                  per_size / 1024, per_res / 1024, maps1 - maps0, EXITED);
    assert_true(per_size <= 64 * 1024);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer keeps memory and mappings of its own for every thread that ran */
    print_message("ThreadSanitizer: resident memory and mappings not checked\n");
#else
    assert_true(per_res <= 20 * 1024);
    /* kept trees share mappings: each on its own would cost one of vm.max_map_count */
    assert_true(maps1 - maps0 <= EXITED / 4);
#endif

    const uint64_t fns[] = {FN(short_lived), FN(fanout), FN(stage0),    FN(stage1),
                            FN(stage2),      FN(stage3), FN(level0),    FN(level1),
                            FN(level2),      FN(level3), FN(other_work)};
    for (int i = 0; i < EXITED; i++) {
        const struct cct_arena *a = w[i].arena;
        assert_non_null(a);
        assert_true(cct_arena_released(a));
        assert_ptr_equal(cct_arena_at(cct_arena_index(a)), a);
        assert_int_equal(cct_arena_tid(a), w[i].tid);
        /* its start function, fanout, one stage of 1 + 1 + 4 + 16 + 64, other_work */
        assert_int_equal(cct_arena_node_count(a), CCT_NODE_FIRST + 2 + 86 + 1);
        assert_true(snapshot_ok(a, fns, 11));
        check_tree(a);
    }
    assert_false(cct_arena_released(check_arena()));

    /* a thread that exits while a reader holds its node array: the array stays */
    struct worker late = {.which = 1};
    cct_read_begin();
    assert_int_equal(pthread_create(&t, NULL, short_lived, &late), 0);
    while (__atomic_load_n(&late.arena, __ATOMIC_ACQUIRE) == NULL)
        continue;
    const struct cct_node *held = cct_arena_nodes(late.arena);
    pthread_join(t, NULL);
    assert_true(cct_arena_released(late.arena));
    uint32_t n = cct_arena_node_count(late.arena);
    for (uint32_t id = CCT_NODE_FIRST; id < n; id++) /* still mapped, still the same */
        assert_true(held[id].fn == cct_arena_nodes(late.arena)[id].fn);
    cct_read_end();
    assert_true(snapshot_ok(late.arena, fns, 11));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_have_separate_trees),
        cmocka_unit_test(exited_threads_give_back_their_arenas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
