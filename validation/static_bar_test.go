package validation

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/components/topology"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// stvkBar is the static StVK cantilever of the FEniCSx comparison (issue
// 13): a 1 × 0.1 × 0.1 m bar of nx × ny × nz cubic-grid cells (each split
// into 6 Kuhn tetrahedra), E = 1e6 Pa, ν = 0.3, clamped at x = 0, with a
// total load of 10 N in −y on the face x = 1 applied as consistent nodal
// loads of a uniform traction (each boundary triangle of the face gives a
// third of traction·area to each of its vertices: ∫ Nᵢ t dA on linear
// elements, what a P1 code assembles for ∫ t·v ds).
type stvkBar struct {
	n          [3]int // cells per axis
	newton     string // extra StaticSolver fields
	linear     string // the linear solver block
	translate  geom.Vec3
	loadFactor float64 // multiplies the 10 N (1 if zero)
}

// faceLoads returns the vertices of the face x = L of the grid and their
// consistent nodal forces (y components) for the total force fy.
func faceLoads(tb testing.TB, n [3]int, L, W, H, fy float64) (idx []int, fys []float64) {
	tb.Helper()
	g, err := topology.NewRegularGrid([3]float64{}, [3]float64{L, W, H}, [3]int{n[0] + 1, n[1] + 1, n[2] + 1})
	if err != nil {
		tb.Fatal(err)
	}
	pts := g.Points()
	traction := fy / (W * H)
	load := map[int]float64{}
	for _, tri := range g.Triangles() {
		onFace := true
		for _, v := range tri {
			onFace = onFace && math.Abs(pts[3*v]-L) < 1e-12
		}
		if !onFace {
			continue
		}
		a, b, c := geom.At(pts, tri[0]), geom.At(pts, tri[1]), geom.At(pts, tri[2])
		area := 0.5 * b.Sub(a).Cross(c.Sub(a)).Norm()
		for _, v := range tri {
			load[v] += traction * area / 3
		}
	}
	for v := 0; v < len(pts)/3; v++ {
		if f, ok := load[v]; ok {
			idx = append(idx, v)
			fys = append(fys, f)
		}
	}
	return idx, fys
}

// scene returns the TOML text of the bar.
func (b stvkBar) scene(tb testing.TB) string {
	tb.Helper()
	lf := b.loadFactor
	if lf == 0 {
		lf = 1
	}
	idx, fys := faceLoads(tb, b.n, 1, 0.1, 0.1, -10*lf)
	var is, fs []string
	for k, v := range idx {
		is = append(is, fmt.Sprint(v))
		fs = append(fs, fmt.Sprintf("[0, %.17g, 0]", fys[k]))
	}
	lin := b.linear
	if lin == "" {
		lin = `type = "SparseCholeskySolver"
  ordering = "nestedDissection"`
	}
	t := b.translate
	return fmt.Sprintf(`
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  name = "newton"
  iterations = 50
  tolerance = 1e-10
  %s
  [[node.object]]
  %s
  [[node.object]]
  type = "RegularGridTopology"
  min = [%.17g, %.17g, %.17g]
  max = [%.17g, %.17g, %.17g]
  n = [%d, %d, %d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e6
  poissonRatio = 0.3
  [[node.object]]
  type = "ConstantForceField"
  indices = [%s]
  forces = [%s]
  [[node.object]]
  type = "FixedConstraint"
  box = [%.17g, -1e9, -1e9, %.17g, 1e9, 1e9]
`, b.newton, lin, t[0], t[1], t[2], 1+t[0], 0.1+t[1], 0.1+t[2], b.n[0]+1, b.n[1]+1, b.n[2]+1,
		strings.Join(is, ", "), strings.Join(fs, ", "), t[0]-1e-9, t[0]+1e-9)
}

// solve loads the bar, runs one static step and returns the scene, the
// solver statistics and the displacements.
func (b stvkBar) solve(tb testing.TB) (*graph.Scene, solver.StaticStats, []float64, error) {
	tb.Helper()
	s := graphtest.MustLoad(tb, "stvk_bar.toml", b.scene(tb))
	err := s.Step()
	st := graphtest.Find[graph.State](tb, s, "bar/dofs")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	u := make([]float64, len(x))
	for i := range x {
		u[i] = x[i] - x0[i]
	}
	return s, graphtest.Find[*solver.StaticSolver](tb, s, "bar/newton").LastStats(), u, err
}

// BenchmarkStaticNewtonStVKBar80x8x8 is one static Newton solve of the
// 80 × 8 × 8-cell StVK bar (19,683 DOFs, 30,720 tetrahedra, tip deflection
// about a third of the length) to the tolerance 1e-10, with sparse
// Cholesky (nested dissection): the problem of the FEniCSx comparison
// (testdata/fenics/stvk_bar.py solves the same discrete problem with
// dolfinx + MUMPS). It reports the Newton iterations and the residual.
func BenchmarkStaticNewtonStVKBar80x8x8(b *testing.B) {
	bar := stvkBar{n: [3]int{80, 8, 8}}
	text := bar.scene(b)
	var stats solver.StaticStats
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := graphtest.MustLoad(b, "stvk_bar.toml", text)
		b.StartTimer()
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
		stats = graphtest.Find[*solver.StaticSolver](b, s, "bar/newton").LastStats()
	}
	b.ReportMetric(float64(stats.Iterations), "newton-iters")
	b.ReportMetric(stats.Residual, "residual-N")
}

// TestStaticBarPlainNewtonProbe is temporary: iteration counts.
func TestStaticBarPlainNewtonProbe(t *testing.T) {
	for _, ls := range []string{"lineSearch = false", ""} {
		_, st, _, err := stvkBar{n: [3]int{80, 8, 8}, newton: ls}.solve(t)
		t.Logf("%q: %+v err %v", ls, st, err)
	}
}

func TestStaticBarFlopsProbe(t *testing.T) {
	for _, ord := range []string{"nestedDissection", "minimumDegree"} {
		s, st, _, err := stvkBar{n: [3]int{80, 8, 8}, newton: "lineSearch = false", linear: "type = \"SparseCholeskySolver\"\n  name=\"lin\"\n ordering = \"" + ord + "\""}.solve(t)
		sym := graphtest.Find[*solver.SparseCholeskySolver](t, s, "bar/lin").Symbolic()
		t.Logf("%s: %+v err %v flops %.3g nnzL %d supernodes %d", ord, st, err, sym.Flops(), sym.NnzL(), sym.Supernodes())
	}
}
