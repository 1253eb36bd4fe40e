package forcefield

import "math"

// largeGroup is the working memory of largeBlocks4, the AVX kernel of
// method "large"'s element matrices: four tetrahedra at a time, one per
// lane, every quantity a slot of four float64s (lane l of slot s at
// v[4s+l]). The kernel's inputs are Â (largeRotatedTangent), ∇N₁..∇N₃,
// R, −wₑ·kFactor and a sign mask; its outputs the sixteen 3×3 blocks in
// largeElementMatrix's layout (entry j of the 144 at slot
// largeSlotOut+j). The slot numbers are those of large_blocks_gen.go.
type largeGroup struct {
	v [4 * largeNumSlots]float64
}

const (
	largeSlotAh   = 0
	largeSlotG    = 81
	largeSlotR    = 90
	largeSlotSC   = 99
	largeSlotSign = 100
	largeSlotOut  = 182
	largeNumSlots = 326
)

// largeBlocksGroup computes the element matrices of kFactor·K of the n ≤ 4
// elements e0 … e0+n−1 into g (largeSlotOut), through the AVX kernel: the
// same operations in the same order as largeElementMatrix, lane by lane,
// so the blocks of an element do not depend on the elements it is grouped
// with (the lanes past n repeat element e0 and are ignored).
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
		var Ah [81]float64
		largeRotatedTangent(&Ah, cc, mu, lam)
		ah := v[4*largeSlotAh+l : 4*largeSlotAh+l+4*80+1]
		for r, a := range Ah {
			ah[4*r] = a
		}
		B := dmInv[9*e : 9*e+9 : 9*e+9]
		for j, b := range B {
			v[4*(largeSlotG+j)+l] = b
			v[4*(largeSlotR+j)+l] = cc[j]
		}
		v[4*largeSlotSC+l] = -s.weight[e] * kFactor
		v[4*largeSlotSign+l] = negZero
	}
	largeBlocks4(g)
}
