package forcefield_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// springNetwork100k returns a SpringForceField of 100,000 springs on the
// 27,000 points of a 30×30×30 grid (the axis neighbours, then the xy
// face diagonals), damped, at a configuration jittered by a third of the
// spacing (every spring stretched or compressed, so the transverse terms
// are not zero), with random velocities.
func springNetwork100k(b testing.TB) (*forcefield.SpringForceField, [][]float64, [][]float64) {
	const n, springs = 30, 100_000
	s := graphtest.MustLoad(b, "net.toml", `
[[node]]
name = "net"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [2.9, 2.9, 2.9]
  n = [30, 30, 30]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
`)
	st := graphtest.Find[graph.State](b, s, "net/dofs")
	id := func(i, j, k int) int { return i + n*(j+n*k) }
	var i1, i2 []int
	add := func(a, c int) {
		if len(i1) < springs {
			i1, i2 = append(i1, a), append(i2, c)
		}
	}
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				if i+1 < n {
					add(id(i, j, k), id(i+1, j, k))
				}
				if j+1 < n {
					add(id(i, j, k), id(i, j+1, k))
				}
				if k+1 < n {
					add(id(i, j, k), id(i, j, k+1))
				}
			}
		}
	}
	for k := 0; k < n; k++ {
		for j := 0; j+1 < n; j++ {
			for i := 0; i+1 < n; i++ {
				add(id(i, j, k), id(i+1, j+1, k))
			}
		}
	}
	if len(i1) != springs {
		b.Fatalf("%d springs", len(i1))
	}
	sf := forcefield.NewSpringForceField()
	sf.Indices1, sf.Indices2 = i1, i2
	sf.Stiffness, sf.Damping = 1000, 2
	sf.SetStates(st, st)
	if err := sf.Init(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := append([]float64(nil), st.Vec(graph.RestPosition)...)
	for i := range x {
		x[i] += 0.03 * (2*rng.Float64() - 1)
	}
	v := graphtest.RandomDeriv(rng, len(x), 1)
	return sf, [][]float64{x}, [][]float64{v}
}

// BenchmarkSpringForceFieldAddForce100k: forces (elastic and damping) of
// 100,000 springs and their linearisation for AddDForce, one call; µs per
// spring = ns/op / 1e8 (also reported as ns/spring). Run with -cpu 1,2
// for one and two cores.
func BenchmarkSpringForceFieldAddForce100k(b *testing.B) {
	sf, xs, vs := springNetwork100k(b)
	fs := [][]float64{make([]float64, len(xs[0]))}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sf.AddForce(fs, xs, vs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e5, "ns/spring")
}

// BenchmarkSpringForceFieldAddDForce100k: one product k·K·dx + b·B·dx of
// 100,000 springs (what each conjugate-gradient iteration asks).
func BenchmarkSpringForceFieldAddDForce100k(b *testing.B) {
	sf, xs, vs := springNetwork100k(b)
	sf.AddForce([][]float64{make([]float64, len(xs[0]))}, xs, vs)
	rng := rand.New(rand.NewPCG(3, 4))
	dxs := [][]float64{graphtest.RandomDeriv(rng, len(xs[0]), 1)}
	dfs := [][]float64{make([]float64, len(xs[0]))}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sf.AddDForce(dfs, dxs, -0.01, -0.1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e5, "ns/spring")
}

// TestSpringForceFieldWorkersBitwise: forces and force differentials of
// the 100,000-spring network are bitwise the same on one worker and on
// four (per-spring results gathered per point in a fixed order).
func TestSpringForceFieldWorkersBitwise(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 springs")
	}
	var results [2][2][]float64
	for w, workers := range []int{1, 4} {
		sf, xs, vs := springNetwork100k(t)
		sf.SetWorkers(workers)
		f := [][]float64{make([]float64, len(xs[0]))}
		sf.AddForce(f, xs, vs)
		dx := [][]float64{graphtest.RandomDeriv(rand.New(rand.NewPCG(5, 6)), len(xs[0]), 1)}
		df := [][]float64{make([]float64, len(xs[0]))}
		sf.AddDForce(df, dx, -0.3, -0.1)
		results[w] = [2][]float64{f[0], df[0]}
	}
	for k, name := range []string{"AddForce", "AddDForce"} {
		for i := range results[0][k] {
			if results[0][k][i] != results[1][k][i] {
				t.Fatalf("%s differs at %d between 1 and 4 workers: %.17g vs %.17g", name, i, results[0][k][i], results[1][k][i])
			}
		}
	}
}
