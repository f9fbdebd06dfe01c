/*
 * shapes_eh.cpp -- C++ exceptions under the compiler pass: calls that may throw are
 * invokes, whose unwind edges go to landing pads (edges no block can be put on, so
 * they are numbered first, with Val 0); a handler that catches continues the loop, a
 * cleanup that rethrows ends in resume, which leaves without publishing.
 */
#include <stdexcept>

#include "shapes.h"

struct Guard {
    int *counter;
    ~Guard() { ++*counter; }
};

__attribute__((noinline)) static int thrower(int x)
{
    if (x % 4 == 3) throw std::runtime_error("three");
    return step(x);
}

/* a handler inside a loop: every iteration's path is published, caught or not */
extern "C" int eh_catcher(int n)
{
    int s = 0, caught = 0;
    for (int i = 0; i < n; i++) {
        try {
            s += thrower(i);
        } catch (const std::exception &) {
            caught++;
            s -= twist(i);
        }
    }
    return s * 100 + caught;
}

/* a cleanup (the destructor) on the way out of an exception: its landing pad resumes */
extern "C" int eh_cleanup(int x, int *destroyed)
{
    Guard g{destroyed};
    return thrower(x) + 1;
}

extern "C" int eh_cleanup_caller(int x)
{
    int destroyed = 0;
    try {
        return eh_cleanup(x, &destroyed) * 10 + destroyed;
    } catch (...) {
        return -destroyed;
    }
}
