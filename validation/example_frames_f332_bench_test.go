package validation

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// exampleF332Bench is the F332 bar of example_frames_f332_test.go refined
// for timing: a 120 × 24 × 24 voxel grid sampled in blocks of 2 × 2 × 2
// voxels, 8640 F332 samples of order 4, the example term (global manifold
// of the rest pose and the twist example, or one per sample) evaluated at
// the samples the frames halfway to the example give, plus noise.
func exampleF332Bench(b *testing.B, fields string) (*forcefield.ExampleBasedForceField, []float64) {
	b.Helper()
	s := framesSceneF332(b, false, 1e5)
	s = framesReplaceOnce(b, s, "resolution = [20, 4, 4]", "resolution = [120, 24, 24]")
	s = framesReplaceOnce(b, s, "resolution = [10, 2, 2]", "resolution = [60, 12, 12]")
	sc := graphtest.MustLoad(b, "frames.toml", s+"    "+fields+"\n")
	ff := graphtest.Find[*forcefield.ExampleBasedForceField](b, sc, "bar/samples/example")
	F := graphtest.Find[graph.State](b, sc, "bar/samples/F")
	frames := graphtest.Find[graph.State](b, sc, "bar/frames")
	half := framesTwist()
	for i, r := range half {
		h := float64(i) * math.Pi / 24 // halfway: 15°·i about +x
		r[3], r[6] = math.Sin(h), math.Cos(h)
	}
	copy(frames.Vec(graph.Position), flatten(half))
	sc.ComputeForces()
	x := append([]float64(nil), F.Vec(graph.Position)...)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] += 0.002 * (2*rng.Float64() - 1)
	}
	if n := F.Size(); n != 8640 {
		b.Fatalf("%d samples, want 8640", n)
	}
	return ff, x
}

var exampleF332BenchManifolds = []struct{ name, fields string }{
	{"Global", "includeRest = true"},
	{"Samples", "manifold = \"elements\"\n    includeRest = true"},
}

// benchPerSample times body and reports the wall time per sample.
func benchPerSample(b *testing.B, samples int, body func()) {
	body() // warm up: scratch, the pool's goroutines
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		body()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(samples)), "ns/sample")
}

// BenchmarkExampleBasedF332Force: AddForce on 8640 F332 samples, the
// projection (region-integrated descriptors, 60 numbers per sample) and
// the forces on F and ∇F.
func BenchmarkExampleBasedF332Force(b *testing.B) {
	for _, m := range exampleF332BenchManifolds {
		b.Run(m.name, func(b *testing.B) {
			ff, x := exampleF332Bench(b, m.fields)
			f := make([]float64, len(x))
			benchPerSample(b, len(x)/36, func() { ff.AddForce(f, x, nil) })
		})
	}
}

// BenchmarkExampleBasedF332DForce: one exact tangent product (with the
// dw*/dx reduction) on the 8640 samples.
func BenchmarkExampleBasedF332DForce(b *testing.B) {
	for _, m := range exampleF332BenchManifolds {
		b.Run(m.name, func(b *testing.B) {
			ff, x := exampleF332Bench(b, m.fields)
			f, df := make([]float64, len(x)), make([]float64, len(x))
			ff.AddForce(f, x, nil)
			rng := rand.New(rand.NewPCG(3, 4))
			d := make([]float64, len(x))
			for i := range d {
				d[i] = 1e-3 * (2*rng.Float64() - 1)
			}
			benchPerSample(b, len(x)/36, func() { ff.AddDForce(df, d, 1, 0) })
		})
	}
}

// BenchmarkExampleBasedF332Energy: the potential (projection included).
func BenchmarkExampleBasedF332Energy(b *testing.B) {
	ff, x := exampleF332Bench(b, exampleF332BenchManifolds[0].fields)
	benchPerSample(b, len(x)/36, func() { ff.PotentialEnergy(x) })
}
