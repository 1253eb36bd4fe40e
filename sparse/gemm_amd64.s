#include "textflag.h"

// func gemmSub4x8AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)
//
// C[r][0:8] -= Σ_{t<k} A(r, t)·B[t][0:8] for r = 0..3, with A(r, t) at
// a[r·ars + t·ats], B[t][j] at b[t·ldb + j], C[r][j] at c[r·ldc + j]
// (strides in float64s). AVX2 + FMA: eight 4-wide accumulators.
TEXT ·gemmSub4x8AVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ ars+16(FP), R8
	MOVQ ats+24(FP), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R10
	SHLQ $3, R11
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JZ store

loop:
	VMOVUPD (DI), Y8
	VMOVUPD 32(DI), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VBROADCASTSD (R12), Y11
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VBROADCASTSD (R13), Y12
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VBROADCASTSD (BX), Y13
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7
	ADDQ R9, SI
	ADDQ R9, R12
	ADDQ R9, R13
	ADDQ R9, BX
	ADDQ R10, DI
	DECQ CX
	JNZ loop

store:
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VSUBPD Y0, Y8, Y8
	VSUBPD Y1, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	ADDQ R11, DX
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VSUBPD Y2, Y8, Y8
	VSUBPD Y3, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	ADDQ R11, DX
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VSUBPD Y4, Y8, Y8
	VSUBPD Y5, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	ADDQ R11, DX
	VMOVUPD (DX), Y8
	VMOVUPD 32(DX), Y9
	VSUBPD Y6, Y8, Y8
	VSUBPD Y7, Y9, Y9
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	VZEROUPPER
	RET

// func gemmSub4x4AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)
//
// gemmSub4x8AVX2 on four columns: C[r][0:4] -= Σ_{t<k} A(r, t)·B[t][0:4].
TEXT ·gemmSub4x4AVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ ars+16(FP), R8
	MOVQ ats+24(FP), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R10
	SHLQ $3, R11
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), BX
	VXORPD Y0, Y0, Y0
	VXORPD Y2, Y2, Y2
	VXORPD Y4, Y4, Y4
	VXORPD Y6, Y6, Y6
	TESTQ CX, CX
	JZ store4

loop4:
	VMOVUPD (DI), Y8
	VBROADCASTSD (SI), Y10
	VFMADD231PD Y8, Y10, Y0
	VBROADCASTSD (R12), Y11
	VFMADD231PD Y8, Y11, Y2
	VBROADCASTSD (R13), Y12
	VFMADD231PD Y8, Y12, Y4
	VBROADCASTSD (BX), Y13
	VFMADD231PD Y8, Y13, Y6
	ADDQ R9, SI
	ADDQ R9, R12
	ADDQ R9, R13
	ADDQ R9, BX
	ADDQ R10, DI
	DECQ CX
	JNZ loop4

store4:
	VMOVUPD (DX), Y8
	VSUBPD Y0, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ R11, DX
	VMOVUPD (DX), Y8
	VSUBPD Y2, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ R11, DX
	VMOVUPD (DX), Y8
	VSUBPD Y4, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ R11, DX
	VMOVUPD (DX), Y8
	VSUBPD Y6, Y8, Y8
	VMOVUPD Y8, (DX)
	VZEROUPPER
	RET

// func gemmSet4x8AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)
//
// C[r][0:8] = Σ_{t<k} A(r, t)·B[t][0:8] for r = 0..3, with A(r, t) at
// a[r·ars + t·ats], B[t][j] at b[t·ldb + j], C[r][j] at c[r·ldc + j]
// (strides in float64s): gemmSub4x8AVX2 storing the sums instead of
// subtracting them (C is not read).
TEXT ·gemmSet4x8AVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ ars+16(FP), R8
	MOVQ ats+24(FP), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R10
	SHLQ $3, R11
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), BX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	TESTQ CX, CX
	JZ storeS

loopS:
	VMOVUPD (DI), Y8
	VMOVUPD 32(DI), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD Y8, Y10, Y0
	VFMADD231PD Y9, Y10, Y1
	VBROADCASTSD (R12), Y11
	VFMADD231PD Y8, Y11, Y2
	VFMADD231PD Y9, Y11, Y3
	VBROADCASTSD (R13), Y12
	VFMADD231PD Y8, Y12, Y4
	VFMADD231PD Y9, Y12, Y5
	VBROADCASTSD (BX), Y13
	VFMADD231PD Y8, Y13, Y6
	VFMADD231PD Y9, Y13, Y7
	ADDQ R9, SI
	ADDQ R9, R12
	ADDQ R9, R13
	ADDQ R9, BX
	ADDQ R10, DI
	DECQ CX
	JNZ loopS

storeS:
	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	ADDQ R11, DX
	VMOVUPD Y2, (DX)
	VMOVUPD Y3, 32(DX)
	ADDQ R11, DX
	VMOVUPD Y4, (DX)
	VMOVUPD Y5, 32(DX)
	ADDQ R11, DX
	VMOVUPD Y6, (DX)
	VMOVUPD Y7, 32(DX)
	VZEROUPPER
	RET

// func gemmSet4x4AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)
//
// gemmSet4x8AVX2 on four columns: C[r][0:4] = Σ_{t<k} A(r, t)·B[t][0:4].
TEXT ·gemmSet4x4AVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ ars+16(FP), R8
	MOVQ ats+24(FP), R9
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R10
	MOVQ c+48(FP), DX
	MOVQ ldc+56(FP), R11
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R10
	SHLQ $3, R11
	LEAQ (SI)(R8*1), R12
	LEAQ (R12)(R8*1), R13
	LEAQ (R13)(R8*1), BX
	VXORPD Y0, Y0, Y0
	VXORPD Y2, Y2, Y2
	VXORPD Y4, Y4, Y4
	VXORPD Y6, Y6, Y6
	TESTQ CX, CX
	JZ storeS4

loopS4:
	VMOVUPD (DI), Y8
	VBROADCASTSD (SI), Y10
	VFMADD231PD Y8, Y10, Y0
	VBROADCASTSD (R12), Y11
	VFMADD231PD Y8, Y11, Y2
	VBROADCASTSD (R13), Y12
	VFMADD231PD Y8, Y12, Y4
	VBROADCASTSD (BX), Y13
	VFMADD231PD Y8, Y13, Y6
	ADDQ R9, SI
	ADDQ R9, R12
	ADDQ R9, R13
	ADDQ R9, BX
	ADDQ R10, DI
	DECQ CX
	JNZ loopS4

storeS4:
	VMOVUPD Y0, (DX)
	ADDQ R11, DX
	VMOVUPD Y2, (DX)
	ADDQ R11, DX
	VMOVUPD Y4, (DX)
	ADDQ R11, DX
	VMOVUPD Y6, (DX)
	VZEROUPPER
	RET

// func panelBelow4AVX2(m int, p *float64, ld int, coef *float64)
//
// The rows below a block of four columns of a supernode panel (column b
// at p[b·ld:], m rows, m a multiple of 4), solved against the block's
// factored diagonal: x₀ = p₀·r₀, x₁ = (p₁ − l₁₀x₀)·r₁,
// x₂ = (p₂ − l₂₀x₀ − l₂₁x₁)·r₂, x₃ = (p₃ − l₃₀x₀ − l₃₁x₁ − l₃₂x₂)·r₃, with
// coef = [r₀ r₁ r₂ r₃ l₁₀ l₂₀ l₂₁ l₃₀ l₃₁ l₃₂]; four rows per iteration.
TEXT ·panelBelow4AVX2(SB), NOSPLIT, $0-32
	MOVQ m+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ coef+24(FP), AX
	SHLQ $3, R8
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VBROADCASTSD 0(AX), Y4
	VBROADCASTSD 8(AX), Y5
	VBROADCASTSD 16(AX), Y6
	VBROADCASTSD 24(AX), Y7
	VBROADCASTSD 32(AX), Y8
	VBROADCASTSD 40(AX), Y9
	VBROADCASTSD 48(AX), Y10
	VBROADCASTSD 56(AX), Y11
	VBROADCASTSD 64(AX), Y12
	VBROADCASTSD 72(AX), Y13
	SHRQ $2, CX
	JZ done4

loopb4:
	VMOVUPD (SI), Y0
	VMULPD Y4, Y0, Y0
	VMOVUPD Y0, (SI)
	VMOVUPD (R9), Y1
	VFNMADD231PD Y0, Y8, Y1
	VMULPD Y5, Y1, Y1
	VMOVUPD Y1, (R9)
	VMOVUPD (R10), Y2
	VFNMADD231PD Y0, Y9, Y2
	VFNMADD231PD Y1, Y10, Y2
	VMULPD Y6, Y2, Y2
	VMOVUPD Y2, (R10)
	VMOVUPD (R11), Y3
	VFNMADD231PD Y0, Y11, Y3
	VFNMADD231PD Y1, Y12, Y3
	VFNMADD231PD Y2, Y13, Y3
	VMULPD Y7, Y3, Y3
	VMOVUPD Y3, (R11)
	ADDQ $32, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNZ loopb4

done4:
	VZEROUPPER
	RET

// func panelBelow3AVX2(m int, p *float64, ld int, coef *float64)
//
// panelBelow4AVX2 on a block of three columns: coef = [r₀ r₁ r₂ l₁₀ l₂₀ l₂₁].
TEXT ·panelBelow3AVX2(SB), NOSPLIT, $0-32
	MOVQ m+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ ld+16(FP), R8
	MOVQ coef+24(FP), AX
	SHLQ $3, R8
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	VBROADCASTSD 0(AX), Y4
	VBROADCASTSD 8(AX), Y5
	VBROADCASTSD 16(AX), Y6
	VBROADCASTSD 24(AX), Y8
	VBROADCASTSD 32(AX), Y9
	VBROADCASTSD 40(AX), Y10
	SHRQ $2, CX
	JZ done3

loopb3:
	VMOVUPD (SI), Y0
	VMULPD Y4, Y0, Y0
	VMOVUPD Y0, (SI)
	VMOVUPD (R9), Y1
	VFNMADD231PD Y0, Y8, Y1
	VMULPD Y5, Y1, Y1
	VMOVUPD Y1, (R9)
	VMOVUPD (R10), Y2
	VFNMADD231PD Y0, Y9, Y2
	VFNMADD231PD Y1, Y10, Y2
	VMULPD Y6, Y2, Y2
	VMOVUPD Y2, (R10)
	ADDQ $32, SI
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ loopb3

done3:
	VZEROUPPER
	RET

// func gemvNSubAVX2(m, k int, a *float64, lda int, x *float64, y *float64)
//
// y[i] -= Σ_{t<k} x[t]·a[t·lda + i] for i < m (m a multiple of 4, k ≥ 1):
// four rows at a time, the columns four at a time into four accumulators
// (so that the additions do not wait for one another), then one.
TEXT ·gemvNSubAVX2(SB), NOSPLIT, $0-48
	MOVQ m+0(FP), CX
	MOVQ a+16(FP), SI
	MOVQ lda+24(FP), R8
	MOVQ y+40(FP), DX
	SHLQ $3, R8
	SHRQ $2, CX
	JZ gnDone

gnChunk:
	MOVQ k+8(FP), BX
	MOVQ x+32(FP), DI
	MOVQ SI, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	CMPQ BX, $4
	JLT gnTail

gnLoop4:
	VBROADCASTSD (DI), Y4
	VFMADD231PD (R9), Y4, Y0
	ADDQ R8, R9
	VBROADCASTSD 8(DI), Y5
	VFMADD231PD (R9), Y5, Y1
	ADDQ R8, R9
	VBROADCASTSD 16(DI), Y6
	VFMADD231PD (R9), Y6, Y2
	ADDQ R8, R9
	VBROADCASTSD 24(DI), Y7
	VFMADD231PD (R9), Y7, Y3
	ADDQ R8, R9
	ADDQ $32, DI
	SUBQ $4, BX
	CMPQ BX, $4
	JGE gnLoop4

gnTail:
	TESTQ BX, BX
	JZ gnStore

gnLoop1:
	VBROADCASTSD (DI), Y4
	VFMADD231PD (R9), Y4, Y0
	ADDQ R8, R9
	ADDQ $8, DI
	DECQ BX
	JNZ gnLoop1

gnStore:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VMOVUPD (DX), Y8
	VSUBPD Y0, Y8, Y8
	VMOVUPD Y8, (DX)
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ gnChunk

gnDone:
	VZEROUPPER
	RET

// func gemvTSub4AVX2(m int, a *float64, lda int, w *float64, x *float64)
//
// x[t] -= Σ_{i<m} a[t·lda + i]·w[i] for t = 0..3 (m a multiple of 4):
// the four columns' dot products with w at once, four rows per step.
TEXT ·gemvTSub4AVX2(SB), NOSPLIT, $0-40
	MOVQ m+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ w+24(FP), DI
	MOVQ x+32(FP), DX
	SHLQ $3, R8
	LEAQ (SI)(R8*1), R9
	LEAQ (R9)(R8*1), R10
	LEAQ (R10)(R8*1), R11
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	SHRQ $2, CX
	JZ gtSum

gtLoop:
	VMOVUPD (DI), Y4
	VFMADD231PD (SI), Y4, Y0
	VFMADD231PD (R9), Y4, Y1
	VFMADD231PD (R10), Y4, Y2
	VFMADD231PD (R11), Y4, Y3
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNZ gtLoop

gtSum:
	// Horizontal sums: (Y0, Y1, Y2, Y3) -> X0 = [s0 s1 s2 s3].
	VHADDPD Y1, Y0, Y0
	VHADDPD Y3, Y2, Y2
	VPERM2F128 $0x21, Y2, Y0, Y4
	VBLENDPD $0xC, Y2, Y0, Y0
	VADDPD Y4, Y0, Y0
	VMOVUPD (DX), Y5
	VSUBPD Y0, Y5, Y5
	VMOVUPD Y5, (DX)
	VZEROUPPER
	RET

// func subTriplesAVX(n int, l *float64, b0, b1, b2 int, mp *int32, u0, u1, u2 *float64)
//
// For q < n, with r = mp[3q]: l[bc + r + a] -= uc[3q + a] for the three
// columns c (offsets bc into l, rows uc of the update) and a = 0, 1, 2:
// subtractTriples' inner loop, two entries by one SSE subtraction and one
// by a scalar one; the same subtractions entry by entry.
TEXT ·subTriplesAVX(SB), NOSPLIT, $0-72
	MOVQ n+0(FP), CX
	MOVQ l+8(FP), DI
	MOVQ b0+16(FP), R8
	MOVQ b1+24(FP), R9
	MOVQ b2+32(FP), R10
	MOVQ mp+40(FP), SI
	MOVQ u0+48(FP), R11
	MOVQ u1+56(FP), R12
	MOVQ u2+64(FP), R13
	SHLQ $3, R8
	SHLQ $3, R9
	SHLQ $3, R10
	TESTQ CX, CX
	JZ stDone

stLoop:
	MOVLQSX (SI), AX
	LEAQ (DI)(AX*8), BX
	VMOVUPD (BX)(R8*1), X0
	VSUBPD (R11), X0, X0
	VMOVUPD X0, (BX)(R8*1)
	VMOVSD 16(BX)(R8*1), X1
	VSUBSD 16(R11), X1, X1
	VMOVSD X1, 16(BX)(R8*1)
	VMOVUPD (BX)(R9*1), X2
	VSUBPD (R12), X2, X2
	VMOVUPD X2, (BX)(R9*1)
	VMOVSD 16(BX)(R9*1), X3
	VSUBSD 16(R12), X3, X3
	VMOVSD X3, 16(BX)(R9*1)
	VMOVUPD (BX)(R10*1), X4
	VSUBPD (R13), X4, X4
	VMOVUPD X4, (BX)(R10*1)
	VMOVSD 16(BX)(R10*1), X5
	VSUBSD 16(R13), X5, X5
	VMOVSD X5, 16(BX)(R10*1)
	ADDQ $12, SI
	ADDQ $24, R11
	ADDQ $24, R12
	ADDQ $24, R13
	DECQ CX
	JNZ stLoop

stDone:
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
