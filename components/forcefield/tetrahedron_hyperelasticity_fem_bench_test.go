package forcefield

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
)

// Benchmarks of TetrahedronHyperelasticityFEMForceField on the mesh of
// the TetrahedronFEM benchmarks (benchGrid: VegaFEM's 9984-tetrahedron
// timing bar, whose StVK force + stiffness costs 124,867 µs = 12.5 µs/tet
// and neo-Hookean 11,372 µs = 1.1 µs/tet on one core, testdata/vega
// README), in the same configuration (random displacements of ±2 % of h,
// rotated as a whole). µs/tet is per tetrahedron and call.

type hyperBench struct {
	s     hyperSetup
	x, dx []float64
	f, df []float64
}

func newHyperBench(b *testing.B, material string, workers int) *hyperBench {
	b.Helper()
	s := loadHyper(b, benchGrid, [3]float64{0.8, 0.8, 2.6}, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.45`, material))
	s.ff.asm.setWorkers(workers)
	rng := rand.New(rand.NewPCG(1, 2))
	x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.002), randomRotation(rng), geom.Vec3{})
	hb := &hyperBench{s: s, x: x, dx: randomDisplacement(rng, len(x), 1e-3),
		f: make([]float64, len(x)), df: make([]float64, len(x))}
	s.ff.AddForce(hb.f, x, nil)
	return hb
}

func (hb *hyperBench) report(b *testing.B) {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/float64(hb.s.ff.NumElements())*1e-3, "µs/tet")
}

func benchHyperAddForce(b *testing.B, material string, workers int) {
	hb := newHyperBench(b, material, workers)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hb.s.ff.AddForce(hb.f, hb.x, nil)
	}
	hb.report(b)
}

func benchHyperAddDForce(b *testing.B, material string, workers int) {
	hb := newHyperBench(b, material, workers)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hb.s.ff.AddDForce(hb.df, hb.dx, 1, 0)
	}
	hb.report(b)
}

// One force evaluation (with the caching of the tangent data) and one
// stiffness product K·dx of a 10k-tet beam, on all cores (GOMAXPROCS
// workers) and on one.
func BenchmarkTetrahedronHyperelasticityStVKAddForce10k(b *testing.B) {
	benchHyperAddForce(b, "StVenantKirchhoff", 0)
}
func BenchmarkTetrahedronHyperelasticityStVKAddForce10kSingleCore(b *testing.B) {
	benchHyperAddForce(b, "StVenantKirchhoff", 1)
}
func BenchmarkTetrahedronHyperelasticityStVKAddDForce10k(b *testing.B) {
	benchHyperAddDForce(b, "StVenantKirchhoff", 0)
}
func BenchmarkTetrahedronHyperelasticityStVKAddDForce10kSingleCore(b *testing.B) {
	benchHyperAddDForce(b, "StVenantKirchhoff", 1)
}
func BenchmarkTetrahedronHyperelasticityNeoHookeanAddForce10k(b *testing.B) {
	benchHyperAddForce(b, "NeoHookean", 0)
}
func BenchmarkTetrahedronHyperelasticityNeoHookeanAddForce10kSingleCore(b *testing.B) {
	benchHyperAddForce(b, "NeoHookean", 1)
}
func BenchmarkTetrahedronHyperelasticityNeoHookeanAddDForce10k(b *testing.B) {
	benchHyperAddDForce(b, "NeoHookean", 0)
}
func BenchmarkTetrahedronHyperelasticityNeoHookeanAddDForce10kSingleCore(b *testing.B) {
	benchHyperAddDForce(b, "NeoHookean", 1)
}

// Every law, one and two workers.
func BenchmarkTetrahedronHyperelasticityLaws10k(b *testing.B) {
	for _, material := range hyperMaterials {
		for _, workers := range []int{1, 2} {
			name := fmt.Sprintf("%s/workers=%d", material, workers)
			b.Run(name+"/AddForce", func(b *testing.B) { benchHyperAddForce(b, material, workers) })
			b.Run(name+"/AddDForce", func(b *testing.B) { benchHyperAddDForce(b, material, workers) })
		}
	}
}
