package reduced

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Mesh is the tetrahedral mesh a reduced model is built on: rest
// positions (3 per vertex) and positively oriented tetrahedra.
type Mesh struct {
	Points []float64
	Tets   [][4]int
}

// NumPoints returns the number of vertices.
func (m *Mesh) NumPoints() int { return len(m.Points) / 3 }

// Element is the rest data of one linear tetrahedron: its volume and the
// constant shape-function gradients ∇N₀ … ∇N₃.
type Element struct {
	Volume float64
	Grad   [4][3]float64
}

// degenerateRatio is the smallest |det Dm| / (longest edge)³ accepted, as
// for the tetrahedral force fields (components/forcefield).
const degenerateRatio = 1e-8

// Elements computes the rest volume and shape gradients of every
// tetrahedron (∇Nᵢ = row i of Dm⁻¹ for i = 1..3, ∇N₀ = −Σ), failing on an
// index out of range, a degenerate or an inverted element.
func (m *Mesh) Elements() ([]Element, error) {
	np := m.NumPoints()
	out := make([]Element, len(m.Tets))
	for e, t := range m.Tets {
		var p [4][3]float64
		for c, v := range t {
			if v < 0 || v >= np {
				return nil, fmt.Errorf("tetrahedron %d: vertex index %d is out of range [0, %d)", e, v, np)
			}
			copy(p[c][:], m.Points[3*v:3*v+3])
		}
		var D [3][3]float64 // columns x₁−x₀, x₂−x₀, x₃−x₀
		lmax := 0.0
		for c := 1; c < 4; c++ {
			for k := 0; k < 3; k++ {
				D[k][c-1] = p[c][k] - p[0][k]
			}
		}
		for a := 0; a < 4; a++ {
			for b := a + 1; b < 4; b++ {
				dx, dy, dz := p[a][0]-p[b][0], p[a][1]-p[b][1], p[a][2]-p[b][2]
				lmax = math.Max(lmax, math.Sqrt(dx*dx+dy*dy+dz*dz))
			}
		}
		det := D[0][0]*(D[1][1]*D[2][2]-D[1][2]*D[2][1]) - D[0][1]*(D[1][0]*D[2][2]-D[1][2]*D[2][0]) + D[0][2]*(D[1][0]*D[2][1]-D[1][1]*D[2][0])
		if !(math.Abs(det) > degenerateRatio*lmax*lmax*lmax) {
			return nil, fmt.Errorf("tetrahedron %d (vertices %v) is degenerate: volume %.3g for a longest edge of %.3g", e, t, det/6, lmax)
		}
		if det < 0 {
			return nil, fmt.Errorf("tetrahedron %d (vertices %v) is inverted (volume %.3g < 0)", e, t, det/6)
		}
		// Rows of Dm⁻¹ = cofactor columns / det.
		var inv [3][3]float64
		inv[0][0] = (D[1][1]*D[2][2] - D[1][2]*D[2][1]) / det
		inv[0][1] = (D[0][2]*D[2][1] - D[0][1]*D[2][2]) / det
		inv[0][2] = (D[0][1]*D[1][2] - D[0][2]*D[1][1]) / det
		inv[1][0] = (D[1][2]*D[2][0] - D[1][0]*D[2][2]) / det
		inv[1][1] = (D[0][0]*D[2][2] - D[0][2]*D[2][0]) / det
		inv[1][2] = (D[0][2]*D[1][0] - D[0][0]*D[1][2]) / det
		inv[2][0] = (D[1][0]*D[2][1] - D[1][1]*D[2][0]) / det
		inv[2][1] = (D[0][1]*D[2][0] - D[0][0]*D[2][1]) / det
		inv[2][2] = (D[0][0]*D[1][1] - D[0][1]*D[1][0]) / det
		el := &out[e]
		el.Volume = det / 6
		for k := 0; k < 3; k++ {
			el.Grad[1][k], el.Grad[2][k], el.Grad[3][k] = inv[0][k], inv[1][k], inv[2][k]
			el.Grad[0][k] = -(inv[0][k] + inv[1][k] + inv[2][k])
		}
	}
	return out, nil
}

// PrecomputeOptions are the optional inputs of Precompute.
type PrecomputeOptions struct {
	// Group is the material group of each tetrahedron (nil: all in group
	// 0). Groups get separate λ and μ polynomials, so their Lamé
	// parameters can change at run time (Sec. 6.5).
	Group []int
	// NumGroups is the number of groups (0: 1 + the largest of Group).
	NumGroups int
	// Weight scales each tetrahedron's stiffness within its group
	// (e.g. Eₑ/E_group for a per-element Young's modulus); nil: 1.
	Weight []float64
	// Workers is the number of goroutines (0: runtime.GOMAXPROCS(0)). The
	// result does not depend on it, bit for bit.
	Workers int
	// Progress, if set, is called after each batch of elements with the
	// number of elements done and the total (from the worker goroutines,
	// one call at a time).
	Progress func(done, total int)
}

// Polynomials are the precomputed coefficients of a reduced StVK model:
// for each material group g, the Gram matrices Lambda[g] and Mu[g] (see
// the package documentation: the λ and μ parts of Γ with λ = μ = 1),
// symmetric of order M = R + R(R+1)/2, stored upper-packed
// (M(M+1)/2 numbers; entry (i, j), i ≤ j, at Pair(M, i, j)). Row and
// column a < R stand for the linear strain Lₐ of basis vector a, R + Pair(R, a, b) for the
// quadratic strain N_ab. A model with Lamé parameters (λ_g, μ_g) has
// Γ = Σ_g λ_g Lambda[g] + μ_g Mu[g].
type Polynomials struct {
	R      int
	Lambda [][]float64
	Mu     [][]float64
}

// Order returns M = R + R(R+1)/2, the order of the Gram matrices.
func (p *Polynomials) Order() int { return p.R + NumPairs(p.R) }

// NumGroups returns the number of material groups.
func (p *Polynomials) NumGroups() int { return len(p.Mu) }

// batchElements is the number of elements whose rows go into one syrk call
// (6 μ rows and 1 λ row each): large enough for BLAS efficiency, small
// enough that the row buffers (≈ 7·64·M numbers) stay in cache.
const batchElements = 64

// numParts is the fixed number of contiguous element ranges each group is
// cut into; each range accumulates into its own matrices, summed in range
// order, so the result does not depend on the number of workers.
const numParts = 4

// Precompute computes the reduced StVK polynomials of the mesh in the
// basis U, element by element (appendix B): each element adds a rank-7
// symmetric update to the Gram matrices of its group, built from its shape
// gradients and the basis at its four vertices; batches of elements are
// applied with blas64.Syrk, in parallel over fixed element ranges.
func Precompute(mesh Mesh, U *Basis, opt PrecomputeOptions) (*Polynomials, error) {
	np := mesh.NumPoints()
	if err := U.Check(np); err != nil {
		return nil, err
	}
	els, err := mesh.Elements()
	if err != nil {
		return nil, err
	}
	ne := len(els)
	if ne == 0 {
		return nil, fmt.Errorf("the mesh has no tetrahedra")
	}
	if opt.Group != nil && len(opt.Group) != ne {
		return nil, fmt.Errorf("%d group indices for %d tetrahedra", len(opt.Group), ne)
	}
	if opt.Weight != nil && len(opt.Weight) != ne {
		return nil, fmt.Errorf("%d weights for %d tetrahedra", len(opt.Weight), ne)
	}
	ng := opt.NumGroups
	for e := 0; e < ne && opt.Group != nil; e++ {
		g := opt.Group[e]
		if g < 0 || (opt.NumGroups > 0 && g >= opt.NumGroups) {
			return nil, fmt.Errorf("tetrahedron %d: group %d out of range", e, g)
		}
		ng = max(ng, g+1)
	}
	ng = max(ng, 1)
	for e, w := range opt.Weight {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("tetrahedron %d: weight %g must be finite and ≥ 0", e, w)
		}
	}
	r := U.R
	m := r + NumPairs(r)
	// Elements of each group, in mesh order.
	members := make([][]int32, ng)
	for e := 0; e < ne; e++ {
		g := 0
		if opt.Group != nil {
			g = opt.Group[e]
		}
		members[g] = append(members[g], int32(e))
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type task struct{ group, part int }
	var tasks []task
	for g := range members {
		for p := 0; p < numParts; p++ {
			tasks = append(tasks, task{g, p})
		}
	}
	// Per-task full (m×m, upper triangle used) accumulators; allocated by
	// the task, kept until its group is summed.
	accL := make([][]float64, len(tasks))
	accM := make([][]float64, len(tasks))
	var progressMu sync.Mutex
	done := 0
	report := func(n int) {
		if opt.Progress == nil {
			return
		}
		progressMu.Lock()
		done += n
		opt.Progress(done, ne)
		progressMu.Unlock()
	}
	next := make(chan int, len(tasks))
	for i := range tasks {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(tasks)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := newBatcher(r, U.U)
			for i := range next {
				t := tasks[i]
				list := members[t.group]
				lo, hi := len(list)*t.part/numParts, len(list)*(t.part+1)/numParts
				if lo == hi {
					continue
				}
				cl, cm := make([]float64, m*m), make([]float64, m*m)
				for s := lo; s < hi; s += batchElements {
					e1 := min(s+batchElements, hi)
					b.accumulate(els, mesh.Tets, list[s:e1], opt.Weight, cl, cm)
					report(e1 - s)
				}
				accL[i], accM[i] = cl, cm
			}
		}()
	}
	wg.Wait()
	poly := &Polynomials{R: r, Lambda: make([][]float64, ng), Mu: make([][]float64, ng)}
	for g := 0; g < ng; g++ {
		pl, pm := make([]float64, m*(m+1)/2), make([]float64, m*(m+1)/2)
		for i, t := range tasks {
			if t.group != g || accL[i] == nil {
				continue
			}
			addUpperPacked(pl, accL[i], m)
			addUpperPacked(pm, accM[i], m)
			accL[i], accM[i] = nil, nil
		}
		poly.Lambda[g], poly.Mu[g] = pl, pm
	}
	return poly, nil
}

// addUpperPacked adds the upper triangle of the full m×m row-major matrix
// a to the upper-packed p.
func addUpperPacked(p, a []float64, m int) {
	k := 0
	for i := 0; i < m; i++ {
		row := a[i*m+i : i*m+m]
		dst := p[k : k+len(row)]
		for j, v := range row {
			dst[j] += v
		}
		k += len(row)
	}
}

// batcher builds the rows of a batch of elements and applies them.
type batcher struct {
	r, m    int
	basis   []float64
	rowsMu  []float64 // 6 rows per element, m numbers each
	rowsLam []float64 // 1 row per element
	g       []float64 // 9 per basis vector: displacement gradient Gᵢ (row-major)
}

func newBatcher(r int, basis []float64) *batcher {
	m := r + NumPairs(r)
	return &batcher{r: r, m: m, basis: basis,
		rowsMu:  make([]float64, 6*batchElements*m),
		rowsLam: make([]float64, batchElements*m),
		g:       make([]float64, 9*r)}
}

// accumulate adds to the (upper triangles of the) Gram matrices cl (λ
// part) and cm (μ part) the contributions of the elements list.
func (b *batcher) accumulate(els []Element, tets [][4]int, list []int32, weight []float64, cl, cm []float64) {
	m := b.m
	for k, e := range list {
		w := 1.0
		if weight != nil {
			w = weight[e]
		}
		vol := els[e].Volume * w
		b.elementRows(&els[e], tets[e], math.Sqrt(2*vol), math.Sqrt(vol),
			b.rowsMu[6*k*m:6*(k+1)*m], b.rowsLam[k*m:(k+1)*m])
	}
	n := len(list)
	aMu := blas64.General{Rows: 6 * n, Cols: m, Stride: m, Data: b.rowsMu[:6*n*m]}
	aLam := blas64.General{Rows: n, Cols: m, Stride: m, Data: b.rowsLam[:n*m]}
	blas64.Syrk(blas.Trans, 1, aMu, 1, blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: cm})
	blas64.Syrk(blas.Trans, 1, aLam, 1, blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: cl})
}

// elementRows writes the 6 μ rows (sMu times the components
// A00, A11, A22, √2 A01, √2 A02, √2 A12 of each Lₐ and N_ab, so that
// row·row = A:B) and the λ row (sLam times tr Lₐ, tr N_ab) of one element.
func (b *batcher) elementRows(el *Element, t [4]int, sMu, sLam float64, mu, lam []float64) {
	r, m := b.r, b.m
	G := b.g
	// Gᵢ[k][l] = Σₐ U(3vₐ+k, i) ∇Nₐ[l].
	for i := 0; i < r; i++ {
		gi := G[9*i : 9*i+9 : 9*i+9]
		for k := 0; k < 9; k++ {
			gi[k] = 0
		}
		for a := 0; a < 4; a++ {
			row := 3 * t[a]
			u0, u1, u2 := b.basis[row*r+i], b.basis[(row+1)*r+i], b.basis[(row+2)*r+i]
			d := &el.Grad[a]
			for l := 0; l < 3; l++ {
				gi[l] += u0 * d[l]
				gi[3+l] += u1 * d[l]
				gi[6+l] += u2 * d[l]
			}
		}
	}
	const s2 = math.Sqrt2
	m0, m1, m2, m3, m4, m5 := mu[0:m:m], mu[m:2*m:2*m], mu[2*m:3*m:3*m], mu[3*m:4*m:4*m], mu[4*m:5*m:5*m], mu[5*m:6*m:6*m]
	lr := lam[:m:m]
	for i := 0; i < r; i++ {
		g := G[9*i : 9*i+9 : 9*i+9]
		m0[i] = sMu * g[0]
		m1[i] = sMu * g[4]
		m2[i] = sMu * g[8]
		m3[i] = sMu * s2 * 0.5 * (g[1] + g[3])
		m4[i] = sMu * s2 * 0.5 * (g[2] + g[6])
		m5[i] = sMu * s2 * 0.5 * (g[5] + g[7])
		lr[i] = sLam * (g[0] + g[4] + g[8])
	}
	c := r
	for i := 0; i < r; i++ {
		a := G[9*i : 9*i+9 : 9*i+9]
		for j := i; j < r; j++ {
			bb := G[9*j : 9*j+9 : 9*j+9]
			// (AᵀB)[k][l] = Σ_p A[p][k] B[p][l]; N = sym(AᵀB).
			n00 := a[0]*bb[0] + a[3]*bb[3] + a[6]*bb[6]
			n11 := a[1]*bb[1] + a[4]*bb[4] + a[7]*bb[7]
			n22 := a[2]*bb[2] + a[5]*bb[5] + a[8]*bb[8]
			n01 := 0.5 * (a[0]*bb[1] + a[3]*bb[4] + a[6]*bb[7] + bb[0]*a[1] + bb[3]*a[4] + bb[6]*a[7])
			n02 := 0.5 * (a[0]*bb[2] + a[3]*bb[5] + a[6]*bb[8] + bb[0]*a[2] + bb[3]*a[5] + bb[6]*a[8])
			n12 := 0.5 * (a[1]*bb[2] + a[4]*bb[5] + a[7]*bb[8] + bb[1]*a[2] + bb[4]*a[5] + bb[7]*a[8])
			m0[c] = sMu * n00
			m1[c] = sMu * n11
			m2[c] = sMu * n22
			m3[c] = sMu * s2 * n01
			m4[c] = sMu * s2 * n02
			m5[c] = sMu * s2 * n12
			lr[c] = sLam * (n00 + n11 + n22)
			c++
		}
	}
}
