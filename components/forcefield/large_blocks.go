package forcefield

import (
	"math"

	"github.com/sofago/sofago/geom"
)

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
	if n == 4 {
		// Four whole records: moved into the lanes by transposes.
		cc := s.cache[strideLarge*e0 : strideLarge*e0+4*strideLarge]
		B := dmInv[9*e0 : 9*e0+36]
		lanesIn27(&v[4*largeSlotCC], &cc[0])
		lanesIn9(&v[4*largeSlotG], &B[0])
	}
	for l := 0; l < 4; l++ {
		e := e0 + l
		if l >= n {
			e = e0
		}
		if n < 4 {
			inLane(v, largeSlotCC, l, s.cache[strideLarge*e:strideLarge*e+strideLarge])
			inLane(v, largeSlotG, l, dmInv[9*e:9*e+9])
		}
		v[4*largeSlotSC+l] = -s.weight[e] * kFactor
		v[4*largeSlotSign+l] = negZero
		v[4*largeSlotMu+l] = mu
		v[4*largeSlotLam+l] = lam
	}
	largeBlocks4(g)
}

// largeForceGroup is the working memory of largeForces4, the AVX kernel
// of method "large"'s force pass, four tetrahedra at a time as largeGroup:
// the inputs are the vertices' positions, Dm⁻¹, −wₑ, a sign mask, μ, λ,
// 1 and 3; the outputs the element's cache of largeLaw and its corner
// forces (the slot numbers of large_blocks_gen.go).
type largeForceGroup struct {
	v [4 * largeFNumSlots]float64
}

const (
	largeFSlotX     = 0
	largeFSlotB     = 12
	largeFSlotS     = 21
	largeFSlotSign  = 22
	largeFSlotMu    = 23
	largeFSlotLam   = 24
	largeFSlotOne   = 25
	largeFSlotThree = 26
	largeFSlotCC    = 27
	largeFSlotF     = 54
	largeFNumSlots  = 336
)

// largeForceRange is forceRange for method "large" through the AVX kernel
// largeForces4: the same operations in the same order as gradientTo,
// largeLaw.StressCached and nodalForces, lane by lane. The kernel follows
// largeElement.decompose's main branch; an element whose pivot U₀₀ or U₁₁
// is not above minPivot (a degenerate or NaN gradient) is done again by
// the scalar code, so every element's cache and forces are exactly the
// scalar ones.
func (s *tetSolid) largeForceRange(lo, hi int) {
	m, x := s.mesh, s.argX
	var g largeForceGroup
	v := g.v[:]
	for l := 0; l < 4; l++ {
		v[4*largeFSlotSign+l] = math.Copysign(0, -1)
		v[4*largeFSlotMu+l] = s.largeExact.mu
		v[4*largeFSlotLam+l] = s.largeExact.lambda
		v[4*largeFSlotOne+l] = 1
		v[4*largeFSlotThree+l] = 3
	}
	for e0 := lo; e0 < hi; e0 += 4 {
		n := min(4, hi-e0)
		if n == 4 {
			B := m.dmInv[9*e0 : 9*e0+36]
			lanesIn9(&v[4*largeFSlotB], &B[0])
		}
		m.cornersInLanes(v, largeFSlotX, e0, n, x)
		for l := 0; l < 4; l++ {
			e := e0 + l
			if l >= n {
				e = e0
			}
			if n < 4 {
				inLane(v, largeFSlotB, l, m.dmInv[9*e:9*e+9])
			}
			v[4*largeFSlotS+l] = -s.weight[e]
		}
		largeForces4(&g)
		if n == 4 {
			// Four whole records: moved out of the lanes by transposes.
			cc := s.cache[strideLarge*e0 : strideLarge*e0+4*strideLarge]
			el := s.elem[12*e0 : 12*e0+48]
			lanesOut27(&cc[0], &v[4*largeFSlotCC])
			lanesOut12(&el[0], &v[4*largeFSlotF])
		}
		for l := 0; l < n; l++ {
			e := e0 + l
			cc := s.cache[strideLarge*e : strideLarge*e+strideLarge : strideLarge*e+strideLarge]
			if n < 4 {
				for i := range cc {
					cc[i] = v[4*(largeFSlotCC+i)+l]
				}
				el := s.elem[12*e : 12*e+12 : 12*e+12]
				for i := range el {
					el[i] = v[4*(largeFSlotF+i)+l]
				}
			}
			if !(cc[9] > minPivot && cc[12] > minPivot) {
				var F, P geom.Mat3
				m.gradientTo(e, x, F[:])
				s.law.StressCached(F[:], P[:], cc)
				m.nodalForces(e, &P, -s.weight[e], s.elem[12*e:])
			}
		}
	}
}

// largeDForceGroup is the working memory of largeDForces4, the AVX kernel
// of method "large"'s force differentials (AddDForce), four tetrahedra at
// a time as largeGroup: the inputs are the vertices' displacements, Dm⁻¹,
// the element's cache, −wₑ·kFactor, a sign mask, μ and λ; the outputs
// the corner force differentials (the slot numbers of
// large_blocks_gen.go).
type largeDForceGroup struct {
	v [4 * largeDNumSlots]float64
}

const (
	largeDSlotX    = 0
	largeDSlotB    = 12
	largeDSlotCC   = 21
	largeDSlotS    = 48
	largeDSlotSign = 49
	largeDSlotMu   = 50
	largeDSlotLam  = 51
	largeDSlotF    = 52
	largeDNumSlots = 408
)

// largeDForceRange is dforceRange for method "large" with its exact
// tangent through the AVX kernel largeDForces4: the same operations in
// the same order as gradientTo, largeDStress and nodalForces, lane by
// lane, so every element's force differentials are exactly the scalar
// ones.
func (s *tetSolid) largeDForceRange(lo, hi int) {
	m, dx, kf := s.mesh, s.argX, s.argK
	var g largeDForceGroup
	v := g.v[:]
	for l := 0; l < 4; l++ {
		v[4*largeDSlotSign+l] = math.Copysign(0, -1)
		v[4*largeDSlotMu+l] = s.largeExact.mu
		v[4*largeDSlotLam+l] = s.largeExact.lambda
	}
	for e0 := lo; e0 < hi; e0 += 4 {
		n := min(4, hi-e0)
		m.cornersInLanes(v, largeDSlotX, e0, n, dx)
		for l := 0; l < 4; l++ {
			e := e0 + l
			if l >= n {
				e = e0
			}
			if n < 4 {
				inLane(v, largeDSlotB, l, m.dmInv[9*e:9*e+9])
				inLane(v, largeDSlotCC, l, s.cache[strideLarge*e:strideLarge*e+strideLarge])
			}
			v[4*largeDSlotS+l] = -s.weight[e] * kf
		}
		if n == 4 {
			B := m.dmInv[9*e0 : 9*e0+36]
			cc := s.cache[strideLarge*e0 : strideLarge*e0+4*strideLarge]
			lanesIn9(&v[4*largeDSlotB], &B[0])
			lanesIn27(&v[4*largeDSlotCC], &cc[0])
		}
		largeDForces4(&g)
		if n == 4 {
			el := s.elem[12*e0 : 12*e0+48]
			lanesOut12(&el[0], &v[4*largeDSlotF])
			continue
		}
		for l := 0; l < n; l++ {
			e := e0 + l
			el := s.elem[12*e : 12*e+12 : 12*e+12]
			for i := range el {
				el[i] = v[4*(largeDSlotF+i)+l]
			}
		}
	}
}

// inLane puts src into lane l of the len(src) slots from slot of a
// group's working memory v (entry i at v[4(slot+i)+l]).
func inLane(v []float64, slot, l int, src []float64) {
	d := v[4*slot+l : 4*slot+l+4*len(src)-3]
	for i, x := range src {
		d[4*i] = x
	}
}

// cornersInLanes puts x's entries of the four vertices of elements e0 …
// e0+n−1 into lanes 0 … n−1 of the twelve slots from slot (corner c's
// component k at slot+3c+k), the lanes past n repeating element e0: the
// positions for largeForces4, the displacements for largeDForces4.
func (m *tetElements) cornersInLanes(v []float64, slot, e0, n int, x []float64) {
	for l := 0; l < 4; l++ {
		e := e0 + l
		if l >= n {
			e = e0
		}
		for c, p := range m.idx[4*e : 4*e+4 : 4*e+4] {
			xp := x[3*int(p) : 3*int(p)+3 : 3*int(p)+3]
			xs := v[4*(slot+3*c)+l : 4*(slot+3*c)+l+9 : 4*(slot+3*c)+l+9]
			xs[0], xs[4], xs[8] = xp[0], xp[1], xp[2]
		}
	}
}
