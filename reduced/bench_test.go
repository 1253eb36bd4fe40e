package reduced

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkReducedForceStiffness is one evaluation of R(q) and K(q) (a
// reduced Newmark iteration's model work), at r = 6, 12, 20, 30, on a
// random basis of the 240-tetrahedron bar as VegaFEM's timing
// (../shared/reference/vega/timings_openblas.json: R+K 0.48, 1.86, 9.1,
// 43.7 µs). The cost does not depend on the mesh.
func BenchmarkReducedForceStiffness(b *testing.B) {
	mesh := kuhnBar(2, 2, 10, 0.2, 0.2, 1)
	for _, r := range []int{6, 12, 20, 30} {
		U := randomBasis(mesh, r, 0.01, uint64(1000+r))
		poly, err := Precompute(mesh, U, PrecomputeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		md, err := NewModel(poly, []float64{3.1e6}, []float64{3.4e5})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		q := make([]float64, r)
		for i := range q {
			q[i] = 2*rng.Float64() - 1
		}
		R, K := make([]float64, r), make([]float64, r*r)
		b.Run(fmt.Sprintf("r=%d", r), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				md.Evaluate(q, R, K)
			}
		})
	}
}

// BenchmarkCubicCoefficients10k precomputes the polynomials of a
// 9,984-tetrahedron bar (VegaFEM's 8×8×26 timing mesh) at r = 30.
func BenchmarkCubicCoefficients10k(b *testing.B) {
	mesh := kuhnBar(8, 8, 26, 0.2, 0.2, 1)
	U := randomBasis(mesh, 30, 0.01, 1)
	for b.Loop() {
		start := time.Now()
		if _, err := Precompute(mesh, U, PrecomputeOptions{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/precompute")
	}
}
