// demangle_target.cpp -- a small C++ program for shimview's demangling test
// (test_demangle.sh): a class in a namespace with a const member function, a template
// instantiated for one type, an overloaded function and an operator, each given work
// enough to be sampled. Built with -finstrument-functions and run under shimrun, its
// profile names them by their symbols (_ZNK8geometry6Circle4areaEv), which every view
// and export of shimview must show in their source form (geometry::Circle::area() const).
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace geometry {

struct Circle {
    double r;
    double area() const;
};

// noinline everywhere: each function keeps its own entry in the calling-context tree
__attribute__((noinline)) double Circle::area() const
{
    double a = 0;
    for (int i = 0; i < 2000; i++)
        a += 3.14159 * r * r / (i + 1);
    return a;
}

template <typename T> __attribute__((noinline)) T total(const std::vector<T> &v)
{
    T sum = 0;
    for (int k = 0; k < 20; k++)
        for (const T &x : v)
            sum += x / (k + 1);
    return sum;
}

__attribute__((noinline)) long scale(long x, int times)
{
    for (int i = 0; i < times; i++)
        x = (x * 31 + i) % 1000003;
    return x;
}

__attribute__((noinline)) double scale(double x, int times)
{
    for (int i = 0; i < times; i++)
        x = x * 1.0000001 + 0.5;
    return x;
}

struct Vec {
    double x, y;
};

__attribute__((noinline)) Vec operator+(const Vec &a, const Vec &b)
{
    Vec v = {a.x + b.x, a.y + b.y};
    for (int i = 0; i < 500; i++)
        v.x = v.x * 0.999 + v.y * 0.001;
    return v;
}

} // namespace geometry

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? std::atoi(argv[1]) : 3000;
    std::vector<double> values(200);
    for (size_t i = 0; i < values.size(); i++)
        values[i] = (double)i;
    geometry::Circle c = {2.0};
    geometry::Vec u = {1, 2}, w = {0, 0};
    double sink = 0;
    long n = 7;
    for (int round = 0; round < rounds; round++) {
        sink += c.area();
        sink += geometry::total(values);
        n = geometry::scale(n, 1000);
        sink += geometry::scale(sink, 1000);
        w = w + u;
    }
    std::printf("%g %ld %g\n", sink, n, w.x);
    return 0;
}
