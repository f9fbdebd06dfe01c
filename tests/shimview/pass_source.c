/* pass_source.c -- source text for the shimview tests (never compiled): the fixture that
 * pass_fixture.py writes points its compiler-pass tables at these functions and lines,
 * so `shimview path` has real text to print. test_pass.sh reads lines of this file by
 * number: keep the line numbers of the functions below as they are. */
#include <stdlib.h>

long sum_positive(const long *a, size_t n)
{
    long s = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] > 0) {
            s += a[i];
        }
    }
    return s;
}

int classify(const int *grid, int rows, int cols)
{
    int kinds = 0;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++)
            kinds |= 1 << (grid[r * cols + c] & 7);
    }
    return kinds;
}

long checked_div(long a, long b)
{
    if (b == 0) {
        abort();
    }
    return a / b;
}
