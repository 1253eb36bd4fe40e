package constraint_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/constraint"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// fixedScene is a state with the given MechanicalObject fields and a
// FixedConstraint with the given fields.
func fixedScene(stateFields, fixFields string) string {
	return fmt.Sprintf(`
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  %s
  [[node.object]]
  type = "FixedConstraint"
  name = "fix"
  %s
`, stateFields, fixFields)
}

// fourPoints: rest positions on the x axis at 0, 1, 2, 3; current positions
// shifted by +10 in z (so ProjectPosition must use the initial, not the
// rest, coordinates).
const fourPoints = `restPosition = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]
  position = [[0, 0, 10], [1, 0, 10], [2, 0, 10], [3, 0, 10]]`

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// checkProjection applies ProjectResponse and ProjectVelocity to vectors of
// ones and checks that exactly the components of the fixed DOFs are zero.
func checkProjection(t *testing.T, c *constraint.FixedConstraint, n, ds int, fixed []int) {
	t.Helper()
	isFixed := map[int]bool{}
	for _, i := range fixed {
		isFixed[i] = true
	}
	for _, project := range []func([]float64){c.ProjectResponse, func(v []float64) { c.ProjectVelocity(v, 0) }} {
		v := ones(n * ds)
		project(v)
		for i := 0; i < n; i++ {
			for j := 0; j < ds; j++ {
				want := 1.0
				if isFixed[i] {
					want = 0
				}
				if v[ds*i+j] != want {
					t.Fatalf("DOF %d component %d = %g after projection, want %g (fixed %v)", i, j, v[ds*i+j], want, fixed)
				}
			}
		}
	}
}

func TestFixedConstraintSelections(t *testing.T) {
	for _, c := range []struct {
		fields string
		want   []int
	}{
		{"indices = [3, 1]", []int{1, 3}},             // sorted
		{"box = [0.5, -1, -1, 2, 1, 1]", []int{1, 2}}, // bounds inclusive: x = 2 is in
		{"box = [-1, -1, -1, 0, 0, 0]", []int{0}},     // point 0 on the box corner: inclusive
		{"box = [-1, -1, 9, 9, 1, 11]", []int{}},      // holds only current positions (z = 10): selects nothing, an error
		{"fixAll = true", []int{0, 1, 2, 3}},
	} {
		if len(c.want) == 0 {
			s, err := graph.Load("f.toml", []byte(fixedScene(fourPoints, c.fields)))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Init(); err == nil || !strings.Contains(err.Error(), "contains no rest position") {
				t.Errorf("%s: error %v, want a box that selects nothing reported", c.fields, err)
			}
			continue
		}
		s := graphtest.MustLoad(t, "f.toml", fixedScene(fourPoints, c.fields))
		fc := graphtest.Find[*constraint.FixedConstraint](t, s, "n/fix")
		if fmt.Sprint(fc.Fixed()) != fmt.Sprint(c.want) {
			t.Errorf("%s: fixed %v, want %v", c.fields, fc.Fixed(), c.want)
		}
		checkProjection(t, fc, 4, 3, c.want)
		// ProjectPosition restores the initial (not rest) coordinates.
		x := graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.Position)
		moved := append([]float64(nil), x...)
		for i := range moved {
			moved[i] += 5
		}
		fc.ProjectPosition(moved, 1)
		for i := 0; i < 4; i++ {
			for j := 0; j < 3; j++ {
				want := x[3*i+j] + 5
				if contains(c.want, i) {
					want = x[3*i+j]
				}
				if moved[3*i+j] != want {
					t.Errorf("%s: ProjectPosition: DOF %d component %d = %g, want %g", c.fields, i, j, moved[3*i+j], want)
				}
			}
		}
	}
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestFixedConstraintRigid3: a fixed frame loses all 6 derivative
// components and keeps its 7 coordinates, quaternion included; the box
// tests the frame origin.
func TestFixedConstraintRigid3(t *testing.T) {
	state := `template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0.6, 0, 0, 0.8], [2, 0, 0, 0, 0, 0, 1]]`
	for _, fields := range []string{"indices = [1]", "box = [0.9, -1, -1, 1.1, 1, 1]"} {
		s := graphtest.MustLoad(t, "r.toml", fixedScene(state, fields))
		fc := graphtest.Find[*constraint.FixedConstraint](t, s, "n/fix")
		checkProjection(t, fc, 3, 6, []int{1})
		x := make([]float64, 21)
		fc.ProjectPosition(x, 0)
		want := []float64{1, 0, 0, 0.6, 0, 0, 0.8}
		for j, w := range want {
			if x[7+j] != w {
				t.Errorf("%s: ProjectPosition coordinate %d = %g, want %g", fields, j, x[7+j], w)
			}
		}
		for _, j := range []int{0, 6, 14, 20} {
			if x[j] != 0 {
				t.Errorf("%s: ProjectPosition touched a free frame (coordinate %d = %g)", fields, j, x[j])
			}
		}
	}
}

// TestFixedConstraintVec1: indices work on any template.
func TestFixedConstraintVec1(t *testing.T) {
	s := graphtest.MustLoad(t, "v.toml", fixedScene(`template = "Vec1"
  position = [[0], [1], [2]]`, "indices = [0, 2]"))
	checkProjection(t, graphtest.Find[*constraint.FixedConstraint](t, s, "n/fix"), 3, 1, []int{0, 2})
}

func TestFixedConstraintErrors(t *testing.T) {
	for _, c := range []struct {
		state, fields, want string
	}{
		{fourPoints, "indices = [4]", "index 4 is out of range"},
		{fourPoints, "indices = [-1]", "out of range"},
		{fourPoints, "indices = [1]\n  box = [0, 0, 0, 1, 1, 1]", "only one of"},
		{fourPoints, "indices = [1]\n  fixAll = true", "only one of"},
		{fourPoints, "indices = [3, 1, 3]", "appears twice"},
		{fourPoints, "", "nothing to fix"},
		{fourPoints, "box = [0, 0, 0, 1, 1]", "want 6"},
		{fourPoints, "box = [2, 0, 0, 1, 1, 1]", "greater than"},
		{fourPoints, "box = [5, 5, 5, 6, 6, 6]", "contains no rest position"},
		{`template = "Vec1"
  position = [[0], [1]]`, "box = [0, 0, 0, 1, 1, 1]", "box selection needs 3 position coordinates"},
	} {
		s, err := graph.Load("e.toml", []byte(fixedScene(c.state, c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.fields, err, c.want)
		}
	}
}
