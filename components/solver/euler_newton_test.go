package solver_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// cubicBackwardEuler solves the nonlinear backward Euler equation of a
// mass m on a cubic spring f = −k·x³ with Rayleigh damping
// −α·m·v + β·K(x)·v, K(x) = −3k·x², for the new velocity v₁:
//
//	m·(v₁ − v₀) = h·(−k·x₁³ − α·m·v₁ − 3β·k·x₁²·v₁),   x₁ = x₀ + h·v₁,
//
// by bisection: the left side minus the right increases with v₁ (for
// x₁·v₁ ≥ 0 … in general on the bracket used, checked by the sign change).
func cubicBackwardEuler(t *testing.T, m, k, alpha, beta, h, x0, v0 float64) float64 {
	t.Helper()
	g := func(v1 float64) float64 {
		x1 := x0 + h*v1
		return m*(v1-v0) - h*(-k*x1*x1*x1-alpha*m*v1-3*beta*k*x1*x1*v1)
	}
	lo, hi := -1e3, 1e3
	if g(lo) >= 0 || g(hi) <= 0 {
		t.Fatalf("bisection bracket [%g, %g] does not change sign", lo, hi)
	}
	for i := 0; i < 200; i++ {
		mid := 0.5 * (lo + hi)
		if g(mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// TestImplicitEulerNewtonIterations: a unit mass on a stiff cubic spring
// (k = 100, x₀ = 1, v₀ = 0, h = 0.1, α = 0.5, β = 0.01), one step. The
// linearised step (newtonIterations = 1, the default) misses the nonlinear
// backward Euler velocity v₁* (from cubicBackwardEuler, the equation
// solved independently by bisection) by far; with newtonIterations = 50
// and newtonTolerance = 1e-12 the solver lands on it: the residual
// |G| ≤ 1e-12·|r₀| with r₀ = h·k·x₀³ = 10 and ∂G/∂v₁ ≥ m = 1 bound the
// velocity error by 1e-11, and the position x₁ = x₀ + h·v₁ by 1e-12.
// Newton converges (linearly with β > 0: the tangent leaves out ∂(βKv)/∂x)
// in far fewer than 50 iterations; the count and the final ratio are
// reported through LastNewton.
func TestImplicitEulerNewtonIterations(t *testing.T) {
	const m, k, alpha, beta, h, x0 = 1.0, 100.0, 0.5, 0.01, 0.1, 1.0
	want := cubicBackwardEuler(t, m, k, alpha, beta, h, x0, 0)
	run := func(extra string) (float64, float64, graph.NewtonStats) {
		s := graphtest.MustLoad(t, "cubic.toml", fmt.Sprintf(`
dt = %g
[[node]]
name = "n"
  [[node.object]]
  type = "EulerImplicitSolver"
  name = "euler"
  rayleighMass = %g
  rayleighStiffness = %g
  %s
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 10
  tolerance = 1e-15
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec1"
  position = [[%g]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = %g
  [[node.object]]
  type = "TestCubic"
  k = %g
  load = 0
`, h, alpha, beta, extra, x0, m, k))
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		st := graphtest.Find[graph.State](t, s, "n/dofs")
		return st.Vec(graph.Velocity)[0], st.Vec(graph.Position)[0], graphtest.Find[*solver.EulerImplicitSolver](t, s, "n/euler").LastNewtonStats()
	}
	v1, _, st1 := run("")
	vN, xN, stN := run("newtonIterations = 50\n  newtonTolerance = 1e-12")
	t.Logf("backward Euler v₁* = %.15g; linearised step v₁ = %.15g (%+v); Newton v₁ = %.15g, x₁ = %.15g (%+v)", want, v1, st1, vN, xN, stN)
	if st1.Iterations != 1 || st1.Tested {
		t.Errorf("default: %+v, want one untested iteration", st1)
	}
	if math.Abs(v1-want) < 0.1 {
		t.Errorf("the linearised step is within 0.1 of the nonlinear solution: the test does not show the difference")
	}
	if !stN.Converged || stN.Iterations >= 50 || stN.Residual > 1e-12 {
		t.Errorf("Newton stats %+v: want convergence to 1e-12", stN)
	}
	if math.Abs(vN-want) > 1e-11 || math.Abs(xN-(x0+h*want)) > 1e-12 {
		t.Errorf("Newton: v₁ = %.17g, x₁ = %.17g; want %.17g, %.17g", vN, xN, want, x0+h*want)
	}
}

// swingingBeam is the beam of cantileverScene (567 DOFs, clamped at
// x = 0) with the force field block ff and a tight CG.
func swingingBeam(t *testing.T, ode, ff string) *graph.Scene {
	t.Helper()
	return graphtest.MustLoad(t, "swing.toml", fmt.Sprintf(`
dt = 0.02
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  name = "ode"
  %s
  [[node.object]]
  %s
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [21, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  %s
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 1, 1]
`, ode, tightCG, ff))
}

// Force fields of the swinging beam: the corotational one with the
// stiffness-warping tangent R·K₀·Rᵀ (negative semi-definite, so every
// Newton system is positive definite) and StVK with its exact tangent.
const (
	warpedFEM = `type = "TetrahedronFEMForceField"
  method = "large"
  tangent = "warped"
  youngModulus = 1e7
  poissonRatio = 0.3`
	exactStVK = `type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e7
  poissonRatio = 0.3`
)

// swingStep launches the beam with the velocity field of a rigid rotation
// about the z axis through the clamp (5 m/s at the tip), takes one step of
// h = 0.02 s with the EulerImplicitSolver fields extra, and returns the
// residual of the nonlinear backward Euler equation at the new state,
// recomputed here from its definition with the scene's operations,
//
//	G = M·(v₁ − v₀) − h·(f(x₁, v₁) − α·M·v₁ + β·K(x₁)·v₁)   (projected),
//
// relative to its value for v₁ = v₀ linearised at x₀ (the right-hand side
// of the first solve), and the solver's Newton statistics.
func swingStep(t *testing.T, ff, extra string) (float64, graph.NewtonStats) {
	t.Helper()
	const h, alpha, beta = 0.02, 0.1, 0.01
	s := swingingBeam(t, fmt.Sprintf(`type = "EulerImplicitSolver"
  rayleighStiffness = %g
  rayleighMass = %g
  %s`, beta, alpha, extra), ff)
	st := graphtest.Find[graph.State](t, s, "beam/dofs")
	x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
	for i := 0; i+2 < len(x); i += 3 {
		v[i+1] = 5 * x[i]
	}
	ops, err := graph.NewOps(st.Base().Node)
	if err != nil {
		t.Fatal(err)
	}
	v0, f, rhs, tmp, dv := ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv(), ops.AllocDeriv()
	ops.Project(graph.Velocity) // the clamped points at rest
	ops.Copy(v0, graph.Velocity)
	ops.ComputeForce(f)
	ops.ComputeDf(rhs, graph.Velocity, -h*alpha, 0, h*(h+beta))
	ops.AddScaled(rhs, h, f)
	ops.Project(rhs)
	r0 := ops.Norm(rhs)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	ops.LinComb(dv, graph.Velocity, -1, v0)
	ops.ComputeForce(f)
	ops.ComputeDf(rhs, graph.Velocity, -alpha, 0, beta)
	ops.AddScaled(rhs, 1, f)
	ops.Scale(rhs, -h)
	ops.ComputeDf(tmp, dv, 1, 0, 0)
	ops.AddScaled(rhs, 1, tmp)
	ops.Project(rhs)
	return ops.Norm(rhs) / r0, graphtest.Find[*solver.EulerImplicitSolver](t, s, "beam/ode").LastNewtonStats()
}

// TestImplicitEulerNewtonLargeRotation: the stiff beam (E = 1e7, 567
// DOFs) swinging through a large rotation in one step of 0.02 s, where
// the linearised step leaves a residual of the nonlinear backward Euler
// equation of 0.4 of its initial value. With the warped corotational
// tangent and newtonIterations = 30, newtonTolerance = 1e-10 (CG to
// 1e-12), the Newton iterations converge (linearly: the warped tangent is
// not the exact one) and the residual, recomputed independently by
// swingStep, is at most 1e-10 of the initial one (plus rounding: CG's
// 1e-12 relative per solve). With StVK's exact tangent the system turns
// indefinite at the second iterate (compressed fibres: CG breaks down);
// the safeguard halves or stops, so the residual still ends below the
// linearised step's.
func TestImplicitEulerNewtonLargeRotation(t *testing.T) {
	g1, st1 := swingStep(t, warpedFEM, "")
	gN, stN := swingStep(t, warpedFEM, "newtonIterations = 30\n  newtonTolerance = 1e-10")
	t.Logf("warped corotational: residual |G|/|r₀| after the linearised step %.3g (%+v), after Newton %.3g (%+v)", g1, st1, gN, stN)
	if g1 < 0.1 {
		t.Errorf("the linearised step leaves a residual of only %.3g: the test does not show the difference", g1)
	}
	if !stN.Converged || gN > 1.01e-10 {
		t.Errorf("Newton: residual %.3g, stats %+v; want ≤ 1e-10", gN, stN)
	}
	if math.Abs(gN-stN.Residual) > 1e-3*gN {
		t.Errorf("the solver's ratio %.6g differs from the recomputed residual %.6g", stN.Residual, gN)
	}
	e1, _ := swingStep(t, exactStVK, "")
	eN, stE := swingStep(t, exactStVK, "newtonIterations = 30\n  newtonTolerance = 1e-10")
	t.Logf("StVK, exact tangent: residual after the linearised step %.3g, after Newton %.3g (%+v)", e1, eN, stE)
	if !(eN < e1) {
		t.Errorf("StVK: Newton ends at residual %.3g, the linearised step at %.3g: the safeguard must keep it decreasing", eN, e1)
	}
}
