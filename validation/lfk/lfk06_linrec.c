// LFK 6, general linear recurrence: w[i] += b[k][i] * w[(i-k)-1], the
// inner loop over k for 4 values of i, b read with a stride of 32 bytes
// (one accumulator each: latency-bound)
// reduction: yes
// elem: 32
// rows: 4
// sizes: 1024 4096
// skip-avx512: gcc loads its index vectors from .rodata, which winic's assembler does not read (code only)
#include "bench.h"
INLINE void kernel(double *restrict w, const double *restrict b, long n) {
    for (long i = n; i < n + 4; i++) {
        double s = w[i];
        for (long k = 0; k < n; k++) s += b[k * 4 + (i - n)] * w[(i - k) - 1];
        w[i] = s;
    }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
