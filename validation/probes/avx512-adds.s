# A chain of 8 scalar vaddsd per iteration, alone and beside independent
# work (docs/validation.md, "Why latency-bound loops miss"). Each function
# runs its loop rdi times; time one with
#   winic MAN -p validation/probes/avx512-adds.s --funcName zmm_mul -n 1
.intel_syntax noprefix
.text
# 8 dependent vaddsd
alone:
	mov	rsi, 0x40000000
.Lalone:
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	dec	rdi
	jnz	.Lalone
	ret
# the same beside one independent 512-bit multiply
zmm_mul:
	mov	rsi, 0x40000000
.Lzmm_mul:
	vmulpd	zmm2, zmm3, zmm4
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	dec	rdi
	jnz	.Lzmm_mul
	ret
# beside one 256-bit multiply
ymm_mul:
	mov	rsi, 0x40000000
.Lymm_mul:
	vmulpd	ymm2, ymm3, ymm4
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	dec	rdi
	jnz	.Lymm_mul
	ret
# beside one 512-bit load
zmm_load:
	mov	rsi, 0x40000000
.Lzmm_load:
	vmovupd	zmm5, ZMMWORD PTR [rsi]
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	dec	rdi
	jnz	.Lzmm_load
	ret
# beside 7 shuffles (port 5)
shuf7_xmm:
	mov	rsi, 0x40000000
.Lshuf7_xmm:
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	dec	rdi
	jnz	.Lshuf7_xmm
	ret
# beside a 512-bit multiply and 7 shuffles (dot_f64.avx512's mix)
zmm_mul_shuf7:
	mov	rsi, 0x40000000
.Lzmm_mul_shuf7:
	vmulpd	zmm2, zmm3, zmm4
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vunpckhpd	xmm5, xmm6, xmm6
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	vaddsd	xmm0, xmm0, xmm1
	dec	rdi
	jnz	.Lzmm_mul_shuf7
	ret
