// LFK 1, hydro fragment: x[k] = q + y[k] * (r * z[k+10] + t * z[k+11])
// elem: 8
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict y, const double *restrict z,
                   long n) {
    double q = opaque_d(0.5), r = opaque_d(0.25), t = opaque_d(0.125);
    for (long k = 0; k < n; k++) x[k] = q + y[k] * (r * z[k + 10] + t * z[k + 11]);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
