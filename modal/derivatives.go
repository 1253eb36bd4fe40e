package modal

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/sofago/sofago/sparse"
)

// DerivativeOptions controls ModalDerivatives.
type DerivativeOptions struct {
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
	// Progress, if not nil, is called after each solved pair (from the
	// worker goroutines, serialised).
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
// sides are computed element by element (System.HessianContraction) and
// the systems solved with one sparse Cholesky factorisation of K, pairs in
// parallel.
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
	var solve func(x, b []float64) error
	if modes.Rigid == 0 {
		chol, err := sys.factorK()
		if err != nil {
			return nil, fmt.Errorf("modal: ModalDerivatives: factorising K: %w", err)
		}
		solve = func(x, b []float64) error { chol.Solve(x, b); return nil }
	} else {
		var err error
		if solve, err = deflatedSolver(sys, modes); err != nil {
			return nil, err
		}
	}
	npairs := NumPairs(k)
	out := make([][]float64, npairs)
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type pair struct{ i, j, idx int }
	jobs := make(chan pair)
	var mu sync.Mutex
	var firstErr error
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			full := make([]float64, sys.Size)
			rhs := make([]float64, nf)
			for p := range jobs {
				err := sys.HessianContraction(full, modes.Vectors[p.i], modes.Vectors[p.j])
				if err == nil {
					sys.Restrict(rhs, full)
					for q := range rhs {
						rhs[q] = -rhs[q]
					}
					x := make([]float64, nf)
					if err = solve(x, rhs); err == nil {
						phi := make([]float64, sys.Size)
						sys.Expand(phi, x)
						out[p.idx] = phi
					}
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("modal: derivative (%d, %d): %w", p.i, p.j, err)
				}
				done++
				if opt.Progress != nil {
					opt.Progress(done, npairs)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			jobs <- pair{i, j, PairIndex(i, j, k)}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
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
