// LFK 19, general linear recurrence equations (its forward sweep):
// b5[k] = sa[k] + stb5 * sb[k]; stb5 = b5[k] - stb5 (latency-bound)
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(double *restrict b5, const double *restrict sa, const double *restrict sb,
                   long n) {
    double stb5 = opaque_d(0.5);
    for (long k = 0; k < n; k++) {
        b5[k] = sa[k] + stb5 * sb[k];
        stb5 = b5[k] - stb5;
    }
    SINK_FP(stb5);
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
