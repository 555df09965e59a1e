// division in a reduction: s += 1.0 / a[i], one accumulator: the divide
// runs in parallel, the add chain bounds it unless the divider is slower
// reduction: yes
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(const double *restrict a, long n) {
    double one = opaque_d(1.0), s = 0.0;
    for (long i = 0; i < n; i++) s += one / a[i];
    SINK_FP(s);
}
INLINE void run(long n) { kernel(ARR(0, double), n); }
BENCH
