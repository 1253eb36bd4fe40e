package solver_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// newmarkRecurrence integrates m a + c v + k x = 0 with Rayleigh damping
// (α, β: damping −α m v − β k v, Vega's C = αM + βK) by the Newmark
// formulas of appendix C on one DOF, where one Newton iteration is exact.
func newmarkRecurrence(o oscillator, h, beta, gamma, alpha, betaK float64, a0 float64, n int) (x, v, a float64) {
	a1, a2 := 1/(beta*h*h), 1/(beta*h)
	a3 := (1 - 2*beta) / (2 * beta)
	a4, a5, a6 := gamma/(beta*h), 1-gamma/beta, (1-gamma/(2*beta))*h
	x, v, a = o.x0, o.v0, a0
	for i := 0; i < n; i++ {
		C := alpha*o.m + betaK*o.k + o.c
		// Predictor x = xn: acc = −a₂v − a₃a, vel = a₅v + a₆a.
		acc, vel := -a2*v-a3*a, a5*v+a6*a
		res := -(o.m*acc + C*vel + o.k*x)
		A := o.k + a4*C + a1*o.m
		d := res / A
		xn := x + d
		a, v, x = a1*d-a2*v-a3*a, a4*d+a5*v+a6*a, xn
	}
	return x, v, a
}

// TestNewmarkMatchesRecurrence checks NewmarkImplicitSolver (one iteration,
// DenseDirectSolver) against the scalar recurrence on a damped oscillator
// with both Rayleigh coefficients and a viscous damper (B): same formulas,
// so only rounding differs, and the recurrence is contracting: 1e-12 of
// the amplitude after 200 steps.
func TestNewmarkMatchesRecurrence(t *testing.T) {
	o := oscillator{m: 2, k: 50, c: 0.3, x0: 1, v0: 0.5}
	const h, beta, gamma, alpha, betaK = 0.01, 0.3, 0.6, 0.2, 0.01
	s := graphtest.MustLoad(t, "newmark.toml", o.scene(h, fmt.Sprintf(`
  [[node.object]]
  type = "NewmarkImplicitSolver"
  beta = %g
  gamma = %g
  rayleighMass = %g
  rayleighStiffness = %g
  [[node.object]]
  type = "DenseDirectSolver"
`, beta, gamma, alpha, betaK)))
	st := graphtest.Find[graph.State](t, s, "osc/dofs")
	for i := 0; i < 200; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	x, v, _ := newmarkRecurrence(o, h, beta, gamma, alpha, betaK, 0, 200)
	ex, ev := math.Abs(st.Vec(graph.Position)[0]-x), math.Abs(st.Vec(graph.Velocity)[0]-v)
	t.Logf("after 200 steps: x %.17g (recurrence %.17g), |Δx| %.2g, |Δv| %.2g", st.Vec(graph.Position)[0], x, ex, ev)
	if ex > 1e-12 || ev > 1e-12 {
		t.Errorf("solver differs from the Newmark recurrence")
	}
}

// TestNewmarkTrapezoidalConservesEnergyAndPeriod: undamped, β = 1/4,
// γ = 1/2 (the average-acceleration rule) on a linear oscillator with a
// consistent initial acceleration conserves ½mv² + ½kx² exactly up to
// rounding (about 1e-15 per step, mostly from a = a₁(x − x_n) − …, whose
// a₁ = 4/h² amplifies the rounding of x: it accumulates linearly, so
// ≤ 1e-10 over 4050 steps) and oscillates at the discrete frequency
// ω_h = (2/h)·atan(ωh/2) (the rule's period elongation; its amplification
// factor has modulus 1 and argument ω_h h), measured from the downward zero
// crossings over 20 periods of 200 steps, within 1e-6 relative (crossings
// found by linear interpolation between steps are off by the same
// fraction of a step on every cycle, so the mean period is accurate to
// ~1e-8).
func TestNewmarkTrapezoidalConservesEnergyAndPeriod(t *testing.T) {
	o := oscillator{m: 1.5, k: 60, x0: 0.3, v0: 0}
	omega := math.Sqrt(o.k / o.m)
	h := 2 * math.Pi / omega / 200
	s := graphtest.MustLoad(t, "trap.toml", o.scene(h, `
  [[node.object]]
  type = "NewmarkImplicitSolver"
  consistentInitialAcceleration = true
  [[node.object]]
  type = "DenseDirectSolver"
`))
	st := graphtest.Find[graph.State](t, s, "osc/dofs")
	energy := func() float64 {
		x, v := st.Vec(graph.Position)[0], st.Vec(graph.Velocity)[0]
		return 0.5*o.m*v*v + 0.5*o.k*x*x
	}
	e0 := energy()
	drift := 0.0
	var crossings []float64
	prev := st.Vec(graph.Position)[0]
	for i := 1; i <= 200*20+50; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		x := st.Vec(graph.Position)[0]
		if prev > 0 && x <= 0 {
			crossings = append(crossings, (float64(i-1)+prev/(prev-x))*h)
		}
		prev = x
		drift = math.Max(drift, math.Abs(energy()-e0)/e0)
	}
	period := (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	omegaH := 2 / h * math.Atan(omega*h/2)
	want := 2 * math.Pi / omegaH
	t.Logf("energy drift %.2g over %d steps; period %.9f s, discrete theory %.9f s (exact %.9f s)", drift, 200*20+50, period, want, 2*math.Pi/omega)
	if drift > 1e-10 {
		t.Errorf("energy drift %.2g, want ≤ 1e-10", drift)
	}
	if math.Abs(period-want)/want > 1e-6 {
		t.Errorf("period %.9f, want %.9f", period, want)
	}
}

// TestNewmarkNewtonConverges: on the nonlinear spring f = −k x³ + F,
// maxIterations = 30 with tolerance 1e-12 ends every step converged
// (LastNewton), with the Newmark equation m a + k x³ − F = 0 satisfied to
// 1e-9 of F: Newton stops at 1e-12 of the predictor's residual, which
// here is up to ~100 F (the inertia of the predictor's acceleration), and
// the acceleration a = a₁(x − x_n) − … carries a₁ = 4/h² = 4·10⁴ times the
// rounding of x.
func TestNewmarkNewtonConverges(t *testing.T) {
	s := graphtest.MustLoad(t, "cubic.toml", `
dt = 0.01
[[node]]
name = "sys"
  [[node.object]]
  type = "NewmarkImplicitSolver"
  maxIterations = 30
  tolerance = 1e-12
  [[node.object]]
  type = "DenseDirectSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec1"
  position = [[0.1], [-0.2]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 0.5
  [[node.object]]
  type = "TestCubic"
  k = 400
  load = 3
`)
	st := graphtest.Find[graph.State](t, s, "sys/dofs")
	nm := graphtest.Find[*solver.NewmarkImplicitSolver](t, s, "sys/NewmarkImplicitSolver")
	worst, iters := 0.0, 0
	for i := 0; i < 100; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if !nm.LastNewton().Converged {
			t.Fatalf("step %d: Newton did not converge (ratio %.2g)", i+1, nm.LastNewton().Residual)
		}
		iters += nm.LastNewton().Iterations
		acc, _ := nm.Acceleration()
		for k, x := range st.Vec(graph.Position) {
			r := 0.5*st.Vec(acc)[k] + 400*x*x*x - 3
			worst = math.Max(worst, math.Abs(r)/3)
		}
	}
	t.Logf("worst equation residual %.2g of the load; %.1f Newton iterations per step", worst, float64(iters)/100)
	if worst > 1e-9 {
		t.Errorf("the Newmark equation is not satisfied: %.2g", worst)
	}
}

// TestNewmarkSetupErrors: a missing linear solver and bad parameters are
// scene errors.
func TestNewmarkSetupErrors(t *testing.T) {
	o := oscillator{m: 1, k: 1, x0: 1}
	for _, c := range []struct{ name, text, want string }{
		{"no linear solver", o.scene(0.01, "  [[node.object]]\n  type = \"NewmarkImplicitSolver\""), "linear solver"},
		{"beta out of range", o.scene(0.01, "  [[node.object]]\n  type = \"NewmarkImplicitSolver\"\n  beta = 0.7\n  [[node.object]]\n  type = \"DenseDirectSolver\""), "beta"},
		{"gamma out of range", o.scene(0.01, "  [[node.object]]\n  type = \"NewmarkImplicitSolver\"\n  gamma = 0.3\n  [[node.object]]\n  type = \"DenseDirectSolver\""), "gamma"},
	} {
		s, err := graph.Load("e.toml", []byte(c.text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
