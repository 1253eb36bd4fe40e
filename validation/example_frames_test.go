package validation

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

// Tests of ExampleBasedForceField on the F331 samples of a frame-based
// model (Gilles et al. 2011; Faure et al. 2011): a 1 × 0.2 × 0.2 m bar of
// three rigid frames (Shepard weights, linear blend skinning) and 40
// integration samples, clamped at its first frame; its example is the bar
// twisted about its axis, the frames turned by 0°, 30° and 60°, given as
// exampleFrames and mapped to the samples' deformation gradients by the
// skinning mapping.

// framesTwist is the example: frame i turned by 30°·i about +x.
func framesTwist() [][]float64 {
	var rows [][]float64
	for i := 0; i < 3; i++ {
		h := float64(i) * math.Pi / 12 // half of 30°·i
		rows = append(rows, []float64{0.5 * float64(i), 0.1, 0.1, math.Sin(h), 0, 0, math.Cos(h)})
	}
	return rows
}

func framesScene(material bool, k float64) string {
	ex := "["
	for i, r := range framesTwist() {
		if i > 0 {
			ex += ", "
		}
		ex += fmt.Sprintf("[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g, %.17g]", r[0], r[1], r[2], r[3], r[4], r[5], r[6])
	}
	ex += "]"
	mat := ""
	if material {
		mat = `
    [[node.node.object]]
    type = "DeformationGradientForceField"
    name = "material"
    materialName = "StVenantKirchhoff"
    youngModulus = 1e5
    poissonRatio = 0.3
`
	}
	return fmt.Sprintf(`
dt = 1
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 40
  absoluteTolerance = 1e-10
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 2000
  tolerance = 1e-12
  [[node.object]]
  type = "MaterialGrid"
  name = "grid"
  box = [0, 0, 0, 1, 0.2, 0.2]
  resolution = [20, 4, 4]
  massDensity = 1000
  youngModulus = 1e5
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  position = [[0, 0.1, 0.1, 0, 0, 0, 1], [0.5, 0.1, 0.1, 0, 0, 0, 1], [1, 0.1, 0.1, 0, 0, 0, 1]]
  [[node.object]]
  type = "ShepardShapeFunction"
  nbRef = 3
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "DenseSampler"
    grid = "@../grid"
    resolution = [10, 2, 2]
    [[node.node.object]]
    type = "MechanicalObject"
    name = "F"
    template = "F331"
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
%s
    [[node.node.object]]
    type = "ExampleBasedForceField"
    name = "example"
    stiffness = %g
    exampleFrames = [%s]
`, mat, k, ex)
}

// framesAngle returns the last frame's rotation angle about +x (degrees)
// and the largest distance of the frames' coordinates from the example's,
// quaternions taken with a non-negative w (q and −q are one rotation; the
// solver keeps the sign continuous along its path, not canonical).
func framesAngle(st graph.State) (float64, float64) {
	x := append([]float64(nil), st.Vec(graph.Position)...)
	for i := 0; i < 3; i++ {
		if x[7*i+6] < 0 {
			for c := 3; c < 7; c++ {
				x[7*i+c] = -x[7*i+c]
			}
		}
	}
	angle := 2 * math.Atan2(x[14+3], x[14+6]) * 180 / math.Pi
	d := 0.0
	for i, r := range framesTwist() {
		for c := 0; c < 7; c++ {
			d = math.Max(d, math.Abs(x[7*i+c]-r[c]))
		}
	}
	return angle, d
}

// TestExampleFramesFixture: on the F331 samples, force = −∇W and AddDForce
// = ∂f/∂F (graphtest.CheckForceField on the sample state, central
// differences at the README's 1e-6) at random deformation gradients and
// near the example's, global and per-sample manifolds, with and without the
// rest pose.
func TestExampleFramesFixture(t *testing.T) {
	for _, fields := range []string{"", "includeRest = true", "manifold = \"elements\"\n    includeRest = true"} {
		text := framesScene(false, 1e5) + "    " + fields + "\n"
		s := graphtest.MustLoad(t, "frames.toml", text)
		ff := graphtest.Find[*forcefield.ExampleBasedForceField](t, s, "bar/samples/example")
		F := graphtest.Find[graph.State](t, s, "bar/samples/F")
		frames := graphtest.Find[graph.State](t, s, "bar/frames")
		rng := rand.New(rand.NewPCG(31, 32))
		rest := append([]float64(nil), F.Vec(graph.Position)...)
		// The example's gradients, through the mapping.
		copy(frames.Vec(graph.Position), flatten(framesTwist()))
		s.ComputeForces()
		exF := append([]float64(nil), F.Vec(graph.Position)...)
		for name, base := range map[string][]float64{"random": rest, "near the example": exF} {
			x := append([]float64(nil), base...)
			amp := 0.1
			if name != "random" {
				amp = 1e-3
			}
			for i := range x {
				x[i] += amp * (2*rng.Float64() - 1)
			}
			// Central differences on a quartic at h = 1e-7: truncation
			// below 1e-9 relative away from the example, 4e-8 near it (f·d
			// small against W's curvature there; see the tetrahedral
			// fixture's note).
			if !graphtest.CheckForceField(t, ff, graph.F331, x, nil, graphtest.Options{Seed: 7, Trials: 3, Step: 1e-7}) {
				t.Errorf("%q, %s: fixture failed", fields, name)
			}
		}
	}
}

func flatten(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// TestExampleFramesEquilibrium: at the example frames the samples carry
// the example's gradients and the term's force is zero on every sample (to
// rounding, 1e-10 of its force at rest) and on the frames; and the static
// equilibrium under no load moves from rest toward the example as k grows,
// the example term alone bringing the frames onto the example.
func TestExampleFramesEquilibrium(t *testing.T) {
	s := graphtest.MustLoad(t, "frames.toml", framesScene(false, 1e5))
	ff := graphtest.Find[*forcefield.ExampleBasedForceField](t, s, "bar/samples/example")
	F := graphtest.Find[graph.State](t, s, "bar/samples/F")
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	f := make([]float64, 9*F.Size())
	ff.AddForce(f, F.Vec(graph.Position), nil)
	scale := maxAbsOf(f)
	copy(frames.Vec(graph.Position), flatten(framesTwist()))
	s.ComputeForces()
	clear(f)
	ff.AddForce(f, F.Vec(graph.Position), nil)
	if r := maxAbsOf(f) / scale; r > 1e-10 {
		t.Errorf("at the example: sample forces %.3g of the load scale", r)
	}
	if r := maxAbsOf(frames.Vec(graph.Force)) / scale; r > 1e-10 {
		t.Errorf("at the example: frame forces %.3g of the load scale", r)
	}
	t.Logf("| k/E | last frame's turn | largest distance to the example's coordinates |")
	prev := -1.0
	for _, k := range []float64{0, 3e4, 1e5, 3e5, 1e6} {
		s := graphtest.MustLoad(t, "frames.toml", framesScene(true, k))
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		a, d := framesAngle(graphtest.Find[graph.State](t, s, "bar/frames"))
		t.Logf("| %g | %.4f° | %.4f |", k/1e5, a, d)
		if k == 0 && math.Abs(a) > 1e-9 {
			t.Errorf("k = 0: the bar turned by %g°", a)
		}
		if a <= prev && k > 0 || a >= 60 {
			t.Errorf("k = %g: %.6g° after %.6g°: not monotone toward 60°", k, a, prev)
		}
		prev = a
	}
	s = graphtest.MustLoad(t, "frames.toml", framesScene(false, 1e5))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	a, d := framesAngle(graphtest.Find[graph.State](t, s, "bar/frames"))
	t.Logf("| ∞ (no material) | %.6f° | %.2g |", a, d)
	if math.Abs(a-60) > 1e-6 || d > 1e-8 {
		t.Errorf("example term alone: %.9g°, distance %.3g: not the example", a, d)
	}
}

func maxAbsOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// TestExampleFramesErrors: the F331 path's mistakes are located errors.
func TestExampleFramesErrors(t *testing.T) {
	base := framesScene(false, 1e5)
	cases := []struct{ name, text, want string }{
		{"examples on samples", base + "    examples = [\"x.vtk\"]\n", "give their examples as exampleFrames"},
		{"frame count", replaceOnce(base, "[0, 0.10000000000000001, 0.10000000000000001, 0, 0, 0, 1], ", ""), "has 2 frames but state"},
		{"row size", replaceOnce(base, "[0, 0.10000000000000001, 0.10000000000000001, 0, 0, 0, 1], ", "[0, 0.1, 0.1, 0, 0, 1], "), "has 6 numbers, want 7"},
		{"volumes count", base + "    volumes = [1, 2]\n", "2 sample volumes for 40 samples"},
	}
	for _, c := range cases {
		s, err := graph.Load("bad.toml", []byte(c.text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}

func replaceOnce(s, old, new string) string {
	i := strings.Index(s, old)
	if i < 0 {
		panic("replaceOnce: " + old + " not found")
	}
	return s[:i] + new + s[i+len(old):]
}
