package forcefield_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

func constantForceScene(stateFields, ffFields string) string {
	return fmt.Sprintf(`
[[node]]
name = "n"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  %s
  [[node.object]]
  type = "ConstantForceField"
  name = "load"
  %s
`, stateFields, ffFields)
}

const cffPoints = `position = [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]`

// cffForces returns the force ConstantForceField adds to a zero vector.
func cffForces(t *testing.T, state, fields string, size int) (*forcefield.ConstantForceField, []float64) {
	t.Helper()
	s := graphtest.MustLoad(t, "c.toml", constantForceScene(state, fields))
	c := graphtest.Find[*forcefield.ConstantForceField](t, s, "n/load")
	f := make([]float64, size)
	c.AddForce(f, graphtest.Find[graph.State](t, s, "n/dofs").Vec(graph.Position), nil)
	return c, f
}

func TestConstantForceFieldSelections(t *testing.T) {
	for _, c := range []struct {
		fields string
		want   []float64
	}{
		{"indices = [2, 0]\n  forces = [[1, 2, 3], [4, 5, 6]]", []float64{4, 5, 6, 0, 0, 0, 1, 2, 3, 0, 0, 0}},
		{"indices = [1, 3]\n  forces = [[1, 2, 3]]", []float64{0, 0, 0, 1, 2, 3, 0, 0, 0, 1, 2, 3}},
		{"box = [0.5, -1, -1, 2, 1, 1]\n  totalForce = [0, -10, 4]", []float64{0, 0, 0, 0, -5, 2, 0, -5, 2, 0, 0, 0}},
		{"totalForce = [8, 0, 0]", []float64{2, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0}}, // all points by default
	} {
		_, f := cffForces(t, cffPoints, c.fields, 12)
		if fmt.Sprint(f) != fmt.Sprint(c.want) {
			t.Errorf("%q: force %v, want %v", c.fields, f, c.want)
		}
	}
}

// TestConstantForceFieldFD: force = −∇W with W = −Σ f·x, zero stiffness
// (graphtest.CheckForceField, default tolerance 1e-6; W is linear, so the
// central difference is exact up to rounding).
func TestConstantForceFieldFD(t *testing.T) {
	c, _ := cffForces(t, cffPoints, "indices = [0, 3]\n  forces = [[1, -2, 0.5], [3, 0, -1]]", 12)
	x := graphtest.RandomDeriv(rand.New(rand.NewPCG(1, 1)), 12, 2)
	graphtest.CheckForceField(t, c, graph.Vec3, x, nil, graphtest.Options{})
	want := -(1*x[0] - 2*x[1] + 0.5*x[2] + 3*x[9] - x[11])
	if got := c.PotentialEnergy(x); math.Abs(got-want) > 1e-14*math.Abs(want) {
		t.Errorf("W = %.17g, want %.17g", got, want)
	}
}

// TestConstantForceFieldRigid3: 6 numbers per frame (force and torque); the
// energy counts the translational part only, so the fixture's energy check
// holds with zero torque and the stiffness check with any.
func TestConstantForceFieldRigid3(t *testing.T) {
	state := `template = "Rigid3"
  position = [[0, 0, 0, 0, 0, 0, 1], [1, 2, 3, 0, 0, 0, 1]]`
	c, f := cffForces(t, state, "indices = [1]\n  forces = [[1, 2, 3, 4, 5, 6]]", 12)
	if fmt.Sprint(f) != fmt.Sprint([]float64{0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6}) {
		t.Errorf("Rigid3 force %v", f)
	}
	x := []float64{0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 0.6, 0, 0, 0.8}
	if got, want := c.PotentialEnergy(x), -(1*1 + 2*2 + 3*3.0); got != want {
		t.Errorf("Rigid3 energy %g, want the translational −f·t = %g", got, want)
	}
	graphtest.CheckForceField(t, c, graph.Rigid3, x, nil, graphtest.Options{SkipEnergy: true})
	c0, _ := cffForces(t, state, "totalForce = [2, 4, -6, 0, 0, 0]", 12)
	graphtest.CheckForceField(t, c0, graph.Rigid3, x, nil, graphtest.Options{})
}

func TestConstantForceFieldErrors(t *testing.T) {
	for _, c := range []struct {
		fields, want string
	}{
		{"indices = [4]\n  forces = [[1, 0, 0]]", "index 4 is out of range"},
		{"indices = [1, 1]\n  forces = [[1, 0, 0]]", "appears twice"},
		{"indices = [1]\n  box = [0, 0, 0, 1, 1, 1]\n  forces = [[1, 0, 0]]", "not both"},
		{"indices = [1]", "no load"},
		{"forces = [[1, 0, 0]]\n  totalForce = [1, 0, 0]", "not both"},
		{"indices = [0, 1, 2]\n  forces = [[1, 0, 0], [1, 0, 0]]", "want 1 (applied to each DOF) or 3"},
		{"forces = [[1, 0]]", "want 3"},
		{"totalForce = [1, 0, 0, 0]", "want 3"},
		{"box = [5, 5, 5, 6, 6, 6]\n  forces = [[1, 0, 0]]", "contains no rest position"},
	} {
		s, err := graph.Load("e.toml", []byte(constantForceScene(cffPoints, c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.fields, err, c.want)
		}
	}
}
