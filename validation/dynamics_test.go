package validation

import (
	"fmt"
	"math"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

func loadScene(t testing.TB, file string) *graph.Scene {
	t.Helper()
	s, err := graph.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDynamicCantileverComesToRestAtStaticSolution checks issue 2's item 3c:
// the damped dynamic beam of scenes/cantilever.toml settles exactly where
// the Newton solve of scenes/cantilever_static.toml puts it. Implicit Euler's
// fixed point (Δv = 0) is f(x) = 0, the same equation StaticSolver solves, so
// the two agree up to the decay of the slowest mode: with Rayleigh α = β =
// 0.1 the first bending mode (ω ≈ 10 rad/s) has a damping ratio ≈ 0.5, and
// after 6 s the residual motion is far below the 1e-5 tolerance used here
// (relative to the tip deflection).
func TestDynamicCantileverComesToRestAtStaticSolution(t *testing.T) {
	stat := loadScene(t, "../scenes/cantilever_static.toml")
	if err := stat.Step(); err != nil {
		t.Fatal(err)
	}
	dyn := loadScene(t, "../scenes/cantilever.toml")
	steps := 600
	if testing.Short() {
		steps = 300
	}
	for i := 0; i < steps; i++ {
		if err := dyn.Step(); err != nil {
			t.Fatal(err)
		}
	}
	xs := graphtest.Find[graph.State](t, stat, "beam/dofs").Vec(graph.Position)
	xd := graphtest.Find[graph.State](t, dyn, "beam/dofs").Vec(graph.Position)
	x0 := graphtest.Find[graph.State](t, stat, "beam/dofs").Vec(graph.RestPosition)
	maxU, maxDiff := 0.0, 0.0
	for i := range xs {
		maxU = math.Max(maxU, math.Abs(xs[i]-x0[i]))
		maxDiff = math.Max(maxDiff, math.Abs(xs[i]-xd[i]))
	}
	t.Logf("after %d steps: max |x_dynamic − x_static| = %.3e m, max static displacement %.4f m", steps, maxDiff, maxU)
	tol := 1e-5
	if testing.Short() {
		tol = 1e-3 // 3 s of settling
	}
	if maxDiff > tol*maxU {
		t.Errorf("dynamic beam did not settle at the static solution: max difference %.3e m > %.0e × %.4f m", maxDiff, tol, maxU)
	}
}

// TestSymplecticEulerConservesEnergy checks issue 2's item 3d: an undamped
// beam released under gravity and integrated by symplectic Euler keeps its
// total energy (kinetic + elastic + gravitational) within 1% of the energy
// it exchanges (the largest kinetic energy reached) over 10,000 steps at a
// stable dt. The time step is a fifth of the CFL estimate h/c with
// c = √((λ+2μ)/ρ) the dilatational wave speed and h the smallest cell edge.
func TestSymplecticEulerConservesEnergy(t *testing.T) {
	steps := 10000
	if testing.Short() {
		steps = 2000
	}
	const E, nu, rho = 1e6, 0.3, 1000.0
	lam := E * nu / ((1 + nu) * (1 - 2*nu))
	mu := E / (2 * (1 + nu))
	c := math.Sqrt((lam + 2*mu) / rho)
	h := 0.05
	dt := 0.2 * h / c
	text := fmt.Sprintf(`
dt = %g
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.1, 0.1]
  n = [11, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = %g
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = %g
  poissonRatio = %g
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
`, dt, rho, E, nu)
	s := graphtest.MustLoad(t, "energy.toml", text)
	k0, p0 := s.Energies()
	e0 := k0 + p0
	maxKin, maxDrift := 0.0, 0.0
	for i := 0; i < steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		k, p := s.Energies()
		maxKin = math.Max(maxKin, k)
		maxDrift = math.Max(maxDrift, math.Abs(k+p-e0))
	}
	t.Logf("dt = %.3g s, %d steps (%.2f s): max |E − E0| = %.4g J, max kinetic energy %.4g J (%.3f%%)",
		dt, steps, float64(steps)*dt, maxDrift, maxKin, 100*maxDrift/maxKin)
	if maxKin == 0 {
		t.Fatal("the beam never moved")
	}
	if maxDrift > 0.01*maxKin {
		t.Errorf("energy drift %.4g J exceeds 1%% of the exchanged energy %.4g J", maxDrift, maxKin)
	}
}
