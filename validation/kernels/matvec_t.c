// matrix-vector, column by column (the vectorizable order):
// y[i] += A[j][i] * x[j], 4 columns over n rows
// elem: 8
// rows: 4
// sizes: 64 256
// gcc -O3 unrolls the column loop by two and jams it into the row loop (two
// columns a pass), so its loop would run n/vf trips twice a call where
// gen.py counts `rows` (4) passes: every trip looked half as long as it
// is (0.70-0.82 cycles, under the 1.5 its three loads and a store need on
// zen5). Without the jam the loop is the one the source writes.
// cflags: -fno-loop-unroll-and-jam
#include "bench.h"
INLINE void kernel(const double *restrict A, const double *restrict x, double *restrict y, long n) {
    for (long j = 0; j < 4; j++) {
        double xj = x[j];
        for (long i = 0; i < n; i++) y[i] += A[j * n + i] * xj;
    }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
