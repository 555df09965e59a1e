// LFK 10, difference predictors: a chain of differences through the
// columns 4..13 of rows of 25 doubles, cx[i][4] feeding it
// elem: 200
// sizes: 64 256
#include "bench.h"
INLINE void kernel(double (*restrict px)[25], const double (*restrict cx)[25], long n) {
    for (long i = 0; i < n; i++) {
        double ar, br, cr;
        ar = cx[i][4];
        br = ar - px[i][4];
        px[i][4] = ar;
        cr = br - px[i][5];
        px[i][5] = br;
        ar = cr - px[i][6];
        px[i][6] = cr;
        br = ar - px[i][7];
        px[i][7] = ar;
        cr = br - px[i][8];
        px[i][8] = br;
        ar = cr - px[i][9];
        px[i][9] = cr;
        br = ar - px[i][10];
        px[i][10] = ar;
        cr = br - px[i][11];
        px[i][11] = br;
        px[i][13] = cr - px[i][12];
        px[i][12] = cr;
    }
}
INLINE void run(long n) {
    kernel((double (*)[25])ARR(0, double), (const double (*)[25])ARR(1, double), n);
}
BENCH
