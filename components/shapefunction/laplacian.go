package shapefunction

import (
	"fmt"
	"math"
)

// gridLaplacian is the discrete Laplace operator on the voxels with
// homogeneous Neumann conditions on the material's boundary (no flux
// through faces to empty cells or out of the grid): the standard
// 7-point finite-volume scheme, one unknown per voxel,
//
//	(L w)_v = Σ_{faces v|n} κ_vn (w_v − w_n),   κ_vn = (area of the face)/(distance of the centres)
//
// (κ = h_y h_z / h_x across an x face, so anisotropic cells are handled).
// With materialAware, κ is further multiplied by the harmonic mean of the
// two voxels' Young's moduli over E_max (a diffusion in which stiff
// material conducts better: the weight then varies across soft material
// and stays flat across stiff material, a static scalar analogue of Faure
// et al.'s compliance argument).
//
// Dirichlet voxels have prescribed values; the others (free voxels) solve
// L w = 0. The operator restricted to the free voxels is symmetric
// positive definite when every connected piece of material holds a
// Dirichlet voxel, and is solved by conjugate gradients with a Jacobi
// (diagonal) preconditioner to a relative residual tolerance.
type gridLaplacian struct {
	g *Voxels
	// Face adjacency, CSR by voxel: neighbours nbr[off[v]:off[v+1]] with
	// conductances kap.
	off  []int32
	nbr  []int32
	kap  []float64
	diag []float64 // Σ κ over v's faces
}

func newGridLaplacian(g *Voxels, materialAware bool) *gridLaplacian {
	L := &gridLaplacian{g: g}
	n := g.NumVoxels()
	L.off = make([]int32, n+1)
	L.diag = make([]float64, n)
	h := g.Spacing
	faceK := [3]float64{h[1] * h[2] / h[0], h[0] * h[2] / h[1], h[0] * h[1] / h[2]}
	eMax := 0.0
	for _, e := range g.Young {
		eMax = math.Max(eMax, e)
	}
	for v := 0; v < n; v++ {
		g.faceNeighbours(v, func(u, axis int) {
			k := faceK[axis]
			if materialAware {
				k *= 2 * g.Young[u] * g.Young[v] / ((g.Young[u] + g.Young[v]) * eMax)
			}
			L.nbr = append(L.nbr, int32(u))
			L.kap = append(L.kap, k)
			L.diag[v] += k
		})
		L.off[v+1] = int32(len(L.nbr))
	}
	return L
}

// apply sets out = L w (every voxel).
func (L *gridLaplacian) apply(out, w []float64) {
	for v := range out {
		s := L.diag[v] * w[v]
		for e := L.off[v]; e < L.off[v+1]; e++ {
			s -= L.kap[e] * w[L.nbr[e]]
		}
		out[v] = s
	}
}

// checkConnected returns an error when some voxel is in a connected piece
// of material without a Dirichlet voxel (its harmonic value would be
// undetermined).
func (L *gridLaplacian) checkConnected(fixed []bool) error {
	n := L.g.NumVoxels()
	seen := make([]bool, n)
	queue := make([]int32, 0, 64)
	for v := 0; v < n; v++ {
		if fixed[v] && !seen[v] {
			seen[v] = true
			queue = append(queue, int32(v))
		}
	}
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for e := L.off[v]; e < L.off[v+1]; e++ {
			if u := L.nbr[e]; !seen[u] {
				seen[u] = true
				queue = append(queue, u)
			}
		}
	}
	missing := 0
	first := -1
	for v, s := range seen {
		if !s {
			if first < 0 {
				first = v
			}
			missing++
		}
	}
	if missing > 0 {
		return fmt.Errorf("%d voxels (the first at %v) are not connected by faces to any frame: a piece of material without a frame has no harmonic weight; add a frame there or remove that material", missing, L.g.Centre(first))
	}
	return nil
}

// solve sets w on the free voxels (fixed[v] false) so that (L w)_v = 0
// there, given w on the fixed voxels; w's free entries are the initial
// guess. It returns the CG iterations and the final relative residual
// |r|/|b| (b the right-hand side coming from the fixed values), and an
// error when tol is not reached in maxIter iterations.
func (L *gridLaplacian) solve(w []float64, fixed []bool, tol float64, maxIter int) (int, float64, error) {
	n := len(w)
	b := make([]float64, n)
	// b = −L w_fixed on the free voxels (w_fixed: w with the free part 0).
	for v := 0; v < n; v++ {
		if fixed[v] {
			continue
		}
		s := 0.0
		for e := L.off[v]; e < L.off[v+1]; e++ {
			if u := L.nbr[e]; fixed[u] {
				s += L.kap[e] * w[u]
			}
		}
		b[v] = s
	}
	bNorm := math.Sqrt(dot(b, b))
	if bNorm == 0 {
		// Every fixed value is zero: the solution is zero.
		for v := range w {
			if !fixed[v] {
				w[v] = 0
			}
		}
		return 0, 0, nil
	}
	// Free-part operator: A x = L x restricted to free voxels with fixed
	// entries taken as zero.
	applyA := func(out, x []float64) {
		for v := 0; v < n; v++ {
			if fixed[v] {
				out[v] = 0
				continue
			}
			s := L.diag[v] * x[v]
			for e := L.off[v]; e < L.off[v+1]; e++ {
				if u := L.nbr[e]; !fixed[u] {
					s -= L.kap[e] * x[u]
				}
			}
			out[v] = s
		}
	}
	x := make([]float64, n)
	for v := range x {
		if !fixed[v] {
			x[v] = w[v]
		}
	}
	r := make([]float64, n)
	applyA(r, x)
	for v := range r {
		r[v] = b[v] - r[v]
	}
	z := make([]float64, n)
	p := make([]float64, n)
	q := make([]float64, n)
	precond := func() {
		for v := range z {
			if !fixed[v] {
				z[v] = r[v] / L.diag[v]
			} else {
				z[v] = 0
			}
		}
	}
	precond()
	copy(p, z)
	rz := dot(r, z)
	res := math.Sqrt(dot(r, r)) / bNorm
	it := 0
	for ; it < maxIter && res > tol; it++ {
		applyA(q, p)
		alpha := rz / dot(p, q)
		for v := range x {
			x[v] += alpha * p[v]
			r[v] -= alpha * q[v]
		}
		res = math.Sqrt(dot(r, r)) / bNorm
		if res <= tol {
			it++
			break
		}
		precond()
		rzNew := dot(r, z)
		beta := rzNew / rz
		rz = rzNew
		for v := range p {
			p[v] = z[v] + beta*p[v]
		}
	}
	for v := range w {
		if !fixed[v] {
			w[v] = x[v]
		}
	}
	if res > tol {
		return it, res, fmt.Errorf("conjugate gradients reached a relative residual of %.3g after %d iterations (tolerance %g)", res, it, tol)
	}
	return it, res, nil
}

// residual returns |L w|/|b| over the free voxels, the relative residual
// of the discrete Laplace equation (what solve drives below tol), with b
// the coupling of the free voxels to the fixed values.
func (L *gridLaplacian) residual(w []float64, fixed []bool) float64 {
	n := len(w)
	lw := make([]float64, n)
	L.apply(lw, w)
	num, den := 0.0, 0.0
	for v := 0; v < n; v++ {
		if fixed[v] {
			continue
		}
		num += lw[v] * lw[v]
		s := 0.0
		for e := L.off[v]; e < L.off[v+1]; e++ {
			if u := L.nbr[e]; fixed[u] {
				s += L.kap[e] * w[u]
			}
		}
		den += s * s
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
