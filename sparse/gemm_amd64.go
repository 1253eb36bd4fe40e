package sparse

// The AVX2 + FMA micro-kernel of the factorisation's Schur complements
// and triangular solves (gemm_amd64.s), used when the processor and the
// operating system support it.

//go:noescape
func gemmSub4x8AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)

//go:noescape
func gemmSub4x4AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// hasAVX2FMA reports AVX2 and FMA instructions with the YMM state saved
// by the operating system (CPUID leaf 1: FMA, OSXSAVE, AVX; leaf 7: AVX2;
// XCR0 bits 1–2).
func hasAVX2FMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&fma == 0 || ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

// useAVX2 selects the AVX2 kernels (a variable so that tests can compare
// both paths).
var useAVX2 = hasAVX2FMA()

// gemmSub4x8 is the micro-kernel's entry point from Go: the 4×8 block of
// C at c −= A·B over k (see gemmSub4x8AVX2 for the layouts). The slices
// must cover every entry the kernel touches.
func gemmSub4x8(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	if k == 0 {
		return
	}
	_ = a[3*ars+(k-1)*ats]
	_ = b[(k-1)*ldb+7]
	_ = c[3*ldc+7]
	gemmSub4x8AVX2(k, &a[0], ars, ats, &b[0], ldb, &c[0], ldc)
}

// gemmSub4x4 is gemmSub4x8 on a 4×4 block.
func gemmSub4x4(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	if k == 0 {
		return
	}
	_ = a[3*ars+(k-1)*ats]
	_ = b[(k-1)*ldb+3]
	_ = c[3*ldc+3]
	gemmSub4x4AVX2(k, &a[0], ars, ats, &b[0], ldb, &c[0], ldc)
}

//go:noescape
func gemmSet4x8AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)

//go:noescape
func gemmSet4x4AVX2(k int, a *float64, ars, ats int, b *float64, ldb int, c *float64, ldc int)

// gemmSet4x8 is gemmSub4x8 storing C = A·B (C not read).
func gemmSet4x8(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	_ = a[3*ars+(k-1)*ats]
	_ = b[(k-1)*ldb+7]
	_ = c[3*ldc+7]
	gemmSet4x8AVX2(k, &a[0], ars, ats, &b[0], ldb, &c[0], ldc)
}

// gemmSet4x4 is gemmSet4x8 on a 4×4 block.
func gemmSet4x4(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	_ = a[3*ars+(k-1)*ats]
	_ = b[(k-1)*ldb+3]
	_ = c[3*ldc+3]
	gemmSet4x4AVX2(k, &a[0], ars, ats, &b[0], ldb, &c[0], ldc)
}

//go:noescape
func panelBelow4AVX2(m int, p *float64, ld int, coef *float64)

//go:noescape
func panelBelow3AVX2(m int, p *float64, ld int, coef *float64)

// panelBelow solves the rows [i0, i0+m) (m a multiple of 4) of the block
// of tb = 3 or 4 columns of panel P starting at column t0 against the
// block's factored diagonal (coef as panelBelow4AVX2's).
func panelBelow(P []float64, ld, t0, tb, i0, m int, coef *[10]float64) {
	if m == 0 {
		return
	}
	_ = P[(t0+tb-1)*ld+i0+m-1]
	if tb == 4 {
		panelBelow4AVX2(m, &P[t0*ld+i0], ld, &coef[0])
	} else {
		panelBelow3AVX2(m, &P[t0*ld+i0], ld, &coef[0])
	}
}

//go:noescape
func gemvNSubAVX2(m, k int, a *float64, lda int, x *float64, y *float64)

//go:noescape
func gemvTSub4AVX2(m int, a *float64, lda int, w *float64, x *float64)

//go:noescape
func subTriplesAVX(n int, l *float64, b0, b1, b2 int, mp *int32, u0, u1, u2 *float64)
