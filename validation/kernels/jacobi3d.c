// 3D Jacobi, 7-point: b[k][i][j] = c * (six neighbours of a), 2x2 lines of n interior points
// elem: 8
// rows: 4
// sizes: 64 256
#include "bench.h"
INLINE void kernel(const double *restrict a, double *restrict b, long n) {
    double c = opaque_d(1.0 / 6.0);
    long ld = n + 2, lp = 4 * ld;
    for (long k = 1; k <= 2; k++)
        for (long i = 1; i <= 2; i++)
            for (long j = 1; j <= n; j++) {
                long x = k * lp + i * ld + j;
                b[x] = c * (a[x - 1] + a[x + 1] + a[x - ld] + a[x + ld] + a[x - lp] + a[x + lp]);
            }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
