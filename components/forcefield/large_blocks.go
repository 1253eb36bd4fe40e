package forcefield

import "math"

// largeGroup is the working memory of largeBlocks4, the AVX kernel of
// method "large"'s element matrices: four tetrahedra at a time, one per
// lane, every quantity a slot of four float64s (lane l of slot s at
// v[4s+l]). The kernel's inputs are each element's cache of largeLaw (R,
// U, U⁻¹, G, B), ∇N₁..∇N₃, −wₑ·kFactor, a sign mask, μ and λ; it computes
// Â (largeRotatedTangent) and the sixteen 3×3 blocks in
// largeElementMatrix's layout (entry j of the 144 at slot largeSlotOut+j),
// its intermediate values in the slots after. The slot numbers are those
// of large_blocks_gen.go.
type largeGroup struct {
	v [4 * largeNumSlots]float64
}

const (
	largeSlotCC   = 0
	largeSlotG    = 27
	largeSlotSC   = 36
	largeSlotSign = 37
	largeSlotMu   = 38
	largeSlotLam  = 39
	largeSlotOut  = 40
	largeNumSlots = 464
)

// largeBlocksGroup computes the element matrices of kFactor·K of the n ≤ 4
// elements e0 … e0+n−1 into g (largeSlotOut), through the AVX kernel: the
// same operations in the same order as largeRotatedTangent and
// largeElementMatrix, lane by lane, so the blocks of an element do not
// depend on the elements it is grouped with (the lanes past n repeat
// element e0 and are ignored).
func (s *tetSolid) largeBlocksGroup(g *largeGroup, e0, n int, kFactor float64) {
	v := g.v[:]
	mu, lam := s.largeExact.mu, s.largeExact.lambda
	dmInv := s.mesh.dmInv
	negZero := math.Copysign(0, -1)
	for l := 0; l < 4; l++ {
		e := e0 + l
		if l >= n {
			e = e0
		}
		cc := s.cache[strideLarge*e : strideLarge*e+strideLarge : strideLarge*e+strideLarge]
		c := v[4*largeSlotCC+l : 4*largeSlotCC+l+4*26+1 : 4*largeSlotCC+l+4*26+1]
		for i, x := range cc {
			c[4*i] = x
		}
		B := dmInv[9*e : 9*e+9 : 9*e+9]
		gr := v[4*largeSlotG+l : 4*largeSlotG+l+4*8+1 : 4*largeSlotG+l+4*8+1]
		for j, b := range B {
			gr[4*j] = b
		}
		v[4*largeSlotSC+l] = -s.weight[e] * kFactor
		v[4*largeSlotSign+l] = negZero
		v[4*largeSlotMu+l] = mu
		v[4*largeSlotLam+l] = lam
	}
	largeBlocks4(g)
}
