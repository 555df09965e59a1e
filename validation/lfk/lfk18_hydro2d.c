// LFK 18, 2-D explicit hydrodynamics fragment (its first loop nest), 4 rows:
// za[k][j] = (zp[k+1][j-1] + zq[k+1][j-1] - zp[k][j-1] - zq[k][j-1])
//            * (zr[k][j] + zr[k][j-1]) / (zm[k][j-1] + zm[k+1][j-1]);
// zb[k][j] = (zp[k][j-1] + zq[k][j-1] - zp[k][j] - zq[k][j])
//            * (zr[k][j] + zr[k-1][j]) / (zm[k][j] + zm[k][j-1]);
// elem: 8
// rows: 4
// sizes: 64 256
#include "bench.h"
/* Six arrays of 6 rows of at most 258 doubles: 16 KiB + 64 B apart. */
#define SUB(k) ((double *)opaque_p((void *)(AREA + (k) * 0x4040L)))
INLINE void kernel(double *restrict za, double *restrict zb, const double *restrict zm,
                   const double *restrict zp, const double *restrict zq,
                   const double *restrict zr, long n) {
    long ld = n + 2;
    for (long k = 1; k <= 4; k++)
        for (long j = 1; j <= n; j++) {
            za[k * ld + j] = (zp[(k + 1) * ld + j - 1] + zq[(k + 1) * ld + j - 1] -
                              zp[k * ld + j - 1] - zq[k * ld + j - 1]) *
                             (zr[k * ld + j] + zr[k * ld + j - 1]) /
                             (zm[k * ld + j - 1] + zm[(k + 1) * ld + j - 1]);
            zb[k * ld + j] = (zp[k * ld + j - 1] + zq[k * ld + j - 1] - zp[k * ld + j] -
                              zq[k * ld + j]) *
                             (zr[k * ld + j] + zr[(k - 1) * ld + j]) /
                             (zm[k * ld + j] + zm[k * ld + j - 1]);
        }
}
INLINE void run(long n) { kernel(SUB(0), SUB(1), SUB(2), SUB(3), SUB(4), SUB(5), n); }
BENCH
