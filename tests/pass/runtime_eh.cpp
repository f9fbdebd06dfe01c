/*
 * runtime_eh.cpp -- slot 10 (the function and its loop) around C++ calls that may
 * throw. A call that may throw is an invoke: the signals are stored again on its normal edge, and,
 * when it threw, at the landing pad that catches, so the handler runs as the catching function (in
 * its loop) and not as the function that threw.
 *
 * Usage: runtime_eh   (prints ok/FAIL lines; exit status 1 on a failure)
 */
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "shim.h"
#include "signals/cct.h"
#include "signals/path.h"

#define SLOT(s)  __atomic_load_n(&shim_tls_block->tag[s], __ATOMIC_RELAXED)
#define METHOD() SHIM_LOOP_FN(shim_loop_canonical(SLOT(SHIM_SLOT_LOOP))) /* no slot 8 */
#define LOOP()   SLOT(SHIM_SLOT_LOOP)

enum { N = 8 };
static volatile int n_iterations = N;
static struct shim_block block;
static uint64_t in_thrower[N], after_return[N], in_handler[N], handler_loop[N], after_loop;
static int threw[N];

__attribute__((noinline)) static int thrower(int i)
{
    in_thrower[i] = METHOD();
    if (i % 3 == 1) throw std::runtime_error("one in three");
    return i * 2;
}

__attribute__((noinline)) static int catcher(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        try {
            s += thrower(i);
            after_return[i] = METHOD();
        } catch (const std::exception &) {
            threw[i] = 1;
            in_handler[i] = METHOD();
            handler_loop[i] = LOOP();
        }
    }
    after_loop = LOOP();
    std::fflush(stdout); /* a call: the loop is not left by a short way out */
    return s;
}

static int failures;

static void expect(const char *what, int i, uint64_t got, uint64_t want)
{
    if (got == want) return;
    failures++;
    std::printf("FAIL: %s [%d]: %#llx, expected %#llx\n", what, i, (unsigned long long)got,
                (unsigned long long)want);
}

int main()
{
    shim_tls_block = &block;
    int s = catcher(n_iterations);
    uint64_t c = (uintptr_t)catcher, t = (uintptr_t)thrower;
    for (int i = 0; i < N; i++) {
        expect("the function inside thrower", i, in_thrower[i], t);
        expect("threw as planned", i, threw[i], i % 3 == 1);
        if (threw[i]) {
            expect("the function in the handler that caught", i, in_handler[i], c);
            expect("slot 10 in the handler, inside the loop", i, handler_loop[i],
                   shim_loop_stored(c, 1));
        } else {
            expect("the function after the invoke returned", i, after_return[i], c);
        }
    }
    expect("slot 10 after the loop", 0, after_loop, shim_loop_stored(c, 0));
    if (!failures) std::printf("ok: slot 10 right after invokes and in handlers\n");
    std::printf("checksum %d\n", s);
    return failures ? 1 : 0;
}
