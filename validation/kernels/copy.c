// STREAM copy: a[i] = b[i]
// elem: 8
// cflags: -fno-tree-loop-distribute-patterns
// (else gcc replaces the loop by a call of memcpy)
#include "bench.h"
INLINE void kernel(double *restrict a, const double *restrict b, long n) {
    for (long i = 0; i < n; i++) a[i] = b[i];
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
