// in-place update: a[i] = s * a[i] (s = 1, so values stay put)
// elem: 8
#include "bench.h"
INLINE void kernel(double *restrict a, long n) {
    double s = opaque_d(1.0);
    for (long i = 0; i < n; i++) a[i] = s * a[i];
}
INLINE void run(long n) { kernel(ARR(0, double), n); }
BENCH
