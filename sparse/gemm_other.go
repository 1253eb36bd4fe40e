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
