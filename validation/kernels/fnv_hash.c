// scalar integer loop: FNV-1a over 64-bit words, h = (h ^ a[i]) * prime;
// a chain of xor and imul through h
// reduction: yes
// elem: 8
#include "bench.h"
INLINE void kernel(const unsigned long *restrict a, long n) {
    unsigned long h = opaque_u64(0xcbf29ce484222325UL), prime = opaque_u64(0x100000001b3UL);
    for (long i = 0; i < n; i++) h = (h ^ a[i]) * prime;
    SINK_INT(h);
}
INLINE void run(long n) { kernel(ARR(0, unsigned long), n); }
BENCH
