// LFK 9, integrate predictors: px[i][0] = dm28*px[i][12] + dm27*px[i][11] + ...
// + c0*(px[i][4] + px[i][5]) + px[i][2], rows of 25 doubles
// elem: 200
// sizes: 64 256
#include "bench.h"
INLINE void kernel(double (*restrict px)[25], long n) {
    double dm22 = opaque_d(0.125), dm23 = opaque_d(0.25), dm24 = opaque_d(0.375);
    double dm25 = opaque_d(0.5), dm26 = opaque_d(0.625), dm27 = opaque_d(0.75);
    double dm28 = opaque_d(0.875), c0 = opaque_d(0.0625);
    for (long i = 0; i < n; i++)
        px[i][0] = dm28 * px[i][12] + dm27 * px[i][11] + dm26 * px[i][10] + dm25 * px[i][9] +
                   dm24 * px[i][8] + dm23 * px[i][7] + dm22 * px[i][6] +
                   c0 * (px[i][4] + px[i][5]) + px[i][2];
}
INLINE void run(long n) { kernel((double (*)[25])ARR(0, double), n); }
BENCH
