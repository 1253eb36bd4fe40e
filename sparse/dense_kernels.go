package sparse

import "math"

// Dense kernels of the supernodal factorisation, written for the small
// panels of 3-D meshes (tens to a few hundred rows, supernodes of 3 to
// ~100 columns). A supernode's panel is column-major (column t of L at
// P[t·nr:], its nr rows contiguous), so that the triangular solve, the
// Cholesky factorisation of the diagonal block and the Schur complement
// are sums of outer products of contiguous columns: the form of the AVX2
// micro-kernels gemmSub4x8 and gemmSet4x8 (4 rows × 8 or 4 columns of C
// per call, eight 4-wide FMA accumulators). Without AVX2 the same sums
// run in scalar loops (in another order: the results agree to rounding).

// gemmSub sets C −= A·B for C m×n (row-major, stride ldc), A m×k with
// A(r, t) at a[r·ars + t·ats], B k×n row-major (stride ldb): 4×8 blocks
// by the micro-kernel, the edges by scalar loops.
func gemmSub(m, n, k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	if k == 0 {
		return
	}
	i := 0
	if useAVX2 {
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
	}
	gemmSubScalar(i, m, 0, n, k, a, ars, ats, b, ldb, c, ldc)
}

// gemmSubScalar is gemmSub on rows [i0, i1) and columns [j0, j1).
func gemmSubScalar(i0, i1, j0, j1, k int, a []float64, ars, ats int, b []float64, ldb int, c []float64, ldc int) {
	if j0 >= j1 {
		return
	}
	for i := i0; i < i1; i++ {
		crow := c[i*ldc+j0 : i*ldc+j1]
		for t := 0; t < k; t++ {
			v := a[i*ars+t*ats]
			brow := b[t*ldb+j0 : t*ldb+j1]
			for j, w := range brow {
				crow[j] -= v * w
			}
		}
	}
}

// panelFactor factors in place the supernode panel P (nr rows × ns
// columns, column-major, column t at P[t·nr:], rows 0..ns−1 the diagonal
// block, its lower triangle significant) that holds the supernode's
// columns of A with every update from its descendants subtracted:
// L₁₁L₁₁ᵀ = P₁₁ (Cholesky) and L₂₁ = P₂₁L₁₁⁻ᵀ, column by column as one
// factorisation of the whole panel. Columns go in blocks of four, the
// block of ns mod 4 first (where no column precedes it): each block is
// first updated by all the columns before it (gemmSub: the 4-row AVX2
// kernels), then its diagonal 4×4 block factored by scalar loops and
// the rows below it solved against that block (panelBelow: four rows at a
// time with AVX2). dinv receives 1/L_tt per column. It returns the column
// whose pivot is not positive (or not finite) and that pivot, or −1.
//
// The kernels also write into unused entries above the diagonal block's
// diagonal (rows t0−3..t0+2 of the block's columns t0..t0+3: the update
// is widened upwards to a multiple of four rows, and garbage from such
// entries reaches only such entries).
func panelFactor(P []float64, nr, ns int, dinv []float64) (int, float64) {
	var coef [10]float64
	for t0, tb := 0, ns%4; t0 < ns; t0, tb = t0+tb, 4 {
		if tb == 0 {
			tb = 4
		}
		// Columns t0..t0+tb−1 (rows t0..nr−1) −= Σ_{s<t0} L(t0+r, s)·L(·, s),
		// from δ rows higher when that makes the rows a multiple of four
		// (those rows are above the diagonal: unused).
		if n, d := nr-t0, (4-(nr-t0)%4)%4; useAVX2 && d <= t0 {
			gemmSub(tb, n+d, t0, P[t0:], 1, nr, P[t0-d:], nr, P[t0*nr+t0-d:], nr)
		} else {
			gemmSub(tb, n, t0, P[t0:], 1, nr, P[t0:], nr, P[t0*nr+t0:], nr)
		}
		// The diagonal block.
		e := t0 + tb
		if tb == 4 || tb == 3 {
			if c, d := diagBlock(P, nr, t0, tb, dinv); c >= 0 {
				return c, d
			}
		} else {
			for c := t0; c < e; c++ {
				col := P[c*nr+c : c*nr+e]
				for s := t0; s < c; s++ {
					cs := P[s*nr+c : s*nr+e]
					v := cs[0]
					for i, w := range cs {
						col[i] -= v * w
					}
				}
				d := col[0]
				if !(d > 0) || math.IsInf(d, 0) {
					return c, d
				}
				d = math.Sqrt(d)
				r := 1 / d // one division per column, not per entry
				col[0] = d
				dinv[c] = r
				for i := 1; i < len(col); i++ {
					col[i] *= r
				}
			}
		}
		// The rows below it.
		i0 := e
		if useAVX2 && tb >= 3 {
			m := (nr - e) &^ 3
			if tb == 4 {
				coef = [10]float64{dinv[t0], dinv[t0+1], dinv[t0+2], dinv[t0+3],
					P[t0*nr+t0+1], P[t0*nr+t0+2], P[(t0+1)*nr+t0+2], P[t0*nr+t0+3], P[(t0+1)*nr+t0+3], P[(t0+2)*nr+t0+3]}
			} else {
				coef = [10]float64{dinv[t0], dinv[t0+1], dinv[t0+2],
					P[t0*nr+t0+1], P[t0*nr+t0+2], P[(t0+1)*nr+t0+2]}
			}
			panelBelow(P, nr, t0, tb, e, m, &coef)
			i0 += m
		}
		for c := t0; c < e; c++ {
			col := P[c*nr+i0 : c*nr+nr]
			for s := t0; s < c; s++ {
				v := P[s*nr+c]
				cs := P[s*nr+i0 : s*nr+nr]
				for i, w := range cs {
					col[i] -= v * w
				}
			}
			r := dinv[c]
			for i := range col {
				col[i] *= r
			}
		}
	}
	return -1, 0
}

// syrkPad is how far syrkUpperT reads past the end of W's last column
// and ldc − nu the columns it needs in C (so that every block is a full
// 4×8 or 4×4 kernel call): W's storage must extend syrkPad entries
// past (k−1)·ldw + nu, and C has at least nu+3 rows of ldc ≥ nu+syrkPad.
const syrkPad = 8

// syrkUpperT sets C = WᵀW on and above the diagonal of the nu×nu matrix
// C (row-major, stride ldc; row i holds C(i, j) for j ≥ i at
// C[i·ldc + j]), W being k×nu (row-major, stride ldw: row t is column t
// of the supernode's L₂₁). With AVX2 every block is a full kernel call
// over padded ranges: the entries it also writes (below the diagonal, in
// the rows nu..nu+2 and the columns nu..ldc−1 of C) are garbage computed
// from the entries past W's rows, which the caller ignores.
func syrkUpperT(C []float64, ldc int, W []float64, ldw, nu, k int) {
	if useAVX2 {
		for i := 0; i < nu; i += 4 {
			for j := i; j < nu; j += 8 {
				if nu-j <= 4 {
					gemmSet4x4(k, W[i:], 1, ldw, W[j:], ldw, C[i*ldc+j:], ldc)
				} else {
					gemmSet4x8(k, W[i:], 1, ldw, W[j:], ldw, C[i*ldc+j:], ldc)
				}
			}
		}
		return
	}
	for i := 0; i < nu; i++ {
		crow := C[i*ldc+i : i*ldc+nu]
		clear(crow)
		for t := 0; t < k; t++ {
			wt := W[t*ldw+i : t*ldw+nu]
			v := wt[0]
			for j, w := range wt {
				crow[j] += v * w
			}
		}
	}
}

// gemvNSub sets y[i] −= Σ_{t<k} x[t]·A[t·lda + i] for i < m (A column-major,
// m×k): the rows below a supernode's columns in the forward substitution.
// AVX2 on the rows in blocks of four, the rest by a scalar loop.
func gemvNSub(m, k int, A []float64, lda int, x, y []float64) {
	if m == 0 || k == 0 {
		return
	}
	x = x[:k]
	y = y[:m]
	_ = A[(k-1)*lda+m-1]
	i := 0
	if m4 := m &^ 3; useAVX2 && m4 > 0 {
		gemvNSubAVX2(m4, k, &A[0], lda, &x[0], &y[0])
		i = m4
	}
	for ; i < m; i++ {
		s := 0.0
		for t, v := range x {
			s += v * A[t*lda+i]
		}
		y[i] -= s
	}
}

// gemvTSub sets x[t] −= Σ_{i<m} A[t·lda + i]·w[i] for t < k (A column-major,
// m×k): the rows below a supernode's columns in the backward
// substitution. AVX2 on four columns and four rows at a time.
func gemvTSub(m, k int, A []float64, lda int, w, x []float64) {
	if m == 0 || k == 0 {
		return
	}
	w = w[:m]
	x = x[:k]
	_ = A[(k-1)*lda+m-1]
	m4 := m
	if useAVX2 {
		m4 = m &^ 3
	}
	t := 0
	if useAVX2 && m4 > 0 {
		for ; t+4 <= k; t += 4 {
			gemvTSub4AVX2(m4, &A[t*lda], lda, &w[0], &x[t])
		}
	}
	for ; t < k; t++ {
		x[t] -= dot4(A[t*lda:t*lda+m4], w)
	}
	for t := range x { // the rows the kernel left
		col := A[t*lda+m4 : t*lda+m]
		s := 0.0
		for i, v := range col {
			s += v * w[m4+i]
		}
		x[t] -= s
	}
}

// diagBlock factors the diagonal block of tb = 3 or 4 columns of panel P
// starting at column t0 (already updated by the columns before it) in
// registers: each pivot's reciprocal is formed by one division and the
// Schur complement of the block's later columns uses it (a − a_i a_j/p),
// so that a column waits for the previous pivot's division only, the
// square roots (L_cc = √p, 1/L_cc = √(1/p)) aside the chain; then
// L(i, c) = a_ic·(1/L_cc). It returns the failing column and its pivot, or
// −1.
func diagBlock(P []float64, nr, t0, tb int, dinv []float64) (int, float64) {
	c0 := P[t0*nr+t0 : t0*nr+t0+tb]
	c1 := P[(t0+1)*nr+t0 : (t0+1)*nr+t0+tb]
	c2 := P[(t0+2)*nr+t0 : (t0+2)*nr+t0+tb]
	a00, a10, a20 := c0[0], c0[1], c0[2]
	a11, a21 := c1[1], c1[2]
	a22 := c2[2]
	var a30, a31, a32, a33 float64
	if tb == 4 {
		a30, a31, a32 = c0[3], c1[3], c2[3]
		a33 = P[(t0+3)*nr+t0+3]
	}
	bad := func(p float64) bool { return !(p > 0) || math.IsInf(p, 0) }
	if bad(a00) {
		return t0, a00
	}
	i0 := 1 / a00
	b10, b20, b30 := a10*i0, a20*i0, a30*i0
	a11 -= a10 * b10
	a21 -= a20 * b10
	a31 -= a30 * b10
	a22 -= a20 * b20
	a32 -= a30 * b20
	a33 -= a30 * b30
	if bad(a11) {
		return t0 + 1, a11
	}
	i1 := 1 / a11
	b21, b31 := a21*i1, a31*i1
	a22 -= a21 * b21
	a32 -= a31 * b21
	a33 -= a31 * b31
	if bad(a22) {
		return t0 + 2, a22
	}
	i2 := 1 / a22
	b32 := a32 * i2
	a33 -= a32 * b32
	r0, r1, r2 := math.Sqrt(i0), math.Sqrt(i1), math.Sqrt(i2)
	c0[0], c0[1], c0[2] = math.Sqrt(a00), a10*r0, a20*r0
	c1[1], c1[2] = math.Sqrt(a11), a21*r1
	c2[2] = math.Sqrt(a22)
	dinv[t0], dinv[t0+1], dinv[t0+2] = r0, r1, r2
	if tb == 4 {
		if bad(a33) {
			return t0 + 3, a33
		}
		i3 := 1 / a33
		r3 := math.Sqrt(i3)
		c0[3], c1[3], c2[3] = a30*r0, a31*r1, a32*r2
		P[(t0+3)*nr+t0+3] = math.Sqrt(a33)
		dinv[t0+3] = r3
	}
	return -1, 0
}
