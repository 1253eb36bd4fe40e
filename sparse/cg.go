package sparse

import "errors"

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
	return nil, errors.New("sparse: NewJacobi not implemented yet") // TODO(6a)
}

// Apply implements Preconditioner.
func (j *Jacobi) Apply(z, r []float64) {
	for i, d := range j.inv {
		z[i] = r[i] * d
	}
}

// IncompleteCholesky is the zero-fill incomplete Cholesky factor IC(0) of
// A (L on the lower pattern of A), z = (LLᵀ)⁻¹·r. When a pivot fails the
// factorisation restarts on A + αdiag(A) with growing α (Manteuffel's
// shift), so it always succeeds on a matrix with a positive diagonal.
type IncompleteCholesky struct {
	// TODO(6a)
}

// NewIncompleteCholesky computes IC(0) of the symmetric matrix A.
func NewIncompleteCholesky(a *CSR) (*IncompleteCholesky, error) {
	return nil, errors.New("sparse: NewIncompleteCholesky not implemented yet") // TODO(6a)
}

// Apply implements Preconditioner.
func (ic *IncompleteCholesky) Apply(z, r []float64) {} // TODO(6a)

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
// preconditioned conjugate gradient method, starting from the x given
// (use zeros for no guess). pre may be nil (no preconditioning).
func CG(a Operator, x, b []float64, pre Preconditioner, opt CGOptions) CGResult {
	return CGResult{} // TODO(6a)
}
