package modal

import (
	"errors"
	"math"

	"github.com/sofago/sofago/sparse"
)

// EigenOptions controls the eigensolvers.
type EigenOptions struct {
	// Shift is σ of the shift-invert operator (K − σM)⁻¹M; NaN (the
	// default from DefaultEigenOptions) chooses it: 0 for a constrained
	// body, a small negative value (below the rigid modes' 0) for a free
	// one. It must lie below the smallest eigenvalue for the Cholesky
	// factorisation of K − σM to exist.
	Shift float64
	// Tol is the relative residual |Kψ − λMψ|_{M⁻¹} / λ below which a
	// Ritz pair counts as converged (default 1e-10).
	Tol float64
	// MaxBasis bounds the Krylov basis size (default max(4k + 40, 100),
	// capped by the dimension).
	MaxBasis int
	// Dense forces the dense path (gonum, O(n³)): for small problems and
	// cross-checks.
	Dense bool
	// Progress, if not nil, is called with the basis size reached and the
	// bound MaxBasis.
	Progress func(done, total int)
}

// DefaultEigenOptions returns the defaults (automatic shift).
func DefaultEigenOptions() EigenOptions {
	return EigenOptions{Shift: math.NaN(), Tol: 1e-10}
}

// Modes are linear vibration modes: K ψᵢ = λᵢ M ψᵢ, ψᵢᵀ M ψⱼ = δᵢⱼ.
type Modes struct {
	// Values are the eigenvalues λᵢ (rad²/s²), ascending.
	Values []float64
	// Vectors are the full mass-normalised mode shapes ψᵢ (zero at fixed
	// DOFs). The sign makes the entry of largest magnitude positive
	// (lowest index on ties), VegaFEM's reference convention.
	Vectors [][]float64
	// Rigid is the number of rigid-body modes dropped (0 for a
	// constrained body, 6 for a free one), with their eigenvalues.
	Rigid       int
	RigidValues []float64
}

// Frequencies returns √λᵢ / 2π in Hz.
func (m *Modes) Frequencies() []float64 {
	f := make([]float64, len(m.Values))
	for i, l := range m.Values {
		f[i] = math.Sqrt(math.Max(l, 0)) / (2 * math.Pi)
	}
	return f
}

// LinearModes returns the k lowest non-rigid linear modes of sys (Barbič &
// James 2005, Sec. 5.1): for an unconstrained body the k + 6 lowest are
// computed and the six rigid modes (λ ≈ 0) dropped.
func LinearModes(sys *System, k int, opt EigenOptions) (*Modes, error) {
	return nil, errors.New("modal: LinearModes not implemented yet") // TODO(6a)
}

// Eigen returns the k smallest eigenpairs of K x = λ M x (K symmetric, M
// symmetric positive definite, same dimension), ascending, each x
// M-normalised, by shift-invert Krylov iteration with full
// M-orthogonalisation and Rayleigh–Ritz on the sparse Cholesky factor of
// K − σM (σ = opt.Shift, 0 if NaN), or the dense path if opt.Dense.
func Eigen(K, M *sparse.CSR, k int, opt EigenOptions) (values []float64, vectors [][]float64, err error) {
	return nil, nil, errors.New("modal: Eigen not implemented yet") // TODO(6a)
}

// EigenDense is the dense path of Eigen: with M = LLᵀ (Cholesky), the
// symmetric eigenproblem L⁻¹KL⁻ᵀ y = λ y (gonum mat.EigenSym), x = L⁻ᵀy.
// O(n³): meant for a few thousand DOFs at most.
func EigenDense(K, M *sparse.CSR, k int) (values []float64, vectors [][]float64, err error) {
	return nil, nil, errors.New("modal: EigenDense not implemented yet") // TODO(6a)
}
