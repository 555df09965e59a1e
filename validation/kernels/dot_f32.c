// dot product, float: one accumulator, latency-bound
// reduction: yes
// elem: 4
// sizes: 1024 4096
#include "bench.h"
INLINE void kernel(const float *restrict a, const float *restrict b, long n) {
    float s = 0.0f;
    for (long i = 0; i < n; i++) s += a[i] * b[i];
    SINK_FP(s);
}
INLINE void run(long n) { kernel(ARR(0, float), ARR(1, float), n); }
BENCH
