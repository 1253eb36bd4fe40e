package graph_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sofago/sofago/graph"
)

// Test-only components for the "no silent no-op scene" rules: they do
// nothing numerically, CheckRunnable only looks at what the scene holds.

// noopSolver is an inertial ODE solver (integrates M·a = f).
type noopSolver struct{ graph.ObjectBase }

func (s *noopSolver) Solve(*graph.Ops, float64) error { return nil }
func (s *noopSolver) NeedsMass() bool                 { return true }

// noopStatic is an ODE solver that needs no mass (like StaticSolver).
type noopStatic struct{ graph.ObjectBase }

func (s *noopStatic) Solve(*graph.Ops, float64) error { return nil }

// noopMass is a mass (and so a force field: gravity).
type noopMass struct{ graph.ObjectBase }

func (m *noopMass) AddForce(f, x, v []float64)                           {}
func (m *noopMass) AddDForce(df, dx []float64, kFactor, bFactor float64) {}
func (m *noopMass) PotentialEnergy(x []float64) float64                  { return 0 }
func (m *noopMass) AddMDx(df, dx []float64, factor float64)              {}
func (m *noopMass) KineticEnergy(v []float64) float64                    { return 0 }

// noopForce is a force field.
type noopForce struct{ graph.ObjectBase }

func (f *noopForce) AddForce(fv, x, v []float64)                          {}
func (f *noopForce) AddDForce(df, dx []float64, kFactor, bFactor float64) {}
func (f *noopForce) PotentialEnergy(x []float64) float64                  { return 0 }

// noopFixAll is a projective constraint holding every DOF of its state.
type noopFixAll struct{ graph.ObjectBase }

func (c *noopFixAll) ProjectResponse(dx []float64)           { clear(dx) }
func (c *noopFixAll) ProjectPosition(x []float64, t float64) {}
func (c *noopFixAll) ProjectVelocity(v []float64, t float64) { clear(v) }

// noopIdentity maps its parent node's state onto its own node's state.
type noopIdentity struct{ graph.ObjectBase }

func (m *noopIdentity) From() graph.State                          { return m.Node.Parent.State() }
func (m *noopIdentity) To() graph.State                            { return m.Node.State() }
func (m *noopIdentity) Apply(childX, parentX []float64)            { copy(childX, parentX) }
func (m *noopIdentity) ApplyJ(childV, parentV []float64)           { copy(childV, parentV) }
func (m *noopIdentity) ApplyJT(parentF, childF []float64)          {}
func (m *noopIdentity) ApplyDJT(pdf, pdx, cf []float64, k float64) {}
func (m *noopIdentity) IsMechanical() bool                         { return true }

// noopInteraction acts between the states of two links.
type noopInteraction struct {
	graph.ObjectBase
	Object1 graph.Link `toml:"object1" doc:"first state"`
	Object2 graph.Link `toml:"object2" doc:"second state"`
}

func (ia *noopInteraction) States() []graph.State {
	return []graph.State{ia.Object1.Object.(graph.State), ia.Object2.Object.(graph.State)}
}
func (ia *noopInteraction) AddForce(f, x, v [][]float64)                           {}
func (ia *noopInteraction) AddDForce(df, dx [][]float64, kFactor, bFactor float64) {}
func (ia *noopInteraction) PotentialEnergy(x [][]float64) float64                  { return 0 }

// noopTopology is a topology with the points it is given.
type noopTopology struct {
	graph.ObjectBase
	PointsIn [][3]float64 `toml:"points" doc:"points"`
}

func (t *noopTopology) Points() []float64 {
	var out []float64
	for _, p := range t.PointsIn {
		out = append(out, p[:]...)
	}
	return out
}
func (t *noopTopology) Tetrahedra() [][4]int { return nil }
func (t *noopTopology) Triangles() [][3]int  { return nil }

// noopDriver moves the state of its node by prescribed motion.
type noopDriver struct{ graph.ObjectBase }

func (d *noopDriver) BeginStep(t, dt float64) error { return nil }
func (d *noopDriver) DrivenStates() []graph.State   { return []graph.State{d.Node.State()} }

func init() {
	for _, c := range []struct {
		name string
		kind graph.Kind
		new  func() graph.Object
	}{
		{"NoopTestSolver", graph.KindODESolver, func() graph.Object { return &noopSolver{} }},
		{"NoopTestStatic", graph.KindODESolver, func() graph.Object { return &noopStatic{} }},
		{"NoopTestMass", graph.KindMass, func() graph.Object { return &noopMass{} }},
		{"NoopTestForce", graph.KindForceField, func() graph.Object { return &noopForce{} }},
		{"NoopTestFixAll", graph.KindConstraint, func() graph.Object { return &noopFixAll{} }},
		{"NoopTestIdentity", graph.KindMapping, func() graph.Object { return &noopIdentity{} }},
		{"NoopTestInteraction", graph.KindForceField, func() graph.Object { return &noopInteraction{} }},
		{"NoopTestTopology", graph.KindTopology, func() graph.Object { return &noopTopology{} }},
		{"NoopTestDriver", graph.KindBehavior, func() graph.Object { return &noopDriver{} }},
	} {
		graph.Register(graph.TypeInfo{Name: c.name, Kind: c.kind, Summary: "test only", New: c.new})
	}
}

// loadRun loads text and runs Init and CheckRunnable, returning the first
// error and the phase it came from ("load", "init", "run", or "" when
// there is none).
func loadRun(file, text string) (*graph.Scene, string, error) {
	s, err := graph.Load(file, []byte(text))
	if err != nil {
		return nil, "load", err
	}
	if err := s.Init(); err != nil {
		return s, "init", err
	}
	if err := s.CheckRunnable(); err != nil {
		return s, "run", err
	}
	return s, "", nil
}

// TestNoOpScenes: scenes that would run and do nothing, or that a solver
// cannot integrate, are refused before the run with an error located at
// the line marked "# <-" (the line of the object to fix), naming its node
// and object. phase is where the error must come from: load, Init, or
// CheckRunnable (which Step and runscene call before the first step).
func TestNoOpScenes(t *testing.T) {
	const file = "noop.toml"
	cases := []struct {
		name  string
		text  string
		phase string
		wants []string
	}{
		{"empty file", ``, "load", []string{"the scene has no [[node]]: nothing to simulate"}},

		{"root keys only", `dt = 0.01   # <-
steps = 10
`, "load", []string{"the scene has no [[node]]: nothing to simulate"}},

		{"nodes without objects", `
dt = 0.01
[[node]]   # <-
name = "beam"
  [[node.node]]
  name = "surface"
`, "load", []string{`node "beam"`, "no node of the scene has an object ([[node.object]]): nothing to simulate"}},

		{"force field on a state no solver integrates", `
[[node]]
name = "beam"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "NoopTestForce"
  name = "spring"
`, "run", []string{`node "beam", object "dofs" (MechanicalObject)`, `no ODE solver integrates this state, so it would never move, although it has force field "spring"`, `to node "beam" or an ancestor`}},

		{"mass on a mapped child, no solver", `
[[node]]
name = "body"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
  [[node.node]]
  name = "skin"
    [[node.node.object]]
    type = "MechanicalObject"
    size = 1
    [[node.node.object]]
    type = "NoopTestIdentity"
    [[node.node.object]]
    type = "NoopTestMass"
    name = "m"
`, "run", []string{`node "body", object "dofs"`, `although it has mass "m"`}},

		{"initial velocity, no solver", `
[[node]]
name = "ball"
  [[node.object]]   # <-
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  velocity = [[1, 0, 0]]
`, "run", []string{`node "ball", object "MechanicalObject"`, "although it has a non-zero initial velocity"}},

		{"interaction on a state outside every solver", `
[[node]]
name = "world"
  [[node.object]]
  type = "NoopTestInteraction"
  name = "link"
  object1 = "@a/dofs"
  object2 = "@b/dofs"
  [[node.node]]
  name = "a"
    [[node.node.object]]
    type = "NoopTestSolver"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    position = [[0, 0, 0]]
    [[node.node.object]]
    type = "NoopTestMass"
  [[node.node]]
  name = "b"
    [[node.node.object]]   # <-
    type = "MechanicalObject"
    name = "dofs"
    position = [[1, 0, 0]]
`, "run", []string{`node "world/b", object "dofs"`, `although it has interaction force field "link"`}},

		{"states but no solver at all", `
[[node]]
name = "beam"
  [[node.object]]
  type = "NoopTestTopology"
  points = [[0, 0, 0], [1, 0, 0]]
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
`, "run", []string{`node "beam", object "dofs"`, "the scene has no ODE solver, so nothing in it would move"}},

		{"no state and no solver", `
[[node]]
name = "mesh"
  [[node.object]]   # <-
  type = "NoopTestTopology"
  name = "grid"
  points = [[0, 0, 0]]
`, "run", []string{`node "mesh", object "grid" (NoopTestTopology)`, "the scene has no mechanical state (MechanicalObject) and no ODE solver"}},

		{"solver in a node with nothing below it", `
[[node]]
name = "solver"
  [[node.object]]   # <-
  type = "NoopTestSolver"
  name = "euler"
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
`, "run", []string{`node "solver", object "euler" (NoopTestSolver)`, `this ODE solver has nothing to integrate: no mechanical state (MechanicalObject) in node "solver" or below`}},

		{"inertial solver over a massless state", `
[[node]]
name = "beam"
  [[node.object]]
  type = "NoopTestSolver"
  name = "euler"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "NoopTestForce"
`, "run", []string{`node "beam", object "dofs" (MechanicalObject)`, `this state has no mass, but ODE solver "euler" (NoopTestSolver, node "beam") integrates it by M·a = f`, "or use StaticSolver"}},

		{"inertial solver over a massless child state", `
[[node]]
name = "world"
  [[node.object]]
  type = "NoopTestSolver"
  [[node.node]]
  name = "heavy"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[0, 0, 0]]
    [[node.node.object]]
    type = "NoopTestMass"
  [[node.node]]
  name = "light"
    [[node.node.object]]   # <-
    type = "MechanicalObject"
    position = [[0, 0, 0]]
`, "run", []string{`node "world/light", object "MechanicalObject"`, `this state has no mass, but ODE solver "NoopTestSolver" (NoopTestSolver, node "world")`}},

		{"zero quaternion in position", `
[[node]]
name = "body"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 0]]
`, "init", []string{`node "body", object "frames" (MechanicalObject)`, "position[1]: orientation quaternion [x, y, z, w] = [0, 0, 0, 0] is zero: it gives no orientation (the identity is [0, 0, 0, 1])"}},

		{"zero quaternion in restPosition", `
[[node]]
name = "body"
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1]]
  restPosition = [[0, 0, 0, 0, 0, 0, 0]]
`, "init", []string{`node "body", object "frames"`, "restPosition[0]: orientation quaternion [x, y, z, w] = [0, 0, 0, 0] is zero"}},

		{"NaN quaternion", `
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, nan, 1]]   # <-
`, "load", []string{`node "body", object "frames"`, "position[0][5]: want a finite number, got NaN"}},

		{"infinite quaternion", `
[[node]]
name = "body"
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  restPosition = [[0, 0, 0, inf, 0, 0, 1]]   # <-
`, "load", []string{`node "body", object "frames"`, "restPosition[0][3]: want a finite number, got +Inf"}},

		{"position and the topology's points disagree", `
[[node]]
name = "beam"
  [[node.object]]
  type = "NoopTestTopology"
  name = "grid"
  points = [[0, 0, 0], [1, 0, 0]]
  [[node.object]]   # <-
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
`, "init", []string{`node "beam", object "dofs"`, `position has 1 DOFs but the rest shape (the points of topology "grid") has 2`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, phase, err := loadRun(file, c.text)
			if err == nil {
				t.Fatal("no error")
			}
			if phase != c.phase {
				t.Errorf("error from %s, want from %s: %v", phase, c.phase, err)
			}
			var se *graph.Error
			if !errors.As(err, &se) {
				t.Errorf("error is a %T, not a *graph.Error", err)
			}
			line := markedLine(c.text)
			if c.text == "" {
				line = 1
			}
			msg := err.Error()
			if prefix := fmt.Sprintf("%s:%d: ", file, line); !strings.HasPrefix(msg, prefix) {
				t.Errorf("message %q does not start with %q", msg, prefix)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans several lines: %q", msg)
			}
			for _, w := range c.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestRunnableScenes: the legitimate cases next to the refused ones pass
// CheckRunnable.
func TestRunnableScenes(t *testing.T) {
	cases := []struct{ name, text string }{
		{"static obstacle state beside a solver", `
[[node]]
name = "ball"
  [[node.object]]
  type = "NoopTestSolver"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 1, 0]]
  [[node.object]]
  type = "NoopTestMass"
[[node]]
name = "floor"                 # nothing acts on it: static geometry
  [[node.object]]
  type = "NoopTestTopology"
  points = [[0, 0, 0], [1, 0, 0], [0, 0, 1]]
  [[node.object]]
  type = "MechanicalObject"
`},
		{"mass only on a mapped child", `
[[node]]
name = "body"
  [[node.object]]
  type = "NoopTestSolver"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.node]]
  name = "skin"
    [[node.node.object]]
    type = "MechanicalObject"
    size = 1
    [[node.node.object]]
    type = "NoopTestIdentity"
    [[node.node.object]]
    type = "NoopTestMass"
`},
		{"massless state held entirely by constraints", `
[[node]]
name = "world"
  [[node.object]]
  type = "NoopTestSolver"
  [[node.node]]
  name = "base"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[0, 0, 0]]
    [[node.node.object]]
    type = "NoopTestFixAll"
  [[node.node]]
  name = "body"
    [[node.node.object]]
    type = "MechanicalObject"
    position = [[1, 0, 0]]
    [[node.node.object]]
    type = "NoopTestMass"
`},
		{"static solver needs no mass", `
[[node]]
name = "beam"
  [[node.object]]
  type = "NoopTestStatic"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "NoopTestForce"
`},
		{"state moved by a behaviour, no solver", `
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "NoopTestDriver"
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, phase, err := loadRun("ok.toml", c.text); err != nil {
				t.Errorf("%s: %v", phase, err)
			}
		})
	}
}

// A scene Step is called on gets the same check before its first step, so
// code that loads and steps a scene cannot run a no-op either.
func TestStepChecksRunnable(t *testing.T) {
	s, err := graph.Load("step.toml", []byte(`
[[node]]
name = "beam"
  [[node.object]]
  type = "MechanicalObject"
  position = [[0, 0, 0]]
  velocity = [[1, 0, 0]]
`))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Step()
	if err == nil || !strings.Contains(err.Error(), "step.toml:4: ") || !strings.Contains(err.Error(), "no ODE solver integrates this state") {
		t.Fatalf("Step: %v, want the located no-solver error", err)
	}
	if s.StepCount != 0 {
		t.Errorf("the scene stepped (%d steps)", s.StepCount)
	}
}

// A non-unit Rigid3 quaternion is normalised with a note located at the
// object (Scene.Notes), not silently; a unit one, to 1e-9, gets none.
func TestQuaternionNormalisedWithNote(t *testing.T) {
	s, phase, err := loadRun("q.toml", `
[[node]]
name = "body"
  [[node.object]]
  type = "NoopTestSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 2], [1, 0, 0, 0, 0, 0.6, 0.8000000000001], [2, 0, 0, 0, 3, 0, 4]]
  restPosition = [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0, 1]]
  [[node.object]]
  type = "NoopTestMass"
`)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	want := []string{
		`q.toml:6: node "body", object "frames" (MechanicalObject): position[0]: orientation quaternion [0, 0, 0, 2] has length 2, not 1; normalised to [0, 0, 0, 1]`,
		`q.toml:6: node "body", object "frames" (MechanicalObject): position[2]: orientation quaternion [0, 3, 0, 4] has length 5, not 1; normalised to [0, 0.6, 0, 0.8]`,
	}
	if got := s.Notes(); !slices.Equal(got, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	x := s.Find("body/frames").(graph.State).Vec(graph.Position)
	for i, w := range []float64{0, 0, 0, 1} {
		if x[3+i] != w {
			t.Errorf("DOF 0 orientation %v, want [0 0 0 1]", x[3:7])
			break
		}
	}
	if q := x[14+3 : 14+7]; q[1] < 0.6-1e-15 || q[1] > 0.6+1e-15 || q[3] < 0.8-1e-15 || q[3] > 0.8+1e-15 {
		t.Errorf("DOF 2 orientation %v, want [0 0.6 0 0.8] to rounding", q)
	}
}

// Item 3 of issue 12, at the level of the state: with a topology in the
// node, restPosition defaults to its points (shifted by translation) even
// when position is given, and position is the initial, deformed pose as
// given. States whose coordinates are not points (Rigid3) take their rest
// from position whatever topology the node holds.
func TestRestDefaultsToTopology(t *testing.T) {
	s, phase, err := loadRun("rest.toml", `
[[node]]
name = "beam"
  [[node.object]]
  type = "NoopTestStatic"
  [[node.object]]
  type = "NoopTestTopology"
  points = [[0, 0, 0], [1, 0, 0]]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  translation = [0, 5, 0]
  position = [[0, 0, 0], [1.5, 0, 0]]
  [[node.object]]
  type = "NoopTestForce"
  [[node.node]]
  name = "frames"
    [[node.node.object]]
    type = "NoopTestTopology"
    points = [[0, 0, 0]]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "dofs"
    template = "Rigid3"
    position = [[1, 2, 3, 0, 0, 0, 1]]
`)
	if err != nil {
		t.Fatalf("%s: %v", phase, err)
	}
	st := s.Find("beam/dofs").(graph.State)
	if got, want := st.Vec(graph.RestPosition), []float64{0, 5, 0, 1, 5, 0}; !slices.Equal(got, want) {
		t.Errorf("rest %v, want the topology's points translated %v", got, want)
	}
	if got, want := st.Vec(graph.Position), []float64{0, 0, 0, 1.5, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("position %v, want as given %v", got, want)
	}
	fr := s.Find("beam/frames/dofs").(graph.State)
	if got, want := fr.Vec(graph.RestPosition), []float64{1, 2, 3, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("Rigid3 rest %v, want position %v", got, want)
	}
}
