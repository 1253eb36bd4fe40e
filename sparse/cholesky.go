package sparse

import (
	"errors"
	"fmt"
)

// Symbolic is the analysis of a symmetric sparsity pattern for the
// Cholesky factorisation: the fill-reducing ordering, the elimination tree
// postordered, the supernodes (groups of consecutive columns of L with the
// same structure below the diagonal, relaxed so that small ones merge with
// a few explicit zeros) and their row structures. It depends on the
// pattern only, so K − σM for several σ, or K at several load levels,
// reuse one analysis.
type Symbolic struct {
	n int
	// TODO(6a): fields
}

// N returns the matrix dimension.
func (s *Symbolic) N() int { return s.n }

// NnzL returns the number of entries stored in L (its lower triangle,
// including the explicit zeros of relaxed supernodes).
func (s *Symbolic) NnzL() int64 { return 0 }

// Flops returns the floating-point operations of one numeric
// factorisation (multiplies and adds).
func (s *Symbolic) Flops() float64 { return 0 }

// Supernodes returns the number of supernodes.
func (s *Symbolic) Supernodes() int { return 0 }

// Perm returns the ordering: Perm()[k] is the original index of the k-th
// pivot (not a copy).
func (s *Symbolic) Perm() []int { return nil }

// Analyze computes the symbolic factorisation of the symmetric matrix A
// (both triangles stored; only the pattern is read) with the ordering
// perm (perm[k] = original index of the k-th pivot), or MinimumDegree(A)
// when perm is nil.
func Analyze(a *CSR, perm []int) (*Symbolic, error) {
	return nil, errors.New("sparse: Analyze not implemented yet") // TODO(6a)
}

// Cholesky is the numeric factorisation P·A·Pᵀ = L·Lᵀ of a symmetric
// positive definite matrix, stored by supernodes (dense column blocks).
// Solve is safe for concurrent use by several goroutines.
type Cholesky struct {
	sym *Symbolic
	// TODO(6a): fields
}

// NotPositiveDefiniteError reports a pivot that is not positive: the
// matrix is singular or indefinite (e.g. K of an unconstrained body, or
// K − σM with σ above the lowest eigenvalue).
type NotPositiveDefiniteError struct {
	Column int     // original index of the column whose pivot failed
	Pivot  float64 // the pivot value d (d ≤ 0 or not finite)
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("sparse: matrix is not positive definite: pivot %g at column %d", e.Pivot, e.Column)
}

// Factor computes the numeric Cholesky factorisation of A, which must
// have the pattern s was analysed for (entries outside it are an error;
// missing entries are zeros). It fails with *NotPositiveDefiniteError
// when A is not positive definite. The dense kernels run on gonum's BLAS.
func (s *Symbolic) Factor(a *CSR) (*Cholesky, error) {
	return nil, errors.New("sparse: Factor not implemented yet") // TODO(6a)
}

// Factorize is Analyze(a, nil) followed by Factor(a).
func Factorize(a *CSR) (*Cholesky, error) {
	s, err := Analyze(a, nil)
	if err != nil {
		return nil, err
	}
	return s.Factor(a)
}

// Symbolic returns the analysis the factor was computed with.
func (c *Cholesky) Symbolic() *Symbolic { return c.sym }

// Solve sets x = A⁻¹·b (x and b may be the same slice).
func (c *Cholesky) Solve(x, b []float64) {} // TODO(6a)

// Apply implements Preconditioner with the exact inverse: z = A⁻¹·r.
func (c *Cholesky) Apply(z, r []float64) { c.Solve(z, r) }

// MulLT sets z = Lᵀ·P·x, so that xᵀAx = |z|² (the change of variables of
// mass-scaled PCA, Barbič & James 2005 appendix A, with A = M).
func (c *Cholesky) MulLT(z, x []float64) {} // TODO(6a)

// SolveLT sets x = Pᵀ·L⁻ᵀ·z, the inverse of MulLT.
func (c *Cholesky) SolveLT(x, z []float64) {} // TODO(6a)
