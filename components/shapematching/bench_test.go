package shapematching

import (
	"syscall"
	"testing"
	"time"

	"github.com/sofago/sofago/graph"
)

// cpuTime returns the CPU time (user + system) the process has used. On a
// shared machine wall time per operation includes the time other processes
// hold the core; CPU time does not, so the benchmarks report both
// (cpu-ns/op next to ns/op).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs fn b.N times and reports the CPU time per call.
func timed(b *testing.B, fn func()) {
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		fn()
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// Benchmarks named after Koyama et al. 2012's Table 1 (timings per step on
// one core of a 2.67 GHz Core i7 M620): cuboid (global) 225 particles
// 0.33 ms (shape matching 0.21, projection 0.091), cuboid (local) 0.40 ms
// (0.21, 0.17), cylinder 2,025 particles 3.1 ms (2.0, 0.86). Run on one
// core:
//
//	go test -run '^$' -bench Koyama -cpu 1 ./components/shapematching/
//
// Each has three parts: "step" is one whole scene step (forces, goals,
// integration, constraints), "goals" the shape matching of every region with
// the projection (ComputeGoals), "projection" the projection alone (weights
// of every manifold from the current descriptor, negative-weight
// elimination, β, blended stretches), the paper's t_proj. The objects hang
// (cuboid) or are clamped (cylinder) under gravity and are stepped 50 times
// first so the regions are deformed and rotating.

func benchKoyama(b *testing.B, s *graph.Scene, sm *ShapeMatching) {
	for i := 0; i < 50; i++ {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	x := sm.GoalState().Vec(graph.Position)
	b.Run("step", func(b *testing.B) {
		timed(b, func() {
			if err := s.Step(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("goals", func(b *testing.B) {
		timed(b, func() { sm.ComputeGoals(x) })
	})
	if sm.NumExamples() == 0 {
		return
	}
	b.Run("projection", func(b *testing.B) {
		sm.ComputeGoals(x)
		timed(b, func() {
			sm.projectAll()
			sm.blendStretches()
		})
	})
}

// The paper's method: goals of eq. 3 (goalShape = "stretch"), two examples
// (cuboid: twist and S shape; cylinder: bend and twist), β = 0.995.
func BenchmarkKoyamaCuboid225Global(b *testing.B) {
	s, sm := loadWithExamples(b, cuboidScene(koyama), "cuboid/sm", cuboidExamples)
	benchKoyama(b, s, sm)
}

func BenchmarkKoyamaCuboid225Local(b *testing.B) {
	s, sm := loadWithExamples(b, cuboidScene(koyama+"  manifold = \"regions\"\n"), "cuboid/sm", cuboidExamples)
	benchKoyama(b, s, sm)
}

func BenchmarkKoyamaCylinder2025(b *testing.B) {
	s, sm := loadWithExamples(b, cylinderScene(cylinderMesh(b, b.TempDir()), koyama), "cylinder/sm", cylinderExamples)
	benchKoyama(b, s, sm)
}

const koyama = "  beta = 0.995\n  goalShape = \"stretch\"\n"

// The same with the default region-shape goals (the per-member blend of the
// examples' region shapes replaces the per-region blend of stretches).
func BenchmarkRegionShapeCuboid225Global(b *testing.B) {
	s, sm := loadWithExamples(b, cuboidScene("  beta = 0.995\n"), "cuboid/sm", cuboidExamples)
	benchKoyama(b, s, sm)
}

func BenchmarkRegionShapeCuboid225Local(b *testing.B) {
	s, sm := loadWithExamples(b, cuboidScene("  beta = 0.995\n  manifold = \"regions\"\n"), "cuboid/sm", cuboidExamples)
	benchKoyama(b, s, sm)
}

func BenchmarkRegionShapeCylinder2025(b *testing.B) {
	s, sm := loadWithExamples(b, cylinderScene(cylinderMesh(b, b.TempDir()), "  beta = 0.995\n"), "cylinder/sm", cylinderExamples)
	benchKoyama(b, s, sm)
}

// BenchmarkPlainCuboid225 is the same cuboid without examples (standard
// shape matching), and BenchmarkLatticeCuboid225 with FastLSM lattice
// regions of half-width 1 (up to 27 particles each).
func BenchmarkPlainCuboid225(b *testing.B) {
	s, sm := loadWithExamples(b, cuboidScene(""), "cuboid/sm", nil)
	benchKoyama(b, s, sm)
}

func BenchmarkLatticeCuboid225(b *testing.B) {
	s, sm := loadWithExamples(b, cuboidScene("  regions = \"lattice\"\n"), "cuboid/sm", nil)
	benchKoyama(b, s, sm)
}
