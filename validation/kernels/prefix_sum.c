// scalar integer loop: running (prefix) sum, a[i] = s += b[i], int64;
// a loop-carried add chain gcc cannot vectorize
// reduction: yes
// elem: 8
#include "bench.h"
INLINE void kernel(long *restrict a, const long *restrict b, long n) {
    long s = 0;
    for (long i = 0; i < n; i++) {
        s += b[i];
        a[i] = s;
    }
}
INLINE void run(long n) { kernel(ARR(0, long), ARR(1, long), n); }
BENCH
