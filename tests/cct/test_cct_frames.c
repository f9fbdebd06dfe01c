/*
 * test_cct_frames.c -- the hooks' frame signal (SHIM_HOOKS=frames): after every entry
 * and every return, the pair in slots 10 and 11 of the thread's block, read as the
 * observer and the profile writer read it (signals/stackwalk.h, "the hooks' pair"),
 * names the function executing and its frame address, for the observer's stack walk.
 * Compiled with frame pointers and at -O2, where gcc makes the call to the exit hook of
 * a function returning void a tail call (the hook then runs with the caller's frame
 * pointer back and returns straight to the caller) and inlines functions marked
 * always_inline with their hooks.
 */
#include "cct_check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#include "libshim/symbols.h"
#include "signals/path.h"
#include "signals/signal_block.h"
#include "signals/stackwalk.h"

#define FRAME() ((uint64_t)(uintptr_t)__builtin_frame_address(0))
#define NO_HOOK __attribute__((no_instrument_function, noinline))

static struct symbols *syms;

/* The function holding return address addr (looked up at the call's last byte), 0 where
 * no symbol names one. */
static NO_HOOK uint64_t holding(uint64_t addr)
{
    struct symbol_info si;
    if (symbols_lookup(syms, addr - 1, &si) != 0 || !si.name) return 0;
    return addr - 1 - si.sym_offset;
}

/* What the pair the hooks published last names, as the observer reads it and the writer
 * names an exit's (walk_profile.c): the function and its frame; 0 and 0 for a pair that
 * is not the hooks', or an entry whose frame does not hold the call site stored with it. */
static NO_HOOK void published(uint64_t *fn, uint64_t *fp)
{
    const struct shim_block *b = shim_tls_block;
    uint64_t w, f;
    signal_block_load_pair(b, SHIM_SLOT_LOOP, &w, &f); /* together, as the observer */
    uint64_t frame = f & ~SHIM_FRAME_BITS, addr = SHIM_LOOP_FN(w);
    const uint64_t *words = (const uint64_t *)(uintptr_t)frame;
    unsigned tag = (unsigned)(w >> SHIM_LOOP_SHIFT);
    *fn = *fp = 0;
    if (!(f & SHIM_FRAME_HOOKS) || !frame) return;
    if (!(f & SHIM_FRAME_EXIT)) {
        if (SHIM_HOOKS_TAG(words[1]) == tag) *fn = addr, *fp = frame;
        return;
    }
    uint64_t left = holding(addr);
    if (left && SHIM_HOOKS_TAG(left) == tag) { /* it left: the caller, in its frame */
        *fn = holding(words[1]);
        *fp = words[0];
    } else { /* one inlined into it left, or the hook returns straight to the caller */
        *fn = left;
        *fp = frame;
    }
}

/* Whether the pair names function f and frame: for a handler, where cmocka cannot fail
 * a test, to count. */
static NO_HOOK int published_is(uint64_t f, uint64_t frame)
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

static NOINLINE int inlines(int x);

/* A function inlined into its caller enters and exits in the caller's frame: entered, it
 * is named with that frame; once it returns, the function it is inlined into is, also
 * where that is inlined into another in turn (the hooks keep nothing to tell them). */
static inline __attribute__((always_inline)) int inlined_deeper(int x)
{
    check_published(inlined_deeper, FRAME());
    return x + 1;
}

static inline __attribute__((always_inline)) int inlined(int x)
{
    check_published(inlined, FRAME());
    x = inlined_deeper(x);
    check_published(inlines, FRAME());
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
 * container's exit names its caller. */
static jmp_buf inlined_env;

static inline __attribute__((always_inline)) void inlined_jumps(void)
{
    check_published(inlined_jumps, FRAME());
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
    /* the frames left behind are nobody's business: the next call names its caller */
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
 * thread was, inside the hooks included, and finds the pairs right inside it. Once it
 * returns, the pair names where its outermost function returned to (the C library's
 * return from a handler, not a function of the program) until the interrupted function
 * next calls or returns: never one of the program's other functions. */
static volatile sig_atomic_t storm_runs, storm_bad;

/* called from the handler, where no other handler runs: always right */
static NOINLINE int handler_leaf(int x)
{
    storm_bad += !published_is(FN(handler_leaf), FRAME());
    return x + 1;
}

static NOINLINE void storm_handler(int sig)
{
    (void)sig;
    storm_bad += !published_is(FN(storm_handler), FRAME());
    sink = handler_leaf(sink);
    storm_bad += !published_is(FN(storm_handler), FRAME());
    storm_runs++;
}

static int storm_wrong, storm_after;
static NOINLINE int storm_leaf(int x);
static NOINLINE void storm_void(void);
static NOINLINE int middle_of_storm(int x);
static void a_storm_of_instrumented_signal_handlers(void **state);

/* Whether the pair names function f with frame, or (after a handler) no function of the
 * program's: counts those in storm_after. */
static NO_HOOK int right_or_after_handler(uint64_t f, uint64_t frame)
{
    uint64_t fn, fp;
    published(&fn, &fp);
    if (fn == f && fp == frame) return 1;
    const uint64_t mine[] = {FN(storm_leaf),      FN(storm_void),
                             FN(handler_leaf),    FN(storm_handler),
                             FN(middle_of_storm), FN(a_storm_of_instrumented_signal_handlers)};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
        if (fn == mine[i]) return 0;
    storm_after++;
    return 1;
}

static NOINLINE int storm_leaf(int x)
{
    storm_wrong += !right_or_after_handler(FN(storm_leaf), FRAME());
    return x + 1;
}

/* void: its exit hook is called with a jump */
static NOINLINE void storm_void(void)
{
    storm_wrong += !right_or_after_handler(FN(storm_void), FRAME());
    sink++;
}

static NOINLINE int middle_of_storm(int x)
{
    x = storm_leaf(x);
    storm_wrong += !right_or_after_handler(FN(middle_of_storm), FRAME());
    return x;
}

static void a_storm_of_instrumented_signal_handlers(void **state)
{
    (void)state;
    check_install(SIGALRM, storm_handler, SA_RESTART);
    struct itimerval every = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
    storm_runs = storm_bad = 0;
    assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
    int wrong = 0, checks = 0;
    storm_wrong = storm_after = 0;
    for (int i = 0; i < 3000000 && (i < 100000 || storm_runs < 200); i++) {
        sink = middle_of_storm(sink);
        storm_void();
        wrong += !right_or_after_handler(FN(a_storm_of_instrumented_signal_handlers), FRAME());
        checks += 4;
    }
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
    printf("storm: %d signals, %d of %d checks after a handler\n", (int)storm_runs, storm_after,
           checks);
    assert_true(storm_runs > 0);
    assert_int_equal(storm_bad, 0);
    assert_int_equal(wrong, 0);
    assert_int_equal(storm_wrong, 0);
    assert_true(storm_after <= storm_runs); /* at most once a handler */
    sink = storm_leaf(sink);                /* the handlers are over */
    check_published(a_storm_of_instrumented_signal_handlers, FRAME());
}

/* A thread's first function, entered before it attaches its block (main, which starts
 * shim; here a thread's start routine), published its entry elsewhere: the block names
 * nothing until the thread next calls or returns, and from then on it names the function
 * and its frame. So for each level of a recursion entered before, as each returns. */
static int first_before, first_after, first_kept;

static NOINLINE int plain_leaf(int x)
{
    return x * 3 + 1;
}

static NOINLINE void *entered_before(void *arg)
{
    (void)arg;
    struct shim_block *b = signal_block_acquire();
    if (!b) return NULL;
    signal_block_attach(b);
    first_before = published_is(0, 0);
    sink = plain_leaf(sink);
    first_after = published_is(FN(entered_before), FRAME());
    sink = plain_leaf(sink);
    first_kept = published_is(FN(entered_before), FRAME());
    signal_block_release();
    return NULL;
}

static int recursive_wrong, recursive_levels;

static NOINLINE void recurse_before(int n)
{
    if (n == 0) {
        struct shim_block *b = signal_block_acquire();
        if (!b) return;
        signal_block_attach(b);
        sink = plain_leaf(sink);
        recursive_wrong += !published_is(FN(recurse_before), FRAME());
        recursive_levels++;
        return;
    }
    recurse_before(n - 1);
    recursive_wrong += !published_is(FN(recurse_before), FRAME());
    recursive_levels++;
}

static NOINLINE void *entered_before_recursive(void *arg)
{
    (void)arg;
    recurse_before(3);
    signal_block_release();
    return NULL;
}

static void a_thread_attached_inside_a_function_is_named_once_it_calls(void **state)
{
    (void)state;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, entered_before, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(first_before); /* the premise: nothing published into the block yet */
    assert_true(first_after);
    assert_true(first_kept);
    assert_int_equal(pthread_create(&t, NULL, entered_before_recursive, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(recursive_levels, 4);
    assert_int_equal(recursive_wrong, 0);
}

int main(void)
{
    check_attach();
    syms = symbols_open();
    if (!syms) {
        fprintf(stderr, "no symbols\n");
        return 1;
    }
    /* each module's tables read now, not first inside a handler */
    (void)holding(FN(main) + 1);
    (void)holding(FN(sigaction) + 1);
    cct_use_frames(1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_call_returns_to_its_caller),
        cmocka_unit_test(a_void_recursion_returns_level_by_level),
        cmocka_unit_test(an_inlined_function_returns_to_the_same_frame),
        cmocka_unit_test(frames_left_by_a_longjmp_are_dropped),
        cmocka_unit_test(an_inlined_function_left_by_a_longjmp_is_dropped),
        cmocka_unit_test(a_storm_of_instrumented_signal_handlers),
        cmocka_unit_test(a_thread_attached_inside_a_function_is_named_once_it_calls),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    symbols_close(syms);
    return failed;
}
