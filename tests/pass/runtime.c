/*
 * runtime.c -- the signals a program built with the compiler pass writes, read back at
 * the moments they must hold. The program points its own thread at a signal block and
 * a path ring of its own (both thread-local pointers are exported by libshim), so no
 * observer runs: the checks read the words themselves.
 *
 *   slot 10 names the function executing (SHIM_LOOP_FN): the callee inside it, the
 *          caller again as soon as the call has returned; slot 8 is never stored
 *          (the observer takes the function from slot 10: signals/path.h);
 *   slot 10 is also that function's innermost loop: fn + loop (shim_loop_stored:
 *          the address for loops below 16, fn | loop << 48 above) from the first
 *          iteration on, the inner loop's number inside it, the outer's once it has
 *          left the inner one, fn | 0 after the loop; but a loop that the function
 *          enters within a few instructions of its entry is named from the entry on,
 *          and a loop left by a short way out of the function (a few instructions, no
 *          call, to the return) is still named there: the caller's own store follows;
 *          so is a loop left by a short way to a call of an instrumented function,
 *          which names itself at its entry (the caller's store follows the return);
 *   after a longjmp, slot 10 names the function whose setjmp returned again (the pass
 *          stores after setjmp as after any call), not the function that jumped;
 *   the ring holds each path work() completed, numbered 1, 2, ... in order, between
 *          the paths of the leaves it called; check_runtime.py regenerates them.
 *
 * Usage: runtime DUMP.json   (prints ok/FAIL lines; exit status 1 on a failure)
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

#include "shim.h"
#include "signals/cct.h"
#include "signals/path.h"
#include "pass_support.h"

#define SLOT(s)  __atomic_load_n(&shim_tls_block->tag[s], __ATOMIC_RELAXED)
#define METHOD() SHIM_LOOP_FN(shim_loop_canonical(SLOT(SHIM_SLOT_LOOP))) /* no slot 8 */
#define LOOP()   SLOT(SHIM_SLOT_LOOP)

enum { N = 10, M = 3 };
static volatile int n_iterations = N, m_iterations = M;
/* which arm work() takes in each iteration; check_runtime.py has the same list */
static const int pattern[N] = {1, 0, 0, 1, 0, 0, 1, 1, 0, 1};

static struct shim_block block;
static struct shim_path_ring work_ring;

static uint64_t leaf_method[2], leaf_loop[2];
static uint64_t top_method[N], top_loop[N], after_method[N], after_loop[N], work_after_loop;
static uint64_t outer_top[N], inner_after_call[N][M], outer_after_inner[N], nested_after_loop;
static uint64_t at_entry, short_exit_after, short_call_before, short_call_after;

__attribute__((noinline)) static int then_leaf(int i)
{
    leaf_method[0] = METHOD();
    leaf_loop[0] = LOOP();
    return i * 3 + 1;
}

__attribute__((noinline)) static int else_leaf(int i)
{
    leaf_method[1] = METHOD();
    leaf_loop[1] = LOOP();
    return i * 5 - 2;
}

__attribute__((noinline)) static int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        top_method[i] = METHOD();
        top_loop[i] = LOOP();
        if (pattern[i])
            s += then_leaf(i); /* MARK:then */
        else
            s += else_leaf(i); /* MARK:else */
        after_method[i] = METHOD();
        after_loop[i] = LOOP();
    }
    work_after_loop = LOOP();
    s += pass_support_records() == 0; /* a call (not instrumented): no short way out */
    return s;
}

__attribute__((noinline)) static int nested(int n, int m)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        outer_top[i] = LOOP();
        for (int j = 0; j < m; j++) {
            s += then_leaf(j);
            inner_after_call[i][j] = LOOP();
        }
        outer_after_inner[i] = LOOP();
    }
    nested_after_loop = LOOP();
    s += pass_support_records() == 0;
    return s;
}

/* A loop entered at once: the entry stores its value. */
__attribute__((noinline)) static int starts_loop(void)
{
    int s = 0, i = 0, n = n_iterations;
    at_entry = LOOP();
    do
        s += then_leaf(i);
    while (++i < n);
    return s;
}

/* A loop left by a short way out: nothing is stored after it. */
__attribute__((noinline)) static int short_exit(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += else_leaf(i);
    short_exit_after = LOOP();
    return s;
}

/* A loop left by a short way to a call of an instrumented function: nothing is
 * stored between them; the store after the call's return names the function. */
__attribute__((noinline)) static int short_to_call(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s = s * 3 + i;
    short_call_before = LOOP();
    s = then_leaf(s);
    short_call_after = LOOP();
    return s;
}

/* Eighteen loops in one function: the loop word stores the first 15 as the function's
 * address + the number, the others with the number in the top 16 bits (path.h). */
enum { MANY = 18 };
static uint64_t many_loop[MANY];
#define ONE_LOOP(k)                                                                                \
    for (int i = 0; i < n_iterations; i++) {                                                       \
        many_loop[k] = LOOP();                                                                     \
        s += i * (k + 1);                                                                          \
    }
__attribute__((noinline)) static int many_loops(void)
{
    int s = 0;
    ONE_LOOP(0) ONE_LOOP(1) ONE_LOOP(2) ONE_LOOP(3) ONE_LOOP(4) ONE_LOOP(5);
    ONE_LOOP(6) ONE_LOOP(7) ONE_LOOP(8) ONE_LOOP(9) ONE_LOOP(10) ONE_LOOP(11);
    ONE_LOOP(12) ONE_LOOP(13) ONE_LOOP(14) ONE_LOOP(15) ONE_LOOP(16) ONE_LOOP(17);
    return s;
}

/* Two nops before the symbol: its address is not where its aligned code starts, so the
 * loop word keeps the number in the top 16 bits (path.h), the function exactly. */
static uint64_t prefixed_in_loop, prefixed_after_call;
__attribute__((noinline, patchable_function_entry(4, 2))) static int prefixed(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += then_leaf(i);
        prefixed_in_loop = LOOP();
    }
    s += else_leaf(n);
    prefixed_after_call = LOOP();
    return s;
}

static jmp_buf jump;
static uint64_t jumper_method, after_jump_method, after_jump_loop;

__attribute__((noinline)) static void jumper(void)
{
    jumper_method = METHOD();
    longjmp(jump, 1);
}

__attribute__((noinline)) static int catch_jump(void)
{
    if (setjmp(jump)) {
        after_jump_method = METHOD();
        after_jump_loop = LOOP();
        return 1;
    }
    jumper();
    return 0;
}

/* work() with the ring attached, and nothing else: this function has no loop, so its
 * own path completes at its return, after the ring is put back. */
__attribute__((noinline)) static int run_work(void)
{
    struct shim_path_ring *old = shim_tls_path_ring;
    shim_tls_path_ring = &work_ring;
    int s = work(n_iterations);
    shim_tls_path_ring = old;
    return s;
}

static int failures;

static void expect(const char *what, int i, uint64_t got, uint64_t want)
{
    if (got == want) return;
    failures++;
    printf("FAIL: %s [%d]: %#llx, expected %#llx\n", what, i, (unsigned long long)got,
           (unsigned long long)want);
}

static uint64_t loop_signal(const void *fn, unsigned loop)
{
    return shim_loop_stored((uintptr_t)fn, loop); /* the form the pass stores: path.h */
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: runtime DUMP.json\n");
        return 2;
    }
    shim_tls_block = &block;
    int s = run_work() + nested(n_iterations, m_iterations) + catch_jump();
    s += starts_loop() + short_exit(n_iterations) + many_loops() + prefixed(n_iterations);
    s += short_to_call(n_iterations);

    const void *w = (const void *)work, *t = (const void *)then_leaf;
    const void *e = (const void *)else_leaf, *nf = (const void *)nested;
    expect("the function inside then_leaf", 0, leaf_method[0], (uintptr_t)t);
    expect("slot 10 inside then_leaf", 0, leaf_loop[0], loop_signal(t, 0));
    expect("the function inside else_leaf", 0, leaf_method[1], (uintptr_t)e);
    expect("slot 10 inside else_leaf", 0, leaf_loop[1], loop_signal(e, 0));
    for (int i = 0; i < N; i++) {
        expect("the function at the top of work's loop", i, top_method[i], (uintptr_t)w);
        expect("slot 10 at the top of work's loop", i, top_loop[i], loop_signal(w, 1));
        expect("the function after a call returned to work", i, after_method[i], (uintptr_t)w);
        expect("slot 10 after a call returned to work", i, after_loop[i], loop_signal(w, 1));
        expect("slot 10 at the top of nested's outer loop", i, outer_top[i], loop_signal(nf, 1));
        for (int j = 0; j < M; j++)
            expect("slot 10 after a call in nested's inner loop", i * M + j, inner_after_call[i][j],
                   loop_signal(nf, 2));
        expect("slot 10 after nested's inner loop", i, outer_after_inner[i], loop_signal(nf, 1));
    }
    expect("slot 10 after work's loop", 0, work_after_loop, loop_signal(w, 0));
    expect("slot 10 after nested's loops", 0, nested_after_loop, loop_signal(nf, 0));
    const void *sl = (const void *)starts_loop, *se = (const void *)short_exit;
    expect("slot 10 at the entry of a function entering its loop at once", 0, at_entry,
           loop_signal(sl, 1));
    expect("slot 10 on a short way out after a loop", 0, short_exit_after, loop_signal(se, 1));
    const void *sc = (const void *)short_to_call;
    /* the optimiser may unroll the loop with a remainder loop: the way out is from one */
    uint64_t before = shim_loop_canonical(short_call_before);
    expect("the function on a short way from a loop to a call", 0, SHIM_LOOP_FN(before),
           (uintptr_t)sc);
    expect("slot 10 on a short way from a loop to a call: a loop", 0, SHIM_LOOP_NUMBER(before) >= 1,
           1);
    expect("slot 10 after that call returned", 0, short_call_after, loop_signal(sc, 0));
    const void *cj = (const void *)catch_jump;
    expect("the function in the function that jumps", 0, jumper_method,
           (uintptr_t)(const void *)jumper);
    expect("the function after setjmp returned from a longjmp", 0, after_jump_method,
           (uintptr_t)cj);
    expect("slot 10 after setjmp returned from a longjmp", 0, after_jump_loop, loop_signal(cj, 0));
    uint64_t ml = (uintptr_t)(const void *)many_loops, seen = 0;
    for (int k = 0; k < MANY; k++) {
        uint64_t c = shim_loop_canonical(many_loop[k]);
        unsigned loop = SHIM_LOOP_NUMBER(c);
        expect("the function in each of many loops", k, SHIM_LOOP_FN(c), ml);
        expect("slot 10 in each of many loops, as stored", k, many_loop[k],
               shim_loop_stored(ml, loop));
        if (loop >= 1 && loop <= MANY) seen |= UINT64_C(1) << loop;
    }
    expect("the loop numbers of many loops, each once", 0, seen, ((UINT64_C(1) << MANY) - 1) << 1);
    const void *instrumented[] = {w, t, e, nf, sl, se, cj, (const void *)many_loops};
    for (unsigned k = 0; k < sizeof instrumented / sizeof *instrumented; k++)
        expect("an instrumented function's address, aligned", (int)k,
               (uintptr_t)instrumented[k] % SHIM_LOOP_SHORT, 0);
    uint64_t pf = (uintptr_t)(const void *)prefixed;
    expect("slot 10 in the loop of a function with nops before it", 0, prefixed_in_loop,
           SHIM_LOOP_SIGNAL(pf, 1));
    expect("slot 10 after a call in a function with nops before it", 0, prefixed_after_call,
           SHIM_LOOP_EXACT(pf));
    expect("the function back in main", 0, METHOD(), (uintptr_t)(const void *)main);
    expect("slot 8 never stored", 0, SLOT(SHIM_SLOT_METHOD), 0);
    if (!failures) printf("ok: slot 10 holds the expected values at each check point\n");

    const struct pass_anchor anchors[] = {{"work", w},
                                          {"then_leaf", t},
                                          {"else_leaf", e},
                                          {"nested", nf},
                                          {"main", (const void *)main}};
    if (pass_support_dump(argv[1], anchors, sizeof anchors / sizeof anchors[0], &work_ring)) {
        printf("FAIL: cannot write %s\n", argv[1]);
        failures++;
    }
    printf("checksum %d\n", s);
    return failures ? 1 : 0;
}
