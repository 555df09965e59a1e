// LFK 5, tri-diagonal elimination below the diagonal: x[i] = z[i] * (y[i] - x[i-1]),
// a recurrence through x (latency-bound)
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict y, const double *restrict z,
                   long n) {
    for (long i = 1; i < n; i++) x[i] = z[i] * (y[i] - x[i - 1]);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
