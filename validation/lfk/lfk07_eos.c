// LFK 7, equation of state fragment:
// x[k] = u[k] + r*(z[k] + r*y[k]) + t*(u[k+3] + r*(u[k+2] + r*u[k+1])
//        + t*(u[k+6] + q*(u[k+5] + q*u[k+4])))
// elem: 8
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict u, const double *restrict y,
                   const double *restrict z, long n) {
    double q = opaque_d(0.5), r = opaque_d(0.25), t = opaque_d(0.125);
    for (long k = 0; k < n; k++)
        x[k] = u[k] + r * (z[k] + r * y[k]) +
               t * (u[k + 3] + r * (u[k + 2] + r * u[k + 1]) +
                    t * (u[k + 6] + q * (u[k + 5] + q * u[k + 4])));
}
INLINE void run(long n) {
    kernel(ARR(0, double), ARR(1, double), ARR(2, double), ARR(3, double), n);
}
BENCH
