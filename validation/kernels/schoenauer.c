// Schoenauer triad: a[i] = b[i] + c[i] * d[i]
// elem: 8
#include "bench.h"
INLINE void kernel(double *restrict a, const double *restrict b, const double *restrict c, const double *restrict d, long n) {
    for (long i = 0; i < n; i++) a[i] = b[i] + c[i] * d[i];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), ARR(3, double), n); }
BENCH
