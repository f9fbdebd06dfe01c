/*
 * shapes.c -- control-flow shapes for the compiler pass's path numbering: each function
 * is one shape whose path count at -O0 is known by hand (the comment above it), and the
 * optimised builds must number whatever the optimiser leaves of it just as correctly.
 * The two arms of a branch call different functions (step and twist, never inlined and
 * with a side effect), so the optimiser can neither merge them nor turn the branch into
 * a select. shapes_main.c runs them.
 */
#include <setjmp.h>
#include <stdlib.h>

#include "shapes.h"

volatile int shapes_sink;

__attribute__((noinline)) int step(int x)
{
    shapes_sink = x;
    return x * 7 + 3;
}

__attribute__((noinline)) int twist(int x)
{
    shapes_sink = -x;
    return x * 5 - 1;
}

/* 2 * 2 * 2 = 8 paths */
int three_ifs(int a, int b, int c)
{
    int s = 0;
    if (a)
        s += step(1);
    else
        s -= twist(2);
    if (b)
        s += step(3);
    else
        s -= twist(4);
    if (c)
        s += step(5);
    else
        s -= twist(6);
    return s;
}

/* if / else if / else if / else: 4 paths */
int if_else_chain(int x)
{
    if (x < 0) return step(-x);
    if (x == 0) return 0;
    if (x < 10) return twist(x);
    return step(x / 2) + 1;
}

/* cases 0, 1, 2 apart, 3 and 4 sharing a block, and the default: 5 paths */
int switch_cases(int x)
{
    int s = 0;
    switch (x) {
    case 0:
        s = step(10);
        break;
    case 1:
        s = twist(11);
        break;
    case 2:
        s = step(12) + 1;
        break;
    case 3:
    case 4:
        s = twist(13) * 2;
        break;
    default:
        s = -1;
        break;
    }
    return s;
}

/* two cases that go straight to the end, which the other cases reach too: two parallel
 * critical edges, which must share one new block and one update of the path sum; 3
 * paths */
int parallel_edges(int x)
{
    int s = 1;
    switch (x) {
    case 1:
    case 2:
        break;
    case 3:
        s = step(x);
        break;
    default:
        s = twist(x);
    }
    return s;
}

/* three returns and a fall-through, one return block at -O0: 4 paths */
int early_returns(int x)
{
    if (x == 1) return step(1);
    if (x == 2) return twist(2);
    if (x == 3) return step(3) * 3;
    return 0;
}

/* an i loop around a j loop, each test-body-increment at -O0: 8 paths, 3 from the entry
 * (to the return, to j's back edge, to i's back edge), 3 from i's test (the same three
 * ends) and 2 from j's test (to j's back edge, and out of j to i's back edge) */
int nested_loops(int n, int m)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += step(i + j);
    return s;
}

/* a while loop whose body goes back to the test from two places (continue): two back
 * edges into one header; 3 paths from the entry and 3 from the test, 6 */
int two_back_edges(int n)
{
    int i = 0, s = 0;
    while (i < n) {
        i++;
        if (i % 3 == 0) continue;
        s += step(i);
    }
    return s;
}

/* a goto into the middle of a loop: a cycle with two entries, which no natural loop
 * describes; the depth-first search still finds a back edge that breaks it; 6 paths */
int irreducible(int n, int k)
{
    int i = 0, s = 0;
    if (k) goto inside;
    while (i < n) {
        s += step(i);
    inside:
        s += 2;
        i++;
    }
    return s;
}

/* one branch ends in abort(): its paths are never published (NP 0), 2 paths remain */
int dead_end(int x)
{
    if (x < 0) abort();
    if (x > 100) return step(x);
    return x;
}

/* never returns: its only paths end at the back edge, 2 from the entry, 2 from the top
 * of the loop */
void spin_forever(volatile int *flag)
{
    for (;;)
        if (*flag) step(*flag);
}

/* setjmp: the path register after a second return is not to be trusted */
static jmp_buf jump;
int with_setjmp(int x)
{
    if (setjmp(jump)) return step(x);
    if (x > 5) longjmp(jump, 1);
    return x;
}

/* computed goto: an indirect branch, whose edges cannot be split */
int computed_goto(const unsigned char *code)
{
    static void *ops[] = {&&op_add, &&op_sub, &&op_end};
    int acc = 0;
    goto *ops[*code];
op_add:
    acc += step(*++code);
    goto *ops[*++code];
op_sub:
    acc -= step(*++code);
    goto *ops[*++code];
op_end:
    return acc;
}

#define BRANCH(i)                                                                                  \
    if (x & (1ull << (i)))                                                                         \
        s += step(i);                                                                              \
    else                                                                                           \
        s -= twist(i)
#define BRANCH4(i)                                                                                 \
    BRANCH(i);                                                                                     \
    BRANCH(i + 1);                                                                                 \
    BRANCH(i + 2);                                                                                 \
    BRANCH(i + 3)
#define BRANCH20(i)                                                                                \
    BRANCH4(i);                                                                                    \
    BRANCH4(i + 4);                                                                                \
    BRANCH4(i + 8);                                                                                \
    BRANCH4(i + 12);                                                                               \
    BRANCH4(i + 16)

/* 2^20 = 1048576 paths */
int many_paths20(unsigned long long x)
{
    int s = 0;
    BRANCH20(0);
    return s;
}

/* 2^40 = 1099511627776 paths: more than the default limit of 2^32 */
int many_paths40(unsigned long long x)
{
    int s = 0;
    BRANCH20(0);
    BRANCH20(20);
    return s;
}
