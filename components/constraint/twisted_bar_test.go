package constraint_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/sofago/sofago/components/constraint"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// twistTorque twists a neo-Hookean bar of length L and square section a × a
// (centred on the x axis, na cells across, nl along) by theta about its
// axis with a LinearMovementConstraint on the end x = L (the end x = 0
// clamped), solves the static equilibrium, and returns the torque about
// the axis that the constraint applies to the bar: minus the moment of
// the elastic forces on the prescribed vertices (the dump's forces, taken
// before projection).
func twistTorque(t *testing.T, L, a float64, nl, na int, theta, E, nu float64) float64 {
	t.Helper()
	scene := fmt.Sprintf(`dt = 1
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  tolerance = 1e-12
  [[node.object]]
  type = "SparseCholeskySolver"
  ordering = "nestedDissection"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, %[2]g, %[2]g]
  max = [%[1]g, %[3]g, %[3]g]
  n = [%[4]d, %[5]d, %[5]d]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "NeoHookean"
  youngModulus = %[9]g
  poissonRatio = %[10]g
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-6, -1, -1, 1e-6, 1, 1]
  [[node.object]]
  type = "LinearMovementConstraint"
  name = "move"
  box = [%[6]g, -1, -1, %[7]g, 1, 1]
  keyTimes = [0, 1]
  movements = [[0, 0, 0, 0, 0, 0], [0, 0, 0, %[8]g, 0, 0]]
  center = [%[1]g, 0, 0]
`, L, -a/2, a/2, nl+1, na+1, L-1e-6, L+1e-6, theta, E, nu)
	s := graphtest.MustLoad(t, "twist.toml", scene)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	s.ComputeForces()
	st := graphtest.Find[graph.State](t, s, "bar/dofs")
	mv := graphtest.Find[*constraint.LinearMovementConstraint](t, s, "bar/move")
	x, f := st.Vec(graph.Position), st.Vec(graph.Force)
	tq := 0.0
	for _, i := range mv.Selected() {
		y, z := x[3*i+1], x[3*i+2]
		tq -= y*f[3*i+2] - z*f[3*i+1]
	}
	return tq
}

// squareTorsionBeta is β of the torsion constant J = β a b³ of an a × b
// rectangle (a ≥ b), from Saint-Venant's series (Timoshenko & Goodier,
// "Theory of Elasticity", 3rd ed., §109):
//
//	β = (1/3) [1 − (192/π⁵)(b/a) Σ_{n odd} tanh(nπa/(2b))/n⁵],
//
// summed until the terms are below rounding (0.140577 for a square).
func squareTorsionBeta(a, b float64) float64 {
	sum := 0.0
	for n := 1; n < 200; n += 2 {
		sum += math.Tanh(float64(n)*math.Pi*a/(2*b)) / math.Pow(float64(n), 5)
	}
	return (1 - 192/math.Pow(math.Pi, 5)*b/a*sum) / 3
}

// TestTwistedBarTorque: a neo-Hookean bar twisted by a small angle
// (θ = 0.01 rad over L = 10 a: shear strains below 1e-3, where the law is
// linear to 1e-6) by a LinearMovementConstraint on its end carries the
// torque of Saint-Venant's torsion, T = G J θ / L, J = β a⁴ with the exact
// series for β.
//
// Linear tetrahedra are stiff in torsion: on cubic cells (Kuhn split) the
// torque is 37 % too high with 4 cells across, 17 % with 6, 10 % with 8
// (4.7 % with 12, measured; 16 cells across are beyond a unit test). The
// error falls as h² — the observed order from the three meshes is checked
// to be 2 ± 0.3 — so the converged torque is the Richardson extrapolation
// of the two finest meshes, T∞ = (8² T₈ − 6² T₆)/(8² − 6²). It must match
// G J θ/L within 2 %: the remaining difference is the end effect (both
// ends are clamped, so the sections there cannot warp, which Saint-Venant
// assumes they do: about +0.5 % at L = 10 a, measured from bars of 5, 10
// and 20 a) plus what the extrapolation leaves of the mesh error.
func TestTwistedBarTorque(t *testing.T) {
	if testing.Short() {
		t.Skip("three static solves of up to 6561 vertices (a few seconds)")
	}
	const E, nu, a, L, theta = 1e6, 0.3, 0.1, 1.0, 0.01
	G := E / (2 * (1 + nu))
	J := squareTorsionBeta(a, a) * a * a * a * a
	want := G * J * theta / L
	var r [3]float64
	ns := [3]int{4, 6, 8}
	for k, na := range ns {
		r[k] = twistTorque(t, L, a, int(L/a)*na, na, theta, E, nu) / want
		t.Logf("%d cells across, %d along: T / (G J θ/L) = %.5f", na, int(L/a)*na, r[k])
	}
	// Observed order p from r(h) = r∞ + C h^p, h = a/n: the ratio of
	// successive differences (4→6, 6→8) equals (h₄^p − h₆^p)/(h₆^p − h₈^p);
	// solve for p by bisection.
	ratio := (r[0] - r[1]) / (r[1] - r[2])
	g := func(p float64) float64 {
		h := func(n int) float64 { return math.Pow(1/float64(n), p) }
		return (h(4)-h(6))/(h(6)-h(8)) - ratio
	}
	lo, hi := 0.5, 4.0
	for i := 0; i < 60; i++ {
		if mid := (lo + hi) / 2; g(lo)*g(mid) <= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	p := (lo + hi) / 2
	if math.Abs(p-2) > 0.3 {
		t.Errorf("observed order of convergence %.3f, want 2 ± 0.3 (linear tetrahedra)", p)
	}
	rInf := (64*r[2] - 36*r[1]) / (64 - 36)
	t.Logf("observed order %.3f; Richardson extrapolation T∞ / (G J θ/L) = %.5f (G J θ/L = %.6g N·m, β = %.6f)", p, rInf, want, J/(a*a*a*a))
	if math.Abs(rInf-1) > 0.02 {
		t.Errorf("converged torque %.5f × G J θ/L, want within 2 %%", rInf)
	}
}
