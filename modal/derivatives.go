package modal

import "errors"

// DerivativeOptions controls ModalDerivatives.
type DerivativeOptions struct {
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
	// Progress, if not nil, is called after each solved pair.
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
// parallel. For an unconstrained body (appendix D) the right-hand side is
// projected to be orthogonal to the rigid modes and the solution made
// M-orthogonal to them (the rigid-body part is left undefined by K).
func ModalDerivatives(sys *System, modes *Modes, opt DerivativeOptions) ([][]float64, error) {
	return nil, errors.New("modal: ModalDerivatives not implemented yet") // TODO(6a)
}
