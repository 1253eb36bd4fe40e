package shapematching

import (
	"fmt"
	"math"

	"github.com/sofago/sofago/geom"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Deformation descriptors (Koyama et al. 2012, Sec. 4.1): the right stretch
// tensor S_r of every region, 6 numbers per region. They are stored as
//
//	(S₀₀, S₁₁, S₂₂, √2·S₀₁, √2·S₀₂, √2·S₁₂)
//
// so that the Euclidean norm of a descriptor difference is the Frobenius
// norm of the stretch difference: the projection of eq. 6 then does not
// depend on the orientation of the rest mesh's axes (the paper only says
// "3 × 3 symmetric matrices are represented as 6D vectors"). The rest pose's
// descriptor is the identity in every region, exactly, as in the paper.
const descSize = 6

var sqrt2 = math.Sqrt2

// restDescriptor is the identity stretch in descriptor form.
var restDescriptor = [descSize]float64{1, 1, 1, 0, 0, 0}

// exampleManifold is the example manifold of one group of regions (the
// whole object for a global manifold, one group, or one region; Sec. 4.3):
// the convex hull of the group's descriptors in the rest pose and the n
// example poses. It holds the pseudo-inverse of
//
//	L = (S¹ − S⁰ … Sⁿ − S⁰)   (6·|group| × n, eq. 7),
//
// computed once from L's singular value decomposition, so the projection of
// a descriptor S is w = L⁺ (S − S⁰) = L⁺S − L⁺S⁰: n dot products of length
// 6·|group| (L⁺S⁰ is precomputed). When L has full column rank this is
// eq. 7's (LᵀL)⁻¹Lᵀ(S − S⁰), computed without squaring L's condition
// number; when it does not (an example that leaves the group undeformed,
// two examples that deform it alike — common with per-group and per-region
// manifolds), it is the minimum-norm least-squares solution, which gives no
// weight to an example that does not deform the group and splits it evenly
// among examples that deform it alike.
//
// Descriptors are laid out group by group (slots), so a group's descriptor
// is one contiguous slice: slots first … first+count−1.
type exampleManifold struct {
	first, count int
	pinv         []float64 // L⁺: n rows of 6·count
	pinvRest     []float64 // L⁺S⁰, n numbers
	rank         int
}

// singularFloor is the absolute threshold under which a singular value of L
// counts as zero. Descriptors are dimensionless stretches of order one;
// examples that leave a group undeformed give columns of L made of rounding
// errors (about 1e-16 per entry), far below it, while any deformation an
// artist can see is far above it.
const singularFloor = 1e-9

// newExampleManifold builds the manifold of the regions in slots
// [first, first+count) from the example descriptors exDesc[k] (6 per slot,
// k = 0..n−1, the examples 1..n of the paper).
func newExampleManifold(first, count int, exDesc [][]float64) (*exampleManifold, error) {
	n := len(exDesc)
	rows := descSize * count
	em := &exampleManifold{first: first, count: count, pinv: make([]float64, n*rows), pinvRest: make([]float64, n)}
	if n == 0 || rows == 0 {
		return em, nil
	}
	L := mat.NewDense(rows, n, nil)
	for k := 0; k < n; k++ {
		for j := 0; j < rows; j++ {
			L.Set(j, k, exDesc[k][descSize*first+j]-restDescriptor[j%descSize])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(L, mat.SVDThin) {
		return nil, fmt.Errorf("the singular value decomposition of the example matrix L (%d × %d) did not converge", rows, n)
	}
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	sig := svd.Values(nil)
	tol := math.Max(singularFloor, 1e-12*sig[0])
	// L⁺ = V Σ⁺ Uᵀ: L⁺[k][j] = Σ_s V[k][s] U[j][s] / σ_s.
	for s, sv := range sig {
		if sv <= tol {
			continue
		}
		em.rank++
		for k := 0; k < n; k++ {
			v := V.At(k, s) / sv
			row := em.pinv[k*rows : (k+1)*rows]
			for j := range row {
				row[j] += v * U.At(j, s)
			}
		}
	}
	for k := 0; k < n; k++ {
		row := em.pinv[k*rows : (k+1)*rows]
		for j, p := range row {
			em.pinvRest[k] += p * restDescriptor[j%descSize]
		}
	}
	return em, nil
}

// project sets w[1..n] to the least-squares weights of eq. 6–7 for the
// descriptor desc (6 per slot, all slots) and w[0] = 1 − Σ w_k.
func (em *exampleManifold) project(desc []float64, w []float64) {
	n := len(w) - 1
	rows := descSize * em.count
	d := desc[descSize*em.first : descSize*em.first+rows]
	sum := 0.0
	for k := 1; k <= n; k++ {
		row := em.pinv[(k-1)*rows : k*rows]
		var dot float64
		if rows > 4*descSize {
			dot = floats.Dot(row, d)
		} else {
			for j, p := range row {
				dot += p * d[j]
			}
		}
		w[k] = dot - em.pinvRest[k-1]
		sum += w[k]
	}
	w[0] = 1 - sum
}

// eliminateNegativeWeights removes negative weights by Koyama et al.'s
// procedure (Sec. 4.2): the smallest negative weight is set to zero and its
// absolute value is taken in equal shares from the other weights, until none
// is negative. The paper divides by n, the number of other weights; here the
// shares come only from the weights still active (not yet eliminated), which
// is the same on the first pass and makes the procedure end after at most n
// passes with every weight ≥ 0 and the sum unchanged (taking a share from an
// already eliminated weight would make it negative again). active is scratch
// of len(w).
func eliminateNegativeWeights(w []float64, active []bool) {
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

// biasTowardRest applies Koyama et al.'s β (Sec. 4.2): w₀ ← w₀ + (1 − β)
// Σ_{k≥1} w_k, w_k ← β w_k. It keeps the sum and the signs of the weights.
func biasTowardRest(w []float64, beta float64) {
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

// putDescriptor writes the symmetric part of S in descriptor form at d[0:6].
func putDescriptor(d []float64, S *geom.Mat3) {
	d[0], d[1], d[2] = S[0], S[4], S[8]
	d[3] = sqrt2 * 0.5 * (S[1] + S[3])
	d[4] = sqrt2 * 0.5 * (S[2] + S[6])
	d[5] = sqrt2 * 0.5 * (S[5] + S[7])
}
