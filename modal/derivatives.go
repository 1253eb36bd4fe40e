package modal

import (
	"fmt"
	"sync"

	"github.com/sofago/sofago/sparse"
)

// DerivativeOptions controls ModalDerivatives.
type DerivativeOptions struct {
	// Progress, if not nil, is called as pairs are solved (serialised).
	Progress func(done, total int)
}

// NumPairs returns k(k+1)/2, the number of modal derivatives of k modes.
func NumPairs(k int) int { return k * (k + 1) / 2 }

// PairIndex returns the position of the pair (i, j), i ≤ j < k, in the
// order of ModalDerivatives: i outer, j inner ((0,0), (0,1), …, (0,k−1),
// (1,1), …), VegaFEM's order.
func PairIndex(i, j, k int) int {
	if i > j {
		i, j = j, i
	}
	return i*k - i*(i-1)/2 + (j - i)
}

// ModalDerivatives returns the modal derivatives Φᵢⱼ of the modes (Barbič
// & James 2005, eq. 12–15): the full vectors solving
//
//	K Φᵢⱼ = −(H:ψᵢ)ψⱼ,   Φ = 0 at the fixed DOFs,
//
// for i ≤ j in PairIndex order, unnormalised (as VegaFEM). The right-hand
// sides are computed element by element (System.HessianContraction),
// pairs in parallel, and the systems solved with the cached sparse
// Cholesky factorisation of K (the one LinearModes used), eight
// right-hand sides per multi-vector solve.
//
// For an unconstrained body (modes.Rigid > 0; Barbič & James appendix D)
// K is singular, its null space the rigid modes R (M-orthonormal): the
// right-hand side is projected to (I − MRRᵀ)rhs, which K can reach, and
// the solution is the one M-orthogonal to R, found by CG on
// K + MRRᵀM (positive definite, the same solutions) preconditioned by the
// Cholesky factor of K − σM with σ just below 0. This is eq. 14 with the
// rigid part removed, not the mass-corrected eq. 29.
func ModalDerivatives(sys *System, modes *Modes, opt DerivativeOptions) ([][]float64, error) {
	k := len(modes.Vectors)
	if k == 0 {
		return nil, fmt.Errorf("modal: ModalDerivatives: no modes")
	}
	if len(sys.hessian) == 0 {
		return nil, fmt.Errorf("modal: ModalDerivatives: no force field of %q can contract its Hessian (HessianContractor)", sys.State.Base().Path())
	}
	nf := len(sys.Free)
	npairs := NumPairs(k)
	pairs := make([][2]int, 0, npairs)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	// Right-hand sides, element by element, pairs in parallel.
	rhs := make([][]float64, npairs)
	errs := make([]error, npairs)
	parallelFor(npairs, func(p int) {
		full := make([]float64, sys.Size)
		if errs[p] = sys.HessianContraction(full, modes.Vectors[pairs[p][0]], modes.Vectors[pairs[p][1]]); errs[p] != nil {
			return
		}
		r := make([]float64, nf)
		sys.Restrict(r, full)
		for q := range r {
			r[q] = -r[q]
		}
		rhs[p] = r
	})
	for p, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("modal: derivative %v: %w", pairs[p], err)
		}
	}
	if opt.Progress != nil {
		opt.Progress(0, npairs)
	}
	sol := make([][]float64, npairs)
	for p := range sol {
		sol[p] = make([]float64, nf)
	}
	if modes.Rigid == 0 {
		chol, err := sys.factorK()
		if err != nil {
			return nil, fmt.Errorf("modal: ModalDerivatives: factorising K: %w", err)
		}
		// Multi-vector solves, a block of up to 8 at a time.
		for p0 := 0; p0 < npairs; p0 += 8 {
			p1 := min(p0+8, npairs)
			chol.SolveMany(sol[p0:p1], rhs[p0:p1])
			if opt.Progress != nil {
				opt.Progress(p1, npairs)
			}
		}
	} else {
		solve, err := deflatedSolver(sys, modes)
		if err != nil {
			return nil, err
		}
		var mu sync.Mutex
		done := 0
		parallelFor(npairs, func(p int) {
			errs[p] = solve(sol[p], rhs[p])
			if opt.Progress != nil {
				mu.Lock()
				done++
				opt.Progress(done, npairs)
				mu.Unlock()
			}
		})
		for p, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("modal: derivative %v: %w", pairs[p], err)
			}
		}
	}
	out := make([][]float64, npairs)
	for p := range out {
		out[p] = make([]float64, sys.Size)
		sys.Expand(out[p], sol[p])
	}
	return out, nil
}

// deflatedOperator is y = K x + M R (Rᵀ M x) on the free DOFs, R the
// M-orthonormal rigid modes (free components).
type deflatedOperator struct {
	K, M *sparse.CSR
	r    [][]float64 // R
	mr   [][]float64 // M R
}

func (d *deflatedOperator) MulVec(y, x []float64) {
	d.K.MulVec(y, x)
	for j, mr := range d.mr {
		axpy(y, dot(mr, x), mr)
		_ = j
	}
}

// deflatedSolver returns the solver of K Φ = (I − MRRᵀ) b with RᵀMΦ = 0 for
// a body with rigid modes (see ModalDerivatives).
func deflatedSolver(sys *System, modes *Modes) (func(x, b []float64) error, error) {
	nf := len(sys.Free)
	op := &deflatedOperator{K: sys.K, M: sys.M}
	for _, v := range modes.RigidVectors {
		r := make([]float64, nf)
		sys.Restrict(r, v)
		mr := make([]float64, nf)
		sys.M.MulVec(mr, r)
		op.r = append(op.r, r)
		op.mr = append(op.mr, mr)
	}
	pre, err := sys.factorShifted(negativeShift(sys.K, sys.M))
	if err != nil {
		return nil, fmt.Errorf("modal: ModalDerivatives: factorising K − σM: %w", err)
	}
	return func(x, b []float64) error {
		pb := append([]float64(nil), b...)
		for j, r := range op.r {
			axpy(pb, -dot(r, pb), op.mr[j]) // (I − MRRᵀ) b
		}
		res := sparse.CG(op, x, pb, pre, sparse.CGOptions{Tol: 1e-12, MaxIter: 500})
		if !res.Converged {
			return fmt.Errorf("deflated CG did not converge: relative residual %.3g after %d iterations", res.Residual, res.Iterations)
		}
		for j, r := range op.r {
			axpy(x, -dot(op.mr[j], x), r) // RᵀMΦ = 0
		}
		return nil
	}, nil
}
