// LFK 24, location of the first minimum: if (x[k] < x[m]) m = k
// elem: 8
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(const double *restrict x, long n) {
    long m = 0;
    for (long k = 1; k < n; k++)
        if (x[k] < x[m]) m = k;
    SINK_INT(m);
}
INLINE void run(long n) { kernel(ARR(0, double), n); }
BENCH
