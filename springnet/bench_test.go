package springnet

import (
	"math/rand/v2"
	"testing"
)

// benchElement is a three-frame cluster element with random stiffness,
// evaluated at a deformed configuration.
func benchElement() (*Element, []float64) {
	rng := rand.New(rand.NewPCG(1, 1))
	rest := []float64{0, 0, 0, 0, 0, 0, 1, 0.25, 0, 0, 0, 0, 0, 1, 0.5, 0, 0, 0, 0, 0, 1}
	K := make([]float64, 18*18)
	// A rigid-invariant symmetric matrix: −Eᵀ S E for a random SPD S on the gaps.
	net, _ := BuildClusters(rest, []Cluster{{Frames: []int{0, 1, 2}, K: K}})
	el := &net.Elements[0]
	for i := 0; i < 12; i++ {
		for j := 0; j <= i; j++ {
			v := rng.Float64()
			if i == j {
				v += 12
			}
			el.Q[i*12+j], el.Q[j*12+i] = v, v
		}
	}
	x := []float64{0, 0.01, 0, 0, 0, 0.05, 0.99875, 0.25, -0.02, 0.01, 0.02, 0, 0.1, 0.99478, 0.5, -0.05, 0, 0, 0.03, 0.2, 0.97934}
	return el, x
}

// BenchmarkElementEvaluate: forces and exact tangent of a three-frame
// cluster element (two gaps).
func BenchmarkElementEvaluate(b *testing.B) {
	el, x := benchElement()
	f := make([]float64, 18)
	K := make([]float64, 18*18)
	var w ElementWork
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		el.Evaluate(x, f, K, &w)
	}
}

// BenchmarkElementForce: forces only.
func BenchmarkElementForce(b *testing.B) {
	el, x := benchElement()
	f := make([]float64, 18)
	var w ElementWork
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		el.Evaluate(x, f, nil, &w)
	}
}
