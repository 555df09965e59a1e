// sum reduction, double: one accumulator, not reassociated (no -ffast-math):
// latency-bound by the add chain
// reduction: yes
// elem: 8
// sizes: 1024 4096
#include "bench.h"
INLINE void kernel(const double *restrict a, long n) {
    double s = 0.0;
    for (long i = 0; i < n; i++) s += a[i];
    SINK_FP(s);
}
INLINE void run(long n) { kernel(ARR(0, double), n); }
BENCH
