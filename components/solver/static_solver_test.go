package solver_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// staticScene is one Vec1 DOF at x0 with a StaticSolver (extra fields in
// static), a CG solver and the force field ff.
func staticScene(t *testing.T, x0 float64, static, ff string) (*graph.Scene, *solver.StaticSolver, graph.State) {
	t.Helper()
	s := graphtest.MustLoad(t, "static.toml", fmt.Sprintf(`
[[node]]
name = "n"
  [[node.object]]
  type = "StaticSolver"
  name = "newton"
  %s
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec1"
  position = [[%.17g]]
  velocity = [[3]]
%s
`, static, x0, ff))
	return s, graphtest.Find[*solver.StaticSolver](t, s, "n/newton"), graphtest.Find[graph.State](t, s, "n/dofs")
}

// TestStaticSolverCubic solves −k·x³ + F = 0 (k = 2, F = 16, x* = 2) from
// x0 = 1. Newton converges quadratically: a handful of iterations. The
// stopping rule |f| ≤ 1e-10·|f(x0)| = 1.4e-9 bounds the error by
// |f|/|K(x*)| = 1.4e-9/24 ≈ 6e-11, hence the 1e-10 tolerance on x.
// Velocities are zeroed (the initial velocity is 3).
func TestStaticSolverCubic(t *testing.T) {
	s, newton, st := staticScene(t, 1, "", `
  [[node.object]]
  type = "TestCubic"
  k = 2
  load = 16`)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	x := st.Vec(graph.Position)[0]
	stats := newton.LastStaticStats()
	t.Logf("x = %.17g after %d Newton iterations (residual %.3g, %d halvings)", x, stats.Iterations, stats.Residual, stats.Halvings)
	if math.Abs(x-2) > 1e-10 {
		t.Errorf("x = %.17g, want 2", x)
	}
	if !stats.Converged || stats.Iterations > 8 || stats.Residual > 1.4e-9 {
		t.Errorf("stats %+v: want convergence in a few iterations", stats)
	}
	if v := st.Vec(graph.Velocity)[0]; v != 0 {
		t.Errorf("velocity %g after a static step, want 0", v)
	}
	// A second step starts at equilibrium: it must converge at once.
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if it := newton.LastStaticStats().Iterations; it > 1 {
		t.Errorf("a step starting at equilibrium took %d Newton iterations", it)
	}
}

// TestStaticSolverReportsNonConvergence: 2 Newton iterations cannot reach
// the tolerance from x0 = 1 (the residual only drops from 14 to about 0.3):
// the step fails with the iteration count and the residual, unless
// failOnNonConvergence = false.
func TestStaticSolverReportsNonConvergence(t *testing.T) {
	ff := `
  [[node.object]]
  type = "TestCubic"
  k = 2
  load = 16`
	s, newton, _ := staticScene(t, 1, "iterations = 2", ff)
	err := s.Step()
	if err == nil || !strings.Contains(err.Error(), "did not converge in 2 Newton iterations") || !strings.Contains(err.Error(), "residual") {
		t.Fatalf("error = %v, want non-convergence in 2 iterations with the residual", err)
	}
	t.Logf("%v", err)
	if newton.LastStaticStats().Converged {
		t.Error("LastStaticStats says converged")
	}
	s, newton, _ = staticScene(t, 1, "iterations = 2\n  failOnNonConvergence = false", ff)
	if err := s.Step(); err != nil {
		t.Errorf("failOnNonConvergence = false: %v", err)
	}
	if st := newton.LastStaticStats(); st.Converged || st.Iterations != 2 {
		t.Errorf("failOnNonConvergence = false: stats %+v", st)
	}
}

// TestStaticSolverLineSearch: Newton's method on f = −atan(x − 1) from
// x0 = 3 (|x0 − x*| = 2 > 1.39) overshoots further at every iteration
// (x − 1: 2, −3.5, 14, −279, ..., −6.6e168, where K underflows to 0, the
// linear solve breaks down and the iteration is stuck) and never converges,
// which must be reported; the residual line
// search halves the first steps and then converges quadratically. The
// tolerance |f| ≤ 1e-10·atan(2) with |K(x*)| = 1 bounds the error by 1.2e-10.
// The cubic from the poor start x0 = 0.01 (Newton's first step would jump
// to x ≈ 2700) converges too, with halvings.
func TestStaticSolverLineSearch(t *testing.T) {
	arctan := `
  [[node.object]]
  type = "TestArctan"
  k = 1
  center = 1`
	s, _, _ := staticScene(t, 3, "lineSearch = false", arctan)
	err := s.Step()
	if err == nil || !strings.Contains(err.Error(), "did not converge") {
		t.Fatalf("pure Newton from x0 = 3 on atan: error %v, want non-convergence reported", err)
	}
	t.Logf("without line search: %v", err)

	s, newton, st := staticScene(t, 3, "", arctan)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	x := st.Vec(graph.Position)[0]
	stats := newton.LastStaticStats()
	t.Logf("with line search: x = %.17g, %+v", x, stats)
	if math.Abs(x-1) > 1.2e-10 || !stats.Converged || stats.Halvings == 0 {
		t.Errorf("x = %.17g, stats %+v: want x = 1 reached with line-search halvings", x, stats)
	}

	s, newton, st = staticScene(t, 0.01, "", `
  [[node.object]]
  type = "TestCubic"
  k = 2
  load = 16`)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	x = st.Vec(graph.Position)[0]
	stats = newton.LastStaticStats()
	t.Logf("cubic from 0.01: x = %.17g, %+v", x, stats)
	if math.Abs(x-2) > 1e-10 || stats.Halvings == 0 {
		t.Errorf("x = %.17g, stats %+v", x, stats)
	}
}

// TestStaticSolverLoadContinuation: with the load on the cubic doubled
// between steps (set directly on the test force field), each step starts
// from the previous solution and reaches the new equilibrium (F/k)^(1/3).
// Error bound as in TestStaticSolverCubic: |f| ≤ 1e-10·(largest initial
// residual so far, ≤ 4) over |K| = 3x² ≥ 4.7 gives ≤ 1e-10 relative.
func TestStaticSolverLoadContinuation(t *testing.T) {
	s, _, st := staticScene(t, 0, "", `
  [[node.object]]
  type = "TestCubic"
  name = "cubic"
  k = 1
  load = 1`)
	st.Vec(graph.Position)[0] = 1 // start at the first equilibrium
	for _, F := range []float64{1, 2, 4, 8} {
		graphtest.Find[*testCubic](t, s, "n/cubic").F = F
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		want := math.Cbrt(F)
		if x := st.Vec(graph.Position)[0]; math.Abs(x-want) > 1e-10*want {
			t.Errorf("load %g: x = %.17g, want %.17g", F, x, want)
		}
	}
}

// TestStaticSolverLoadSteps: −k·x³ + λ·F = 0 with the load F = 16 from a
// ConstantForceField (k = 2, x₀ = 0.5) applied in loadSteps = 4 increments.
// The load factors the force fields see are 1 (the load scale at the
// start), then 1/4, 2/4, 3/4, 1 in order, and each increment starts
// from the equilibrium of the previous one, (λF/k)^(1/3) (the error bound
// of TestStaticSolverCubic: residual ≤ 1e-10·16 over |K| ≥ 3k·x² ≥ 4.7
// gives 4e-10). After the step the load factor is 1 again, and a second
// step (at equilibrium under the full load) does not ramp again: no
// iteration. The same with gravity on a UniformMass (Vec3 point of mass
// 1 under g = (0, −16, 0), the cubic per component): the weight follows
// the load factor and y ends at −2.
func TestStaticSolverLoadSteps(t *testing.T) {
	s, newton, st := staticScene(t, 0.5, "loadSteps = 4", `
  [[node.object]]
  type = "TestCubic"
  k = 2
  load = 0
  [[node.object]]
  type = "ConstantForceField"
  forces = [[16]]
  [[node.object]]
  type = "TestLoadProbe"
  name = "probe"`)
	probe := graphtest.Find[*testLoadProbe](t, s, "n/probe")
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	stats := newton.LastStaticStats()
	t.Logf("stats %+v", stats)
	if stats.LoadSteps != 4 || !stats.Converged {
		t.Errorf("stats %+v: want 4 converged load steps", stats)
	}
	// The distinct factors in order, and x when each new factor starts.
	var factors, starts []float64
	for i, f := range probe.factors {
		if i == 0 || f != probe.factors[i-1] {
			factors = append(factors, f)
			starts = append(starts, probe.xs[i])
		}
	}
	want := []float64{1, 0.25, 0.5, 0.75, 1}
	if len(factors) != len(want) {
		t.Fatalf("load factors seen: %v, want %v", factors, want)
	}
	for i, f := range want {
		if factors[i] != f {
			t.Fatalf("load factors seen: %v, want %v", factors, want)
		}
	}
	for i := 2; i < len(want); i++ {
		eq := math.Cbrt(want[i-1] * 16 / 2)
		if math.Abs(starts[i]-eq) > 4e-10 {
			t.Errorf("load step %d starts at x = %.17g, want the equilibrium of λ = %g, %.17g", i, starts[i], want[i-1], eq)
		}
	}
	if x := st.Vec(graph.Position)[0]; math.Abs(x-2) > 4e-10 {
		t.Errorf("x = %.17g, want 2", x)
	}
	if lf := s.Root.LoadFactor(); lf != 1 {
		t.Errorf("load factor after the step %g, want 1", lf)
	}
	if lf := st.Base().Node.LoadFactor(); lf != 1 {
		t.Errorf("load factor of the solver's node after the step %g, want 1", lf)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if st := newton.LastStaticStats(); st.LoadSteps != 1 || st.Iterations != 0 {
		t.Errorf("second step: %+v, want one load step without iteration", st)
	}

	g := graphtest.MustLoad(t, "gravity.toml", `
gravity = [0, -16, 0]
[[node]]
name = "n"
  [[node.object]]
  type = "StaticSolver"
  name = "newton"
  loadSteps = 3
  [[node.object]]
  type = "CGLinearSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, -0.5, 0]]
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "TestCubic"
  k = 2
  load = 0
  [[node.object]]
  type = "TestLoadProbe"
  name = "probe"`)
	if err := g.Step(); err != nil {
		t.Fatal(err)
	}
	gs := graphtest.Find[graph.State](t, g, "n/dofs")
	if y := gs.Vec(graph.Position)[1]; math.Abs(y+2) > 4e-10 {
		t.Errorf("gravity with loadSteps: y = %.17g, want −2", y)
	}
	gp := graphtest.Find[*testLoadProbe](t, g, "n/probe")
	seen := map[float64]bool{}
	for _, f := range gp.factors {
		seen[f] = true
	}
	for _, f := range []float64{1.0 / 3, 2.0 / 3, 1} {
		if !seen[f] {
			t.Errorf("gravity scene: load factor %g never seen (%v)", f, gp.factors)
		}
	}
	if st := graphtest.Find[*solver.StaticSolver](t, g, "n/newton").LastStaticStats(); st.LoadSteps != 3 || !st.Converged {
		t.Errorf("gravity scene stats %+v", st)
	}
}
