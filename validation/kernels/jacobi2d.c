// 2D Jacobi, 5-point: b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]),
// 4 rows of n interior points
// elem: 8
// rows: 4
// sizes: 64 256
#include "bench.h"
INLINE void kernel(const double *restrict a, double *restrict b, long n) {
    double q = opaque_d(0.25);
    long ld = n + 2;
    for (long i = 1; i <= 4; i++)
        for (long j = 1; j <= n; j++)
            b[i * ld + j] = q * (a[(i - 1) * ld + j] + a[(i + 1) * ld + j] +
                                    a[i * ld + j - 1] + a[i * ld + j + 1]);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
