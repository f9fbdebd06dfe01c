/*
 * driver.c -- runs TinyCC, a real C compiler nobody wrote for shim, on a fixed piece of C
 * it makes itself: a translation unit of many small functions (arithmetic, loops,
 * conditionals, structs, macros and calls between them), compiled in memory N times,
 * each time by a fresh compiler state (libtcc: tcc_new, tcc_compile_string, tcc_delete),
 * with no header and nothing linked or run. What the compiler does is a C compiler's
 * front end and code generator: the preprocessor's tokenizer and macro expansion, the
 * parser, and x86-64 code as it parses (a call-dense program: every token goes through
 * small functions).
 *
 *   driver ITERATIONS
 *
 * Prints the iterations, a checksum of what was compiled (the sizes of the sections the
 * compiler wrote, so that two builds of the compiler that compute differently are told
 * apart) and the elapsed time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "libtcc.h"

enum { FUNCTIONS = 400 };

/* The translation unit: FUNCTIONS functions, each a few statements that use the ones
 * before it, a struct and a macro. */
static char *source(void)
{
    size_t cap = 1 << 20, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    len += (size_t)snprintf(s + len, cap - len,
                            "#define SQ(x) ((x) * (x))\n"
                            "#define MIX(a, b) (((a) << 3) ^ ((b) >> 2) ^ SQ((a) & 15))\n"
                            "struct pt { int x, y; long w; };\n"
                            "static int f0(int a, int b) { return MIX(a, b); }\n");
    for (int i = 1; i < FUNCTIONS && cap - len > 1024; i++)
        len += (size_t)snprintf(
            s + len, cap - len,
            "static int f%d(int a, int b)\n"
            "{\n"
            "    struct pt p = {a, b, %d};\n"
            "    int s = 0;\n"
            "    for (int k = 0; k < (a & 7) + %d; k++) {\n"
            "        if (k %% 3 == 0) s += f%d(p.x + k, p.y - k);\n"
            "        else if (k %% 3 == 1) s ^= MIX(s, k * %d);\n"
            "        else s -= (int)(p.w * k) / (k + 1);\n"
            "    }\n"
            "    switch (s & 3) { case 0: s += %d; break; case 1: s *= 3; break; default: s--; }\n"
            "    return s + f%d(b, a);\n"
            "}\n",
            i, i * 7, i % 5 + 1, i - 1, i % 13 + 1, i, i / 2);
    snprintf(s + len, cap - len, "int entry(int a) { return f%d(a, a + 1); }\n", FUNCTIONS - 1);
    return s;
}

static void quiet(void *opaque, const char *msg)
{
    (void)opaque;
    fprintf(stderr, "driver: tcc: %s\n", msg);
}

int main(int argc, char **argv)
{
    if (argc != 2 || atoi(argv[1]) <= 0) {
        fprintf(stderr, "usage: driver ITERATIONS\n");
        return 2;
    }
    int n = atoi(argv[1]);
    char *text = source();
    if (!text) return 1;
    uint64_t sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n; i++) {
        TCCState *s = tcc_new();
        if (!s) return 1;
        tcc_set_error_func(s, NULL, quiet);
        tcc_set_options(s, "-nostdinc -nostdlib");
        tcc_set_output_type(s, TCC_OUTPUT_OBJ);
        if (tcc_compile_string(s, text) != 0) {
            fprintf(stderr, "driver: the source did not compile\n");
            return 1;
        }
        sum = sum * 31 + (uint64_t)driver_text_size(s);
        tcc_delete(s);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("driver: %d iterations, checksum %016llx, elapsed: %.6f s\n", n, (unsigned long long)sum,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    free(text);
    return 0;
}
