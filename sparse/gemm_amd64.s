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
