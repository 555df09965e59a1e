// LFK 20, discrete ordinates transport: a recurrence through xx with two
// divisions and a clamp per step (latency-bound)
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
#define SUB(k) ((double *)opaque_p((void *)(AREA + (k) * 0x4040L)))
INLINE void kernel(double *restrict x, double *restrict xx, const double *restrict y,
                   const double *restrict g, const double *restrict z,
                   const double *restrict w, const double *restrict v,
                   const double *restrict u, const double *restrict vx, long n) {
    double dk = opaque_d(0.5), s = opaque_d(0.125), t = opaque_d(0.875);
    double two_tenths = opaque_d(0.2);
    for (long k = 0; k < n; k++) {
        double di = y[k] - g[k] / (xx[k] + dk);
        double dn = two_tenths;
        if (di != 0.0) {
            dn = z[k] / di;
            if (t < dn) dn = t;
            if (s > dn) dn = s;
        }
        x[k] = ((w[k] + v[k] * dn) * xx[k] + u[k]) / (vx[k] + v[k] * dn);
        xx[k + 1] = (x[k] - xx[k]) * dn + xx[k];
    }
}
INLINE void run(long n) {
    kernel(SUB(0), SUB(1), SUB(2), SUB(3), SUB(4), SUB(5), SUB(6), SUB(7), SUB(8), n);
}
BENCH
