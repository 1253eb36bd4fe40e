package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/meshio"
	"github.com/sofago/sofago/pose"
)

// exampleBench10k is a 10,368-tetrahedron cube (13 × 13 × 13 vertices, a
// metre wide: 12³ cells of 6 tetrahedra) with three example poses
// (twist, bend, bulge), and an ExampleBasedForceField with the given
// fields, at a configuration halfway to the twist plus noise.
func exampleBench10k(b *testing.B, fields string) (*ExampleBasedForceField, []float64) {
	b.Helper()
	n := [3]int{13, 13, 13}
	size := [3]float64{1, 1, 1}
	s := graphtest.MustLoad(b, "bar.toml", femScene(n, size, "method = \"small\"\n  youngModulus = 1e6\n  poissonRatio = 0.3"))
	dofs := graphtest.Find[*graph.MechanicalObject](b, s, "beam/dofs")
	rest := dofs.Vec(graph.RestPosition)
	tets := s.Root.Children[0].Topology().Tetrahedra()
	c := geom.Vec3{0.5, 0.5, 0.5}
	x := geom.Vec3{1, 0, 0}
	defs := []pose.Deformation{
		pose.Twist{Center: c, Axis: x, From: 0, To: 1, Angle: math.Pi / 3},
		pose.Bend{Center: c, Axis: x, Toward: geom.Vec3{0, 1, 0}, From: 0.2, To: 1, Angle: 0.5},
		pose.Bulge{Center: c, Axis: geom.Vec3{0, 1, 0}, Out: geom.Vec3{0, 0, 1}, From: 0, To: 1, Amount: 0.3, Axial: 0.8},
	}
	dir := b.TempDir()
	var names []string
	var twist []float64
	for k, d := range defs {
		m, _, err := pose.Mesh(&meshio.Mesh{Points: rest, Tetrahedra: tets}, d)
		if err != nil {
			b.Fatal(err)
		}
		f := filepath.Join(dir, fmt.Sprintf("ex%d.vtk", k))
		if err := meshio.Write(f, m); err != nil {
			b.Fatal(err)
		}
		names = append(names, fmt.Sprintf("%q", filepath.ToSlash(f)))
		if k == 0 {
			twist = m.Points
		}
	}
	text := femScene(n, size, fmt.Sprintf("stiffness = 1e5\n  examples = [%s]\n  %s", strings.Join(names, ", "), fields))
	text = strings.Replace(text, `type = "TetrahedronFEMForceField"`, `type = "ExampleBasedForceField"`, 1)
	s = graphtest.MustLoad(b, "ex.toml", text)
	ff := graphtest.Find[*ExampleBasedForceField](b, s, "beam/fem")
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, len(rest))
	for i := range xs {
		xs[i] = 0.5*(rest[i]+twist[i]) + 0.002*(2*rng.Float64()-1)
	}
	return ff, xs
}

// benchPerElement reports wall and CPU time per element besides ns/op. On
// a shared machine wall time includes the time other processes hold the
// cores; CPU time (user + system, all threads) does not, but with two
// workers it counts both (and their spinning at the loop's joins).
func benchPerElement(b *testing.B, ff *ExampleBasedForceField, body func()) {
	body() // warm up: the energy's scratch, the pool's goroutines
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPUTime()
	for i := 0; i < b.N; i++ {
		body()
	}
	ne := float64(b.N) * float64(ff.mesh.numElements())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ne, "ns/element")
	b.ReportMetric(float64(processCPUTime()-c0)/ne, "cpu-ns/element")
}

// processCPUTime returns the CPU time (user + system) the process has used.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var exampleBenchManifolds = []struct{ name, fields string }{
	{"Global", "includeRest = true"},
	{"Elements", "manifold = \"elements\"\n  includeRest = true"},
	{"GlobalNonNegative", "includeRest = true\n  nonNegativeWeights = true"},
}

// BenchmarkExampleProjection10k: the projection alone, per step: every
// element's Green strain and its contributions to the group sums, then
// the weights of every group (closed form; the active set with w ≥ 0).
func BenchmarkExampleProjection10k(b *testing.B) {
	for _, m := range exampleBenchManifolds {
		b.Run(m.name, func(b *testing.B) {
			ff, x := exampleBench10k(b, m.fields)
			t := &ff.terms
			benchPerElement(b, ff, func() {
				ff.argX = x
				t.cur = &t.lin
				t.runner.Run(t.numSlots(), elementGrain, t.descBody)
				t.solveGroups(&t.lin)
			})
		})
	}
}

// BenchmarkExampleForce10k: AddForce, the projection and the potential's
// forces (what a step evaluates per force call).
func BenchmarkExampleForce10k(b *testing.B) {
	for _, m := range exampleBenchManifolds {
		b.Run(m.name, func(b *testing.B) {
			ff, x := exampleBench10k(b, m.fields)
			f := make([]float64, len(x))
			benchPerElement(b, ff, func() { ff.AddForce(f, x, nil) })
		})
	}
}

// BenchmarkExampleDForce10k: one exact tangent product (AddDForce, with
// the dw*/dx reduction), what CG does per iteration.
func BenchmarkExampleDForce10k(b *testing.B) {
	for _, m := range exampleBenchManifolds {
		b.Run(m.name, func(b *testing.B) {
			ff, x := exampleBench10k(b, m.fields)
			f, df := make([]float64, len(x)), make([]float64, len(x))
			ff.AddForce(f, x, nil)
			d := randomDisplacement(rand.New(rand.NewPCG(3, 4)), len(x), 1e-3)
			benchPerElement(b, ff, func() { ff.AddDForce(df, d, 1, 0) })
		})
	}
}

// BenchmarkExampleEnergy10k: the potential W_ex(x) (projection included).
func BenchmarkExampleEnergy10k(b *testing.B) {
	for _, m := range exampleBenchManifolds[:1] {
		b.Run(m.name, func(b *testing.B) {
			ff, x := exampleBench10k(b, m.fields)
			benchPerElement(b, ff, func() { ff.PotentialEnergy(x) })
		})
	}
}
