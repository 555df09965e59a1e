// conversion: a[i] = s * (double)b[i], b int32
// elem: 8
#include "bench.h"
INLINE void kernel(double *restrict a, const int *restrict b, long n) {
    double s = opaque_d(1.0);
    for (long i = 0; i < n; i++) a[i] = s * (double)b[i];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, int), n); }
BENCH
