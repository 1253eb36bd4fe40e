package graph_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
)

// divSolver is a test-only ODE solver that does not integrate: at step At
// it sets the position and/or velocity of DOF Dof of the first
// independent state of its subtree to the given values; with Ballistic it
// moves every Vec3 point along its exact free flight x₀ + v₀t + ½gt².
type divSolver struct {
	graph.ObjectBase
	At        int       `toml:"at" doc:"step at which to set the values" range:"[0,inf)"`
	Dof       int       `toml:"dof" doc:"DOF to set" range:"[0,inf)"`
	Position  []float64 `toml:"position" doc:"coordinates to set"`
	Velocity  []float64 `toml:"velocity" doc:"velocity to set"`
	Ballistic bool      `toml:"ballistic" doc:"exact free flight"`

	steps  int
	x0, v0 []float64
}

func (s *divSolver) Solve(ops *graph.Ops, dt float64) error {
	s.steps++
	st := ops.Independent()[0]
	x, v := st.Vec(graph.Position), st.Vec(graph.Velocity)
	if s.Ballistic {
		if s.x0 == nil {
			s.x0, s.v0 = append([]float64(nil), x...), append([]float64(nil), v...)
		}
		t := ops.Time() + dt
		g := st.Base().Node.Gravity()
		for i := range x {
			x[i] = s.x0[i] + s.v0[i]*t + 0.5*g[i%3]*t*t
			v[i] = s.v0[i] + g[i%3]*t
		}
		return nil
	}
	if s.steps != s.At {
		return nil
	}
	cs, ds := st.Template().CoordSize(), st.Template().DerivSize()
	if s.Position != nil {
		copy(x[s.Dof*cs:(s.Dof+1)*cs], s.Position)
	}
	if s.Velocity != nil {
		copy(v[s.Dof*ds:(s.Dof+1)*ds], s.Velocity)
	}
	return nil
}

// divMass is a test-only mass of 1 kg per coordinate of the derivative,
// without gravity: kinetic energy ½|v|².
type divMass struct{ graph.ObjectBase }

func (m *divMass) AddForce(f, x, v []float64)                           {}
func (m *divMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}
func (m *divMass) PotentialEnergy(x []float64) float64                  { return 0 }
func (m *divMass) AddMDx(df, dx []float64, factor float64) {
	for i := range df {
		df[i] += factor * dx[i]
	}
}
func (m *divMass) KineticEnergy(v []float64) float64 {
	e := 0.0
	for _, x := range v {
		e += 0.5 * x * x
	}
	return e
}

// divEnergy is a test-only force field without force whose potential
// energy becomes +Inf from step InfiniteFrom on.
type divEnergy struct {
	graph.ObjectBase
	InfiniteFrom int `toml:"infiniteFrom" doc:"first step with infinite energy" range:"[1,inf)"`
}

func (f *divEnergy) AddForce(fv, x, v []float64)                          {}
func (f *divEnergy) AddDForce(df, dx []float64, kFactor, bFactor float64) {}
func (f *divEnergy) PotentialEnergy(x []float64) float64 {
	if f.Node.Scene().StepCount >= f.InfiniteFrom {
		return math.Inf(1)
	}
	return 0
}

// divMapping is a test-only mapping from a Vec1 parent to Vec3 points:
// every child point is at (q, 0, 0), q the parent's single coordinate.
type divMapping struct {
	graph.ObjectBase
	from, to graph.State
}

func (m *divMapping) Init() error {
	m.from, m.to = m.Node.Parent.State(), m.Node.State()
	return nil
}
func (m *divMapping) From() graph.State { return m.from }
func (m *divMapping) To() graph.State   { return m.to }
func (m *divMapping) Apply(childX, parentX []float64) {
	for i := 0; i < len(childX); i += 3 {
		childX[i], childX[i+1], childX[i+2] = parentX[0], 0, 0
	}
}
func (m *divMapping) ApplyJ(childV, parentV []float64) { m.Apply(childV, parentV) }
func (m *divMapping) ApplyJT(parentF, childF []float64) {
	for i := 0; i < len(childF); i += 3 {
		parentF[0] += childF[i]
	}
}
func (m *divMapping) ApplyDJT(parentDf, parentDx, childF []float64, kFactor float64) {}
func (m *divMapping) IsMechanical() bool                                             { return true }

func init() {
	graph.Register(graph.TypeInfo{Name: "DivTestSolver", Kind: graph.KindODESolver, Summary: "test only",
		New: func() graph.Object { return &divSolver{} }})
	graph.Register(graph.TypeInfo{Name: "DivTestMass", Kind: graph.KindMass, Summary: "test only",
		New: func() graph.Object { return &divMass{} }})
	graph.Register(graph.TypeInfo{Name: "DivTestEnergy", Kind: graph.KindForceField, Summary: "test only",
		New: func() graph.Object { return &divEnergy{InfiniteFrom: 1} }})
	graph.Register(graph.TypeInfo{Name: "DivTestMapping", Kind: graph.KindMapping, Summary: "test only",
		New: func() graph.Object { return &divMapping{} }})
}

// reachable is the documented criterion, restated from the package doc
// (not from the code): R(t) = 1000 · (S + v₀ t + ½ g t²) with S the
// diagonal of the initial bounding box of the points, at least 1 m.
func reachable(diagonal, v0, g, t float64) float64 {
	return 1000 * (math.Max(diagonal, 1) + v0*t + 0.5*g*t*t)
}

func vecString(v []float64) string {
	var parts []string
	for _, x := range v {
		parts = append(parts, fmt.Sprintf("%.17g", x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// TestDivergenceCriterion pins the divergence criterion of Scene.Step on
// scenes whose reachable region is known in closed form: each case puts a
// point (or a velocity) just inside (factor 0.999) or just outside (1.001)
// the documented bound at a given step, and expects the run to go on, or
// to stop at exactly that step with an error naming the state, the DOF and
// the solver's file:line.
func TestDivergenceCriterion(t *testing.T) {
	// The points scene: a box [0,2]×[0,1]×[0,2] (diagonal 3, centre
	// (1, 0.5, 1)), one point thrown at 5 m/s, gravity 9.81 m/s², dt 0.1 s.
	const dt, at = 0.1, 5
	tAt := at * dt
	centre := geom.Vec3{1, 0.5, 1}
	r := reachable(3, 5, 9.81, tAt)
	points := func(set string) string {
		return fmt.Sprintf(`dt = 0.1
gravity = [0, -9.81, 0]
[[node]]
name = "pts"
  [[node.object]]
  type = "DivTestSolver"
  at = %d
  dof = 1
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0], [2, 1, 2]]
  velocity = [[3, 4, 0], [0, 0, 0]]
  [[node.object]]
  type = "DivTestMass"
`, at, set)
	}
	out := func(f float64) []float64 { p := centre.Add(geom.Vec3{0, 0, f * r}); return p[:] }
	// A single point: no box, S is the 1 m floor; no gravity, no speed.
	single := func(set string) string {
		return fmt.Sprintf(`dt = 0.1
gravity = [0, 0, 0]
[[node]]
name = "p"
  [[node.object]]
  type = "DivTestSolver"
  at = 3
  %s
  [[node.object]]
  type = "MechanicalObject"
  position = [[5, 5, 5]]
`, set)
	}
	// A rigid body at the origin: translations are checked, rotations are
	// not (a spin of 1e12 rad/s is far beyond R/dt but has no position).
	rigid := func(set string) string {
		return fmt.Sprintf(`dt = 0.1
gravity = [0, 0, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "DivTestSolver"
  at = 2
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "frame"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "DivTestMass"
`, set)
	}
	// A reduced coordinate (Vec1, no position in space), with and without
	// points mapped from it.
	reduced := func(child bool) string {
		text := `dt = 0.1
gravity = [0, 0, 0]
[[node]]
name = "red"
  [[node.object]]
  type = "DivTestSolver"
  at = 2
  position = [1e12]
  [[node.object]]
  type = "MechanicalObject"
  name = "q"
  template = "Vec1"
  position = [[0]]
`
		if child {
			text += `  [[node.node]]
  name = "mesh"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    size = 4
    [[node.node.object]]
    type = "DivTestMapping"
`
		}
		return text
	}
	cases := []struct {
		name  string
		scene string
		step  int      // step at which the run must stop; 0: never (10 steps)
		line  int      // line of the object named in the error
		wants []string // substrings of the error
	}{
		{"position inside", points("position = " + vecString(out(0.999))), 0, 0, nil},
		{"position outside", points("position = " + vecString(out(1.001))), at, 5,
			[]string{`object "DivTestSolver"`, "step 5 (t = 0.5 s)", fmt.Sprintf(`state "pts/dofs": DOF 1 is %.4g m from the centre`, 1.001*r), fmt.Sprintf("beyond the %.4g m the scene can reach", r), "1000 × (scene size 3 m + initial speed 5 m/s × t + ½ × gravity 9.81 m/s² × t²)"}},
		{"velocity inside", points(fmt.Sprintf("velocity = [0, %.17g, 0]", -0.999*r/dt)), 0, 0, nil},
		{"velocity outside", points(fmt.Sprintf("velocity = [0, %.17g, 0]", -1.001*r/dt)), at, 5,
			[]string{fmt.Sprintf(`state "pts/dofs": DOF 1 moves at %.4g m/s, faster than the %.4g m/s`, 1.001*r/dt, r/dt), fmt.Sprintf("(%.4g m) in one step of 0.1 s", r)}},
		{"single point inside", single(fmt.Sprintf("position = [5, 5, %.17g]", 5+0.999*reachable(0, 0, 0, 0.3))), 0, 0, nil},
		{"single point outside", single(fmt.Sprintf("position = [5, 5, %.17g]", 5+1.001*reachable(0, 0, 0, 0.3))), 3, 5,
			[]string{`DOF 0 is 1001 m from the centre`, "scene size 1 m"}},
		{"rigid translation outside", rigid(fmt.Sprintf("position = [%.17g, 0, 0, 0, 0, 0, 1]", 1.001*reachable(0, 0, 0, 0.2))), 2, 5,
			[]string{`state "body/frame": DOF 0 is 1001 m`}},
		{"rigid spin is not a position", rigid("velocity = [0, 0, 0, 0, 0, 1e12]"), 0, 0, nil},
		{"rigid spin with infinite kinetic energy", rigid("velocity = [0, 0, 0, 0, 0, 1e200]"), 2, 14,
			[]string{`object "DivTestMass"`, "the kinetic energy is +Inf"}},
		{"reduced coordinate alone", reduced(false), 0, 0, nil},
		{"points mapped from a reduced coordinate", reduced(true), 2, 5,
			[]string{`state "red/mesh/points": DOF 0 is 1e+12 m`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := graph.Load("div.toml", []byte(c.scene))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Init(); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 10; i++ {
				err := s.Step()
				if c.step == 0 {
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					continue
				}
				if i < c.step {
					if err != nil {
						t.Fatalf("step %d, before the divergence at %d: %v", i, c.step, err)
					}
					continue
				}
				if err == nil {
					t.Fatalf("step %d passed; the divergence is at step %d", i, c.step)
				}
				var se *graph.StepError
				if !errors.As(err, &se) || se.Step != c.step {
					t.Fatalf("error %v is not a StepError at step %d", err, c.step)
				}
				msg := err.Error()
				if prefix := fmt.Sprintf("div.toml:%d: ", c.line); !strings.HasPrefix(msg, prefix) {
					t.Errorf("%q does not start with %q", msg, prefix)
				}
				for _, w := range c.wants {
					if !strings.Contains(msg, w) {
						t.Errorf("%q lacks %q", msg, w)
					}
				}
				return
			}
		})
	}
}

// A body in exact free flight for 10⁴ s (thrown at 100 m/s, falling 4.9e8
// m) is never taken for a divergence: the reachable region grows with
// v₀t + ½gt². With a fixed radius of 1000 scene sizes it would be stopped
// after 14 s.
func TestFreeFlightIsNotDivergence(t *testing.T) {
	s, err := graph.Load("fly.toml", []byte(`dt = 1
gravity = [0, -9.81, 0]
[[node]]
name = "ball"
  [[node.object]]
  type = "DivTestSolver"
  ballistic = true
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0], [0.1, 0, 0]]
  velocity = [[60, 80, 0]]
  [[node.object]]
  type = "DivTestMass"
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	y := s.States()[0].Vec(graph.Position)[1]
	if want := 80*1e4 - 0.5*9.81*1e8; math.Abs(y-want) > 1e-9*math.Abs(want) {
		t.Errorf("y = %g, want %g (exact free flight)", y, want)
	}
}

// The potential energy is checked by CheckEnergy (after a run), not by
// every step: a force field whose energy turns infinite at step 2 lets
// the steps go on, and CheckEnergy names it at its line.
func TestCheckEnergy(t *testing.T) {
	s, err := graph.Load("pe.toml", []byte(`dt = 0.1
[[node]]
name = "n"
  [[node.object]]
  type = "DivTestSolver"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "DivTestEnergy"
  name = "bad"
  infiniteFrom = 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckEnergy(); err != nil {
		t.Fatalf("finite energy after step 1: %v", err)
	}
	for i := 0; i < 3; i++ {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	err = s.CheckEnergy()
	if err == nil || !strings.HasPrefix(err.Error(), `pe.toml:9: node "n", object "bad" (DivTestEnergy): the potential energy is +Inf`) {
		t.Errorf("CheckEnergy: %v", err)
	}
}
