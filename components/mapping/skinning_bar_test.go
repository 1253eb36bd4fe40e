package mapping_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/components/mapping"
	_ "github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// barScene writes a frame-based bar along x: length L, square section a×a
// centred on the axis, nf frames (template tmpl) at x_k = k L/(nf−1) on the
// axis, hat (piecewise linear) weights in x, and a grid of samples at the
// centres of cells, cx cells per frame interval along x and ca across each
// side, each with volume L a²/N. Frame 0 is clamped, the last frame pulled
// along x by force; a StaticSolver with CG finds the equilibrium.
func barScene(mappingType, tmpl string, nf, cx, ca int, E, force float64) string {
	const L, a = 1.0, 0.1
	nx := cx * (nf - 1)
	var pts, idx, ws, grads []string
	h := L / float64(nf-1)
	vol := L * a * a / float64(nx*ca*ca)
	for i := 0; i < nx; i++ {
		x := (float64(i) + 0.5) * L / float64(nx)
		k := int(x / h) // the hat interval [x_k, x_k+1] holding x
		u := (x - float64(k)*h) / h
		for j := 0; j < ca; j++ {
			for l := 0; l < ca; l++ {
				y := -a/2 + (float64(j)+0.5)*a/float64(ca)
				z := -a/2 + (float64(l)+0.5)*a/float64(ca)
				pts = append(pts, fmt.Sprintf("[%.17g, %.17g, %.17g]", x, y, z))
				idx = append(idx, fmt.Sprintf("[%d, %d]", k, k+1))
				ws = append(ws, fmt.Sprintf("[%.17g, %.17g]", 1-u, u))
				grads = append(grads, fmt.Sprintf("[[%.17g, 0, 0], [%.17g, 0, 0]]", -1/h, 1/h))
			}
		}
	}
	var frames []string
	load := fmt.Sprintf("[%.17g, 0, 0, 0, 0, 0]", force)
	for k := 0; k < nf; k++ {
		x := float64(k) * h
		if tmpl == "Affine3" {
			frames = append(frames, fmt.Sprintf("[%.17g, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]", x))
		} else {
			frames = append(frames, fmt.Sprintf("[%.17g, 0, 0, 0, 0, 0, 1]", x))
		}
	}
	if tmpl == "Affine3" {
		load = fmt.Sprintf("[%.17g, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]", force)
	}
	return fmt.Sprintf(`
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  name = "newton"
  iterations = 30
  tolerance = 1e-12
  lineSearch = true
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 500
  tolerance = 1e-14
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = %q
  position = [%s]
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.object]]
  type = "ConstantForceField"
  indices = [%d]
  forces = [%s]
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "F"
    template = "F331"
    [[node.node.object]]
    type = %q
    name = "skinning"
    restPoints = [%s]
    indices = [%s]
    weights = [%s]
    weightGradients = [%s]
    [[node.node.object]]
    type = "DeformationGradientForceField"
    materialName = "StVenantKirchhoff"
    youngModulus = %.17g
    poissonRatio = 0
    volumes = [%s]
`, tmpl, strings.Join(frames, ", "), nf-1, load, mappingType,
		strings.Join(pts, ", "), strings.Join(idx, ", "), strings.Join(ws, ", "), strings.Join(grads, ", "),
		E, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("%.17g, ", vol), nx*ca*ca), ", "))
}

// TestSkinningUniaxialStVKBar is Gilles et al.'s accuracy test (Sec. 5.2):
// a StVK bar with ν = 0 pulled along its axis by collinear frames with
// piecewise linear weights. The exact solution is a uniform stretch
// F = diag(1+ε, 1, 1) (ν = 0: no lateral contraction), whose first
// Piola stress is P = E (ε + 3ε²/2 + ε³/2) (the paper prints the last term
// as ε/2); hat weights reproduce it exactly with rigid (translated) and
// affine frames, so the equilibrium of the reduced system must match the
// closed form whatever the number of frames (2, 3, 5) and of samples.
// The issue asks for 1%; the discrete problem contains the exact solution,
// so what is left is the Newton tolerance (1e-12 of the load's residual),
// and the test demands 1e-8.
func TestSkinningUniaxialStVKBar(t *testing.T) {
	const E, A, L = 1e6, 0.01, 1.0
	for _, c := range []struct{ mapping, tmpl string }{
		{"LinearBlendSkinningMapping", "Rigid3"},
		{"LinearBlendSkinningMapping", "Affine3"},
		{"DualQuaternionSkinningMapping", "Rigid3"},
	} {
		for _, nf := range []int{2, 3, 5} {
			for _, dens := range [][2]int{{1, 1}, {3, 2}} {
				for _, eps := range []float64{-0.1, 0.1, 0.3} {
					P := E * (eps + 1.5*eps*eps + 0.5*eps*eps*eps)
					name := fmt.Sprintf("%s/%s/%dframes/%dx%d/eps=%g", c.mapping, c.tmpl, nf, dens[0], dens[1], eps)
					s := graphtest.MustLoad(t, "bar.toml", barScene(c.mapping, c.tmpl, nf, dens[0], dens[1], E, P*A))
					if err := s.Step(); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					x := graphtest.Find[graph.State](t, s, "bar/frames").Vec(graph.Position)
					cs := 7
					if c.tmpl == "Affine3" {
						cs = 12
					}
					worst := 0.0
					for k := 0; k < nf; k++ {
						X := float64(k) * L / float64(nf-1)
						worst = max(worst, math.Abs(x[cs*k]-(1+eps)*X))
					}
					got := x[cs*(nf-1)]/L - 1
					if worst > 1e-8*L {
						t.Errorf("%s: strain %.10g, want %.10g (largest frame error %.3g)", name, got, eps, worst)
					}
					if nf == 5 && dens == [2]int{3, 2} {
						t.Logf("%s: P = %.6g Pa, strain %.12g (closed form %g), largest frame error %.2g m", name, P, got, eps, worst)
					}
				}
			}
		}
	}
}

// TestSkinningTwist: two rigid frames at the ends of a bar along x, the
// second twisted by θ about the axis; points of the mid-section (equal
// weights ½) at radius ρ. Dual quaternion skinning rotates them by θ/2 and
// keeps the radius (1e-6 asked; exact to rounding here); linear blend
// skinning averages the two rotations and shrinks it to ρ |cos(θ/2)| (the
// candy-wrapper artefact), in closed form. θ beyond 180° is reached with
// a quaternion continuous from the rest (w = cos(θ/2) < 0), as
// integration would, after Init.
func TestSkinningTwist(t *testing.T) {
	const L, rho = 2.0, 0.3
	const np = 12
	pts := make([]float64, 0, 3*np)
	frames := make([][]int, np)
	weights := make([][]float64, np)
	for i := 0; i < np; i++ {
		phi := 2 * math.Pi * float64(i) / np
		pts = append(pts, L/2, rho*math.Cos(phi), rho*math.Sin(phi))
		frames[i], weights[i] = []int{0, 1}, []float64{0.5, 0.5}
	}
	w, err := mapping.NewSkinningWeights(frames, weights, nil)
	if err != nil {
		t.Fatal(err)
	}
	rest := rigidCoords([]geom.Vec3{{0, 0, 0}, {L, 0, 0}}, []geom.Quat{geom.QuatIdentity(), geom.QuatIdentity()})
	for _, deg := range []float64{30, 90, 150, 179, 250} {
		theta := deg * math.Pi / 180
		twisted := append([]float64(nil), rest...)
		copy(twisted[10:14], []float64{math.Sin(theta / 2), 0, 0, math.Cos(theta / 2)})
		for _, name := range []string{"LBS", "DQS"} {
			var m skinningMapping = mapping.NewLinearBlendSkinningMapping()
			if name == "DQS" {
				m = mapping.NewDualQuaternionSkinningMapping()
			}
			_, child := buildSkinning(t, m, graph.Rigid3, rest, rest, graph.Vec3, pts, w)
			x := child.Vec(graph.Position)
			m.Apply(x, twisted)
			want := rho
			if name == "LBS" {
				want = rho * math.Abs(math.Cos(theta/2))
			}
			worst := 0.0
			for i := 0; i < np; i++ {
				p := geom.At(x, i)
				r := math.Hypot(p[1], p[2])
				worst = max(worst, math.Abs(r-want), math.Abs(p[0]-L/2))
			}
			if worst > 1e-12 {
				t.Errorf("%s θ = %g°: radius off %s's closed form %.6g by %.3g", name, deg, name, want, worst)
			}
			if deg == 150 {
				t.Logf("θ = %g°: %s radius %.9g (closed form %.9g, ρ = %g)", deg, name, math.Hypot(x[1], x[2]), want, rho)
			}
		}
	}
}
