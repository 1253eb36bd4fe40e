package sparse

// DenseGemmSub sets C −= A·B for dense row-major blocks, for assembly
// kernels outside the package (the structured Jᵀ K J of the solvers):
// C m×n (stride ldc), A m×k with A(r, t) at a[r·ars + t·ats], B k×n
// (stride ldb). It uses the factorisation's AVX2 + FMA micro-kernel when
// the processor has it (4×8 blocks, the edges by scalar loops), else
// scalar loops; either way the result depends only on the operands, not
// on the caller's goroutine, so parallel callers stay deterministic.
func DenseGemmSub(m, n, k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	if m <= 0 || n <= 0 || k <= 0 {
		return
	}
	if useAVX2 {
		gemmSub(m, n, k, a, ars, ats, b, ldb, c, ldc)
		return
	}
	gemmSubScalar(0, m, 0, n, k, a, ars, ats, b, ldb, c, ldc)
}
