/*
 * test_cct_signals.c -- signal handlers that run instrumented code nest like calls: the
 * handler is a child of the interrupted context and the interrupted function is current
 * again when it returns; a handler that leaves by siglongjmp is repaired by the next
 * call; a handler on an alternate signal stack, above or below the thread's stack, nests
 * too. A storm of timer signals, landing anywhere (inside the hooks as well), some of
 * them jumping out, leaves a well-formed tree and the right context.
 */
#include "cct_check.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>

/* ---- one signal, from raise() inside an instrumented function ---- */

static volatile int handler_bad, handler_runs, jump_out;
static volatile uint32_t handler_node;
static sigjmp_buf handler_env;

static NOINLINE void handler_leaf(void)
{
    if (!check_here_quiet(handler_leaf)) handler_bad++;
}

static NOINLINE void on_signal(int sig)
{
    (void)sig;
    handler_runs++;
    if (!check_here_quiet(on_signal)) handler_bad++;
    handler_node = check_node();
    handler_leaf();
    if (!check_here_quiet(on_signal)) handler_bad++;
    if (jump_out) siglongjmp(handler_env, 1);
}

static void install(int sig, int flags)
{
    check_install(sig, on_signal, flags);
}

/* What a thread without cmocka found; checked by the main thread. */
struct outcome {
    int bad;              /* checks that failed */
    uint32_t interrupted; /* the node raise() was called from */
    uint32_t handler;     /* the handler's node */
    uint32_t parent;      /* the handler node's parent */
    uint32_t after;       /* the node of a call made after the handler jumped out */
    uint32_t after_parent;
};

static NOINLINE void after_jump(void)
{
    (void)check_here_quiet(after_jump);
}

static NOINLINE void interrupted(int sig, struct outcome *o)
{
    o->interrupted = check_node();
    o->bad += !check_here_quiet(interrupted);
    handler_bad = 0;
    handler_runs = 0;
    jump_out = 0;
    raise(sig);
    o->bad += !check_here_quiet(interrupted) || check_node() != o->interrupted;
    o->bad += handler_bad + (handler_runs != 1);
    o->handler = handler_node;
    o->parent = cct_arena_nodes(cct_arena_self())[handler_node].parent;
    /* again, leaving the handler by siglongjmp */
    jump_out = 1;
    if (sigsetjmp(handler_env, 1) == 0) {
        raise(sig);
        o->bad++; /* not reached */
    }
    jump_out = 0;
    o->bad += handler_bad;
    after_jump();
    o->bad += !check_here_quiet(interrupted) || check_node() != o->interrupted;
    uint32_t n = cct_arena_node_count(cct_arena_self());
    const struct cct_node *nodes = cct_arena_nodes(cct_arena_self());
    o->after = 0;
    for (uint32_t id = CCT_NODE_FIRST; id < n; id++)
        if (nodes[id].fn == FN(after_jump) && nodes[id].parent == o->interrupted) o->after = id;
    o->after_parent = o->after ? nodes[o->after].parent : 0;
}

static void expect(const struct outcome *o)
{
    assert_int_equal(o->bad, 0);
    assert_int_equal(o->parent, o->interrupted);
    assert_int_equal(cct_arena_nodes(check_arena())[o->handler].fn, FN(on_signal));
    assert_true(o->after != 0);
}

static void handler_nests_on_the_same_stack(void **state)
{
    (void)state;
    check_attach();
    uint32_t me = check_here(handler_nests_on_the_same_stack);
    install(SIGUSR1, 0);
    struct outcome o = {0};
    interrupted(SIGUSR1, &o);
    expect(&o);
    assert_int_equal(check_node_at(o.interrupted)->parent, me);
    assert_int_equal(check_here(handler_nests_on_the_same_stack), me);
    check_tree(check_arena());
}

/* ---- a handler on an alternate signal stack ---- */

#define STACK_BYTES (2u << 20)
#define ALT_BYTES   (256u << 10)

struct alt_run {
    char *stack, *alt;
    struct outcome o;
};

static NOINLINE void *alt_thread(void *arg)
{
    struct alt_run *r = arg;
    check_attach();
    stack_t ss = {.ss_sp = r->alt, .ss_size = ALT_BYTES, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) r->o.bad += 100;
    interrupted(SIGUSR2, &r->o);
    r->o.bad += check_tree(cct_arena_self()) < CCT_NODE_FIRST;
    return NULL;
}

/* The thread's stack and the alternate stack in one mapping, in the order asked, with
 * `gap` bytes between them (more than the hooks' 1 MiB threshold, or none). */
static void run_alt(int alt_above, size_t gap)
{
    char *map = mmap(NULL, STACK_BYTES + ALT_BYTES + gap, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    struct alt_run r = {0};
    r.stack = alt_above ? map : map + ALT_BYTES + gap;
    r.alt = alt_above ? map + STACK_BYTES + gap : map;
    install(SIGUSR2, SA_ONSTACK);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    assert_int_equal(pthread_attr_setstack(&attr, r.stack, STACK_BYTES), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, &attr, alt_thread, &r), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    const struct cct_arena *a = NULL;
    for (uint32_t i = 0; i < cct_arena_count(); i++) {
        const struct cct_arena *x = cct_arena_at(i);
        if (x != NULL && x != check_arena()) a = x; /* the newest other thread */
    }
    assert_non_null(a);
    assert_int_equal(r.o.bad, 0);
    assert_int_equal(r.o.parent, r.o.interrupted);
    assert_int_equal(cct_arena_nodes(a)[r.o.handler].fn, FN(on_signal));
    assert_true(r.o.after != 0);
    munmap(map, STACK_BYTES + ALT_BYTES + gap);
}

static void handler_nests_on_an_alternate_stack_far_above(void **state)
{
    (void)state;
    run_alt(1, 4u << 20);
}

static void handler_nests_on_an_alternate_stack_just_above(void **state)
{
    (void)state;
    run_alt(1, 0);
}

static void handler_nests_on_an_alternate_stack_below(void **state)
{
    (void)state;
    run_alt(0, 4u << 20);
}

/* ---- a storm: timer signals every 50 microseconds, anywhere ---- */

static volatile int storm_bad, storm_runs, storm_jumps, storm_in_hooks, storm_armed;
static volatile int storm_jump_every;
static sigjmp_buf storm_env;
static uintptr_t hook_lo[2], hook_hi[2];

static NOINLINE void storm_leaf(void)
{
    if (!check_here_quiet(storm_leaf)) storm_bad++;
}

static NOINLINE void storm_handler(int sig, siginfo_t *si, void *uc_)
{
    (void)sig, (void)si;
    const ucontext_t *uc = uc_;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    for (int i = 0; i < 2; i++)
        storm_in_hooks += pc >= hook_lo[i] && pc < hook_hi[i];
    int n = ++storm_runs;
    if (!check_here_quiet(storm_handler)) storm_bad++;
    storm_leaf();
    if (!check_here_quiet(storm_handler)) storm_bad++;
    if (storm_armed && storm_jump_every && n % storm_jump_every == 0) {
        storm_jumps++;
        siglongjmp(storm_env, 1);
    }
}

static NOINLINE unsigned storm_work(unsigned n);
static NOINLINE unsigned storm_odd(unsigned n)
{
    if (!check_here_quiet(storm_odd)) storm_bad++;
    unsigned r = storm_work(n - 1);
    if (!check_here_quiet(storm_odd)) storm_bad++;
    return r + 1;
}
static NOINLINE unsigned storm_work(unsigned n)
{
    if (!check_here_quiet(storm_work)) storm_bad++;
    if (n == 0) return 0;
    unsigned r = n % 2 ? storm_odd(n) : storm_work(n - 1) + 1;
    storm_leaf();
    if (!check_here_quiet(storm_work)) storm_bad++;
    return r;
}

static volatile uint32_t probe_node;
static NOINLINE void storm_probe(void)
{
    if (!check_here_quiet(storm_probe)) storm_bad++;
    probe_node = check_node();
}

static void hook_range(int i, void *fn)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    hook_lo[i] = hook_hi[i] = 0;
    if (dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym != NULL) {
        hook_lo[i] = (uintptr_t)fn;
        hook_hi[i] = hook_lo[i] + sym->st_size;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs the workload until `signals` signals arrived (or, should they not come, for a
 * few seconds). After each round the probe called from here must have been this
 * function's child, and this function current again. Returns the rounds where not. */
static NOINLINE int storm_driver(int signals)
{
    uint32_t me = check_node();
    const struct cct_node *nodes = cct_arena_nodes(cct_arena_self());
    volatile int wrong = 0;
    double end = now() + 5;
    sigsetjmp(storm_env, 1);
    storm_armed = 1;
    while (storm_runs < signals && now() < end) {
        if (storm_work(40) != 40) storm_bad++;
        probe_node = 0;
        storm_probe();
        uint32_t p = probe_node;
        if (p == 0 || nodes[p].parent != me || nodes[p].fn != FN(storm_probe)) wrong++;
        if (!check_here_quiet(storm_driver) || check_node() != me) wrong++;
    }
    storm_armed = 0;
    return wrong;
}

static void storm(int jump_every)
{
    const struct cct_arena *a = check_arena();
    uint32_t me = check_node();
    hook_range(0, (void *)__cyg_profile_func_enter);
    hook_range(1, (void *)__cyg_profile_func_exit);
    storm_bad = storm_runs = storm_jumps = storm_in_hooks = 0;
    storm_jump_every = jump_every;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = storm_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    struct itimerval every = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
    assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
    int wrong = storm_driver(3000);
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
    printf("storm: %d signals, %d inside the hooks, %d left by siglongjmp\n", storm_runs,
           storm_in_hooks, storm_jumps);
    assert_true(storm_runs > 0);
    assert_int_equal(storm_bad, 0);
    assert_int_equal(wrong, 0);
    if (jump_every) assert_true(storm_jumps > 0);
    assert_int_equal(check_node(), me);
    check_tree(a);
}

static void storm_of_signals(void **state)
{
    (void)state;
    uint32_t me = check_here(storm_of_signals);
    storm(0);
    assert_int_equal(check_here(storm_of_signals), me);
}

static void storm_of_signals_that_jump_out(void **state)
{
    (void)state;
    uint32_t me = check_here(storm_of_signals_that_jump_out);
    storm(7);
    assert_int_equal(check_here(storm_of_signals_that_jump_out), me);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handler_nests_on_the_same_stack),
        cmocka_unit_test(handler_nests_on_an_alternate_stack_far_above),
        cmocka_unit_test(handler_nests_on_an_alternate_stack_just_above),
        cmocka_unit_test(handler_nests_on_an_alternate_stack_below),
        cmocka_unit_test(storm_of_signals),
        cmocka_unit_test(storm_of_signals_that_jump_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
