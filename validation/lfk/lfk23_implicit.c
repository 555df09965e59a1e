// LFK 23, 2-D implicit hydrodynamics fragment, 4 rows: a recurrence along
// each row through za[j][k-1] (latency-bound):
// qa = za[j+1][k]*zr[j][k] + za[j-1][k]*zb[j][k] + za[j][k+1]*zu[j][k]
//      + za[j][k-1]*zv[j][k] + zz[j][k];  za[j][k] += 0.175 * (qa - za[j][k])
// reduction: yes
// elem: 8
// rows: 4
// sizes: 256 1024
#include "bench.h"
#define SUB(k) ((double *)opaque_p((void *)(AREA + (k) * 0xa040L)))
INLINE void kernel(double *restrict za, const double *restrict zb, const double *restrict zr,
                   const double *restrict zu, const double *restrict zv,
                   const double *restrict zz, long n) {
    double c = opaque_d(0.175);
    long ld = n + 2;
    for (long j = 1; j <= 4; j++)
        for (long k = 1; k <= n; k++) {
            double qa = za[(j + 1) * ld + k] * zr[j * ld + k] +
                        za[(j - 1) * ld + k] * zb[j * ld + k] +
                        za[j * ld + k + 1] * zu[j * ld + k] +
                        za[j * ld + k - 1] * zv[j * ld + k] + zz[j * ld + k];
            za[j * ld + k] += c * (qa - za[j * ld + k]);
        }
}
INLINE void run(long n) { kernel(SUB(0), SUB(1), SUB(2), SUB(3), SUB(4), SUB(5), n); }
BENCH
