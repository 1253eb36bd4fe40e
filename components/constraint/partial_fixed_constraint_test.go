package constraint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/constraint"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"

	_ "github.com/sofago/sofago/components/forcefield"
	_ "github.com/sofago/sofago/components/solver"
)

func partialScene(stateFields, fixFields string) string {
	return strings.Replace(fixedScene(stateFields, fixFields), `type = "FixedConstraint"`, `type = "PartialFixedConstraint"`, 1)
}

// TestPartialFixedConstraintProjects: exactly the chosen components of the
// selected DOFs are zeroed in responses and velocities, and put back at
// their initial (not rest) values by ProjectPosition; the others are
// untouched.
func TestPartialFixedConstraintProjects(t *testing.T) {
	for _, c := range []struct {
		fields string
		dofs   []int
		dirs   []bool
	}{
		{"box = [0.5, -1, -1, 2, 1, 1]\n  fixedDirections = [true, false, false]", []int{1, 2}, []bool{true, false, false}},
		{"indices = [3, 0]\n  fixedDirections = [false, true, true]", []int{0, 3}, []bool{false, true, true}},
		{"fixAll = true\n  fixedDirections = [false, false, true]", []int{0, 1, 2, 3}, []bool{false, false, true}},
	} {
		s := graphtest.MustLoad(t, "partial.toml", partialScene(fourPoints, c.fields))
		pc := graphtest.Find[*constraint.PartialFixedConstraint](t, s, "n/fix")
		if fmt.Sprint(pc.Fixed()) != fmt.Sprint(c.dofs) {
			t.Errorf("%s: selected %v, want %v", c.fields, pc.Fixed(), c.dofs)
		}
		sel := map[int]bool{}
		for _, i := range c.dofs {
			sel[i] = true
		}
		for _, project := range []func([]float64){pc.ProjectResponse, func(v []float64) { pc.ProjectVelocity(v, 0) }} {
			v := ones(12)
			project(v)
			for i := 0; i < 4; i++ {
				for j := 0; j < 3; j++ {
					want := 1.0
					if sel[i] && c.dirs[j] {
						want = 0
					}
					if v[3*i+j] != want {
						t.Errorf("%s: DOF %d component %d = %g after projection, want %g", c.fields, i, j, v[3*i+j], want)
					}
				}
			}
		}
		// Initial positions are (i, 0, 10); move everything by 5.
		x := make([]float64, 12)
		for i := 0; i < 4; i++ {
			x[3*i], x[3*i+1], x[3*i+2] = float64(i)+5, 5, 15
		}
		pc.ProjectPosition(x, 0)
		for i := 0; i < 4; i++ {
			initial := [3]float64{float64(i), 0, 10}
			for j := 0; j < 3; j++ {
				want := initial[j] + 5
				if sel[i] && c.dirs[j] {
					want = initial[j]
				}
				if x[3*i+j] != want {
					t.Errorf("%s: DOF %d component %d = %g after ProjectPosition, want %g", c.fields, i, j, x[3*i+j], want)
				}
			}
		}
	}
}

// TestPartialFixedConstraintSlides: a point held in x only by the
// constraint and pulled by a constant force in x and y slides in y under
// a static solve with a spring to its rest position (the x component
// stays, y reaches the spring's equilibrium f/k).
func TestPartialFixedConstraintSlides(t *testing.T) {
	s := graphtest.MustLoad(t, "slide.toml", `
[[node]]
name = "n"
  [[node.object]]
  type = "StaticSolver"
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 10
  tolerance = 1e-12
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  position = [[0, 0, 0]]
  [[node.object]]
  type = "RestShapeSpringsForceField"
  stiffness = 100
  [[node.object]]
  type = "ConstantForceField"
  forces = [[3, 2, 0]]
  [[node.object]]
  type = "PartialFixedConstraint"
  name = "fix"
  indices = [0]
  fixedDirections = [true, false, false]
`)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	x := graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.Position)
	// Linear problem: one Newton step is exact up to rounding.
	if x[0] != 0 || x[2] != 0 || abs(x[1]-0.02) > 1e-15 {
		t.Errorf("position %v, want [0, 0.02, 0]", x)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestPartialFixedConstraintErrors(t *testing.T) {
	for _, c := range []struct{ state, fields, want string }{
		{fourPoints, "indices = [0]", "fixedDirections"},
		{fourPoints, "indices = [0]\n  fixedDirections = [false, false, false]", "fixes no direction"},
		{fourPoints, "indices = [0]\n  fixedDirections = [true, false]", "has 2 flags"},
		{fourPoints, "fixedDirections = [true, false, false]", "nothing selected"},
		{fourPoints, "indices = [0]\n  fixAll = true\n  fixedDirections = [true, false, false]", "only one"},
		{fourPoints, "box = [5, 5, 5, 6, 6, 6]\n  fixedDirections = [true, false, false]", "selects nothing"},
		{fourPoints, "indices = [0]\n  fixedDirections = [1, 0, 0]", "fixedDirections"},
		{`template = "Rigid3"` + "\n  position = [[0, 0, 0, 0, 0, 0, 1]]", "indices = [0]\n  fixedDirections = [true, false, false, false, false, false]", "not a vector template"},
	} {
		sc, err := graph.Load("bad.toml", []byte(partialScene(c.state, c.fields)))
		if err == nil {
			err = sc.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got error %v, want one containing %q", c.fields, err, c.want)
		} else {
			t.Logf("%v", err)
		}
	}
}
