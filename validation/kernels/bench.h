/* The frame every validation kernel is compiled in (validation/README):
 * `run(n)`, the kernel's loop nest over inner length n, is inlined into two
 * functions `bench_small(iters)` and `bench_large(iters)` that call it
 * `iters` times with n = N_SMALL and n = N_LARGE. Their time difference
 * per call, divided by the difference of trips of the marked loop, is the
 * loop's cost per iteration, free of the call's fixed costs.
 *
 * Arrays live in winic's data area (src/kernel/data.rs): 512 KiB at
 * 0x40000000 whose 64-bit words are 0x4000400040004000 (a normal number
 * in every floating-point lane width), mapped in every process that runs
 * kernels. Array k starts at 0x40000000 + k * 0x19040 (100 KiB + 64 B, so
 * that arrays do not alias in the L1's sets). Pointers, scalars and n pass
 * through empty asm statements, so that gcc compiles the loop as it would
 * compile a function of unknown arguments, and cannot hoist it out of the
 * outer loop. Each kernel is a function `kernel` of restrict pointers, as
 * real code has it: gcc's vectorizer does not honour restrict on local
 * pointers (it versions the loop for aliasing, or gives up on a gather). */
#ifndef N_SMALL
#error "compile with -DN_SMALL=... -DN_LARGE=... (validation/gen.py does)"
#endif

#define AREA 0x40000000L
#define ARRAY_STRIDE 0x19040L
#define ARR(k, T) ((T *)opaque_p((void *)(AREA + (k) * ARRAY_STRIDE)))
#define INLINE static inline __attribute__((always_inline))

INLINE void *opaque_p(void *p) { __asm__ volatile("" : "+r"(p)::"memory"); return p; }
INLINE long opaque_l(long x) { __asm__ volatile("" : "+r"(x)); return x; }
/* A 64-bit constant in a register. RISC-V's gcc loads one that `li` cannot
 * build in a few instructions from .rodata: there it is built from two
 * 32-bit halves. */
INLINE unsigned long opaque_u64(unsigned long x) {
#if defined(__riscv)
    unsigned long hi = x >> 32, lo = x & 0xffffffffUL;
    __asm__ volatile("" : "+r"(hi));
    __asm__ volatile("" : "+r"(lo));
    return (hi << 32) | lo;
#else
    __asm__ volatile("" : "+r"(x));
    return x;
#endif
}
/* Floating-point values pass as integer bits (a `mov r, imm` then a move to
 * the vector register): a literal would be loaded from .rodata, and winic's
 * assembler reads code only. */
INLINE double opaque_d(double x) {
    unsigned long b;
    __builtin_memcpy(&b, &x, 8);
    b = opaque_u64(b);
    __builtin_memcpy(&x, &b, 8);
    return x;
}
INLINE float opaque_f(float x) {
    unsigned b;
    __builtin_memcpy(&b, &x, 4);
    __asm__ volatile("" : "+r"(b));
    __builtin_memcpy(&x, &b, 4);
    return x;
}
/* The constraint of a floating-point register: x86 "x", AArch64 "w",
 * RISC-V "f". */
#if defined(__x86_64__)
#define SINK_FP(x) __asm__ volatile("" ::"x"(x))
#elif defined(__aarch64__)
#define SINK_FP(x) __asm__ volatile("" ::"w"(x))
#else
#define SINK_FP(x) __asm__ volatile("" ::"f"(x))
#endif
#define SINK_INT(x) __asm__ volatile("" ::"r"(x))

#define BENCH                                                          \
    void bench_small(long iters) {                                     \
        for (long r = 0; r < iters; r++) run(opaque_l(N_SMALL));      \
    }                                                                  \
    void bench_large(long iters) {                                     \
        for (long r = 0; r < iters; r++) run(opaque_l(N_LARGE));      \
    }
