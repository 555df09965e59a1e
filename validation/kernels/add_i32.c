// integer vector add: a[i] = b[i] + c[i], int32
// elem: 4
#include "bench.h"
INLINE void kernel(int *restrict a, const int *restrict b, const int *restrict c, long n) {
    for (long i = 0; i < n; i++) a[i] = b[i] + c[i];
}
INLINE void run(long n) { kernel(ARR(0, int), ARR(1, int), ARR(2, int), n); }
BENCH
