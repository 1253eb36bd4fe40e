package mapping_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/constraint"
	_ "github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/components/mapping"
	_ "github.com/sofago/sofago/components/mass"
	_ "github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// barSamples returns the TOML lists of a frame-based bar along x: length
// L, square section a×a centred on the axis, nf frames (template tmpl) at
// x_k = k L/(nf−1) on the axis, hat (piecewise linear) weights in x, and a
// grid of samples at the centres of cells, cx cells per frame interval
// along x and ca across each side, each with volume L a²/N: frames, rest
// points, indices, weights, weight gradients, volumes.
func barSamples(tmpl string, nf, cx, ca int) (frames, pts, idx, ws, grads, vols string) {
	const L, a = 1.0, 0.1
	nx := cx * (nf - 1)
	var p, in, w, g, fr []string
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
				p = append(p, fmt.Sprintf("[%.17g, %.17g, %.17g]", x, y, z))
				in = append(in, fmt.Sprintf("[%d, %d]", k, k+1))
				w = append(w, fmt.Sprintf("[%.17g, %.17g]", 1-u, u))
				g = append(g, fmt.Sprintf("[[%.17g, 0, 0], [%.17g, 0, 0]]", -1/h, 1/h))
			}
		}
	}
	for k := 0; k < nf; k++ {
		x := float64(k) * h
		if tmpl == "Affine3" {
			fr = append(fr, fmt.Sprintf("[%.17g, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]", x))
		} else {
			fr = append(fr, fmt.Sprintf("[%.17g, 0, 0, 0, 0, 0, 1]", x))
		}
	}
	vols = strings.TrimSuffix(strings.Repeat(fmt.Sprintf("%.17g, ", vol), nx*ca*ca), ", ")
	return strings.Join(fr, ", "), strings.Join(p, ", "), strings.Join(in, ", "), strings.Join(w, ", "), strings.Join(g, ", "), vols
}

// barScene is barSamples' bar with frame 0 clamped, the last frame pulled
// along x by force, and a StaticSolver with CG for the equilibrium.
func barScene(mappingType, tmpl string, nf, cx, ca int, E, force float64) string {
	frames, pts, idx, ws, grads, vols := barSamples(tmpl, nf, cx, ca)
	load := fmt.Sprintf("[%.17g, 0, 0, 0, 0, 0]", force)
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
`, tmpl, frames, nf-1, load, mappingType, pts, idx, ws, grads, E, vols)
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

// TestSkinningCantileverSettles: a 3-frame dual-quaternion cantilever
// (StVK, ν = 0.3, RigidMass frames, gravity) integrated by implicit Euler
// with strong mass damping comes to rest at the StaticSolver's equilibrium
// of the same scene: the whole pipeline (mapping, geometric stiffness,
// sample force field, masses, solvers) is consistent in dynamics. The
// first bending mode (~5 Hz) decays as exp(−αt/2) = exp(−20) after 2 s
// with α = 20/s, so the remaining motion is ~1e-9 of the deflection; the
// test allows 1e-6.
func TestSkinningCantileverSettles(t *testing.T) {
	frames, pts, idx, ws, grads, vols := barSamples("Rigid3", 3, 4, 2)
	scene := func(solver string) string {
		return fmt.Sprintf(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
%s
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 200
  tolerance = 1e-12
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = "Rigid3"
  position = [%s]
  [[node.object]]
  type = "RigidMass"
  mass = 3.3
  inertiaDiagonal = [0.01, 0.01, 0.01]
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "MechanicalObject"
    template = "F331"
    [[node.node.object]]
    type = "DualQuaternionSkinningMapping"
    restPoints = [%s]
    indices = [%s]
    weights = [%s]
    weightGradients = [%s]
    [[node.node.object]]
    type = "DeformationGradientForceField"
    youngModulus = 1e8
    poissonRatio = 0.3
    volumes = [%s]
`, solver, frames, pts, idx, ws, grads, vols)
	}
	static := graphtest.MustLoad(t, "static.toml", scene(`
  [[node.object]]
  type = "StaticSolver"
  iterations = 30
  tolerance = 1e-12`))
	if err := static.Step(); err != nil {
		t.Fatal(err)
	}
	dynamic := graphtest.MustLoad(t, "dynamic.toml", scene(`
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighMass = 20`))
	for i := 0; i < 200; i++ {
		if err := dynamic.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	xs := graphtest.Find[graph.State](t, static, "bar/frames").Vec(graph.Position)
	xd := graphtest.Find[graph.State](t, dynamic, "bar/frames").Vec(graph.Position)
	tip := -xs[7*2+1]
	t.Logf("static tip deflection %.6g m; dynamic after 2 s differs by %.3g m", tip, maxAbsDiff(xs, xd))
	if !(tip > 1e-3 && tip < 0.1) {
		t.Errorf("static tip deflection %g m: expected a small positive sag", tip)
	}
	if d := maxAbsDiff(xs, xd); d > 1e-6*tip {
		t.Errorf("dynamic rest state differs from the static equilibrium by %.3g m (deflection %.3g m)", d, tip)
	}
}

// cantileverTip solves barSamples' bar (ν = 0, E = 1e8, frame 0 clamped)
// under a tip load P along −y on the last frame and returns the tip
// frame's deflection.
func cantileverTip(t *testing.T, mappingType, tmpl string, nf, cx, ca int, P float64) float64 {
	t.Helper()
	frames, pts, idx, ws, grads, vols := barSamples(tmpl, nf, cx, ca)
	load, cs := fmt.Sprintf("[0, %.17g, 0, 0, 0, 0]", -P), 7
	if tmpl == "Affine3" {
		load, cs = fmt.Sprintf("[0, %.17g, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]", -P), 12
	}
	s := graphtest.MustLoad(t, "cantilever.toml", fmt.Sprintf(`
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 30
  tolerance = 1e-10
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 500
  tolerance = 1e-13
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
    template = "F331"
    [[node.node.object]]
    type = %q
    restPoints = [%s]
    indices = [%s]
    weights = [%s]
    weightGradients = [%s]
    [[node.node.object]]
    type = "DeformationGradientForceField"
    youngModulus = 1e8
    poissonRatio = 0
    volumes = [%s]
`, tmpl, frames, nf-1, load, mappingType, pts, idx, ws, grads, vols))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	return -graphtest.Find[graph.State](t, s, "bar/frames").Vec(graph.Position)[cs*(nf-1)+1]
}

// TestSkinningCantileverBending pins down the bending of frame models in
// closed form, and documents shear locking (small loads: linear regime).
//
// Two frames at the ends of the bar (length L = 1, section a = 0.1, 2×2
// sample rows at y, z = ±a/4, one sample column at mid-span): with hat
// weights and rigid frames the displacement is u_x = −θxy/L,
// u_y = θx²/L − θx + vx/L, so ε_xx = −θy/L and γ_xy = v/L − θ/2 at the
// sample; minimising EI_d θ²/(2L) + GA γ² L/2 − P v gives
// v = PL³/(4 E I_d) + PL/(GA), with I_d = A (a/4)² what the sample rows
// see of the section and G = E/2 (ν = 0). (I_d = 3I/4 offsets the 3/4 of
// the two-frame kinematics: v equals Euler–Bernoulli's PL³/(3EI) plus the
// shear term, 0.5 % here.)
//
// More samples along the span see γ = θx/L − θ + v/L ≠ 0 away from
// mid-span, and the rigid-frame model locks (Timoshenko beams with linear
// shape functions do the same): the deflection collapses to a few percent
// of the converged one. Affine frames can shear their frames' matrices to
// cancel γ, so their deflection does not depend on the samples along the
// span. Reduced integration (one sample per frame interval along the
// axis, Faure et al.'s sparse sampling) avoids the locking of rigid frames.
func TestSkinningCantileverBending(t *testing.T) {
	const P, E, L, a = 0.1, 1e8, 1.0, 0.1
	A, Id := a*a, a*a*(a/4)*(a/4)
	want := P*L*L*L/(4*E*Id) + P*L/(E/2*A)
	for _, mt := range []string{"LinearBlendSkinningMapping", "DualQuaternionSkinningMapping"} {
		got := cantileverTip(t, mt, "Rigid3", 2, 1, 2, P)
		t.Logf("%s, 2 rigid frames, one sample column: tip %.9g, closed form %.9g", mt, got, want)
		// Geometric nonlinearity at θ ≈ 8e-5 rad is below 1e-6 relative.
		if math.Abs(got-want) > 1e-5*want {
			t.Errorf("%s: tip deflection %.9g, closed form %.9g", mt, got, want)
		}
	}
	affine := map[int]float64{}
	for _, cx := range []int{1, 2, 4} {
		affine[cx] = cantileverTip(t, "LinearBlendSkinningMapping", "Affine3", 5, cx, 2, P)
		locked := cantileverTip(t, "DualQuaternionSkinningMapping", "Rigid3", 5, cx, 2, P)
		t.Logf("5 frames, %d sample columns per interval: affine tip %.6g, rigid (DQS) tip %.6g (%.3f of affine)", cx, affine[cx], locked, locked/affine[cx])
		if cx == 4 && locked > 0.5*affine[cx] {
			t.Errorf("rigid frames with dense samples: tip %.3g, expected shear locking (< half of affine's %.3g)", locked, affine[cx])
		}
	}
	if d := math.Abs(affine[4]-affine[1]) / affine[1]; d > 1e-3 {
		t.Errorf("affine frames: tip deflection depends on the sample density by %.3g", d)
	}
}
