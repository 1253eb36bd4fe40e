//go:build !amd64

package sparse

// Without the AVX2 micro-kernel (gemm_amd64.s) the factorisation keeps
// its portable 2×2-blocked kernels.
var useAVX2 = false

func gemmSub4x8(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	panic("sparse: gemmSub4x8 without AVX2")
}

func gemmSub4x4(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	panic("sparse: gemmSub4x4 without AVX2")
}

func gemmSet4x8(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	panic("sparse: gemmSet4x8 without AVX2")
}

func gemmSet4x4(k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	panic("sparse: gemmSet4x4 without AVX2")
}

func panelBelow(P []float64, ld, t0, tb, i0, m int, coef *[10]float64) {
	panic("sparse: panelBelow without AVX2")
}

func gemvNSubAVX2(m, k int, a *float64, lda int, x *float64, y *float64) {
	panic("sparse: gemvNSubAVX2 without AVX2")
}

func gemvTSub4AVX2(m int, a *float64, lda int, w *float64, x *float64) {
	panic("sparse: gemvTSub4AVX2 without AVX2")
}

func subTriplesAVX(n int, l *float64, b0, b1, b2 int, mp *int32, u0, u1, u2 *float64) {
	panic("sparse: subTriplesAVX without AVX2")
}
