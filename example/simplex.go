package example

import "math"

// SimplexWork is the scratch of ProjectSimplex and SimplexDifferential for
// manifolds of up to N points; one per goroutine.
type SimplexWork struct {
	n          int
	kkt        []float64 // (n+1)²
	rhs, sol   []float64 // n+1
	perm       []int     // n+1
	g, v, c, z []float64 // n
	list       []int     // n
}

// NewSimplexWork returns scratch for manifolds of up to n points.
func NewSimplexWork(n int) *SimplexWork {
	return &SimplexWork{n: n,
		kkt: make([]float64, (n+1)*(n+1)), rhs: make([]float64, n+1), sol: make([]float64, n+1),
		perm: make([]int, n+1), g: make([]float64, n), v: make([]float64, n), c: make([]float64, n),
		z: make([]float64, n), list: make([]int, n)}
}

// hess returns H_ab of the objective q(w) = ½ wᵀHw − ĉᵀw over all N
// weights: H = blockdiag(0, G) (w₀ multiplies P₀ − P₀ = 0).
func (m *Manifold) hess(a, b int) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return m.gram[(a-1)*(m.n-1)+b-1]
}

// ProjectSimplex sets w[0:N] to the projection constrained to the simplex,
//
//	w* = argmin ‖D(w) − d‖²_ρ  subject to  Σⱼ wⱼ = 1,  wⱼ ≥ 0,
//
// the closest point of the convex hull of the examples (not Koyama et al.'s
// negative-weight elimination, which is no minimiser: the envelope theorem
// that gives an example potential's force needs the true one). c[0:N−1]
// holds the right-hand side of the normal equations,
// cⱼ₋₁ = WeightedDir(j)·d − WeightedDirBase(j). free[0:N] receives the free
// set (wⱼ > 0) that SimplexDifferential differentiates on.
//
// The unconstrained solution z = G⁺c is taken when it is feasible (the
// common case inside the hull); otherwise a primal active-set method
// (Lawson & Hanson's, on the face problems of the simplex) starts at the
// best vertex and adds the weight whose multiplier is most negative,
// stepping back to the boundary when a face solution leaves the simplex.
// It ends in finitely many steps at the exact minimiser (the objective is a
// convex quadratic); a cap of 4N + 8 additions guards against cycling on
// rounding ties.
func (m *Manifold) ProjectSimplex(c, w []float64, free []bool, ws *SimplexWork) {
	n := m.n
	if n == 1 {
		w[0], free[0] = 1, true
		return
	}
	m1 := n - 1
	// Unconstrained candidate.
	sum, feasible := 0.0, true
	for k := 0; k < m1; k++ {
		s := 0.0
		for l := 0; l < m1; l++ {
			s += m.gramPinv[k*m1+l] * c[l]
		}
		w[k+1] = s
		sum += s
		feasible = feasible && s >= 0
	}
	w[0] = 1 - sum
	if feasible && w[0] >= 0 {
		for j := range free[:n] {
			free[j] = true
		}
		return
	}
	ch := ws.c[:n]
	ch[0] = 0
	copy(ch[1:], c[:m1])
	scale := 0.0
	for j := 0; j < n; j++ {
		scale = math.Max(scale, math.Max(m.hess(j, j), math.Abs(ch[j])))
	}
	tol := 1e-12 * scale
	// Best vertex: q(eⱼ) = ½Hⱼⱼ − ĉⱼ.
	best := 0
	for j := 1; j < n; j++ {
		if 0.5*m.hess(j, j)-ch[j] < 0.5*m.hess(best, best)-ch[best] {
			best = j
		}
	}
	for j := 0; j < n; j++ {
		w[j] = 0
		free[j] = false
	}
	w[best], free[best] = 1, true
	g, v := ws.g[:n], ws.v[:n]
	for iter := 0; iter < 4*n+8; iter++ {
		// Gradient and the multiplier of Σw = 1 (g_F = −λ on the face).
		lam, nf := 0.0, 0
		for a := 0; a < n; a++ {
			s := -ch[a]
			for b := 0; b < n; b++ {
				if w[b] != 0 {
					s += m.hess(a, b) * w[b]
				}
			}
			g[a] = s
			if free[a] {
				lam -= s
				nf++
			}
		}
		lam /= float64(nf)
		add, mu := -1, -tol
		for a := 0; a < n; a++ {
			if !free[a] && g[a]+lam < mu {
				add, mu = a, g[a]+lam
			}
		}
		if add < 0 {
			return
		}
		free[add] = true
		for inner := 0; inner <= n; inner++ {
			m.faceSolve(ch, free, v, ws, false)
			if inner == 0 && v[add] <= 0 {
				// Only rounding lets the weight just added fail to grow
				// (its multiplier was negative): w is optimal.
				free[add] = false
				return
			}
			ok := true
			for a := 0; a < n; a++ {
				if free[a] && v[a] <= 0 {
					ok = false
				}
			}
			if ok {
				copy(w, v)
				break
			}
			// Step from w toward v up to the first weight that reaches 0.
			alpha, hit := 1.0, -1
			for a := 0; a < n; a++ {
				if free[a] && v[a] <= 0 {
					if t := w[a] / (w[a] - v[a]); t < alpha || hit < 0 {
						alpha, hit = t, a
					}
				}
			}
			for a := 0; a < n; a++ {
				if free[a] {
					w[a] += alpha * (v[a] - w[a])
				}
			}
			for a := 0; a < n; a++ {
				if free[a] && (a == hit || w[a] <= 0) {
					w[a], free[a] = 0, false
				}
			}
		}
	}
}

// faceSolve solves the problem of the face free: minimise q over
// Σ_{j∈free} wⱼ = 1, wⱼ = 0 off it, through its KKT system
//
//	[H_FF  s1] [v_F  ]   [ĉ_F]
//	[s1ᵀ    0] [λ / s] = [s  ]
//
// (s scales the constraint to H's size), by Gaussian elimination with
// complete pivoting; a singular system (examples alike on the group) gets
// one of its solutions, all of which give the same blended descriptor.
// With differential, the right-hand side is (ĉ_F, 0): the change of v for a
// change ĉ of the normal equations' right-hand side on a fixed face.
func (m *Manifold) faceSolve(ch []float64, free []bool, v []float64, ws *SimplexWork, differential bool) {
	n := m.n
	list := ws.list[:0]
	for a := 0; a < n; a++ {
		if free[a] {
			list = append(list, a)
		}
	}
	f := len(list)
	s := 0.0
	for _, a := range list {
		s = math.Max(s, m.hess(a, a))
	}
	if s == 0 {
		s = 1
	}
	k := f + 1
	A := ws.kkt[:k*k]
	rhs := ws.rhs[:k]
	for i, a := range list {
		for j, b := range list {
			A[i*k+j] = m.hess(a, b)
		}
		A[i*k+f], A[f*k+i] = s, s
		rhs[i] = ch[a]
	}
	A[f*k+f] = 0
	rhs[f] = s
	if differential {
		rhs[f] = 0
	}
	solveSmall(A, rhs, ws.sol[:k], ws.perm[:k], k)
	for a := range v[:n] {
		v[a] = 0
	}
	for i, a := range list {
		v[a] = ws.sol[i]
	}
}

// SimplexDifferential writes into dw[0:N] the derivative of ProjectSimplex's
// weights along a change dc[0:N−1] of the normal equations' right-hand side
// (dcⱼ₋₁ = WeightedDir(j)·dd for a descriptor change dd), on the free set
// it returned: the face's weights move, the others stay 0 (exact wherever
// the free set does not change, i.e. away from the boundaries between faces,
// where w* is only continuous).
func (m *Manifold) SimplexDifferential(dc, dw []float64, free []bool, ws *SimplexWork) {
	n := m.n
	all := true
	for a := 0; a < n; a++ {
		all = all && free[a]
	}
	if all {
		m.UnconstrainedDifferential(dc, dw)
		return
	}
	ch := ws.c[:n]
	ch[0] = 0
	copy(ch[1:], dc[:n-1])
	m.faceSolve(ch, free, dw, ws, true)
}

// UnconstrainedDifferential writes into dw[0:N] the derivative of the
// unconstrained weights along dc (as SimplexDifferential): dz = G⁺ dc,
// dw₀ = −Σ dz.
func (m *Manifold) UnconstrainedDifferential(dc, dw []float64) {
	m1 := m.n - 1
	sum := 0.0
	for k := 0; k < m1; k++ {
		s := 0.0
		for l := 0; l < m1; l++ {
			s += m.gramPinv[k*m1+l] * dc[l]
		}
		dw[k+1] = s
		sum += s
	}
	dw[0] = -sum
}

// solveSmall solves A x = b (k×k, row-major; A and b are overwritten) by
// Gaussian elimination with complete pivoting. Elimination stops at a pivot
// below 1e-13 of the largest entry of A; the unknowns not reached are set
// to 0, which solves a consistent singular system (the face systems of
// ProjectSimplex are consistent: their right-hand side lies in the range).
func solveSmall(A, b, x []float64, colPerm []int, k int) {
	for i := range colPerm[:k] {
		colPerm[i] = i
	}
	amax := 0.0
	for _, a := range A[:k*k] {
		amax = math.Max(amax, math.Abs(a))
	}
	r := 0
	for ; r < k; r++ {
		// Pivot: the largest entry of the trailing block.
		pi, pj, pv := r, r, 0.0
		for i := r; i < k; i++ {
			for j := r; j < k; j++ {
				if a := math.Abs(A[i*k+j]); a > pv {
					pi, pj, pv = i, j, a
				}
			}
		}
		if !(pv > 1e-13*amax) {
			break
		}
		if pi != r {
			for j := 0; j < k; j++ {
				A[r*k+j], A[pi*k+j] = A[pi*k+j], A[r*k+j]
			}
			b[r], b[pi] = b[pi], b[r]
		}
		if pj != r {
			for i := 0; i < k; i++ {
				A[i*k+r], A[i*k+pj] = A[i*k+pj], A[i*k+r]
			}
			colPerm[r], colPerm[pj] = colPerm[pj], colPerm[r]
		}
		p := A[r*k+r]
		for i := r + 1; i < k; i++ {
			f := A[i*k+r] / p
			if f == 0 {
				continue
			}
			for j := r; j < k; j++ {
				A[i*k+j] -= f * A[r*k+j]
			}
			b[i] -= f * b[r]
		}
	}
	// Back substitution on the r×r upper triangle; the rest is 0.
	for i := k - 1; i >= 0; i-- {
		if i >= r {
			x[colPerm[i]] = 0
			continue
		}
		s := b[i]
		for j := i + 1; j < r; j++ {
			s -= A[i*k+j] * x[colPerm[j]]
		}
		x[colPerm[i]] = s / A[i*k+i]
	}
}
