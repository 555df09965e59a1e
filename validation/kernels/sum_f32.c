// sum reduction, float: one accumulator, latency-bound
// reduction: yes
// elem: 4
// sizes: 1024 4096
#include "bench.h"
INLINE void kernel(const float *restrict a, long n) {
    float s = 0.0f;
    for (long i = 0; i < n; i++) s += a[i];
    SINK_FP(s);
}
INLINE void run(long n) { kernel(ARR(0, float), n); }
BENCH
