/*
 * shapes_main.c -- runs every shape of shapes.c and shapes_eh.cpp with a path ring of
 * its own attached, then dumps the program's side table and the ring (pass_support.h)
 * for check_sidetable.py, with each shape's address under its name.
 *
 * Usage: shapes DUMP.json
 */
#include <stdio.h>

#include "shim.h"
#include "signals/path.h"
#include "pass_support.h"
#include "shapes.h"

static struct shim_block block;
static struct shim_path_ring ring;

#define ANCHOR(f)                                                                                  \
    {                                                                                              \
#f, (const void *)f                                                                        \
    }

static const struct pass_anchor anchors[] = {
    ANCHOR(step),           ANCHOR(twist),         ANCHOR(three_ifs),         ANCHOR(if_else_chain),
    ANCHOR(switch_cases),   ANCHOR(early_returns), ANCHOR(parallel_edges),    ANCHOR(nested_loops),
    ANCHOR(two_back_edges), ANCHOR(irreducible),   ANCHOR(dead_end),          ANCHOR(spin_forever),
    ANCHOR(with_setjmp),    ANCHOR(computed_goto), ANCHOR(many_paths20),      ANCHOR(many_paths40),
    ANCHOR(eh_catcher),     ANCHOR(eh_cleanup),    ANCHOR(eh_cleanup_caller),
};

/* Every shape, with arguments that take each of its branches. No loop here: main's
 * own paths stay out of the ring until the dump. */
static long run_shapes(void)
{
    static const unsigned char code[] = {0, 5, 1, 2, 0, 7, 2};
    long s = 0;
    s += three_ifs(0, 0, 0) + three_ifs(0, 0, 1) + three_ifs(0, 1, 0) + three_ifs(0, 1, 1);
    s += three_ifs(1, 0, 0) + three_ifs(1, 0, 1) + three_ifs(1, 1, 0) + three_ifs(1, 1, 1);
    s += if_else_chain(-3) + if_else_chain(0) + if_else_chain(5) + if_else_chain(50);
    s += switch_cases(0) + switch_cases(1) + switch_cases(2) + switch_cases(3);
    s += switch_cases(4) + switch_cases(9);
    s += early_returns(1) + early_returns(2) + early_returns(3) + early_returns(4);
    s += parallel_edges(1) + parallel_edges(2) + parallel_edges(3) + parallel_edges(7);
    s += nested_loops(3, 2) + nested_loops(0, 5) + two_back_edges(7);
    s += irreducible(4, 0) + irreducible(4, 1) + dead_end(5) + dead_end(500);
    s += with_setjmp(3) + with_setjmp(9) + computed_goto(code);
    s += many_paths20(0x5a5a5) + many_paths40(0xa5a5a5a5a5ull);
    s += eh_catcher(10) + eh_cleanup_caller(2) + eh_cleanup_caller(3);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: shapes DUMP.json\n");
        return 2;
    }
    shim_tls_block = &block;
    struct shim_path_ring *old = shim_tls_path_ring;
    shim_tls_path_ring = &ring;
    long s = run_shapes();
    shim_tls_path_ring = old;
    printf("checksum %ld, %zu records\n", s, pass_support_records());
    return pass_support_dump(argv[1], anchors, sizeof anchors / sizeof anchors[0], &ring) ? 1 : 0;
}
