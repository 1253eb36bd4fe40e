package planespring_test

import (
	"math"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/all"
	_ "github.com/sofago/sofago/examples/planespring"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestPlaneSpringDerivatives runs the fixture every force field passes:
// f = −∇W and the AddDForce stiffness against central differences.
func TestPlaneSpringDerivatives(t *testing.T) {
	s := graphtest.MustLoad(t, "plane.toml", `
[[node]]
name = "points"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 1, 0], [1, -2, 0.5], [0.3, 0.7, -1]]
  [[node.object]]
  type = "PlaneSpring"
  name = "spring"
  stiffness = 250
  height = 0.5
`)
	ff := graphtest.Find[graph.ForceField](t, s, "points/spring")
	st := graphtest.Find[graph.State](t, s, "points/MechanicalObject")
	graphtest.CheckForceField(t, ff, graph.Vec3, st.Vec(graph.Position), nil, graphtest.Options{})
}

// TestPlaneSpringScene runs the example scene plane.toml to its end and
// checks the closed-form equilibrium: each point hangs where the spring
// carries its weight, y = height + m·g_y/k, and nothing moves sideways.
//
// Tolerance: the three points are independent oscillators of ω = √(k/m)
// = 44.7 rad/s; backward Euler multiplies an undamped oscillation by
// 1/√(1 + (ωh)²) = 0.913 per step, so after 300 steps of h = 0.01 s what
// is left of the initial offsets (at most 1.5 m) is 1.5 × 0.913³⁰⁰ ≈
// 2e-12 m. CG is exact here in two iterations (the system matrix has two
// distinct eigenvalues: m and m + h²k). 1e-10 m leaves room for rounding.
func TestPlaneSpringScene(t *testing.T) {
	s, err := graph.LoadFile("plane.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	st := graphtest.Find[graph.State](t, s, "points/MechanicalObject")
	x0 := append([]float64(nil), st.Vec(graph.Position)...)
	for i := 0; i < s.Steps; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	const m, g, k, height = 0.1, -9.81, 200, 0.5
	want := height + m*g/k
	x := st.Vec(graph.Position)
	for p := 0; p < len(x)/3; p++ {
		if d := math.Abs(x[3*p+1] - want); d > 1e-10 {
			t.Errorf("point %d: y = %.15g m, want %.15g (off by %.2g)", p, x[3*p+1], want, d)
		}
		if x[3*p] != x0[3*p] || x[3*p+2] != x0[3*p+2] {
			t.Errorf("point %d moved sideways: (%g, %g) → (%g, %g)", p, x0[3*p], x0[3*p+2], x[3*p], x[3*p+2])
		}
	}
}

// TestPlaneSpringNeedsVec3: on a state that is not made of Vec3 points,
// Init fails with a located message instead of indexing the wrong numbers.
func TestPlaneSpringNeedsVec3(t *testing.T) {
	s, err := graph.Load("rigid.toml", []byte(`
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  position = [[0, 1, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "PlaneSpring"
`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Init()
	if err == nil || !strings.Contains(err.Error(), "rigid.toml:") || !strings.Contains(err.Error(), "needs a Vec3 MechanicalObject") {
		t.Errorf("PlaneSpring on a Rigid3 state: error %v, want a located \"needs a Vec3 MechanicalObject\"", err)
	}
}
