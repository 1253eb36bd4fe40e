package constraint_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/components/constraint"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// The bar of the prescribed-motion tests: 1 × 0.2 × 0.2 m, clamped at
// x = 0; its end face x = 1 moves along three keys: it translates by
// (0.01, 0, 0) while turning by 0.2 rad about the bar's axis (through the
// face's centre (1, 0.1, 0.1)) until t = 0.05, then by (0.01, 0.02, 0)
// turned back to 0.1 rad at t = 0.1, then holds.
var twistKeys = struct {
	times []float64
	trans [][3]float64
	angle []float64
}{
	times: []float64{0, 0.05, 0.1},
	trans: [][3]float64{{0, 0, 0}, {0.01, 0, 0}, {0.01, 0.02, 0}},
	angle: []float64{0, 0.2, 0.1},
}

// expectedEnd is the closed form of the end face's motion at time t for a
// point p0 of the face: the keys interpolated by hand, then the rotation
// about the x axis through (1, 0.1, 0.1) written out (not through geom).
func expectedEnd(p0 [3]float64, t float64) [3]float64 {
	k := twistKeys
	var T [3]float64
	var a float64
	switch {
	case t <= k.times[0]:
		T, a = k.trans[0], k.angle[0]
	case t >= k.times[len(k.times)-1]:
		T, a = k.trans[len(k.trans)-1], k.angle[len(k.angle)-1]
	default:
		i := 0
		for t > k.times[i+1] {
			i++
		}
		s := (t - k.times[i]) / (k.times[i+1] - k.times[i])
		for j := range T {
			T[j] = k.trans[i][j] + s*(k.trans[i+1][j]-k.trans[i][j])
		}
		a = k.angle[i] + s*(k.angle[i+1]-k.angle[i])
	}
	y, z := p0[1]-0.1, p0[2]-0.1
	c, sn := math.Cos(a), math.Sin(a)
	return [3]float64{p0[0] + T[0], 0.1 + T[1] + c*y - sn*z, 0.1 + T[2] + sn*y + c*z}
}

const twistMovements = `keyTimes = [0, 0.05, 0.1]
  movements = [[0, 0, 0, 0, 0, 0], [0.01, 0, 0, 0.2, 0, 0], [0.01, 0.02, 0, 0.1, 0, 0]]`

// barScene is the bar under the given solver objects.
func barScene(dt float64, solver string) string {
	return fmt.Sprintf(`dt = %g
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
%s
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.2, 0.2]
  n = [6, 3, 3]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e5
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.01, -1, -1, 0.01, 1, 1]
  [[node.object]]
  type = "LinearMovementConstraint"
  name = "move"
  box = [0.99, -1, -1, 1.01, 1, 1]
  %s
`, dt, solver, twistMovements)
}

func obj(typ string, fields ...string) string {
	s := "  [[node.object]]\n  type = \"" + typ + "\"\n"
	for _, f := range fields {
		s += "  " + f + "\n"
	}
	return s
}

// TestLinearMovementExactEverySolver: with every ODE solver, the end face
// is at its keyframed position after every step, to 1e-12 m (rounding of
// the rotation: the positions are written from the closed form, never
// integrated), its velocity is the chord of the step, and the free
// vertices respond (the mid-span vertices move off their rest positions,
// and by the same amount whatever the solver once it settles: a check that
// no solver lags the motion by a step is the static one below).
func TestLinearMovementExactEverySolver(t *testing.T) {
	cg := obj("CGLinearSolver", "iterations = 2000", "tolerance = 1e-12")
	for _, c := range []struct {
		name, solver string
		dt           float64
		steps        int
	}{
		{"EulerExplicitSolver", obj("EulerExplicitSolver"), 0.0005, 260},
		{"EulerImplicitSolver", obj("EulerImplicitSolver", "rayleighMass = 1") + cg, 0.01, 13},
		{"NewmarkImplicitSolver", obj("NewmarkImplicitSolver", "maxIterations = 5", "tolerance = 1e-9") + cg, 0.01, 13},
		{"StaticSolver", obj("StaticSolver") + obj("SparseCholeskySolver"), 0.01, 13},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := graphtest.MustLoad(t, "bar.toml", barScene(c.dt, c.solver))
			mv := graphtest.Find[*constraint.LinearMovementConstraint](t, s, "bar/move")
			st := graphtest.Find[graph.State](t, s, "bar/dofs")
			rest := append([]float64(nil), st.Vec(graph.RestPosition)...)
			if len(mv.Selected()) != 9 {
				t.Fatalf("selected %d vertices, want the 9 of the end face", len(mv.Selected()))
			}
			worst, worstV := 0.0, 0.0
			for step := 1; step <= c.steps; step++ {
				if err := s.Step(); err != nil {
					t.Fatal(err)
				}
				x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
				for _, i := range mv.Selected() {
					p0 := [3]float64{rest[3*i], rest[3*i+1], rest[3*i+2]}
					want := expectedEnd(p0, s.Time)
					prev := expectedEnd(p0, s.Time-c.dt)
					for j := 0; j < 3; j++ {
						worst = math.Max(worst, math.Abs(x[3*i+j]-want[j]))
						chord := (want[j] - prev[j]) / c.dt
						worstV = math.Max(worstV, math.Abs(v[3*i+j]-chord))
					}
				}
			}
			if worst > 1e-12 {
				t.Errorf("prescribed positions off the keyframes by up to %.3g m, want ≤ 1e-12", worst)
			}
			// The chord divides a difference of ~1e-3 m by dt: rounding
			// 1e-16/dt.
			// StaticSolver has no velocities (zero throughout).
			if worstV > 1e-9 && c.name != "StaticSolver" {
				t.Errorf("prescribed velocities off the chord by up to %.3g m/s", worstV)
			}
			// Free vertices respond: the vertex at the middle of the bar's
			// axis line y = z = 0.1 has moved.
			x := st.Vec(graph.Position)
			moved := 0.0
			for i := 0; i < st.Size(); i++ {
				if math.Abs(rest[3*i]-0.6) < 1e-9 {
					for j := 0; j < 3; j++ {
						moved = math.Max(moved, math.Abs(x[3*i+j]-rest[3*i+j]))
					}
				}
			}
			if moved < 1e-3 {
				t.Errorf("free vertices at x = 0.6 moved at most %.3g m: the motion did not reach them", moved)
			}
			t.Logf("worst position error %.3g m, velocity error %.3g m/s, free vertices at x = 0.6 moved up to %.4g m", worst, worstV, moved)
		})
	}
}

// TestLinearMovementStaticNoLag: a StaticSolver step is the equilibrium
// with the end at its position at the end of the step, not at the start:
// after 7 steps (t = 0.07, between two keys) the bar, without gravity,
// must be where a second bar is whose end is put at the keyframed position
// of t = 0.07 by hand and clamped there by a FixedConstraint (the
// equilibrium of this mildly deformed elastic bar does not depend on the
// path that led to it).
func TestLinearMovementStaticNoLag(t *testing.T) {
	solver := obj("StaticSolver", "tolerance = 1e-12") + obj("SparseCholeskySolver")
	moving := strings.Replace(barScene(0.01, solver), "gravity = [0, -9.81, 0]", "gravity = [0, 0, 0]", 1)
	s := graphtest.MustLoad(t, "bar.toml", moving)
	for i := 0; i < 7; i++ { // t = 0.07: between the second and third keys
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	// The same bar with its end put at the keyframed position of
	// t = 0.07 by hand and clamped there.
	st := graphtest.Find[graph.State](t, s, "bar/dofs")
	mv := graphtest.Find[*constraint.LinearMovementConstraint](t, s, "bar/move")
	rest := st.Vec(graph.RestPosition)
	pos, rpos := "position = [", "restPosition = ["
	for i := 0; i < st.Size(); i++ {
		p := [3]float64{rest[3*i], rest[3*i+1], rest[3*i+2]}
		rpos += fmt.Sprintf("[%.17g, %.17g, %.17g], ", p[0], p[1], p[2])
		if p[0] > 0.99 {
			p = expectedEnd(p, s.Time)
		}
		pos += fmt.Sprintf("[%.17g, %.17g, %.17g], ", p[0], p[1], p[2])
	}
	pos += "]\n  " + rpos + "]"
	fixed := strings.Replace(moving, "  name = \"dofs\"\n", "  name = \"dofs\"\n  "+pos+"\n", 1)
	fixed = strings.Replace(fixed, "type = \"LinearMovementConstraint\"\n  name = \"move\"", "type = \"FixedConstraint\"\n  name = \"move\"", 1)
	fixed = strings.Replace(fixed, twistMovements, "", 1)
	s2 := graphtest.MustLoad(t, "fixed.toml", fixed)
	if err := s2.Step(); err != nil {
		t.Fatal(err)
	}
	x1 := st.Vec(graph.Position)
	x2 := graphtest.Find[graph.State](t, s2, "bar/dofs").Vec(graph.Position)
	worst := 0.0
	for i := range x1 {
		worst = math.Max(worst, math.Abs(x1[i]-x2[i]))
	}
	// Both are Newton solutions to 1e-12 of the same equilibrium.
	if worst > 1e-9 {
		t.Errorf("static solution under the prescribed motion differs from the clamped one by %.3g m", worst)
	}
	if len(mv.Selected()) == 0 {
		t.Fatal("nothing prescribed")
	}

	// NewmarkImplicitSolver on a nearly massless bar (ρ = 1e-9 kg/m³:
	// inertial forces ~1e-13 of the elastic ones) is quasi-static: after 7
	// steps it must be at the same equilibrium, which it misses by a whole
	// step of motion (~1e-3 m) if its Newton iterations see the end where
	// the step starts.
	newmark := obj("NewmarkImplicitSolver", "maxIterations = 20", "tolerance = 1e-13") + obj("SparseCholeskySolver")
	light := strings.Replace(strings.Replace(moving, solver, newmark, 1), "massDensity = 1000", "massDensity = 1e-9", 1)
	s3 := graphtest.MustLoad(t, "newmark.toml", light)
	for i := 0; i < 7; i++ {
		if err := s3.Step(); err != nil {
			t.Fatal(err)
		}
	}
	x3 := graphtest.Find[graph.State](t, s3, "bar/dofs").Vec(graph.Position)
	worst = 0
	for i := range x1 {
		worst = math.Max(worst, math.Abs(x3[i]-x1[i]))
	}
	if worst > 1e-9 {
		t.Errorf("quasi-static Newmark differs from the static equilibrium by %.3g m", worst)
	}
}

// TestLinearMovementRigid3: a Rigid3 body follows a translation and a
// rotation about its own origin exactly (position and orientation, every
// step, with the explicit and implicit Euler solvers), and its angular
// velocity is the rate of the keyframed rotation; a second, free frame of
// the same state falls under gravity.
func TestLinearMovementRigid3(t *testing.T) {
	for _, solver := range []string{obj("EulerExplicitSolver"),
		obj("EulerImplicitSolver") + obj("CGLinearSolver", "iterations = 100", "tolerance = 1e-14")} {
		scene := fmt.Sprintf(`dt = 0.01
gravity = [0, -10, 0]
[[node]]
name = "body"
%s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = [[1, 2, 3, 0, 0, 0.6, 0.8], [0, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "RigidMass"
  mass = 2
  inertiaDiagonal = [1, 2, 3]
  [[node.object]]
  type = "LinearMovementConstraint"
  name = "move"
  indices = [0]
  keyTimes = [0, 0.1]
  movements = [[0, 0, 0, 0, 0, 0], [0.5, 0, 0, 0, 0.3, 0]]
`, solver)
		s := graphtest.MustLoad(t, "rigid.toml", scene)
		st := graphtest.Find[graph.State](t, s, "body/dofs")
		for step := 1; step <= 15; step++ {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
			tt := math.Min(s.Time, 0.1) / 0.1
			// Rotation by 0.3·tt about y, applied on the left of q0 =
			// (0, 0, 0.6, 0.8); the origin stays (rotation about itself).
			a := 0.3 * tt
			qr := [4]float64{0, math.Sin(a / 2), 0, math.Cos(a / 2)}
			q0 := [4]float64{0, 0, 0.6, 0.8}
			want := [7]float64{1 + 0.5*tt, 2, 3,
				qr[3]*q0[0] + qr[0]*q0[3] + qr[1]*q0[2] - qr[2]*q0[1],
				qr[3]*q0[1] - qr[0]*q0[2] + qr[1]*q0[3] + qr[2]*q0[0],
				qr[3]*q0[2] + qr[0]*q0[1] - qr[1]*q0[0] + qr[2]*q0[3],
				qr[3]*q0[3] - qr[0]*q0[0] - qr[1]*q0[1] - qr[2]*q0[2]}
			x := st.Vec(graph.Position)
			for j, w := range want {
				if math.Abs(x[j]-w) > 1e-12 {
					t.Fatalf("step %d: coordinate %d = %.15g, want %.15g", step, j, x[j], w)
				}
			}
			v := st.Vec(graph.Velocity)
			wantV := [6]float64{5, 0, 0, 0, 3, 0}
			if s.Time > 0.1+1e-9 {
				wantV = [6]float64{}
			}
			for j, w := range wantV {
				if math.Abs(v[j]-w) > 1e-9 {
					t.Fatalf("step %d: velocity %d = %.15g, want %g", step, j, v[j], w)
				}
			}
			if v[7] >= 0 {
				t.Fatalf("step %d: the free frame does not fall (vy = %g)", step, v[7])
			}
		}
	}
}

// TestLinearMovementVec1: a displacement on a one-component template.
func TestLinearMovementVec1(t *testing.T) {
	s := graphtest.MustLoad(t, "v.toml", `dt = 0.1
[[node]]
name = "n"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Vec1"
  position = [[1], [2]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
  [[node.object]]
  type = "LinearMovementConstraint"
  indices = [1]
  keyTimes = [0, 1]
  movements = [[0], [-4]]
`)
	x := graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.Position)
	for step := 1; step <= 5; step++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		if want := 2 - 4*s.Time; math.Abs(x[1]-want) > 1e-14 {
			t.Errorf("t = %g: x = %.16g, want %.16g", s.Time, x[1], want)
		}
	}
}

func TestLinearMovementErrors(t *testing.T) {
	for _, c := range []struct{ state, fields, want string }{
		{fourPoints, "keyTimes = [0, 1]\n  movements = [[0, 0, 0], [1, 0, 0]]", "nothing selected"},
		{fourPoints, "indices = [0]\n  keyTimes = [0, 1]\n  movements = [[0, 0], [1, 0]]", "wants 3 (a displacement) or 6"},
		{fourPoints, "indices = [0]\n  keyTimes = [1, 0]\n  movements = [[0, 0, 0], [1, 0, 0]]", "increase strictly"},
		{fourPoints, "indices = [0]\n  keyTimes = [0, 1]\n  movements = [[0, 0, 0]]", "one per key time"},
		{fourPoints, "indices = [0]\n  keyTimes = [0]\n  movements = [[0, 0, 0]]\n  center = [0, 0, 0]", "only by 6-number"},
		{`template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]`, "indices = [0]\n  keyTimes = [0]\n  movements = [[0, 0, 0, 0, 0, 0, 1]]", "wants 3 (a translation) or 6"},
	} {
		text := strings.Replace(fixedScene(c.state, c.fields), "FixedConstraint", "LinearMovementConstraint", 1)
		s, err := graph.Load("e.toml", []byte(text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.fields, err, c.want)
		}
	}
}

// TestLinearMovementWithoutSolver: a Rigid3 body no ODE solver integrates
// is moved by its LinearMovementConstraint alone (graph.StateDriver): after
// each step it is at its keyframed place at the scene's time, and a point
// mapped on it follows.
func TestLinearMovementWithoutSolver(t *testing.T) {
	s := graphtest.MustLoad(t, "driven.toml", `dt = 0.1
[[node]]
name = "pusher"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "LinearMovementConstraint"
  indices = [0]
  keyTimes = [0, 1]
  movements = [[0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 1.5707963267948966]]
  [[node.node]]
  name = "tip"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    position = [[1, 0, 0]]
    [[node.node.object]]
    type = "RigidMapping"
[[node]]
name = "ball"
  [[node.object]]
  type = "EulerExplicitSolver"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 5, 0]]
  [[node.object]]
  type = "UniformMass"
  vertexMass = 1
`)
	if err := s.CheckRunnable(); err != nil {
		t.Fatal(err)
	}
	tip := graphtest.Find[graph.State](t, s, "pusher/tip/points")
	for step := 1; step <= 12; step++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		a := math.Pi / 2 * math.Min(s.Time, 1)
		want := [3]float64{math.Min(s.Time, 1) + math.Cos(a), math.Sin(a), 0}
		x := tip.Vec(graph.Position)
		for j := range want {
			if math.Abs(x[j]-want[j]) > 1e-12 {
				t.Fatalf("t = %g: mapped tip %v, want %v", s.Time, x, want)
			}
		}
	}
}
