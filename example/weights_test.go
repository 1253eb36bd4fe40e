package example

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEliminateNegativeWeightsByHand: Koyama et al.'s procedure on small
// cases worked out by hand. (0.5, 0.8, −0.3): −0.3 is zeroed and 0.15 taken
// from each other weight. (1.4, −0.1, −0.3): −0.3 first (0.15 from the two
// others: 1.25, −0.25, 0), then −0.25 (all of it from the one weight left:
// 1, 0, 0).
func TestEliminateNegativeWeightsByHand(t *testing.T) {
	cases := []struct{ in, want []float64 }{
		{[]float64{0.5, 0.8, -0.3}, []float64{0.35, 0.65, 0}},
		{[]float64{1.4, -0.1, -0.3}, []float64{1, 0, 0}},
		{[]float64{0.2, 0.3, 0.5}, []float64{0.2, 0.3, 0.5}},
		{[]float64{-0.2, 0.6, 0.6}, []float64{0, 0.5, 0.5}},
	}
	for _, c := range cases {
		w := append([]float64(nil), c.in...)
		EliminateNegativeWeights(w, make([]bool, len(w)))
		for i := range w {
			// Two subtractions of exact decimal fractions: rounding only.
			if math.Abs(w[i]-c.want[i]) > 1e-15 {
				t.Errorf("%v → %v, want %v", c.in, w, c.want)
				break
			}
		}
	}
}

// TestEliminateNegativeWeightsRandom: on random weights summing to one, no
// weight stays negative and the sum is kept.
func TestEliminateNegativeWeightsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 10000; trial++ {
		n := 2 + rng.IntN(6)
		w := make([]float64, n)
		sum := 0.0
		for i := 1; i < n; i++ {
			w[i] = 4*rng.Float64() - 2
			sum += w[i]
		}
		w[0] = 1 - sum
		EliminateNegativeWeights(w, make([]bool, n))
		total := 0.0
		for _, x := range w {
			if x < 0 {
				t.Fatalf("trial %d: negative weight left: %v", trial, w)
			}
			total += x
		}
		// n ≤ 7 weights of magnitude ≤ 14, n passes: rounding well below 1e-13.
		if math.Abs(total-1) > 1e-13 {
			t.Fatalf("trial %d: weights sum to %.17g: %v", trial, total, w)
		}
	}
}

// TestBiasTowardRest: β moves (1 − β) of every example weight to the rest.
func TestBiasTowardRest(t *testing.T) {
	w := []float64{0.2, 0.5, 0.3}
	BiasTowardRest(w, 0.9)
	want := []float64{0.2 + 0.1*0.8, 0.45, 0.27}
	for i := range w {
		if math.Abs(w[i]-want[i]) > 1e-15 {
			t.Fatalf("got %v, want %v", w, want)
		}
	}
}

// TestManifoldRecoversWeights: for a random example matrix, a descriptor
// that is an exact combination of the rest and example descriptors projects
// back to its weights (eq. 7 is then an exact solve), including weights
// outside [0, 1] (the projection itself does not clip). An example that
// equals the rest pose gets weight zero (minimum-norm solution).
func TestManifoldRecoversWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const regions, n = 40, 3
	ex := make([][]float64, n+1)
	for k := range ex {
		ex[k] = make([]float64, DescSize*regions)
		for j := range ex[k] {
			if k < n {
				ex[k][j] = IdentityDescriptor[j%DescSize] + 0.3*(2*rng.Float64()-1)
			} else {
				ex[k][j] = IdentityDescriptor[j%DescSize] // the last example is the rest pose
			}
		}
	}
	rest := make([]float64, DescSize*regions)
	for j := range rest {
		rest[j] = IdentityDescriptor[j%DescSize]
	}
	em, err := NewManifold(append([][]float64{rest}, ex...), nil)
	if err != nil {
		t.Fatal(err)
	}
	if em.Rank() != n {
		t.Fatalf("rank %d, want %d", em.Rank(), n)
	}
	for trial := 0; trial < 100; trial++ {
		want := make([]float64, n+2)
		sum := 0.0
		for k := 1; k <= n; k++ {
			want[k] = 3*rng.Float64() - 1
			sum += want[k]
		}
		want[0] = 1 - sum
		d := make([]float64, DescSize*regions)
		for j := range d {
			d[j] = want[0] * IdentityDescriptor[j%DescSize]
			for k := 1; k <= n; k++ {
				d[j] += want[k] * ex[k-1][j]
			}
		}
		w := make([]float64, n+2)
		em.Project(d, w)
		for k := range w {
			// Condition of L is O(10) here; 1e-12 is rounding with margin.
			if math.Abs(w[k]-want[k]) > 1e-12 {
				t.Fatalf("trial %d: weights %v, want %v", trial, w, want)
			}
		}
	}
}
