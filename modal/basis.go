package modal

import (
	"errors"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/sparse"
)

// Basis is a reduced deformation basis u = U·q.
type Basis struct {
	// U is rows×cols, column-major (column j is U[Rows·j : Rows·(j+1)]):
	// full vectors of the state (3 per point), zero at fixed DOFs,
	// mass-orthonormal (UᵀMU = I) when built by this package.
	U          []float64
	Rows, Cols int
	// Eigenvalues are the λ of the linear modes used (modal-derivative
	// bases), SingularValues the mass-PCA singular values, all of them
	// (descending; those past Cols were dropped).
	Eigenvalues    []float64
	SingularValues []float64
}

// Column returns column j of U (a view).
func (b *Basis) Column(j int) []float64 { return b.U[b.Rows*j : b.Rows*(j+1)] }

// ScaleModalVectors returns the vectors of eq. 16 (Barbič & James 2005):
// (λ₁/λⱼ)ψⱼ for the k modes, then (λ₁²/(λᵢλⱼ))Φ̄ᵢⱼ for i ≤ j in PairIndex
// order, where Φ̄ᵢⱼ is Φᵢⱼ mass-normalised with the mass matrix M of the
// full vectors' free DOFs (sys): scaling favours the low-frequency modes
// and their derivatives before mass-PCA.
func ScaleModalVectors(sys *System, modes *Modes, derivs [][]float64) ([][]float64, error) {
	return nil, errors.New("modal: ScaleModalVectors not implemented yet") // TODO(6a)
}

// MassPCA returns the r-dimensional mass-orthonormal basis that best
// represents the vectors in the mass metric (Barbič & James 2005, appendix
// A): with M = LLᵀ, the left singular vectors V of Z = [Lᵀu⁽¹⁾ … Lᵀu⁽ᴺ⁾]
// give U = L⁻ᵀV (UᵀMU = I), and the singular values σ (all of them,
// descending) measure what each direction carries. The vectors have M's
// dimension. r larger than the numerical rank of the vectors (σ below
// 1e-12·σ₁) is an error.
func MassPCA(vectors [][]float64, M *sparse.CSR, r int) (U [][]float64, sigma []float64, err error) {
	return nil, nil, errors.New("modal: MassPCA not implemented yet") // TODO(6a)
}

// BasisOptions controls BuildModalDerivativeBasis.
type BasisOptions struct {
	// Modes is k, the number of linear modes (default 6).
	Modes int
	// Size is r, the number of basis vectors kept by mass-PCA (default
	// k + k(k+1)/2, everything; at most that).
	Size int
	// LinearOnly skips the modal derivatives: the basis is the k linear
	// modes (Size must then be at most k).
	LinearOnly bool
	// Eigen is passed to LinearModes (zero value: DefaultEigenOptions).
	Eigen *EigenOptions
	// Progress, if not nil, reports the stages ("assemble", "modes",
	// "derivatives", "pca") with done/total counts.
	Progress func(stage string, done, total int)
}

// BuildModalDerivativeBasis builds the modal-derivative basis of the
// subtree of root (Barbič & James 2005, Sec. 5.1): AssembleFromScene, the
// k lowest linear modes, their k(k+1)/2 derivatives, the eq. 16 scaling,
// mass-PCA down to r vectors. The scene must be initialised and at rest.
func BuildModalDerivativeBasis(root *graph.Node, opt BasisOptions) (*Basis, *System, error) {
	return nil, nil, errors.New("modal: BuildModalDerivativeBasis not implemented yet") // TODO(6a)
}

// SnapshotBasis returns the mass-PCA basis of r vectors of deformation
// snapshots (full displacement vectors u = x − x_rest, column-major
// rows×cols as written by components/reduced.SnapshotRecorder and read by
// ReadBasis): the data-driven basis of Barbič & James 2005 Sec. 5.2
// ("empirical eigenvectors") from a recorded full simulation. The
// snapshots are restricted to the free DOFs of sys (displacements of
// fixed DOFs are dropped: they are zero unless a constraint moves).
func SnapshotBasis(sys *System, snapshots []float64, rows, cols, r int) (*Basis, error) {
	return nil, errors.New("modal: SnapshotBasis not implemented yet") // TODO(6a)
}

// BuildSnapshotBasis is SnapshotBasis on the snapshot file path (any
// format ReadBasis reads), with the system of the subtree of root.
func BuildSnapshotBasis(root *graph.Node, path string, r int) (*Basis, *System, error) {
	return nil, nil, errors.New("modal: BuildSnapshotBasis not implemented yet") // TODO(6a)
}
