package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gauss3 are the nodes and weights of 3-point Gauss–Legendre quadrature
// on [−1, 1], exact for polynomials of degree ≤ 5.
var gauss3 = [3][2]float64{
	{-0.7745966692414834, 5.0 / 9},
	{0, 8.0 / 9},
	{0.7745966692414834, 5.0 / 9},
}

// TestMonomialNumbering: the table lists every exponent of degree ≤ 4
// once, by degree, and MonomialIndex inverts it.
func TestMonomialNumbering(t *testing.T) {
	seen := map[[3]int]bool{}
	for m := 0; m < NumMoments; m++ {
		e := MonomialExponents(m)
		if seen[e] {
			t.Fatalf("exponent %v listed twice", e)
		}
		seen[e] = true
		if MonomialIndex(e[0], e[1], e[2]) != m {
			t.Errorf("MonomialIndex(%v) = %d, want %d", e, MonomialIndex(e[0], e[1], e[2]), m)
		}
		if d := e[0] + e[1] + e[2]; m >= NumMonomials(d) || (d > 0 && m < NumMonomials(d-1)) {
			t.Errorf("monomial %d (%v) is out of its degree's block", m, e)
		}
	}
	if MonomialIndex(5, 0, 0) != -1 || MonomialIndex(2, 2, 1) != -1 {
		t.Error("degree 5 has an index")
	}
}

// TestBoxMomentsMatchGauss: the closed-form box moments equal a 3×3×3
// Gauss–Legendre quadrature of each monomial over the box (exact for
// degree ≤ 5 per axis), for boxes far from and near the centre, to 1e-13
// relative to the moment's absolute integrand scale ∫|d|^|α|.
func TestBoxMomentsMatchGauss(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		b := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		h := Vec3{0.01 + rng.Float64(), 0.01 + rng.Float64(), 0.01 + rng.Float64()}
		c := b.Add(Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(float64(trial % 3)))
		got := make([]float64, NumMoments)
		AddBoxMoments(got, b, h, c, 1)
		want := make([]float64, NumMoments)
		scale := make([]float64, NumMoments)
		mono := make([]float64, NumMoments)
		vol := 8 * h[0] * h[1] * h[2]
		for _, gx := range gauss3 {
			for _, gy := range gauss3 {
				for _, gz := range gauss3 {
					X := Vec3{b[0] + gx[0]*h[0], b[1] + gy[0]*h[1], b[2] + gz[0]*h[2]}
					w := gx[1] * gy[1] * gz[1] * vol / 8
					EvalMonomials(mono, X.Sub(c))
					for m := range mono {
						want[m] += w * mono[m]
						scale[m] += w * math.Abs(mono[m])
					}
				}
			}
		}
		for m := range got {
			if e := math.Abs(got[m]-want[m]) / scale[m]; e > 1e-13 {
				t.Errorf("trial %d monomial %v: closed form %.17g, Gauss %.17g (relative %.2g)", trial, MonomialExponents(m), got[m], want[m], e)
			}
		}
	}
}
