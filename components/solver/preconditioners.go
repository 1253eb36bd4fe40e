package solver

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// The preconditioners of PCGLinearSolver, on the flat unknowns of a
// blockSystem (3 per block row). Each applies z = P⁻¹ r for a symmetric
// positive definite P; the solver zeroes the fixed components of z
// afterwards, so that the preconditioned iteration stays in the subspace
// the constraints leave free.

// jacobiPrecond is z = r / diag(A).
type jacobiPrecond struct{ inv []float64 }

// setFromBSR takes the diagonal of A (which must be positive; the fixed
// rows carry 1).
func (j *jacobiPrecond) setFromBSR(A *sparse.BSR3) error {
	n := 3 * A.N
	if len(j.inv) != n {
		j.inv = make([]float64, n)
	}
	for i := 0; i < A.N; i++ {
		d := A.DiagonalBlock(i)
		for c := 0; c < 3; c++ {
			v := d[4*c]
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("Jacobi preconditioner: diagonal entry %d is %g (want > 0)", 3*i+c, v)
			}
			j.inv[3*i+c] = 1 / v
		}
	}
	return nil
}

// setApproximate takes the diagonal of an incomplete assembly (the parts
// of the system that can be assembled): entries that are not positive
// (DOFs whose mass and stiffness all come through mappings) get the mean
// of the positive ones, or 1 if there is none.
func (j *jacobiPrecond) setApproximate(A *sparse.BSR3) {
	n := 3 * A.N
	if len(j.inv) != n {
		j.inv = make([]float64, n)
	}
	sum, cnt := 0.0, 0
	for i := 0; i < A.N; i++ {
		d := A.DiagonalBlock(i)
		for c := 0; c < 3; c++ {
			if v := d[4*c]; v > 0 && !math.IsInf(v, 0) {
				sum += v
				cnt++
			}
		}
	}
	mean := 1.0
	if cnt > 0 {
		mean = sum / float64(cnt)
	}
	for i := 0; i < A.N; i++ {
		d := A.DiagonalBlock(i)
		for c := 0; c < 3; c++ {
			v := d[4*c]
			if !(v > 0) || math.IsInf(v, 0) {
				v = mean
			}
			j.inv[3*i+c] = 1 / v
		}
	}
}

func (j *jacobiPrecond) apply(z, r []float64) {
	inv := j.inv[:len(r)]
	for i, v := range r {
		z[i] = v * inv[i]
	}
}

// blockJacobiPrecond is z_i = A_ii⁻¹ r_i with A_ii the diagonal block of
// each DOF (SOFA's BlockJacobiPreconditioner, whose blocks are the DOFs'):
// 3×3 for a point, where it captures the coupling of a point's three
// directions that Jacobi ignores (strong in stretched or rotated
// elements); the whole DerivSize×DerivSize block for DOFs of a multiple of
// 3 numbers (6×6 rigid frames, 12×12 affine frames and GMLS nodes, 30×30
// quadratic ones), which couples a node's position with its gradient;
// 3×3 blocks of the matrix for states of other sizes.
type blockJacobiPrecond struct {
	inv []float64 // 3×3 blocks: 9 per block row (rows in a larger block unused)
	// Larger blocks: scalar start and size, the Cholesky factor of each
	// (size² numbers at fac[facOff[b]:], lower triangle, row-major).
	start, size, facOff []int
	fac                 []float64
	big                 []bool // per block row: inside a larger block (scratch of set)
}

// set computes the blocks of A; sys gives the DOF sizes of its states.
func (b *blockJacobiPrecond) set(A *sparse.BSR3, sys *blockSystem) error {
	if len(b.inv) != 9*A.N {
		b.inv = make([]float64, 9*A.N)
	}
	b.start, b.size, b.facOff, b.fac = b.start[:0], b.size[:0], b.facOff[:0], b.fac[:0]
	b.big = resize(b.big, A.N)
	big := b.big
	clear(big)
	for si, st := range sys.states {
		d := st.Template().DerivSize()
		if d <= 3 || d%3 != 0 || sys.offsets[si]%3 != 0 || 3*A.N < sys.offsets[si]+sys.sizes[si] {
			continue
		}
		for o := sys.offsets[si]; o+d <= sys.offsets[si]+sys.sizes[si]; o += d {
			b.start = append(b.start, o)
			b.size = append(b.size, d)
			b.facOff = append(b.facOff, len(b.fac))
			b.fac = append(b.fac, make([]float64, d*d)...)
			for i := o / 3; i < (o+d)/3; i++ {
				big[i] = true
			}
		}
	}
	for q, o := range b.start {
		if err := b.factorBlock(A, o, b.size[q], b.fac[b.facOff[q]:b.facOff[q]+b.size[q]*b.size[q]]); err != nil {
			return err
		}
	}
	for i := 0; i < A.N; i++ {
		if big[i] {
			continue
		}
		m := geom.Mat3(A.DiagonalBlock(i))
		// A_ii is symmetric positive definite for an SPD A: its
		// Cholesky exists; the inverse by cofactors is exact enough.
		if !(m[0] > 0) || !(m[0]*m[4]-m[1]*m[3] > 0) || !(m.Det() > 0) {
			return fmt.Errorf("block-Jacobi preconditioner: diagonal block %d is not positive definite", i)
		}
		inv, _ := m.Inverse()
		copy(b.inv[9*i:9*i+9], inv[:])
	}
	return nil
}

// factorBlock writes the Cholesky factor of the symmetric part of A's
// d×d diagonal block at scalar o into L.
func (b *blockJacobiPrecond) factorBlock(A *sparse.BSR3, o, d int, L []float64) error {
	bi := o / 3
	nb := d / 3
	for i := bi; i < bi+nb; i++ {
		for p := A.RowPtr[i]; p < A.RowPtr[i+1]; p++ {
			j := int(A.Col[p])
			if j < bi || j >= bi+nb {
				continue
			}
			v := A.Val[9*int(p) : 9*int(p)+9]
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					L[(3*(i-bi)+r)*d+3*(j-bi)+c] += 0.5 * v[3*r+c]
					L[(3*(j-bi)+c)*d+3*(i-bi)+r] += 0.5 * v[3*r+c]
				}
			}
		}
	}
	for j := 0; j < d; j++ {
		s := L[j*d+j]
		for k := 0; k < j; k++ {
			s -= L[j*d+k] * L[j*d+k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("block-Jacobi preconditioner: the %d×%d diagonal block at unknown %d is not positive definite", d, d, o)
		}
		ljj := math.Sqrt(s)
		L[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			s := L[i*d+j]
			for k := 0; k < j; k++ {
				s -= L[i*d+k] * L[j*d+k]
			}
			L[i*d+j] = s / ljj
		}
	}
	return nil
}

func (b *blockJacobiPrecond) apply(z, r []float64) {
	q := 0
	for i := 0; 3*i < len(r); i++ {
		if q < len(b.start) && 3*i == b.start[q] {
			d := b.size[q]
			L := b.fac[b.facOff[q] : b.facOff[q]+d*d]
			zs, rs := z[3*i:3*i+d], r[3*i:3*i+d]
			for a := 0; a < d; a++ { // L y = r
				s := rs[a]
				for k := 0; k < a; k++ {
					s -= L[a*d+k] * zs[k]
				}
				zs[a] = s / L[a*d+a]
			}
			for a := d - 1; a >= 0; a-- { // Lᵀ z = y
				s := zs[a]
				for k := a + 1; k < d; k++ {
					s -= L[k*d+a] * zs[k]
				}
				zs[a] = s / L[a*d+a]
			}
			i += d/3 - 1
			q++
			continue
		}
		m := b.inv[9*i : 9*i+9 : 9*i+9]
		rs := r[3*i : 3*i+3 : 3*i+3]
		zs := z[3*i : 3*i+3 : 3*i+3]
		r0, r1, r2 := rs[0], rs[1], rs[2]
		zs[0] = m[0]*r0 + m[1]*r1 + m[2]*r2
		zs[1] = m[3]*r0 + m[4]*r1 + m[5]*r2
		zs[2] = m[6]*r0 + m[7]*r1 + m[8]*r2
	}
}

// warpPrecond is SOFA's WarpPreconditioner: a sparse Cholesky factor of
// the system A₀ assembled at a reference configuration, applied in the
// frames the points have turned by since: with Rᵢ the current rotation
// of point i (graph.PointRotations) and R⁰ᵢ the one at the reference,
// Wᵢ = Rᵢ R⁰ᵢᵀ and P = W A₀ Wᵀ, so
//
//	z = W A₀⁻¹ Wᵀ r.
//
// For a body that has only rotated rigidly since the reference, P is the
// system itself. It is refactorised (the reference moved to the current
// configuration) when some point has turned by more than a threshold
// angle since the reference, or when the system's factors m, b, k, its
// pattern or its fixed DOFs change.
type warpPrecond struct {
	chol      *sparse.Cholesky // the factor (nil: none valid)
	store     *sparse.Cholesky // its storage, reused by every refactorisation
	sym       *sparse.Symbolic
	csr       *sparse.CSR
	csrFor    *sparse.BSR3
	symm      symmetrizer
	r0, rcur  []float64 // 9 per block row (identity where no rotation is known)
	w         []float64 // Wᵢ = Rᵢ R⁰ᵢᵀ
	t, y      []float64
	covered   []bool // block rows whose rotation is known
	factors   [3]float64
	fixedFor  []bool
	refactors int
	drift     float64 // largest rotation angle of the last apply's W
}

// providers returns, per independent state, the force field giving its
// point rotations (nil for a state with none: non-Vec3 states keep the
// identity; with none at all, the preconditioner is the reference
// system's factor itself).
func warpProviders(sys *blockSystem) ([]graph.PointRotations, error) {
	out := make([]graph.PointRotations, len(sys.states))
	for si, st := range sys.states {
		if st.Template().DerivSize() != 3 || st.Template().CoordSize() != 3 {
			continue
		}
		for _, o := range st.Base().Node.Objects {
			if pr, ok := o.(graph.PointRotations); ok {
				out[si] = pr
				break
			}
		}
	}
	return out, nil
}

// rotations fills rcur (and covered) from the providers.
func (w *warpPrecond) rotations(sys *blockSystem, prov []graph.PointRotations) {
	nb := sys.n / 3
	if len(w.rcur) != 9*nb {
		w.rcur = make([]float64, 9*nb)
		w.r0 = make([]float64, 9*nb)
		w.w = make([]float64, 9*nb)
		w.covered = make([]bool, nb)
		w.t = make([]float64, sys.n)
		w.y = make([]float64, sys.n)
	}
	id := geom.Identity3()
	for i := 0; i < nb; i++ {
		copy(w.rcur[9*i:9*i+9], id[:])
		w.covered[i] = false
	}
	for si, pr := range prov {
		if pr == nil {
			continue
		}
		b0 := sys.offsets[si] / 3
		np := sys.sizes[si] / 3
		if pr.PointRotations(w.rcur[9*b0 : 9*(b0+np)]) {
			for i := b0; i < b0+np; i++ {
				w.covered[i] = true
			}
		}
	}
}

// maxDrift returns the largest angle of Rᵢ R⁰ᵢᵀ and sets w.w.
func (w *warpPrecond) maxDrift() float64 {
	worst := 0.0
	for i := range w.covered {
		R := (*geom.Mat3)(w.rcur[9*i : 9*i+9])
		R0 := (*geom.Mat3)(w.r0[9*i : 9*i+9])
		W := R.MulT(*R0)
		copy(w.w[9*i:9*i+9], W[:])
		c := math.Max(-1, math.Min(1, 0.5*(W.Trace()-1)))
		worst = math.Max(worst, math.Acos(c))
	}
	return worst
}

// factor factorises A (the system at the current configuration; its
// symmetric part when symmetrize) and makes the current rotations the
// reference.
func (w *warpPrecond) factor(A *sparse.BSR3, m, b, k float64, fixed []bool, symmetrize bool) error {
	if w.csrFor != A || w.csr == nil || len(w.csr.Val) != len(A.Val) {
		w.csr = A.ToCSR()
		w.csrFor = A
		w.sym = nil
	} else {
		A.CopyToCSR(w.csr)
	}
	if symmetrize {
		w.symm.apply(w.csr) // the factor of the symmetric part
	}
	if w.sym == nil {
		sym, err := sparse.Analyze(w.csr, nil)
		if err != nil {
			return fmt.Errorf("warp preconditioner: symbolic analysis: %w", err)
		}
		w.sym = sym
	}
	if w.store == nil {
		w.store = &sparse.Cholesky{}
	}
	w.chol = nil
	if err := w.sym.FactorInto(w.store, w.csr); err != nil {
		return fmt.Errorf("warp preconditioner: factorising the reference system: %w", err)
	}
	w.chol = w.store
	copy(w.r0, w.rcur)
	w.factors = [3]float64{m, b, k}
	w.fixedFor = append(w.fixedFor[:0], fixed...)
	w.refactors++
	return nil
}

func (w *warpPrecond) apply(z, r []float64) {
	t, y := w.t, w.y
	// t = Wᵀ r per point, y = A₀⁻¹ t, z = W y.
	for i := range w.covered {
		m := w.w[9*i : 9*i+9 : 9*i+9]
		rs := r[3*i : 3*i+3 : 3*i+3]
		r0, r1, r2 := rs[0], rs[1], rs[2]
		t[3*i] = m[0]*r0 + m[3]*r1 + m[6]*r2
		t[3*i+1] = m[1]*r0 + m[4]*r1 + m[7]*r2
		t[3*i+2] = m[2]*r0 + m[5]*r1 + m[8]*r2
	}
	w.chol.Solve(y, t)
	for i := range w.covered {
		m := w.w[9*i : 9*i+9 : 9*i+9]
		ys := y[3*i : 3*i+3 : 3*i+3]
		y0, y1, y2 := ys[0], ys[1], ys[2]
		z[3*i] = m[0]*y0 + m[1]*y1 + m[2]*y2
		z[3*i+1] = m[3]*y0 + m[4]*y1 + m[5]*y2
		z[3*i+2] = m[6]*y0 + m[7]*y1 + m[8]*y2
	}
}
