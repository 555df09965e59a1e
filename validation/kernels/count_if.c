// integer loop with a condition: count of a[i] > t (int32), if-converted
// and vectorized by gcc
// elem: 4
#include "bench.h"
INLINE void kernel(const int *restrict a, long n) {
    int t = (int)opaque_l(0);
    int c = 0;
    for (long i = 0; i < n; i++) c += a[i] > t;
    SINK_INT(c);
}
INLINE void run(long n) { kernel(ARR(0, int), n); }
BENCH
