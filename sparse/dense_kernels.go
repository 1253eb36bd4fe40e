package sparse

// Dense kernels of the supernodal factorisation, written for the small
// fronts of 3-D meshes (tens to a few hundred rows, supernodes of 3 to
// ~100 columns), where gonum's general routines spend their time in
// per-entry dot-product calls: register blocks of 2×2 entries that read
// each operand once per pair of rows, row-major with explicit strides.

// syrkSubLower sets C ← C − A·Aᵀ on the lower triangle (diagonal
// included) of the nu×nu matrix C (row-major, stride ldc), A being nu×k
// (row-major, stride lda).
func syrkSubLower(C []float64, ldc int, A []float64, lda, nu, k int) {
	if k == 0 {
		return
	}
	i := 0
	for ; i+2 <= nu; i += 2 {
		a0 := A[i*lda : i*lda+k]
		a1 := A[(i+1)*lda : (i+1)*lda+k]
		c0 := C[i*ldc : i*ldc+i+1]
		c1 := C[(i+1)*ldc : (i+1)*ldc+i+2]
		j := 0
		for ; j+2 <= i; j += 2 {
			b0 := A[j*lda : j*lda+k]
			b1 := A[(j+1)*lda : (j+1)*lda+k]
			s00, s01, s10, s11 := dot2x2(a0, a1, b0, b1)
			c0[j] -= s00
			c0[j+1] -= s01
			c1[j] -= s10
			c1[j+1] -= s11
		}
		// The 2×2 diagonal block (j = i): entries (i, i), (i+1, i),
		// (i+1, i+1).
		s00, _, s10, s11 := dot2x2(a0, a1, a0, a1)
		c0[i] -= s00
		c1[i] -= s10
		c1[i+1] -= s11
	}
	if i < nu { // last odd row
		a0 := A[i*lda : i*lda+k]
		c0 := C[i*ldc : i*ldc+i+1]
		for j := 0; j <= i; j++ {
			c0[j] -= dot1(a0, A[j*lda:j*lda+k])
		}
	}
}

// dot2x2 returns the four products a0·b0, a0·b1, a1·b0, a1·b1 (all of
// length len(a0)).
func dot2x2(a0, a1, b0, b1 []float64) (s00, s01, s10, s11 float64) {
	a1 = a1[:len(a0)]
	b0 = b0[:len(a0)]
	b1 = b1[:len(a0)]
	for t, x0 := range a0 {
		x1, y0, y1 := a1[t], b0[t], b1[t]
		s00 += x0 * y0
		s01 += x0 * y1
		s10 += x1 * y0
		s11 += x1 * y1
	}
	return
}

// dot1 returns a·b (len(b) ≥ len(a)).
func dot1(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for t, x := range a {
		s += x * b[t]
	}
	return s
}

// trsmRightLowerTrans sets X ← X·L⁻ᵀ for X m×ns (row-major, stride ldx)
// and L the ns×ns lower triangular factor (row-major, stride ldl): each
// row x solves x·Lᵀ = b by forward substitution, x_j = (b_j − Σ_{t<j}
// x_t L_jt) / L_jj, two rows at a time so each row of L is read once per
// pair.
func trsmRightLowerTrans(X []float64, ldx int, L []float64, ldl, m, ns int) {
	i := 0
	for ; i+2 <= m; i += 2 {
		x0 := X[i*ldx : i*ldx+ns]
		x1 := X[(i+1)*ldx : (i+1)*ldx+ns]
		for j := 0; j < ns; j++ {
			l := L[j*ldl : j*ldl+j+1]
			v0, v1 := x0[j], x1[j]
			lj := l[:j]
			p0, p1 := x0[:j], x1[:j]
			for t, w := range lj {
				v0 -= p0[t] * w
				v1 -= p1[t] * w
			}
			d := l[j]
			x0[j] = v0 / d
			x1[j] = v1 / d
		}
	}
	if i < m {
		x0 := X[i*ldx : i*ldx+ns]
		for j := 0; j < ns; j++ {
			l := L[j*ldl : j*ldl+j+1]
			x0[j] = (x0[j] - dot1(x0[:j], l[:j])) / l[j]
		}
	}
}

// The kernels below work on the transposed panel W = L₂₁ᵀ (ns × nu,
// row-major, stride ldw): its row t holds column t of L₂₁ for every row
// of the trailing block, so that both the triangular solve and the Schur
// complement are sums of outer products of contiguous rows, the form of
// the AVX2 micro-kernel gemmSub4x8 (4 rows × 8 or 4 columns of C per call,
// eight 4-wide FMA accumulators: ~4× the 2×2 kernels' rate on the fronts
// of BenchmarkImplicitEulerStepBeam10kSparseCholesky). Used only when
// useAVX2; the entries a kernel leaves are the same sums in another
// order, with fused multiply-adds.

// gemmSub sets C −= A·B for C m×n (row-major, stride ldc), A m×k with
// A(r, t) at a[r·ars + t·ats], B k×n row-major (stride ldb): 4×8 blocks
// by the micro-kernel, the edges by scalar loops.
func gemmSub(m, n, k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	if k == 0 {
		return
	}
	i := 0
	for ; i+4 <= m; i += 4 {
		j := 0
		for ; j+8 <= n; j += 8 {
			gemmSub4x8(k, a[i*ars:], ars, ats, b[j:], ldb, c[i*ldc+j:], ldc)
		}
		if j+4 <= n {
			gemmSub4x4(k, a[i*ars:], ars, ats, b[j:], ldb, c[i*ldc+j:], ldc)
			j += 4
		}
		gemmSubScalar(i, i+4, j, n, k, a, ars, ats, b, ldb, c, ldc)
	}
	gemmSubScalar(i, m, 0, n, k, a, ars, ats, b, ldb, c, ldc)
}

// gemmSubScalar is gemmSub on rows [i0, i1) and columns [j0, j1).
func gemmSubScalar(i0, i1, j0, j1, k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	for i := i0; i < i1; i++ {
		crow := c[i*ldc : i*ldc+j1]
		for t := 0; t < k; t++ {
			v := a[i*ars+t*ats]
			brow := b[t*ldb : t*ldb+j1]
			for j := j0; j < j1; j++ {
				crow[j] -= v * brow[j]
			}
		}
	}
}

// syrkSubLowerT sets C ← C − WᵀW on the lower triangle of the nu×nu
// matrix C (row-major, stride ldc), W k×nu (stride ldw). Blocks that
// straddle the diagonal are computed whole: the kernel also writes
// entries above the diagonal of C (within its nu columns), which the
// factorisation never reads.
func syrkSubLowerT(C []float64, ldc int, W []float64, ldw, nu, k int) {
	if k == 0 {
		return
	}
	// The nu mod 4 rows that do not fill a block of four are the first
	// (the shortest: r + 1 entries), by the scalar loop; the others in
	// blocks of four by the kernels.
	i := nu % 4
	for r := 0; r < i; r++ {
		syrkRowScalar(C, ldc, W, ldw, r, 0, r+1, k)
	}
	for ; i+4 <= nu; i += 4 {
		j := 0
		for ; j+8 <= nu && j <= i+3; j += 8 {
			gemmSub4x8(k, W[i:], 1, ldw, W[j:], ldw, C[i*ldc+j:], ldc)
		}
		if j+4 <= nu && j <= i+3 {
			gemmSub4x4(k, W[i:], 1, ldw, W[j:], ldw, C[i*ldc+j:], ldc)
			j += 4
		}
		for r := i; r < i+4; r++ {
			syrkRowScalar(C, ldc, W, ldw, r, j, r+1, k)
		}
	}
}

// syrkRowScalar sets C[r][j] −= Σ_t W[t][r]·W[t][j] for j in [j0, j1).
func syrkRowScalar(C []float64, ldc int, W []float64, ldw, r, j0, j1, k int) {
	if j0 >= j1 {
		return
	}
	crow := C[r*ldc : r*ldc+j1]
	for t := 0; t < k; t++ {
		wt := W[t*ldw : t*ldw+max(j1, r+1)]
		v := wt[r]
		for j := j0; j < j1; j++ {
			crow[j] -= v * wt[j]
		}
	}
}

// trsmLeftLowerT sets W ← L⁻¹·W for W ns×nu (row-major, stride ldw) and
// L the ns×ns lower triangular factor (row-major, stride ldl): blocks of
// four rows, each first updated by the rows above it (gemmSub), then
// solved by substitution within the block. The block of ns mod 4 rows, if
// any, comes first, where it has no rows above it: every update then
// goes through gemmSub's four-row kernels, none through its scalar loop
// (supernodes of 3-D meshes have 3, 6, 9, ... columns).
func trsmLeftLowerT(W []float64, ldw int, L []float64, ldl, ns, nu int) {
	for t0, tb := 0, ns%4; t0 < ns; t0, tb = t0+tb, 4 {
		if tb == 0 {
			tb = 4
		}
		gemmSub(tb, nu, t0, L[t0*ldl:], ldl, 1, W, ldw, W[t0*ldw:], ldw)
		for t := t0; t < t0+tb; t++ {
			w := W[t*ldw : t*ldw+nu]
			for s := t0; s < t; s++ {
				v := L[t*ldl+s]
				ws := W[s*ldw : s*ldw+nu]
				for j := range w {
					w[j] -= v * ws[j]
				}
			}
			// One division per row, not per entry (a division costs
			// several multiplications and does not pipeline).
			r := 1 / L[t*ldl+t]
			for j := range w {
				w[j] *= r
			}
		}
	}
}
