// 2D Jacobi, 5-point, single precision, 4 rows of n interior points
// elem: 4
// rows: 4
// sizes: 64 256
#include "bench.h"
INLINE void kernel(const float *restrict a, float *restrict b, long n) {
    float q = opaque_f(0.25f);
    long ld = n + 2;
    for (long i = 1; i <= 4; i++)
        for (long j = 1; j <= n; j++)
            b[i * ld + j] = q * (a[(i - 1) * ld + j] + a[(i + 1) * ld + j] +
                                     a[i * ld + j - 1] + a[i * ld + j + 1]);
}
INLINE void run(long n) { kernel(ARR(0, float), ARR(1, float), n); }
BENCH
