// matrix-vector, column by column (the vectorizable order):
// y[i] += A[j][i] * x[j], 4 columns over n rows
// elem: 8
// rows: 4
// sizes: 64 256
#include "bench.h"
INLINE void kernel(const double *restrict A, const double *restrict x, double *restrict y, long n) {
    for (long j = 0; j < 4; j++) {
        double xj = x[j];
        for (long i = 0; i < n; i++) y[i] += A[j * n + i] * xj;
    }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
