// 2D box stencil, 9-point with one weight: b[i][j] = w * (sum of the 3x3 block of a),
// 4 rows of n interior points
// elem: 8
// rows: 4
// sizes: 64 256
#include "bench.h"
INLINE void kernel(const double *restrict a, double *restrict b, long n) {
    double w = opaque_d(0.125);
    long ld = n + 2;
    for (long i = 1; i <= 4; i++)
        for (long j = 1; j <= n; j++)
            b[i * ld + j] = w * (a[(i - 1) * ld + j - 1] + a[(i - 1) * ld + j] + a[(i - 1) * ld + j + 1] +
                                 a[i * ld + j - 1] + a[i * ld + j] + a[i * ld + j + 1] +
                                 a[(i + 1) * ld + j - 1] + a[(i + 1) * ld + j] + a[(i + 1) * ld + j + 1]);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
