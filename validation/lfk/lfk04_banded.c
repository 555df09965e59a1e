// LFK 4, banded linear equations: temp -= x[lw] * y[j], y with a stride
// of 5 (40 bytes per step), for 4 rows (the kernel's k loop); one
// accumulator per row
// reduction: yes
// elem: 40
// rows: 4
// sizes: 512 2048
#include "bench.h"
INLINE void kernel(double *restrict x, const double *restrict y, long n) {
    for (long k = 6; k < 6 + 4 * 8; k += 8) {
        long lw = k - 6;
        double temp = x[k - 1];
        for (long j = 0; j < n; j++) temp -= x[lw + j] * y[4 + 5 * j];
        x[k - 1] = y[4] * temp;
    }
}
INLINE void run(long n) { kernel(ARR(0, double), ARR(1, double), n); }
BENCH
