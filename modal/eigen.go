package modal

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

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
	// MaxBasis bounds the Krylov basis size (default max(6k + 40, 120),
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
	// constrained body, 6 for a free one), with their eigenvalues and
	// (full, M-orthonormal) vectors; ModalDerivatives projects them out.
	Rigid        int
	RigidValues  []float64
	RigidVectors [][]float64
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
// James 2005, Sec. 5.1), full vectors. For an unconstrained body (or one
// whose constraints leave a mechanism, where K cannot be factored) the
// shift is made negative, more modes are computed and the near-zero ones
// (|λ| ≤ 1e-6·λ of the highest mode computed: the six rigid modes of a
// free body) are dropped and reported in Rigid.
func LinearModes(sys *System, k int, opt EigenOptions) (*Modes, error) {
	if k < 1 {
		return nil, fmt.Errorf("modal: LinearModes: k = %d modes requested", k)
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-10
	}
	n := sys.K.Rows
	extra := 0
	auto := math.IsNaN(opt.Shift)
	if auto {
		opt.Shift = 0
		if !sys.Constrained {
			opt.Shift = negativeShift(sys.K, sys.M)
			extra = 6
		}
	}
	for {
		want := min(k+extra, n)
		vals, vecs, err := sys.eigen(want, opt)
		var npd *sparse.NotPositiveDefiniteError
		if errors.As(err, &npd) && auto && opt.Shift == 0 {
			// A mechanism: K is singular although some DOFs are fixed.
			opt.Shift = negativeShift(sys.K, sys.M)
			extra = max(extra, 6)
			continue
		}
		if err != nil {
			return nil, err
		}
		top := math.Abs(vals[len(vals)-1])
		zero := 0
		for zero < len(vals) && math.Abs(vals[zero]) <= 1e-6*top {
			zero++
		}
		if zero > extra && want < n {
			extra = zero // more null modes than planned (several bodies): ask again
			continue
		}
		if want-zero < k {
			return nil, fmt.Errorf("modal: only %d non-rigid modes exist (%d DOFs, %d near-zero modes)", want-zero, n, zero)
		}
		m := &Modes{Rigid: zero, RigidValues: vals[:zero]}
		for i := 0; i < zero; i++ {
			full := make([]float64, sys.Size)
			sys.Expand(full, vecs[i])
			m.RigidVectors = append(m.RigidVectors, full)
		}
		for i := zero; i < zero+k; i++ {
			full := make([]float64, sys.Size)
			sys.Expand(full, vecs[i])
			m.Values = append(m.Values, vals[i])
			m.Vectors = append(m.Vectors, full)
		}
		return m, nil
	}
}

// eigen is Eigen on the system's K and M with its cached ordering and
// factors.
func (sys *System) eigen(k int, opt EigenOptions) ([]float64, [][]float64, error) {
	n := sys.K.Rows
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("modal: %d eigenpairs requested of a %d×%d problem", k, n, n)
	}
	if opt.Dense || n <= 64 {
		return EigenDense(sys.K, sys.M, k)
	}
	chol, err := sys.factorShifted(opt.Shift)
	if err != nil {
		return nil, nil, fmt.Errorf("modal: factorising K − σM (σ = %g): %w", opt.Shift, err)
	}
	return eigenShiftInvert(sys.K, sys.M, chol, k, opt)
}

// negativeShift returns σ = −1e-6·mean(Kᵢᵢ/Mᵢᵢ), a shift below the rigid
// modes (λ = 0) and, for meshes with fewer than ~10³ elements along their
// length, well below the first flexible mode (λ₁/mean(Kᵢᵢ/Mᵢᵢ) ~ (h/L)²),
// while K − σM stays far from rounding-level pivots (|σ|Mᵢᵢ ≈ 1e-6 Kᵢᵢ ≫
// ε Kᵢᵢ).
func negativeShift(K, M *sparse.CSR) float64 {
	kd, md := K.Diagonal(), M.Diagonal()
	s, c := 0.0, 0
	for i := range kd {
		if kd[i] > 0 && md[i] > 0 {
			s += kd[i] / md[i]
			c++
		}
	}
	if c == 0 {
		return -1
	}
	return -1e-6 * s / float64(c)
}

// Eigen returns the k smallest eigenpairs of K x = λ M x (K symmetric, M
// symmetric positive definite, same dimension), ascending, each x
// M-normalised with the sign convention of Modes, or the dense path if
// opt.Dense (or the problem has at most 64 rows).
//
// The sparse path is a block Krylov (block Lanczos with full
// reorthogonalisation) method on the shift-invert operator
// T = (K − σM)⁻¹M, which is self-adjoint in the M inner product and maps
// the eigenvalues nearest σ to its largest ones, θ = 1/(λ − σ) (Ericsson
// & Ruhe 1980; Grimes, Lewis & Simon 1994). The basis Q is kept
// M-orthonormal by full reorthogonalisation (classical Gram–Schmidt,
// twice), T is applied to blocks of up to 8 vectors (one multi-vector
// solve on the sparse Cholesky factor of K − σM; LinearModes orders it by
// nested dissection on the mesh, Eigen by minimum degree), and
// Rayleigh–Ritz on
// H = QᵀM T Q gives the Ritz pairs (θ, x = Qs). With V the part of the
// last block's images outside span(Q), T x − θx = V s_last, so the
// residual |T x − θx|_M = |s_lastᵀ (VᵀMV) s_last|^½ costs nothing; a
// pair is converged when it is ≤ Tol·θ. Blocks find multiple eigenvalues
// (symmetric bodies) that single-vector Lanczos can miss. The eigenvalues
// returned are the Rayleigh quotients xᵀKx/xᵀMx, whose error is the
// square of the vectors'. Deterministic (fixed random seed).
func Eigen(K, M *sparse.CSR, k int, opt EigenOptions) (values []float64, vectors [][]float64, err error) {
	if K.Rows != K.Cols || M.Rows != M.Cols || K.Rows != M.Rows {
		return nil, nil, fmt.Errorf("modal: Eigen: K is %d×%d, M is %d×%d", K.Rows, K.Cols, M.Rows, M.Cols)
	}
	n := K.Rows
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("modal: Eigen: %d eigenpairs requested of a %d×%d problem", k, n, n)
	}
	if opt.Dense || n <= 64 {
		return EigenDense(K, M, k)
	}
	sigma := opt.Shift
	if math.IsNaN(sigma) {
		sigma = 0
	}
	A, err := sparse.LinComb(1, K, -sigma, M)
	if err != nil {
		return nil, nil, err
	}
	chol, err := sparse.Factorize(A)
	if err != nil {
		return nil, nil, fmt.Errorf("modal: factorising K − σM (σ = %g): %w", sigma, err)
	}
	return eigenShiftInvert(K, M, chol, k, opt)
}

// eigenShiftInvert runs the block Krylov iteration of Eigen with the
// factor chol of K − σM.
func eigenShiftInvert(K, M *sparse.CSR, chol *sparse.Cholesky, k int, opt EigenOptions) ([]float64, [][]float64, error) {
	n := K.Rows
	tol := opt.Tol
	if tol <= 0 {
		tol = 1e-10
	}
	maxBasis := opt.MaxBasis
	if maxBasis <= 0 {
		maxBasis = max(6*k+40, 120)
	}
	maxBasis = min(maxBasis, n)
	bs := min(k, 8, n)

	ks := &krylov{n: n, M: M, chol: chol, qbuf: make([]float64, 0, maxBasis*n)}
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))
	block := make([]float64, bs*n)
	for i := range block {
		block[i] = rng.Float64()*2 - 1
	}
	ks.append(block, bs, rng)
	for {
		if opt.Progress != nil {
			opt.Progress(ks.m, maxBasis)
		}
		V, b := ks.expand() // images of the last block, orthogonalised against Q
		// Rayleigh–Ritz once the basis can hold the wanted pairs with some
		// room (earlier checks cannot succeed and cost an m×m eigensolve).
		var S *mat.Dense
		conv := false
		if ks.m >= min(2*k, maxBasis) || ks.m+b > maxBasis {
			S, conv = ks.ritz(k, V, b, tol)
		}
		if conv || ks.m >= maxBasis {
			if !conv {
				return nil, nil, fmt.Errorf("modal: Eigen: %d eigenpairs did not converge to %g within a basis of %d vectors (raise MaxBasis)", k, tol, ks.m)
			}
			return ks.finish(K, S, k)
		}
		b = min(b, maxBasis-ks.m)
		if ks.append(V[:b*n], b, rng) == 0 {
			return nil, nil, fmt.Errorf("modal: Eigen: the Krylov space is exhausted at dimension %d", ks.m)
		}
	}
}

// krylov is the state of Eigen's block Krylov iteration: the M-orthonormal
// basis Q (m rows of n in qbuf, row-major), the first index of the last
// block, and H = QᵀM T Q (h[i][j], symmetric) for the blocks whose images
// have been computed. Block operations go through gonum's BLAS (gemm), so
// the basis is read once per block rather than once per vector.
type krylov struct {
	n, m int
	M    *sparse.CSR
	chol *sparse.Cholesky
	qbuf []float64
	h    [][]float64
	last int
}

func (ks *krylov) q(i int) []float64 { return ks.qbuf[i*ks.n : (i+1)*ks.n] }

// mulM returns M·V for the b rows of V (row-major b×n), rows in parallel.
func (ks *krylov) mulM(V []float64, b int) []float64 {
	n := ks.n
	out := make([]float64, b*n)
	parallelFor(b, func(i int) { ks.M.MulVec(out[i*n:(i+1)*n], V[i*n:(i+1)*n]) })
	return out
}

// project removes from the b rows of V their M-projections on the basis,
// V ← V − (V M Qᵀ) Q, and returns the coefficients of the pass
// (b×m row-major: c[i·m + j] = vᵢᵀ M qⱼ).
func (ks *krylov) project(V []float64, b int) []float64 {
	m, n := ks.m, ks.n
	if m == 0 {
		return nil
	}
	MV := ks.mulM(V, b)
	Q := blas64.General{Rows: m, Cols: n, Stride: n, Data: ks.qbuf[:m*n]}
	C := blas64.General{Rows: b, Cols: m, Stride: m, Data: make([]float64, b*m)}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: b, Cols: n, Stride: n, Data: MV}, Q, 0, C)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, -1, C, Q, 1, blas64.General{Rows: b, Cols: n, Stride: n, Data: V})
	return C.Data
}

// append M-orthogonalises the b rows of V against the basis (block
// classical Gram–Schmidt, twice) and against each other (one by one,
// twice), normalises them and appends them as a new block. A row that
// keeps less than 1e-8 of its M-norm is replaced by a random vector (the
// Krylov relation loses that part, which only delays convergence). It
// returns the number appended.
func (ks *krylov) append(V []float64, b int, rng *rand.Rand) int {
	n := ks.n
	MV := ks.mulM(V, b)
	n0 := make([]float64, b)
	for i := range n0 {
		n0[i] = math.Sqrt(math.Max(dot(V[i*n:(i+1)*n], MV[i*n:(i+1)*n]), 0))
	}
	ks.project(V, b)
	ks.project(V, b)
	ks.last = ks.m
	added := 0
	mv := make([]float64, n)
	for i := 0; i < b && ks.m < n; i++ {
		v := V[i*n : (i+1)*n]
		for attempt := 0; attempt < 2; attempt++ {
			for pass := 0; pass < 2; pass++ {
				ks.M.MulVec(mv, v)
				for j := ks.last; j < ks.m; j++ {
					axpy(v, -dot(ks.q(j), mv), ks.q(j))
				}
				if attempt > 0 { // a random replacement: against everything
					ks.project(v, 1)
				}
			}
			ks.M.MulVec(mv, v)
			n1 := math.Sqrt(math.Max(dot(v, mv), 0))
			if n1 > 1e-8*n0[i] && n1 > 0 {
				scale(v, 1/n1)
				ks.qbuf = append(ks.qbuf, v...)
				ks.m++
				added++
				break
			}
			for q := range v {
				v[q] = rng.Float64()*2 - 1
			}
			ks.M.MulVec(mv, v)
			n0[i] = math.Sqrt(dot(v, mv))
		}
	}
	return added
}

// expand computes the images W = T Q_last of the last block (one
// multi-vector solve), fills H's columns (and, by symmetry, rows) for
// them from the first projection pass, and returns the images with their
// components in span(Q) removed (twice), row-major b×n.
func (ks *krylov) expand() ([]float64, int) {
	m, n := ks.m, ks.n
	b := m - ks.last
	MQ := ks.mulM(ks.qbuf[ks.last*n:m*n], b)
	W := make([]float64, b*n)
	Ws := make([][]float64, b)
	MQs := make([][]float64, b)
	for j := 0; j < b; j++ {
		Ws[j], MQs[j] = W[j*n:(j+1)*n], MQ[j*n:(j+1)*n]
	}
	ks.chol.SolveMany(Ws, MQs)
	for len(ks.h) < m {
		ks.h = append(ks.h, nil)
	}
	for i := range ks.h {
		for len(ks.h[i]) < m {
			ks.h[i] = append(ks.h[i], 0)
		}
	}
	C := ks.project(W, b) // C[jb·m + i] = wⱼᵀ M qᵢ = qᵢᵀ M T qⱼ
	for jb := 0; jb < b; jb++ {
		j := ks.last + jb
		for i := 0; i < m; i++ {
			c := C[jb*m+i]
			if i >= ks.last && i < j {
				v := 0.5 * (ks.h[i][j] + c) // both in the block: symmetrise
				ks.h[i][j], ks.h[j][i] = v, v
				continue
			}
			ks.h[i][j], ks.h[j][i] = c, c
		}
	}
	ks.project(W, b)
	return W, b
}

// ritz solves the projected problem on H and returns its eigenvectors S
// (columns, ascending θ) and whether the k of largest θ are converged,
// from the residual norms |V s_last|_M (V: the b rows returned by expand).
func (ks *krylov) ritz(k int, V []float64, b int, tol float64) (*mat.Dense, bool) {
	m, n := ks.m, ks.n
	if m < k {
		return nil, false
	}
	H := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			H.SetSym(i, j, ks.h[i][j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(H, true) {
		return nil, false
	}
	th := es.Values(nil) // ascending
	S := new(mat.Dense)
	es.VectorsTo(S)
	MV := ks.mulM(V, b)
	C := make([]float64, b*b) // VᵀMV
	for i := 0; i < b; i++ {
		for j := i; j < b; j++ {
			C[i*b+j] = dot(V[i*n:(i+1)*n], MV[j*n:(j+1)*n])
			C[j*b+i] = C[i*b+j]
		}
	}
	for c := 0; c < k; c++ {
		col := m - 1 - c
		theta := th[col]
		r2 := 0.0
		for i := 0; i < b; i++ {
			si := S.At(ks.last+i, col)
			for j := 0; j < b; j++ {
				r2 += si * C[i*b+j] * S.At(ks.last+j, col)
			}
		}
		if !(theta > 0) || math.Sqrt(math.Max(r2, 0)) > tol*theta {
			return S, false
		}
	}
	return S, true
}

// finish forms the k Ritz vectors of largest θ (one gemm), their Rayleigh
// quotients (ascending), M-normalised, signs fixed.
func (ks *krylov) finish(K *sparse.CSR, S *mat.Dense, k int) ([]float64, [][]float64, error) {
	m, n := ks.m, ks.n
	Sk := blas64.General{Rows: k, Cols: m, Stride: m, Data: make([]float64, k*m)}
	for c := 0; c < k; c++ {
		for j := 0; j < m; j++ {
			Sk.Data[c*m+j] = S.At(j, m-1-c)
		}
	}
	X := blas64.General{Rows: k, Cols: n, Stride: n, Data: make([]float64, k*n)}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, Sk, blas64.General{Rows: m, Cols: n, Stride: n, Data: ks.qbuf[:m*n]}, 0, X)
	vecs := make([][]float64, k)
	out := make([]float64, k)
	parallelFor(k, func(c int) {
		x := X.Data[c*n : (c+1)*n : (c+1)*n]
		tmp := make([]float64, n)
		K.MulVec(tmp, x)
		kx := dot(x, tmp)
		ks.M.MulVec(tmp, x)
		mx := dot(x, tmp)
		out[c] = kx / mx
		scale(x, 1/math.Sqrt(mx))
		normalizeSign(x)
		vecs[c] = x
	})
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return out[idx[a]] < out[idx[b]] })
	values := make([]float64, k)
	vectors := make([][]float64, k)
	for i, j := range idx {
		values[i], vectors[i] = out[j], vecs[j]
	}
	return values, vectors, nil
}

// parallelFor runs body(i) for i in [0, n) on GOMAXPROCS goroutines.
// Each i writes only its own results, so the outcome does not depend on
// the scheduling.
func parallelFor(n int, body func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			body(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body(i)
			}
		}()
	}
	wg.Wait()
}

// EigenDense is the dense path of Eigen, O(n³): for up to a few thousand
// DOFs and as a cross-check of the sparse path. Like the sparse path it
// works on the inverted pencil, so that the lowest eigenvalues come out
// with full relative accuracy: with K − σM = LLᵀ (dense Cholesky; σ = 0,
// or negativeShift's σ < 0 when K is singular, as for a free body) the
// symmetric eigenproblem L⁻¹ M L⁻ᵀ y = μ y (gonum mat.EigenSym) gives
// λ = σ + 1/μ from its largest μ, and x = L⁻ᵀy/√μ (M-normalised). The
// direct form L_M⁻¹ K L_M⁻ᵀ (M = L_M L_Mᵀ) would resolve every eigenvalue
// only to ε·λ_max, i.e. the lowest ones to ε·λ_max/λ_min relative
// (1e-11 on a slender bar); it remains the fallback when K − σM cannot be
// factored (K indefinite).
func EigenDense(K, M *sparse.CSR, k int) (values []float64, vectors [][]float64, err error) {
	n := K.Rows
	if K.Cols != n || M.Rows != n || M.Cols != n {
		return nil, nil, fmt.Errorf("modal: EigenDense: K is %d×%d, M is %d×%d", K.Rows, K.Cols, M.Rows, M.Cols)
	}
	if k < 1 || k > n {
		return nil, nil, fmt.Errorf("modal: EigenDense: %d eigenpairs requested of a %d×%d problem", k, n, n)
	}
	for _, sigma := range []float64{0, negativeShift(K, M)} {
		if v, x, ok := eigenDenseInverted(K, M, k, sigma); ok {
			return v, x, nil
		}
	}
	Ms := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for p := M.RowPtr[i]; p < M.RowPtr[i+1]; p++ {
			if j := M.Col[p]; j >= i {
				Ms.SetSym(i, j, 0.5*(M.Val[p]+M.At(j, i)))
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(Ms) {
		return nil, nil, fmt.Errorf("modal: EigenDense: the mass matrix is not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	// C = L⁻¹ K L⁻ᵀ: Y = L⁻¹K, then C = L⁻¹Yᵀ (= L⁻¹KL⁻ᵀ as K = Kᵀ).
	Kd := K.Dense()
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: L.RawTriangular().Data}
	if L.RawTriangular().Uplo != blas.Lower {
		return nil, nil, fmt.Errorf("modal: EigenDense: unexpected Cholesky layout")
	}
	lt.Stride = L.RawTriangular().Stride
	Y := blas64.General{Rows: n, Cols: n, Stride: n, Data: append([]float64(nil), Kd.RawMatrix().Data...)}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, Y)
	Yt := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			Yt.Data[j*n+i] = Y.Data[i*n+j]
		}
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, Yt)
	C := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			C.SetSym(i, j, 0.5*(Yt.Data[i*n+j]+Yt.Data[j*n+i]))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(C, true) {
		return nil, nil, fmt.Errorf("modal: EigenDense: eigendecomposition failed")
	}
	vals := es.Values(nil)
	var V mat.Dense
	es.VectorsTo(&V)
	// x = L⁻ᵀ y for the k first columns.
	X := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			X.Data[i*k+j] = V.At(i, j)
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lt, X)
	values = append([]float64(nil), vals[:k]...)
	vectors = make([][]float64, k)
	for j := 0; j < k; j++ {
		x := make([]float64, n)
		for i := 0; i < n; i++ {
			x[i] = X.Data[i*k+j]
		}
		normalizeSign(x)
		vectors[j] = x
	}
	return values, vectors, nil
}

// symDense returns the symmetric part of a + s·b (b may be nil) as a
// gonum SymDense.
func symDense(a, b *sparse.CSR, s float64) *mat.SymDense {
	n := a.Rows
	d := mat.NewSymDense(n, nil)
	for _, m := range []struct {
		c *sparse.CSR
		f float64
	}{{a, 1}, {b, s}} {
		if m.c == nil || m.f == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			for p := m.c.RowPtr[i]; p < m.c.RowPtr[i+1]; p++ {
				if j := m.c.Col[p]; j >= i {
					d.SetSym(i, j, d.At(i, j)+m.f*0.5*(m.c.Val[p]+m.c.At(j, i)))
				}
			}
		}
	}
	return d
}

// eigenDenseInverted is EigenDense on the inverted pencil with shift
// sigma; ok is false when K − σM is not positive definite.
func eigenDenseInverted(K, M *sparse.CSR, k int, sigma float64) ([]float64, [][]float64, bool) {
	n := K.Rows
	var ch mat.Cholesky
	if !ch.Factorize(symDense(K, M, -sigma)) {
		return nil, nil, false
	}
	var L mat.TriDense
	ch.LTo(&L)
	raw := L.RawTriangular()
	if raw.Uplo != blas.Lower {
		return nil, nil, false
	}
	lt := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: raw.Stride, Data: raw.Data}
	// C = L⁻¹ M L⁻ᵀ: Y = L⁻¹M, then C = L⁻¹Yᵀ.
	Y := blas64.General{Rows: n, Cols: n, Stride: n, Data: append([]float64(nil), M.Dense().RawMatrix().Data...)}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, Y)
	Yt := blas64.General{Rows: n, Cols: n, Stride: n, Data: make([]float64, n*n)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			Yt.Data[j*n+i] = Y.Data[i*n+j]
		}
	}
	blas64.Trsm(blas.Left, blas.NoTrans, 1, lt, Yt)
	C := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			C.SetSym(i, j, 0.5*(Yt.Data[i*n+j]+Yt.Data[j*n+i]))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(C, true) {
		return nil, nil, false
	}
	mus := es.Values(nil) // ascending: the largest μ (lowest λ) last
	var V mat.Dense
	es.VectorsTo(&V)
	X := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			X.Data[i*k+j] = V.At(i, n-1-j)
		}
	}
	blas64.Trsm(blas.Left, blas.Trans, 1, lt, X)
	values := make([]float64, k)
	vectors := make([][]float64, k)
	for j := 0; j < k; j++ {
		mu := mus[n-1-j]
		if !(mu > 0) {
			return nil, nil, false
		}
		values[j] = sigma + 1/mu
		x := make([]float64, n)
		s := 1 / math.Sqrt(mu)
		for i := 0; i < n; i++ {
			x[i] = s * X.Data[i*k+j]
		}
		normalizeSign(x)
		vectors[j] = x
	}
	return values, vectors, true
}

// normalizeSign flips x so that its entry of largest magnitude (the
// lowest index on ties) is positive.
func normalizeSign(x []float64) {
	best, bi := -1.0, 0
	for i, v := range x {
		if a := math.Abs(v); a > best {
			best, bi = a, i
		}
	}
	if len(x) > 0 && x[bi] < 0 {
		scale(x, -1)
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpy(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}
