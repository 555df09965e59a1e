// LFK 2, incomplete Cholesky conjugate gradient excerpt (its inner loop,
// at the first level): x[i] = x[k] - v[k]*x[k-1] - v[k+1]*x[k+1], k by 2
// elem: 16
// sizes: 512 2048
// skip-avx512: gcc loads its permutation indices from .rodata, which winic's assembler does not read (code only)
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict v, long n) {
    /* n trips of the kernel's loop (ipnt = 0, ipntp = 2n at its first
     * level), as gen.py counts trips: n per call. */
    long ipntp = 2 * n, i = 2 * n + 8;
    for (long k = 1; k < ipntp; k = k + 2) {
        i++;
        x[i] = x[k] - v[k] * x[k - 1] - v[k + 1] * x[k + 1];
    }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
