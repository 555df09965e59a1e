// sum reduction, int32: integer addition reassociates, so gcc vectorizes it
// elem: 4
#include "bench.h"
INLINE void kernel(const int *restrict a, long n) {
    int s = 0;
    for (long i = 0; i < n; i++) s += a[i];
    SINK_INT(s);
}
INLINE void run(long n) { kernel(ARR(0, int), n); }
BENCH
