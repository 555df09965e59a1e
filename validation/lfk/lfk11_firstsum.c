// LFK 11, first sum: x[k] = x[k-1] + y[k], a recurrence through x (latency-bound)
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict y, long n) {
    for (long k = 1; k < n; k++) x[k] = x[k - 1] + y[k];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
