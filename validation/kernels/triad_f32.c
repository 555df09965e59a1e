// STREAM triad in single precision: a[i] = b[i] + s * c[i]
// elem: 4
#include "bench.h"
INLINE void kernel(float *restrict a, const float *restrict b, const float *restrict c, long n) {
    float s = opaque_f(1.0f);
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
INLINE void run(long n) { kernel(ARR(0, float), ARR(1, float), ARR(2, float), n); }
BENCH
