// LFK 12, first difference: x[k] = y[k+1] - y[k]
// elem: 8
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict y, long n) {
    for (long k = 0; k < n; k++) x[k] = y[k + 1] - y[k];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
