// gather: a[i] += b[idx[i]], idx int32 in 0..1023 (written by `init`,
// which the harness runs once before the timing)
// elem: 8
// init: init
// cflags-x86_64: -mtune-ctrl=use_gather_4parts,use_gather
#include "bench.h"
INLINE void kernel(double *restrict a, const double *restrict b, const int *restrict idx, long n) {
    for (long i = 0; i < n; i++) a[i] += b[idx[i]];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), ARR(2, int), n); }
void init(long unused) {
    (void)unused;
    int *idx = ARR(2, int);
    for (long i = 0; i < N_LARGE; i++) idx[i] = (int)(opaque_l(i * 389) & 1023); /* opaque: not vectorized, no .rodata */
}
BENCH
