package forcefield_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// springScene is a Vec3 state of 4 points with a RestShapeSpringsForceField
// declared by fields.
func springScene(fields string) string {
	return `
[[node]]
name = "pts"
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  restPosition = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
  position = [[0.1, 0, 0], [1, 0.2, 0], [0, 1, 0.3], [-0.1, 0.1, 1]]
  [[node.object]]
  type = "RestShapeSpringsForceField"
  name = "springs"
` + fields
}

func TestRestShapeSpringsFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, fields := range []string{
		"  stiffness = 1000\n",
		"  points = [3, 1]\n  stiffnessPerPoint = [10, 200]\n",
		"  points = [2]\n  stiffness = 5\n  external = [[0.5, -1, 2]]\n",
	} {
		s := graphtest.MustLoad(t, "springs.toml", springScene(fields))
		ff := graphtest.Find[*forcefield.RestShapeSpringsForceField](t, s, "pts/springs")
		for trial := 0; trial < 3; trial++ {
			x := make([]float64, 12)
			for i := range x {
				x[i] = 2*rng.Float64() - 1
			}
			// The energy is quadratic: central differences are exact up to
			// rounding (≈ ε/h ≈ 2e-10 relative), so 1e-8 is a wide margin.
			graphtest.CheckForceField(t, ff, graph.Vec3, x, nil, graphtest.Options{Seed: uint64(trial + 1), Tolerance: 1e-8})
		}
	}
}

// TestRestShapeSpringsValues checks the force, energy and targets by hand.
func TestRestShapeSpringsValues(t *testing.T) {
	s := graphtest.MustLoad(t, "springs.toml", springScene("  points = [1, 3]\n  stiffnessPerPoint = [10, 100]\n"))
	ff := graphtest.Find[*forcefield.RestShapeSpringsForceField](t, s, "pts/springs")
	x := graphtest.Find[graph.State](t, s, "pts/dofs").Vec(graph.Position)
	f := make([]float64, 12)
	ff.AddForce(f, x, nil)
	// Point 1 is 0.2 off in y (k = 10), point 3 is (−0.1, 0.1, 0) off (k = 100).
	want := []float64{0, 0, 0, 0, -2, 0, 0, 0, 0, 10, -10, 0}
	for i := range want {
		if math.Abs(f[i]-want[i]) > 1e-13 {
			t.Fatalf("force %v, want %v", f, want)
		}
	}
	wantE := 0.5*10*0.04 + 0.5*100*0.02
	if e := ff.PotentialEnergy(x); math.Abs(e-wantE) > 1e-14 {
		t.Errorf("energy %.17g, want %.17g", e, wantE)
	}
	// The tangent is −k I: a unit dx on point 3 gives −100 on point 3 only.
	dx := make([]float64, 12)
	dx[9] = 1
	df := make([]float64, 12)
	ff.AddDForce(df, dx, 2, 7)
	for i := range df {
		w := 0.0
		if i == 9 {
			w = -200
		}
		if df[i] != w {
			t.Fatalf("df = %v, want −kFactor·k on entry 9 only", df)
		}
	}
}

func TestRestShapeSpringsErrors(t *testing.T) {
	cases := []struct{ fields, want string }{
		{"", "no stiffness"},
		{"  stiffness = 0\n", "out of range"},
		{"  stiffnessPerPoint = [1, -2, 1, 1]\n", "out of range"},
		{"  stiffness = 1\n  stiffnessPerPoint = [1, 1, 1, 1]\n", "not both"},
		{"  stiffnessPerPoint = [1, 2]\n", "2 values for 4 springs"},
		{"  points = [0, 1]\n  stiffnessPerPoint = [1, 2, 3]\n", "3 values for 2 points"},
		{"  points = [4]\n  stiffness = 1\n", "points[0] = 4 is out of range"},
		{"  points = [1, 1]\n  stiffness = 1\n", "repeats"},
		{"  points = [1]\n  stiffness = 1\n  external = [[0, 0, 0], [1, 1, 1]]\n", "2 targets for 1 points"},
		{"  stiffness = 1\n  external = [[0, 0, 0]]\n", "1 targets for 4 springs"},
	}
	for _, c := range cases {
		s, err := graph.Load("springs.toml", []byte(springScene(c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "springs.toml:") {
			t.Errorf("%q: want a located error containing %q, got %v", c.fields, c.want, err)
		}
	}
	s, err := graph.Load("springs.toml", []byte(`
[[node]]
name = "f"
  [[node.object]]
  type = "MechanicalObject"
  template = "Rigid3"
  size = 1
  [[node.object]]
  type = "RestShapeSpringsForceField"
  stiffness = 1
`))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "needs Vec3") {
		t.Errorf("Rigid3 state: want a template error, got %v", err)
	}
}
