/* shapes.h -- the control-flow shapes of shapes.c and shapes_eh.cpp, for shapes_main.c. */
#ifndef SHIM_TEST_PASS_SHAPES_H
#define SHIM_TEST_PASS_SHAPES_H

#ifdef __cplusplus
extern "C" {
#endif

int step(int x);
int twist(int x);
int three_ifs(int a, int b, int c);
int if_else_chain(int x);
int switch_cases(int x);
int early_returns(int x);
int parallel_edges(int x);
int nested_loops(int n, int m);
int two_back_edges(int n);
int irreducible(int n, int k);
int dead_end(int x);
void spin_forever(volatile int *flag);
int with_setjmp(int x);
int computed_goto(const unsigned char *code);
int many_paths20(unsigned long long x);
int many_paths40(unsigned long long x);

/* shapes_eh.cpp: C++ exceptions */
int eh_catcher(int n);
int eh_cleanup(int x, int *destroyed);
int eh_cleanup_caller(int x);

#ifdef __cplusplus
}
#endif

#endif
