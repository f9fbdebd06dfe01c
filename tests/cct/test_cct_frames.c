/*
 * test_cct_frames.c -- the hooks' frame signal (SHIM_HOOKS=frames): after every entry
 * and every return, slots 10 and 11 of the thread's block name the function executing
 * and its frame address, as the compiler pass stores them, for the observer's stack
 * walk. Compiled with frame pointers and at -O2, where gcc makes the call to the exit
 * hook of a function returning void a tail call: the hook then runs with the caller's
 * frame pointer back and returns straight to the caller.
 */
#include "cct_check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "signals/path.h"
#include "signals/signal_block.h"
#include "signals/stackwalk.h"

#define FRAME() ((uint64_t)(uintptr_t)__builtin_frame_address(0))

/* What the hooks published last (not instrumented: no hook runs for it). */
static __attribute__((no_instrument_function, noinline)) void published(uint64_t *fn, uint64_t *fp)
{
    const struct shim_block *b = shim_tls_block;
    *fn = SHIM_LOOP_FN(
        shim_loop_canonical(__atomic_load_n(&b->tag[SHIM_SLOT_LOOP], __ATOMIC_RELAXED)));
    *fp = __atomic_load_n(&b->tag[SHIM_SLOT_FRAME], __ATOMIC_RELAXED);
}

/* Whether the hooks published function f and frame last: for a handler, where cmocka
 * cannot fail a test, to count. */
static __attribute__((no_instrument_function, noinline)) int published_is(uint64_t f,
                                                                          uint64_t frame)
{
    uint64_t fn, fp;
    published(&fn, &fp);
    return fn == f && fp == frame;
}

#define check_published(f, frame)                                                                  \
    do {                                                                                           \
        uint64_t fn_, fp_;                                                                         \
        published(&fn_, &fp_);                                                                     \
        assert_int_equal(fn_, FN(f));                                                              \
        assert_int_equal(fp_, (frame));                                                            \
    } while (0)

static volatile int sink;

static NOINLINE int leaf(int x)
{
    check_published(leaf, FRAME());
    return x + 1;
}

/* void: its exit hook is called with a jump, after its frame is gone */
static NOINLINE void void_leaf(void)
{
    check_published(void_leaf, FRAME());
    sink++;
}

static void a_call_returns_to_its_caller(void **state)
{
    (void)state;
    check_published(a_call_returns_to_its_caller, FRAME());
    sink = leaf(sink);
    check_published(a_call_returns_to_its_caller, FRAME());
    void_leaf();
    check_published(a_call_returns_to_its_caller, FRAME());
    void_leaf();
    void_leaf();
    check_published(a_call_returns_to_its_caller, FRAME());
}

/* Each level records, after the level inside it returned, what the hooks published:
 * its own function and frame, where an exit that popped its caller's pair too (the
 * caller being the same function) would name the level outside. */
static uint64_t rec_frame[8], rec_seen_fn[8], rec_seen_fp[8];

static NOINLINE void recurse(int n)
{
    rec_frame[n] = FRAME();
    if (n > 0) recurse(n - 1);
    published(&rec_seen_fn[n], &rec_seen_fp[n]);
    sink++;
}

static void a_void_recursion_returns_level_by_level(void **state)
{
    (void)state;
    recurse(5);
    for (int n = 0; n <= 5; n++) {
        assert_int_equal(rec_seen_fn[n], FN(recurse));
        assert_int_equal(rec_seen_fp[n], rec_frame[n]);
    }
    check_published(a_void_recursion_returns_level_by_level, FRAME());
}

/* The frame word of a function inlined into the one whose frame is the caller's: marked
 * as not its own, with the hash of that frame's call site (signals/stackwalk.h). */
#define INLINED_FRAME() (FRAME() | shim_frame_mark(((const uint64_t *)(uintptr_t)FRAME())[1]))

/* A function inlined into its caller enters and exits in the caller's frame, which is
 * published marked, also where it returns to a function inlined there too. */
static inline __attribute__((always_inline)) int inlined_deeper(int x)
{
    check_published(inlined_deeper, INLINED_FRAME());
    return x + 1;
}

static inline __attribute__((always_inline)) int inlined(int x)
{
    check_published(inlined, INLINED_FRAME());
    x = inlined_deeper(x);
    check_published(inlined, INLINED_FRAME());
    return x * 3 - 2;
}

static NOINLINE int inlines(int x)
{
    int r = inlined(x);
    check_published(inlines, FRAME());
    return r;
}

static void an_inlined_function_returns_to_the_same_frame(void **state)
{
    (void)state;
    assert_int_equal(inlines(2), 7);
    check_published(an_inlined_function_returns_to_the_same_frame, FRAME());
}

static jmp_buf env;

/* An inlined function left by a longjmp to its container, which then returns: the
 * container's exit drops the inlined function's pair too, in the same frame. */
static jmp_buf inlined_env;

static inline __attribute__((always_inline)) void inlined_jumps(void)
{
    check_published(inlined_jumps, INLINED_FRAME());
    longjmp(inlined_env, 1);
}

static NOINLINE int container(void)
{
    if (setjmp(inlined_env) == 0) inlined_jumps();
    return sink;
}

static void an_inlined_function_left_by_a_longjmp_is_dropped(void **state)
{
    (void)state;
    sink = container();
    check_published(an_inlined_function_left_by_a_longjmp_is_dropped, FRAME());
    sink = leaf(sink);
    check_published(an_inlined_function_left_by_a_longjmp_is_dropped, FRAME());
}

static NOINLINE void jumper(int n)
{
    if (n < 0) return;
    if (n == 0) longjmp(env, 1);
    jumper(n - 1);
    sink++;
}

static NOINLINE void catcher(void)
{
    if (setjmp(env) == 0) jumper(4);
    /* the next call is pushed above the catcher's frame, the ones left behind popped */
    sink = leaf(sink);
    check_published(catcher, FRAME());
    void_leaf();
    check_published(catcher, FRAME());
}

static void frames_left_by_a_longjmp_are_dropped(void **state)
{
    (void)state;
    catcher();
    check_published(frames_left_by_a_longjmp_are_dropped, FRAME());
    sink = leaf(sink);
    check_published(frames_left_by_a_longjmp_are_dropped, FRAME());
}

/* A storm of signals whose handler is instrumented: it runs the hooks wherever the
 * thread was, inside the hooks included, and must find and leave the pairs right. */
static volatile sig_atomic_t storm_runs, storm_bad;

static NOINLINE void storm_handler(int sig)
{
    (void)sig;
    storm_bad += !published_is(FN(storm_handler), FRAME());
    sink = leaf(sink);
    storm_bad += !published_is(FN(storm_handler), FRAME());
    storm_runs++;
}

/* A call whose frame, pushed while a signal may land, is checked by its callee's entry
 * (a frame of another call below it would be dropped as left by a longjmp). */
static int storm_wrong;

static NOINLINE int middle(int x)
{
    x = leaf(x);
    storm_wrong += !published_is(FN(middle), FRAME());
    return x;
}

static void a_storm_of_instrumented_signal_handlers(void **state)
{
    (void)state;
    check_install(SIGALRM, storm_handler, SA_RESTART);
    struct itimerval every = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
    storm_runs = storm_bad = 0;
    assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
    int wrong = 0;
    storm_wrong = 0;
    for (int i = 0; i < 3000000 && (i < 100000 || storm_runs < 200); i++) {
        sink = middle(sink);
        void_leaf();
        wrong += !published_is(FN(a_storm_of_instrumented_signal_handlers), FRAME());
    }
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
    printf("storm: %d signals\n", (int)storm_runs);
    assert_true(storm_runs > 0);
    assert_int_equal(storm_bad, 0);
    assert_int_equal(wrong, 0);
    assert_int_equal(storm_wrong, 0);
    check_published(a_storm_of_instrumented_signal_handlers, FRAME());
}

/* A function entered before its thread's stack bounds were known (main, which starts
 * shim; here a thread's first function, entered before it attaches its block) publishes
 * frame 0, and the walk gives its samples no chain; a call it makes that returns
 * publishes its frame from then on (frames_learn). */
static int unknown_before, unknown_learnt, unknown_kept;

static NOINLINE int plain_leaf(int x)
{
    return x * 3 + 1;
}

static NOINLINE void *entered_unknown(void *arg)
{
    (void)arg;
    struct shim_block *b = signal_block_acquire();
    if (!b) return NULL;
    signal_block_attach(b);
    unknown_before = published_is(FN(entered_unknown), 0);
    sink = plain_leaf(sink);
    unknown_learnt = published_is(FN(entered_unknown), FRAME());
    sink = plain_leaf(sink);
    unknown_kept = published_is(FN(entered_unknown), FRAME());
    signal_block_release();
    return NULL;
}

/* The same for a recursion entered before, from one call site: each level learns its
 * own frame, not the one of the copy that returned into it (which the same call site is
 * above too). */
static int recursive_wrong, recursive_levels;

static NOINLINE void recurse_unknown(int n)
{
    if (n == 0) {
        struct shim_block *b = signal_block_acquire();
        if (!b) return;
        signal_block_attach(b);
        sink = plain_leaf(sink);
        recursive_wrong += !published_is(FN(recurse_unknown), FRAME());
        recursive_levels++;
        return;
    }
    recurse_unknown(n - 1);
    recursive_wrong += !published_is(FN(recurse_unknown), FRAME());
    recursive_levels++;
}

static NOINLINE void *entered_unknown_recursive(void *arg)
{
    (void)arg;
    recurse_unknown(3);
    signal_block_release();
    return NULL;
}

static void a_frame_unknown_at_entry_is_learnt_when_a_call_returns(void **state)
{
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, entered_unknown, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(unknown_before); /* the premise: its frame was not known at entry */
    assert_true(unknown_learnt);
    assert_true(unknown_kept);
    assert_int_equal(pthread_create(&t, NULL, entered_unknown_recursive, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(recursive_levels, 4);
    assert_int_equal(recursive_wrong, 0);
}

int main(void)
{
    check_attach();
    cct_use_frames(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_call_returns_to_its_caller),
        cmocka_unit_test(a_void_recursion_returns_level_by_level),
        cmocka_unit_test(an_inlined_function_returns_to_the_same_frame),
        cmocka_unit_test(frames_left_by_a_longjmp_are_dropped),
        cmocka_unit_test(an_inlined_function_left_by_a_longjmp_is_dropped),
        cmocka_unit_test(a_storm_of_instrumented_signal_handlers),
        cmocka_unit_test(a_frame_unknown_at_entry_is_learnt_when_a_call_returns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
