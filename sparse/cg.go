package sparse

import (
	"fmt"
	"math"
)

// Operator is a linear map y = A·x (a *CSR, or a matrix-free product).
type Operator interface {
	MulVec(y, x []float64)
}

// Preconditioner applies z = P⁻¹·r for an approximation P of A.
type Preconditioner interface {
	Apply(z, r []float64)
}

// Jacobi is the diagonal preconditioner z = r / diag(A).
type Jacobi struct {
	inv []float64
}

// NewJacobi returns the Jacobi preconditioner of A; it fails on a
// non-positive diagonal entry.
func NewJacobi(a *CSR) (*Jacobi, error) {
	d := a.Diagonal()
	for i, v := range d {
		if !(v > 0) {
			return nil, fmt.Errorf("sparse: Jacobi: diagonal entry %d is %g (want > 0)", i, v)
		}
		d[i] = 1 / v
	}
	return &Jacobi{inv: d}, nil
}

// Apply implements Preconditioner.
func (j *Jacobi) Apply(z, r []float64) {
	for i, d := range j.inv {
		z[i] = r[i] * d
	}
}

// IncompleteCholesky is the zero-fill incomplete Cholesky factor IC(0) of
// a symmetric A: L has the pattern of A's lower triangle and LLᵀ matches A
// there; z = (LLᵀ)⁻¹·r. When a pivot is not positive (IC(0) can break
// down on matrices that are not M-matrices, such as elasticity
// stiffnesses) the factorisation restarts on A + α·diag(A) with α = 1e-3,
// then doubling (Manteuffel 1980), so it succeeds for any A with a
// positive diagonal; Shift reports the α used.
type IncompleteCholesky struct {
	n      int
	rowPtr []int // lower triangle by rows, diagonal last in each row
	col    []int
	val    []float64
	Shift  float64
	// Scratch of factor, kept for Refactor: the diagonal of A and the
	// position of each column in the current row (−1 when absent).
	diag []float64
	pos  []int
	// The pattern of A the factor's was taken from (for Refactor).
	aRowPtr, aCol []int
}

// NewIncompleteCholesky computes IC(0) of the symmetric matrix A.
func NewIncompleteCholesky(a *CSR) (*IncompleteCholesky, error) {
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("sparse: IC(0) of a %d×%d matrix", a.Rows, a.Cols)
	}
	n := a.Rows
	ic := &IncompleteCholesky{n: n, rowPtr: make([]int, n+1)}
	diag := a.Diagonal()
	for i := 0; i < n; i++ {
		if !(diag[i] > 0) {
			return nil, fmt.Errorf("sparse: IC(0): diagonal entry %d is %g (want > 0)", i, diag[i])
		}
		for k := a.RowPtr[i]; k < a.RowPtr[i+1] && a.Col[k] <= i; k++ {
			if a.Col[k] < i {
				ic.col = append(ic.col, a.Col[k])
			}
		}
		ic.col = append(ic.col, i)
		ic.rowPtr[i+1] = len(ic.col)
	}
	ic.val = make([]float64, len(ic.col))
	ic.diag = diag
	ic.pos = make([]int, n)
	for i := range ic.pos {
		ic.pos[i] = -1
	}
	ic.aRowPtr, ic.aCol = a.RowPtr, a.Col
	if err := ic.factorShifted(a); err != nil {
		return nil, err
	}
	return ic, nil
}

// Refactor recomputes the factor for a matrix with the pattern of the one
// it was built from (the same RowPtr and Col slices, or equal ones),
// reusing every buffer: an iterative solver that refreshes its
// preconditioner at every step allocates nothing.
func (ic *IncompleteCholesky) Refactor(a *CSR) error {
	if a.Rows != ic.n || len(a.Col) != len(ic.aCol) || len(a.RowPtr) != len(ic.aRowPtr) {
		return fmt.Errorf("sparse: IC(0) Refactor: pattern differs from the factored one")
	}
	if &a.Col[0] != &ic.aCol[0] || &a.RowPtr[0] != &ic.aRowPtr[0] {
		for i, p := range a.RowPtr {
			if ic.aRowPtr[i] != p {
				return fmt.Errorf("sparse: IC(0) Refactor: pattern differs from the factored one (row %d)", i)
			}
		}
		for k, c := range a.Col {
			if ic.aCol[k] != c {
				return fmt.Errorf("sparse: IC(0) Refactor: pattern differs from the factored one (entry %d)", k)
			}
		}
	}
	for i := 0; i < ic.n; i++ {
		ic.diag[i] = a.At(i, i)
		if !(ic.diag[i] > 0) {
			return fmt.Errorf("sparse: IC(0): diagonal entry %d is %g (want > 0)", i, ic.diag[i])
		}
	}
	return ic.factorShifted(a)
}

// factorShifted factors A, shifting the diagonal when a pivot fails.
func (ic *IncompleteCholesky) factorShifted(a *CSR) error {
	diag := ic.diag
	for alpha := 0.0; ; {
		if ic.factor(a, diag, alpha) {
			ic.Shift = alpha
			return nil
		}
		if alpha == 0 {
			alpha = 1e-3
		} else {
			alpha *= 2
		}
		if alpha > 1e3 {
			return fmt.Errorf("sparse: IC(0) failed even with a diagonal shift of %g", alpha)
		}
	}
}

// factor runs the row-oriented IC(0) (up-looking: row i of L from the rows
// of its columns) on A + alpha·diag(A); false on a non-positive pivot.
func (ic *IncompleteCholesky) factor(a *CSR, diag []float64, alpha float64) bool {
	n := ic.n
	// Scatter of the current row: position in row i by column (all −1
	// between rows).
	pos := ic.pos
	for i := 0; i < n; i++ {
		lo, hi := ic.rowPtr[i], ic.rowPtr[i+1]
		for k := lo; k < hi; k++ {
			ic.val[k] = 0
			pos[ic.col[k]] = k
		}
		for k := a.RowPtr[i]; k < a.RowPtr[i+1] && a.Col[k] <= i; k++ {
			ic.val[pos[a.Col[k]]] = a.Val[k]
		}
		ic.val[hi-1] += alpha * diag[i]
		// For each j < i in the row: l_ij = (a_ij − Σ_{k<j} l_ik l_jk) / l_jj.
		for k := lo; k < hi-1; k++ {
			j := ic.col[k]
			v := ic.val[k]
			jlo, jhi := ic.rowPtr[j], ic.rowPtr[j+1]
			for q := jlo; q < jhi-1; q++ {
				if p := pos[ic.col[q]]; p >= 0 && p < k {
					v -= ic.val[p] * ic.val[q]
				}
			}
			ic.val[k] = v / ic.val[jhi-1]
		}
		d := ic.val[hi-1]
		for k := lo; k < hi-1; k++ {
			d -= ic.val[k] * ic.val[k]
		}
		for k := lo; k < hi; k++ {
			pos[ic.col[k]] = -1
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return false
		}
		ic.val[hi-1] = math.Sqrt(d)
	}
	return true
}

// Apply implements Preconditioner: z = (LLᵀ)⁻¹ r.
func (ic *IncompleteCholesky) Apply(z, r []float64) {
	n := ic.n
	copy(z, r[:n])
	for i := 0; i < n; i++ {
		lo, hi := ic.rowPtr[i], ic.rowPtr[i+1]
		v := z[i]
		for k := lo; k < hi-1; k++ {
			v -= ic.val[k] * z[ic.col[k]]
		}
		z[i] = v / ic.val[hi-1]
	}
	for i := n - 1; i >= 0; i-- {
		lo, hi := ic.rowPtr[i], ic.rowPtr[i+1]
		z[i] /= ic.val[hi-1]
		v := z[i]
		for k := lo; k < hi-1; k++ {
			z[ic.col[k]] -= ic.val[k] * v
		}
	}
}

// CGOptions controls CG.
type CGOptions struct {
	// Tol is the relative residual |b − Ax| / |b| to reach (default 1e-10).
	Tol float64
	// MaxIter bounds the iterations (default: the dimension, at least 100).
	MaxIter int
}

// CGResult reports a CG solve.
type CGResult struct {
	Iterations int
	Residual   float64 // final |b − Ax| / |b| (recomputed, not the recursive estimate)
	Converged  bool
}

// CG solves A·x = b for a symmetric positive definite operator with the
// preconditioned conjugate gradient method (Hestenes & Stiefel 1952;
// Saad, "Iterative methods for sparse linear systems", Alg. 9.1),
// starting from the x given (zeros for no guess). pre may be nil (no
// preconditioning). Convergence is tested on the recursive residual and
// confirmed on the true one (recomputed at the end; if it disagrees, the
// iteration resumes from the true residual).
func CG(a Operator, x, b []float64, pre Preconditioner, opt CGOptions) CGResult {
	n := len(b)
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-10
	}
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = max(n, 100)
	}
	bn := math.Sqrt(dotv(b, b))
	if bn == 0 {
		clear(x)
		return CGResult{Converged: true}
	}
	r := make([]float64, n)
	z := make([]float64, n)
	p := make([]float64, n)
	q := make([]float64, n)
	res := CGResult{}
	for restart := 0; restart < 3; restart++ {
		a.MulVec(r, x)
		for i := range r {
			r[i] = b[i] - r[i]
		}
		if math.Sqrt(dotv(r, r)) <= tol*bn {
			break
		}
		precond(pre, z, r)
		copy(p, z)
		rz := dotv(r, z)
		for res.Iterations < maxIter {
			a.MulVec(q, p)
			pq := dotv(p, q)
			if !(pq > 0) {
				break // breakdown: A not positive definite along p
			}
			alpha := rz / pq
			for i := range x {
				x[i] += alpha * p[i]
				r[i] -= alpha * q[i]
			}
			res.Iterations++
			if math.Sqrt(dotv(r, r)) <= tol*bn {
				break
			}
			precond(pre, z, r)
			rz1 := dotv(r, z)
			beta := rz1 / rz
			rz = rz1
			for i := range p {
				p[i] = z[i] + beta*p[i]
			}
		}
		if res.Iterations >= maxIter {
			break
		}
	}
	a.MulVec(r, x)
	for i := range r {
		r[i] = b[i] - r[i]
	}
	res.Residual = math.Sqrt(dotv(r, r)) / bn
	res.Converged = res.Residual <= tol
	return res
}

func precond(pre Preconditioner, z, r []float64) {
	if pre == nil {
		copy(z, r)
		return
	}
	pre.Apply(z, r)
}

func dotv(a, b []float64) float64 {
	s := 0.0
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
