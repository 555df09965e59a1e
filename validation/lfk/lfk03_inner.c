// LFK 3, inner product: q += z[k] * x[k], one accumulator (latency-bound)
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(const double *restrict z, const double *restrict x, long n) {
    double q = 0.0;
    for (long k = 0; k < n; k++) q += z[k] * x[k];
    SINK_FP(q);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
