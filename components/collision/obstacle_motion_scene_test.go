package collision_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// pointOnMovingPlane is a 1 kg point resting on the plane y = 0 that
// moves along the given keys, under gravity g = 9.81, with implicit Euler.
func pointOnMovingPlane(t *testing.T, keys, penalty string) *graph.Scene {
	return graphtest.MustLoad(t, "floor.toml", fmt.Sprintf(`dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "n"
  [[node.object]]
  type = "EulerImplicitSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 50
  tolerance = 1e-14
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, -0.000981, 0]]
  [[node.object]]
  type = "UniformMass"
  totalMass = 1
  [[node.object]]
  type = "PlaneForceField"
  name = "floor"
  normal = [0, 1, 0]
  d = 0
  %s
  %s
`, penalty, keys))
}

// TestMovingFloorCarries: a point resting on a floor that rises at
// V = 0.2 m/s rides with it: once settled it moves at V and sits at the
// static penetration mg/γ = 0.98 mm — the dashpot acts on the velocity
// relative to the floor (on the absolute velocity it would push the point
// c·V/γ = 2 mm deeper). Implicit Euler with the floor at its
// end-of-step place is exactly backward Euler, whose steady state has no
// lag: mg/γ to 1e-9.
func TestMovingFloorCarries(t *testing.T) {
	const gamma, c, V = 1e4, 100.0, 0.2
	s := pointOnMovingPlane(t, fmt.Sprintf("keyTimes = [0, 10]\n  translations = [[0, 0, 0], [0, %g, 0]]", 10*V),
		fmt.Sprintf("stiffness = %g\n  damping = %g", gamma, c))
	st := graphtest.Find[graph.State](t, s, "n/dofs")
	for i := 0; i < 300; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	y, vy := st.Vec(graph.Position)[1], st.Vec(graph.Velocity)[1]
	depth := V*s.Time - y
	want := 9.81 / gamma
	if math.Abs(depth-want) > 1e-9 || math.Abs(vy-V) > 1e-9 {
		t.Errorf("after %g s: penetration %.12g m (want mg/γ = %.12g), speed %.12g m/s (want %g)", s.Time, depth, want, vy, V)
	}
	t.Logf("t = %g s: penetration %.12g m, mg/γ = %g; speed %.12g m/s", s.Time, depth, want, vy)
}

// TestConveyorFriction: a point resting on a floor that slides along x at
// 0.3 m/s is dragged by friction (μ = 0.5: acceleration μg = 4.9 m/s²)
// until it moves with the floor: then the relative tangential speed, the
// friction and the acceleration are zero, and the point keeps the floor's
// speed to 1e-9 m/s. Before that it accelerates at μg while slipping.
// The slip velocity (0.05 m/s) is above the speed friction changes in one
// step, μgh = 0.049 m/s, so implicit Euler's linearisation reaches the
// viscous regime of the regularised friction: with v_s ≪ μgh (1e-3 m/s)
// the single linearisation from a saturated friction overshoots the
// floor's speed every step (a limit cycle of ±μgh/2 around it, measured),
// a property of one linearised step of a nearly non-smooth law, static
// floors included.
func TestConveyorFriction(t *testing.T) {
	const V, mu = 0.3, 0.5
	s := pointOnMovingPlane(t, fmt.Sprintf("keyTimes = [0, 10]\n  translations = [[0, 0, 0], [%g, 0, 0]]", 10*V),
		fmt.Sprintf("stiffness = 1e4\n  damping = 100\n  friction = %g\n  slipVelocity = 0.05", mu))
	st := graphtest.Find[graph.State](t, s, "n/dofs")
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	// After two steps of 0.01 s, slipping (relative speed 0.2–0.3 m/s,
	// tanh(u/v_s) > 0.9993): vx ≈ μ g t.
	if vx := st.Vec(graph.Velocity)[0]; math.Abs(vx-mu*9.81*0.02) > 0.01*mu*9.81*0.02 {
		t.Errorf("slipping: vx = %g after 0.02 s, want ≈ μ g t = %g", vx, mu*9.81*0.02)
	}
	for i := 0; i < 200; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if vx := st.Vec(graph.Velocity)[0]; math.Abs(vx-V) > 1e-9 {
		t.Errorf("carried: vx = %.12g, want the floor's %g", vx, V)
	}
}

// TestObstacleMotionErrors: the keys are checked.
func TestObstacleMotionErrors(t *testing.T) {
	for _, c := range []struct{ keys, want string }{
		{"keyTimes = [0, 1]\n  translations = [[0, 0, 0]]", "one per key time"},
		{"keyTimes = [0, 1]\n  translations = [[0, 0], [1, 0]]", "want 3"},
		{"keyTimes = [1, 0]\n  translations = [[0, 0, 0], [1, 0, 0]]", "increase strictly"},
		{"translations = [[0, 0, 0]]", "keyTimes is empty"},
	} {
		text := strings.Replace(fmt.Sprintf(`[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "SphereForceField"
  radius = 1
  stiffness = 10
  %s
`, c.keys), "\t", "", -1)
		s, err := graph.Load("e.toml", []byte(text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.keys, err, c.want)
		}
	}
}
