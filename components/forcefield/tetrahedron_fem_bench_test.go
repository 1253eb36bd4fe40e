package forcefield

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
)

// The benchmark mesh is VegaFEM's largest timing bar: 8 × 8 × 26 cubes of
// h = 0.1 m, six Kuhn tetrahedra each, 9984 tetrahedra and 2187 vertices
// (../shared/reference/vega/README.md: corotational force + stiffness
// 6692 µs with warp 1, 12495 µs with the exact tangent, single core). The
// configuration is the rest shape with random displacements of ±2 % of h,
// rotated as a whole.
var benchGrid = [3]int{9, 9, 27}

type femBench struct {
	s     femSetup
	x, dx []float64
	f, df []float64
}

func newFEMBench(b *testing.B, method, tangent string, workers int) *femBench {
	b.Helper()
	s := loadFEM(b, benchGrid, [3]float64{0.8, 0.8, 2.6}, fmt.Sprintf(`method = %q
  tangent = %q
  youngModulus = 1e6
  poissonRatio = 0.45`, method, tangent))
	s.ff.asm.setWorkers(workers)
	rng := rand.New(rand.NewPCG(1, 2))
	x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.002), randomRotation(rng), geom.Vec3{})
	fb := &femBench{s: s, x: x, dx: randomDisplacement(rng, len(x), 1e-3),
		f: make([]float64, len(x)), df: make([]float64, len(x))}
	s.ff.AddForce(fb.f, x, nil)
	return fb
}

func (fb *femBench) report(b *testing.B) {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/float64(fb.s.ff.NumElements())*1e-3, "µs/tet")
}

func benchAddForce(b *testing.B, method, tangent string, workers int) {
	fb := newFEMBench(b, method, tangent, workers)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fb.s.ff.AddForce(fb.f, fb.x, nil)
	}
	fb.report(b)
}

func benchAddDForce(b *testing.B, method, tangent string, workers int) {
	fb := newFEMBench(b, method, tangent, workers)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fb.s.ff.AddDForce(fb.df, fb.dx, 1, 0)
	}
	fb.report(b)
}

// One force evaluation of a 10k-tet beam, method "large" (the default),
// on all cores (GOMAXPROCS workers) and on one.
func BenchmarkTetrahedronFEMLargeAddForce10k(b *testing.B) { benchAddForce(b, "large", "exact", 0) }
func BenchmarkTetrahedronFEMLargeAddForce10kSingleCore(b *testing.B) {
	benchAddForce(b, "large", "exact", 1)
}

// One stiffness product K·dx (exact tangent) of a 10k-tet beam, as a CG
// iteration of an implicit step does.
func BenchmarkTetrahedronFEMLargeAddDForce10k(b *testing.B) { benchAddDForce(b, "large", "exact", 0) }
func BenchmarkTetrahedronFEMLargeAddDForce10kSingleCore(b *testing.B) {
	benchAddDForce(b, "large", "exact", 1)
}

// Every method and tangent, one and two workers.
func BenchmarkTetrahedronFEMMethods10k(b *testing.B) {
	for _, method := range allMethods {
		for _, tangent := range []string{"exact", "warped"} {
			if method == "small" && tangent == "warped" {
				continue
			}
			for _, workers := range []int{1, 2} {
				name := fmt.Sprintf("%s/%s/workers=%d", method, tangent, workers)
				if tangent == "exact" {
					b.Run(name+"/AddForce", func(b *testing.B) { benchAddForce(b, method, tangent, workers) })
				}
				b.Run(name+"/AddDForce", func(b *testing.B) { benchAddDForce(b, method, tangent, workers) })
			}
		}
	}
}

// BenchmarkTetrahedronFEMKBlocks10k is one computation of the element
// stiffness matrices (KBlocks: 16 blocks of 3×3 per tetrahedron, closed
// form) of the 10k-tet beam, per method and tangent, on one worker — the
// element part of an assembly (SparseCholeskySolver, PCGLinearSolver).
func BenchmarkTetrahedronFEMKBlocks10k(b *testing.B) {
	for _, method := range allMethods {
		for _, tangent := range []string{"exact", "warped"} {
			if method == "small" && tangent == "warped" {
				continue
			}
			b.Run(method+"/"+tangent, func(b *testing.B) {
				fb := newFEMBench(b, method, tangent, 1)
				vals := make([]float64, 144*fb.s.ff.NumElements())
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					fb.s.ff.KBlocks(vals, 1)
				}
				fb.report(b)
			})
		}
	}
}
