package modal

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

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
	k := len(modes.Values)
	if k == 0 {
		return nil, fmt.Errorf("modal: ScaleModalVectors: no modes")
	}
	if derivs != nil && len(derivs) != NumPairs(k) {
		return nil, fmt.Errorf("modal: ScaleModalVectors: %d derivatives for %d modes (want %d)", len(derivs), k, NumPairs(k))
	}
	l1 := modes.Values[0]
	for _, l := range modes.Values {
		if !(l > 0) {
			return nil, fmt.Errorf("modal: ScaleModalVectors: eigenvalue %g is not positive", l)
		}
	}
	out := make([][]float64, 0, k+len(derivs))
	for j, psi := range modes.Vectors {
		v := append([]float64(nil), psi...)
		scale(v, l1/modes.Values[j])
		out = append(out, v)
	}
	free := make([]float64, len(sys.Free))
	mf := make([]float64, len(sys.Free))
	for i := 0; i < k && derivs != nil; i++ {
		for j := i; j < k; j++ {
			phi := derivs[PairIndex(i, j, k)]
			sys.Restrict(free, phi)
			sys.M.MulVec(mf, free)
			nm := math.Sqrt(dot(free, mf))
			v := append([]float64(nil), phi...)
			if nm > 0 {
				scale(v, l1*l1/(modes.Values[i]*modes.Values[j])/nm)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// MassPCA returns the r-dimensional mass-orthonormal basis that best
// represents the vectors in the mass metric (Barbič & James 2005, appendix
// A): with M = LLᵀ, the left singular vectors V of Z = [Lᵀu⁽¹⁾ … Lᵀu⁽ᴺ⁾]
// give U = L⁻ᵀV (UᵀMU = I), and the singular values σ (all N of them,
// descending) measure what each direction carries. The vectors have M's
// dimension.
//
// It is computed without factoring M: the vectors are first
// M-orthonormalised, X = QR with QᵀMQ = I (classical Gram–Schmidt in the
// M inner product, twice), so Z = (LᵀQ)R with LᵀQ orthonormal; the SVD
// R = U_R Σ V_Rᵀ of the small N×N matrix then gives V = LᵀQU_R and
// U = QU_R, the same singular values and vectors at O(N²n) cost. r larger
// than the numerical rank of the vectors (σ_r ≤ 1e-12·σ₁) is an error.
// Signs: the largest entry of each vector is positive.
func MassPCA(vectors [][]float64, M *sparse.CSR, r int) (U [][]float64, sigma []float64, err error) {
	nv := len(vectors)
	if nv == 0 {
		return nil, nil, fmt.Errorf("modal: MassPCA: no vectors")
	}
	n := M.Rows
	if r < 1 || r > min(nv, n) {
		return nil, nil, fmt.Errorf("modal: MassPCA: r = %d of %d vectors of dimension %d", r, nv, n)
	}
	for j, u := range vectors {
		if len(u) != n {
			return nil, nil, fmt.Errorf("modal: MassPCA: vector %d has length %d, M is %d×%d", j, len(u), n, n)
		}
	}
	// X = QR in the M inner product.
	Q := make([][]float64, nv)
	R := mat.NewDense(nv, nv, nil)
	mv := make([]float64, n)
	scaleX := 0.0
	for _, u := range vectors {
		M.MulVec(mv, u)
		scaleX = math.Max(scaleX, math.Sqrt(math.Max(dot(u, mv), 0)))
	}
	for j, u := range vectors {
		v := append([]float64(nil), u...)
		for pass := 0; pass < 2; pass++ {
			M.MulVec(mv, v)
			for i := 0; i < j; i++ {
				c := dot(Q[i], mv)
				axpy(v, -c, Q[i])
				R.Set(i, j, R.At(i, j)+c)
			}
		}
		M.MulVec(mv, v)
		nrm := math.Sqrt(math.Max(dot(v, mv), 0))
		R.Set(j, j, nrm)
		if nrm <= 1e-14*scaleX {
			// Dependent vector: any unit vector M-orthogonal to the
			// others completes Q (it carries a zero singular value).
			R.Set(j, j, 0)
			v = completeBasis(Q[:j], M, n, j)
			nrm = 1
			if v == nil {
				return nil, nil, fmt.Errorf("modal: MassPCA: cannot complete an M-orthonormal basis")
			}
		}
		scale(v, 1/nrm)
		Q[j] = v
	}
	var svd mat.SVD
	if !svd.Factorize(R, mat.SVDFull) {
		return nil, nil, fmt.Errorf("modal: MassPCA: SVD failed")
	}
	sigma = svd.Values(nil)
	if !(sigma[r-1] > 1e-12*sigma[0]) {
		return nil, nil, fmt.Errorf("modal: MassPCA: the vectors span only %d dimensions (singular values %v), fewer than r = %d", rankOf(sigma), sigma, r)
	}
	var UR mat.Dense
	svd.UTo(&UR)
	U = make([][]float64, r)
	for c := 0; c < r; c++ {
		u := make([]float64, n)
		for j := 0; j < nv; j++ {
			axpy(u, UR.At(j, c), Q[j])
		}
		normalizeSign(u)
		U[c] = u
	}
	return U, sigma, nil
}

// completeBasis returns a unit vector (M-norm) M-orthogonal to the q's, or
// nil: deterministic pseudo-random starts, orthogonalised twice.
func completeBasis(q [][]float64, M *sparse.CSR, n, seed int) []float64 {
	mv := make([]float64, n)
	for attempt := 0; attempt < 5; attempt++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Sin(float64((i+1)*(seed+attempt+3)) * 12.9898)
		}
		M.MulVec(mv, v)
		n0 := math.Sqrt(dot(v, mv))
		for pass := 0; pass < 2; pass++ {
			M.MulVec(mv, v)
			for _, qi := range q {
				axpy(v, -dot(qi, mv), qi)
			}
		}
		M.MulVec(mv, v)
		if nrm := math.Sqrt(math.Max(dot(v, mv), 0)); nrm > 1e-8*n0 {
			scale(v, 1/nrm)
			return v
		}
	}
	return nil
}

func rankOf(sigma []float64) int {
	r := 0
	for _, s := range sigma {
		if s > 1e-12*sigma[0] {
			r++
		}
	}
	return r
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
	k := opt.Modes
	if k == 0 {
		k = 6
	}
	if k < 1 {
		return nil, nil, fmt.Errorf("modal: BuildModalDerivativeBasis: %d modes", k)
	}
	r := opt.Size
	full := k + NumPairs(k)
	if opt.LinearOnly {
		full = k
	}
	if r == 0 {
		r = full
	}
	if r < 1 || r > full {
		return nil, nil, fmt.Errorf("modal: BuildModalDerivativeBasis: size r = %d out of range [1, %d] for %d modes", r, full, k)
	}
	progress := func(stage string, done, total int) {
		if opt.Progress != nil {
			opt.Progress(stage, done, total)
		}
	}
	progress("assemble", 0, 1)
	sys, err := AssembleFromScene(root)
	if err != nil {
		return nil, nil, err
	}
	progress("assemble", 1, 1)
	eo := DefaultEigenOptions()
	if opt.Eigen != nil {
		eo = *opt.Eigen
	}
	if eo.Progress == nil && opt.Progress != nil {
		eo.Progress = func(done, total int) { progress("modes", done, total) }
	}
	modes, err := LinearModes(sys, k, eo)
	if err != nil {
		return nil, nil, err
	}
	b := &Basis{Rows: sys.Size, Cols: r, Eigenvalues: modes.Values}
	if opt.LinearOnly {
		for j := 0; j < r; j++ {
			b.U = append(b.U, modes.Vectors[j]...)
		}
		return b, sys, nil
	}
	derivs, err := ModalDerivatives(sys, modes, DerivativeOptions{Progress: func(done, total int) { progress("derivatives", done, total) }})
	if err != nil {
		return nil, nil, err
	}
	progress("pca", 0, 1)
	vecs, err := ScaleModalVectors(sys, modes, derivs)
	if err != nil {
		return nil, nil, err
	}
	U, sigma, err := pcaFull(sys, vecs, r)
	if err != nil {
		return nil, nil, err
	}
	progress("pca", 1, 1)
	b.U, b.SingularValues = U, sigma
	return b, sys, nil
}

// pcaFull runs MassPCA on the free components of full vectors and returns
// the basis as full column-major vectors.
func pcaFull(sys *System, vecs [][]float64, r int) ([]float64, []float64, error) {
	free := make([][]float64, len(vecs))
	for j, v := range vecs {
		if len(v) != sys.Size {
			return nil, nil, fmt.Errorf("modal: vector %d has length %d, the state %d", j, len(v), sys.Size)
		}
		free[j] = make([]float64, len(sys.Free))
		sys.Restrict(free[j], v)
	}
	U, sigma, err := MassPCA(free, sys.M, r)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, sys.Size*r)
	for j, u := range U {
		sys.Expand(out[sys.Size*j:sys.Size*(j+1)], u)
	}
	return out, sigma, nil
}

// SnapshotBasis returns the mass-PCA basis of r vectors of deformation
// snapshots (full displacement vectors u = x − x_rest, column-major
// rows×cols as written by components/reduced.SnapshotRecorder and read by
// ReadBasis): the data-driven basis of Barbič & James 2005 Sec. 5.2
// ("empirical eigenvectors") from a recorded full simulation. The
// snapshots are restricted to the free DOFs of sys (displacements of
// fixed DOFs are dropped: they are zero unless a constraint moves).
func SnapshotBasis(sys *System, snapshots []float64, rows, cols, r int) (*Basis, error) {
	if rows != sys.Size {
		return nil, fmt.Errorf("modal: SnapshotBasis: snapshots of length %d for a state of %d", rows, sys.Size)
	}
	if len(snapshots) != rows*cols {
		return nil, fmt.Errorf("modal: SnapshotBasis: %d numbers for %d×%d snapshots", len(snapshots), rows, cols)
	}
	vecs := make([][]float64, cols)
	for j := range vecs {
		vecs[j] = snapshots[rows*j : rows*(j+1)]
	}
	U, sigma, err := pcaFull(sys, vecs, r)
	if err != nil {
		return nil, err
	}
	return &Basis{U: U, Rows: rows, Cols: r, SingularValues: sigma}, nil
}

// BuildSnapshotBasis is SnapshotBasis on the snapshot file path (any
// format ReadBasis reads), with the system of the subtree of root.
func BuildSnapshotBasis(root *graph.Node, path string, r int) (*Basis, *System, error) {
	S, rows, cols, err := ReadBasis(path)
	if err != nil {
		return nil, nil, err
	}
	sys, err := AssembleFromScene(root)
	if err != nil {
		return nil, nil, err
	}
	b, err := SnapshotBasis(sys, S, rows, cols, r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, sys, nil
}
