// dot product, double: one accumulator (an FMA chain with -mfma), latency-bound
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(const double *restrict a, const double *restrict b, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) s += a[i] * b[i];
    SINK_FP(s);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
