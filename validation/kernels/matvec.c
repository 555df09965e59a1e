// matrix-vector, row by row: y[i] = sum_j A[i][j] * x[j], 4 rows of n;
// each row a dot product with one accumulator (latency-bound)
// reduction: yes
// elem: 8
// rows: 4
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(const double *restrict A, const double *restrict x, double *restrict y, long n) {
    for (long i = 0; i < 4; i++) {
        double s = 0.0;
        for (long j = 0; j < n; j++) s += A[i * n + j] * x[j];
        y[i] = s;
    }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
