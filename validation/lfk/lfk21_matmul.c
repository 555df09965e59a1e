// LFK 21, matrix * matrix product: px[j][i] += vy[k][i] * cx[j][k], the
// innermost loop over i, for 4 (j, k) pairs
// elem: 8
// rows: 4
// sizes: 64 256
// skip-avx2: gcc loads its index vectors from .rodata, which winic's assembler does not read (code only)
#include "bench.h"
INLINE void kernel(double *restrict px, const double *restrict vy, const double *restrict cx,
                   long n) {
    for (long j = 0; j < 2; j++)
        for (long k = 0; k < 2; k++)
            for (long i = 0; i < n; i++) px[j * n + i] += vy[k * n + i] * cx[j * 25 + k];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, double), n); }
BENCH
