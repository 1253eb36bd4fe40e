package example

// EliminateNegativeWeights removes negative weights by Koyama et al.'s
// procedure (2012, Sec. 4.2): the smallest negative weight is set to zero and
// its absolute value is taken in equal shares from the other weights, until
// none is negative. The paper divides by n, the number of other weights;
// here the shares come only from the weights still active (not yet
// eliminated), which is the same on the first pass and makes the procedure
// end after at most n passes with every weight ≥ 0 and the sum unchanged
// (taking a share from an already eliminated weight would make it negative
// again). active is scratch of len(w).
//
// The result is not the closest point of the examples' convex hull
// (ProjectSimplex is): fine for shape matching's goals, not for a potential
// whose force relies on the weights minimising the distance.
func EliminateNegativeWeights(w []float64, active []bool) {
	for i := range active {
		active[i] = true
	}
	nActive := len(w)
	for nActive > 1 {
		worst := -1
		for i, x := range w {
			if active[i] && x < 0 && (worst < 0 || x < w[worst]) {
				worst = i
			}
		}
		if worst < 0 {
			return
		}
		share := -w[worst] / float64(nActive-1)
		w[worst] = 0
		active[worst] = false
		nActive--
		for i := range w {
			if active[i] {
				w[i] -= share
			}
		}
	}
	// One weight left: it holds the whole sum.
	for i := range w {
		if active[i] && w[i] < 0 {
			w[i] = 0
		}
	}
}

// BiasTowardRest applies Koyama et al.'s β (Sec. 4.2) to weights whose
// w[0] is the rest pose's: w₀ ← w₀ + (1 − β) Σ_{k≥1} w_k, w_k ← β w_k. It
// keeps the sum and the signs of the weights.
func BiasTowardRest(w []float64, beta float64) {
	if beta == 1 {
		return
	}
	sum := 0.0
	for k := 1; k < len(w); k++ {
		sum += w[k]
		w[k] *= beta
	}
	w[0] += (1 - beta) * sum
}
