package validation

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// Elastons and second-order samples (issue 20; Faure et al. 2011 Sec. 3,
// 5.3, 6.1): the two-frame bending scene, the elaston version of the
// frames bar, and the convergence of Faure's Fig. 8.

// TestElastonBendScene: scenes/frames_elaston_bend.toml — two affine
// frames, one sample of order 2, a pure end couple M = 0.01 N·m on a
// 1 × 0.1 × 0.1 m bar (E = 1 MPa, ν = 0) — moves the free frame by
// M L²/(2EI) = 6.0e-4 m in y within 1% (the exact pure-bending field lies
// in the model's span, so the error is that of the nonlinear corotational
// solve, ~θ² with θ = 1.2e-3 rad). With order = 0 the scene is refused at
// initialisation, naming the order to set.
func TestElastonBendScene(t *testing.T) {
	const M, L, E, h = 0.01, 1.0, 1e6, 0.1
	I := h * h * h * h / 12
	want := M * L * L / (2 * E * I)
	s := loadFramesScene(t, "../scenes/frames_elaston_bend.toml", nil)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	x := frames.Vec(graph.Position)
	v := x[12+1]
	t.Logf("free frame: y displacement %.6e m, beam theory M L²/(2EI) = %.6e m (%.4f%% off); x %.3g m, z %.3g m",
		v, want, 100*(v/want-1), x[12]-1, x[12+2])
	if math.Abs(v/want-1) > 0.01 {
		t.Errorf("end displacement %.6e m is %.2f%% from beam theory %.6e m (limit 1%%)", v, 100*(v/want-1), want)
	}
	src := mustRead(t, "../scenes/frames_elaston_bend.toml")
	s0, err := graph.Load("../scenes/frames_elaston_bend.toml", []byte(framesReplaceOnce(t, src, "order = 2 ", "order = 0 ")))
	if err == nil {
		err = s0.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "order = 0") || !strings.Contains(err.Error(), "singular") {
		t.Errorf("with order = 0: error %v, want the midpoint rule refused", err)
	} else {
		t.Logf("order = 0: %v", err)
	}
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestElastonBeamScene: scenes/frames_elaston_beam.toml (the bar of
// frames_beam.toml with five affine frames, linear weights and one
// order-4 sample per region: 4 samples) lands within 3% of the bar's
// length of the Richardson-extrapolated tetrahedral StVK FEM, as the
// 900-sample rigid model of TestFramesBeamMatchesConvergedFEM does.
func TestElastonBeamScene(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the converged reference needs the 40×12×12-cell StVK bar (a few seconds)")
	}
	s := loadFramesScene(t, "../scenes/frames_elaston_beam.toml", nil)
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	cl := graphtest.Find[graph.State](t, s, "bar/centreline/points")
	end := geom.At(cl.Vec(graph.Position), cl.Size()-1)
	coarse, _ := femBeamEnd(t, 20, 6, 6)
	fine, _ := femBeamEnd(t, 40, 12, 12)
	ref := fine.Add(fine.Sub(coarse).Scale(1.0 / 3))
	d := end.Sub(ref).Norm()
	t.Logf("end of the centre line, displacement (x, y): elastons %+.5f %+.5f m, Richardson FEM %+.5f %+.5f m: %.2f%% of the length apart",
		end[0]-1, end[1]-0.15, ref[0]-1, ref[1]-0.15, 100*d)
	if d > 0.03 {
		t.Errorf("the elaston bar's end is %.2f%% of the length from the converged FEM's (limit 3%%)", 100*d)
	}
}

// elastonBar returns the scene text of a 1 × 0.1 × 0.1 m cantilever
// (L/h = 10) under gravity, clamped at x = 0, with n frames of template
// tmpl evenly spaced on its axis, linear weights between neighbours, and
// one sample of the given order per region (n − 1 samples), with law.
// The node "end" maps the 5×5 vertices of the end face of the 40×4×4
// FEM mesh.
func elastonBar(b beam, n int, tmpl, law string, order int, shear string) string {
	var frames []string
	for i := 0; i < n; i++ {
		x := b.L * float64(i) / float64(n-1)
		if tmpl == "Rigid3" {
			frames = append(frames, fmt.Sprintf("[%g, %g, %g, 0, 0, 0, 1]", x, b.H/2, b.H/2))
		} else {
			frames = append(frames, fmt.Sprintf("[%g, %g, %g, 1, 0, 0, 0, 1, 0, 0, 0, 1]", x, b.H/2, b.H/2))
		}
	}
	var face []string
	for k := 0; k <= 4; k++ {
		for j := 0; j <= 4; j++ {
			face = append(face, fmt.Sprintf("[%g, %g, %g]", b.L, b.H*float64(j)/4, b.H*float64(k)/4))
		}
	}
	return fmt.Sprintf(`
dt = 1
gravity = [0, %g, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 20
  tolerance = 1e-10
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 5000
  tolerance = 1e-14
  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, %g, %g, %g]
  resolution = [40, 4, 4]
  massDensity = %g
  youngModulus = %g
  [[node.object]]
  type = "MechanicalObject"
  name = "frames"
  template = %q
  position = [%s]
  [[node.object]]
  type = "BarycentricShapeFunction"
  [[node.object]]
  type = "FrameMass"
  [[node.object]]
  type = "FixedConstraint"
  indices = [0]
  [[node.node]]
  name = "samples"
    [[node.node.object]]
    type = "SparseSampler"
    count = %d
    order = %d
    [[node.node.object]]
    type = "MechanicalObject"
    template = "F332"
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    [[node.node.object]]
    type = "DeformationGradientForceField"
    materialName = %q
    youngModulus = %g
    poissonRatio = %g
    shearIntegration = %q
  [[node.node]]
  name = "end"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "points"
    position = [%s]
    [[node.node.object]]
    type = "LinearBlendSkinningMapping"
    isMechanical = false
`, -b.G, b.L, b.H, b.H, b.Rho, b.E, tmpl, strings.Join(frames, ", "), n-1, order, law, b.E, b.Nu, shear, strings.Join(face, ", "))
}

// elastonBarSag solves elastonBar and returns the mean y sag of the end
// face's points.
func elastonBarSag(t *testing.T, b beam, n int, tmpl, law string, order int, shear string) float64 {
	t.Helper()
	s := graphtest.MustLoad(t, "bar.toml", elastonBar(b, n, tmpl, law, order, shear))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	st := graphtest.Find[graph.State](t, s, "bar/end/points")
	x, x0 := st.Vec(graph.Position), st.Vec(graph.RestPosition)
	sum := 0.0
	for i := 0; i < st.Size(); i++ {
		sum += x0[3*i+1] - x[3*i+1]
	}
	return sum / float64(st.Size())
}

// fig8Beam is Faure's Fig. 8 cantilever: L/h = 10, ν = 0, E = 1 GPa so the
// sag (1.5e-3 of the length) is in the small-deflection range where the
// corotational FEM and beam theory apply.
var fig8Beam = beam{L: 1, H: 0.1, E: 1e9, Nu: 0, Rho: 1000, G: 9.81, Method: "large"}

// fig8Reference returns the Richardson extrapolation (p = 2) of the
// corotational tetrahedral FEM tip sag on 40×4×4 and 80×8×8 cells (sparse
// Cholesky), the reference the cantilever tests use.
func fig8Reference(t *testing.T) float64 {
	t.Helper()
	var sags []float64
	for _, lv := range [][2]int{{40, 4}, {80, 8}} {
		b := fig8Beam
		b.NL, b.NH = lv[0], lv[1]
		b.Solver = `
  [[node.object]]
  type = "StaticSolver"
  iterations = 10
  tolerance = 1e-9
  [[node.object]]
  type = "SparseCholeskySolver"
  ordering = "nestedDissection"
`
		s := graphtest.MustLoad(t, "fem.toml", b.scene())
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		sags = append(sags, -tipDeflection(t, s, b.L))
		t.Logf("FEM %d×%d×%d: tip sag %.6e m", lv[0], lv[1], lv[1], sags[len(sags)-1])
	}
	return sags[1] + (sags[1]-sags[0])/3
}

// TestFaureFig8Convergence (Faure et al. 2011 Fig. 8): a cantilever bar
// (L/h = 10) under gravity with 2, 3, 5 and 9 aligned affine frames, linear
// weights and one sample (order 2, corotational) per region converges to
// the Richardson-extrapolated tetrahedral FEM: the errors decrease
// monotonically and 5 frames are within 3%.
//
// Rigid frames with the same elastons lock, and by exactly the amount
// their kinematics predict: a segment of length ℓ between two rigid
// frames blended linearly cannot bend without a shear γ = κ (x − x_mid)
// (each frame extrapolates the bent axis rigidly), whose energy ½ G A
// κ² ℓ²/12 adds to the bending energy ½ E I κ² = ½ E A h²/12 κ², so the
// bending stiffness is multiplied by 1 + (G/E)(ℓ/h)² whatever the
// integration — exact integration (elastons) sees that shear, only
// reduced integration at the segments' middles would not
// (TestFramesSlenderBarLocking). The test checks the rigid sag against
// the affine sag divided by that factor, within 1% (the shear part of the
// deflection, 1% of the total at L/h = 10, is not divided).
//
// With shearIntegration = "reduced" (each shear strain sampled on the
// line through the sample along the third axis: ε_xy keeps only its
// z-variation) the spurious ½κ(x − x_mid) is gone and each segment is a
// linear Timoshenko element with one-point shear integration (bending
// from ∂ε_xx/∂y, exact; shear at the centre v/ℓ − θ̄): with the
// corotational (order 2) and Green–Lagrange StVK (order 4) measures, the
// rigid sag converges monotonically, 5 frames within 5% of the FEM, and
// equals the sag of n − 1 such beam elements under the same consistent
// loads within 0.1% (timoshenkoReducedSag): the analysis explains the
// model. The gap, 0.065% with 2 frames and 0.02% with 5, is the voxel
// midpoint rule of FrameMass's gravity moments ∫ ρ w_i (X − X_i), O(h²):
// 0.007% and 0.002% on 160 voxels along the bar instead of 40. The error
// to the FEM is the linear Timoshenko element's, O(ℓ²).
func TestFaureFig8Convergence(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the FEM reference solves an 80×8×8-cell bar")
	}
	ref := fig8Reference(t)
	theory := timoshenkoGravitySag(fig8Beam)
	t.Logf("Richardson FEM %.6e m (Timoshenko beam theory %.6e m, %.2f%% apart)", ref, theory, 100*(ref/theory-1))
	prev := math.Inf(1)
	affine := map[int]float64{}
	for _, n := range []int{2, 3, 5, 9} {
		sag := elastonBarSag(t, fig8Beam, n, "Affine3", "CorotationalLinear", 2, "full")
		affine[n] = sag
		e := math.Abs(sag/ref - 1)
		t.Logf("%d affine frames, %d samples: tip sag %.6e m, %.2f%% from the FEM reference", n, n-1, sag, 100*e)
		if e >= prev {
			t.Errorf("%d frames: error %.3g%% did not decrease (previous %.3g%%)", n, 100*e, 100*prev)
		}
		if n == 5 && e > 0.03 {
			t.Errorf("5 frames: %.2f%% from the FEM reference (limit 3%%)", 100*e)
		}
		prev = e
	}
	G := fig8Beam.E / (2 * (1 + fig8Beam.Nu))
	for _, n := range []int{5, 9} {
		sag := elastonBarSag(t, fig8Beam, n, "Rigid3", "CorotationalLinear", 2, "full")
		l := fig8Beam.L / float64(n-1)
		factor := 1 + G/fig8Beam.E*(l/fig8Beam.H)*(l/fig8Beam.H)
		predicted := affine[n] / factor
		t.Logf("%d rigid frames, %d samples: tip sag %.6e m = %.3f of the FEM reference; locking predicted by 1 + (G/E)(ℓ/h)² = %.3f: %.6e m (%.2f%% off)",
			n, n-1, sag, sag/ref, factor, predicted, 100*(sag/predicted-1))
		if math.Abs(sag/predicted-1) > 0.01 {
			t.Errorf("%d rigid frames: sag %.6e m, the shear-locking prediction %.6e m (limit 1%%)", n, sag, predicted)
		}
	}
	for _, law := range []struct {
		name  string
		order int
	}{{"CorotationalLinear", 2}, {"StVenantKirchhoff", 4}} {
		prev := math.Inf(1)
		for _, n := range []int{2, 3, 5, 9} {
			sag := elastonBarSag(t, fig8Beam, n, "Rigid3", law.name, law.order, "reduced")
			e := math.Abs(sag/ref - 1)
			timo := timoshenkoReducedSag(fig8Beam, n)
			t.Logf("%d rigid frames, %s, reduced shear: tip sag %.6e m = %.4f of the FEM reference (%.2f%% off); %d linear Timoshenko elements with one-point shear: %.6e m (%.3f%% apart)",
				n, law.name, sag, sag/ref, 100*e, n-1, timo, 100*(sag/timo-1))
			if e >= prev {
				t.Errorf("%d rigid frames, reduced shear, %s: error %.3g%% did not decrease (previous %.3g%%)", n, law.name, 100*e, 100*prev)
			}
			if n == 5 && e > 0.05 {
				t.Errorf("5 rigid frames, reduced shear, %s: %.2f%% from the FEM reference (limit 5%%)", law.name, 100*e)
			}
			if math.Abs(sag/timo-1) > 0.001 {
				t.Errorf("%d rigid frames, reduced shear, %s: sag %.6e m, the Timoshenko elements' %.6e m (limit 0.1%%)", n, law.name, sag, timo)
			}
			prev = e
		}
	}
}

// TestQuadraticFramesBend: scenes/frames_elaston_bend.toml with its two
// affine frames replaced by Quadratic3 frames (rest affine parts, zero
// quadratic columns) and two samples of order 2 (one leaves zero-energy
// modes with quadratic frames: F is quadratic over the region and an F332
// sample sees it to first order) gives the beam-theory displacement
// M L²/(2EI) = 6.0e-4 m within 1%: quadratic frames contain the affine
// ones, so the exact pure-bending field is again in the span.
func TestQuadraticFramesBend(t *testing.T) {
	const want = 6.0e-4
	s := loadFramesScene(t, "../scenes/frames_elaston_bend.toml", func(src string) string {
		src = framesReplaceOnce(t, src, `template = "Affine3"`, `template = "Quadratic3"`)
		src = framesReplaceOnce(t, src, `position = [[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
              [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]]`, `position = [[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
              [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]]`)
		return framesReplaceOnce(t, src, "count = 1\n", "count = 2\n")
	})
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	x := graphtest.Find[graph.State](t, s, "bar/frames").Vec(graph.Position)
	v := x[30+1]
	t.Logf("quadratic frames, 2 samples: y displacement %.6e m, beam theory %.6e m (%.4f%% off)", v, want, 100*(v/want-1))
	if math.Abs(v/want-1) > 0.01 {
		t.Errorf("quadratic frames: end displacement %.6e m, beam theory %.6e m (limit 1%%)", v, want)
	}
}

// timoshenkoReducedSag is the tip deflection of the cantilever b
// discretised by n − 1 linear Timoshenko elements with one-point shear
// integration (nodes at the frames: deflection v and rotation θ about z;
// per element of length ℓ, W = EI/2 (Δθ/ℓ)² ℓ + GA/2 γ² ℓ with
// γ = Δv/ℓ − (θ₀ + θ₁)/2, shear coefficient 1: a rigid section), under the
// loads rigid frames with linear weights receive from the uniform weight
// q = ρ g A: forces qℓ/2 at each end of an element and moments ∓qℓ²/6
// (∫ w_i (x − x_i) q dx), which cancel at interior frames.
func timoshenkoReducedSag(b beam, n int) float64 {
	A, I := b.H*b.H, b.H*b.H*b.H*b.H/12
	G := b.E / (2 * (1 + b.Nu))
	q := b.Rho * b.G * A
	l := b.L / float64(n-1)
	m := 2 * (n - 1) // DOFs v_i, θ_i of frames 1..n−1 (frame 0 clamped)
	K := make([][]float64, m)
	for i := range K {
		K[i] = make([]float64, m+1) // the last column holds the load
	}
	for e := 0; e < n-1; e++ {
		dofs := [4]int{2*e - 2, 2*e - 1, 2 * e, 2*e + 1}
		bs := [4]float64{-1 / l, -0.5, 1 / l, -0.5}
		kb := [4]float64{0, -1, 0, 1}
		f := [4]float64{-q * l / 2, -q * l * l / 6, -q * l / 2, q * l * l / 6}
		for i, di := range dofs {
			if di < 0 {
				continue
			}
			K[di][m] += f[i]
			for j, dj := range dofs {
				if dj >= 0 {
					K[di][dj] += b.E*I/l*kb[i]*kb[j] + G*A*l*bs[i]*bs[j]
				}
			}
		}
	}
	for c := 0; c < m; c++ { // Gaussian elimination (SPD: no pivoting)
		for r := c + 1; r < m; r++ {
			f := K[r][c] / K[c][c]
			for j := c; j <= m; j++ {
				K[r][j] -= f * K[c][j]
			}
		}
	}
	u := make([]float64, m)
	for r := m - 1; r >= 0; r-- {
		s := K[r][m]
		for j := r + 1; j < m; j++ {
			s -= K[r][j] * u[j]
		}
		u[r] = s / K[r][r]
	}
	return -u[m-2]
}

// TestElastonBendRigidReducedShear: scenes/frames_elaston_bend.toml with
// its two affine frames replaced by rigid frames. Full integration
// shear-locks by the factor 1 + (G/E)(L/h)² = 51 (one segment of the whole
// length, ν = 0): the end moves by M L²/(2EI)/51 within 1% (the shear of
// the Timoshenko element adds nothing under a pure couple). With
// shearIntegration = "reduced" the only shear left is the segment's centre
// value v/L − θ/2, which a pure couple leaves at zero: the end moves by
// M L²/(2EI) = 6.0e-4 m within 1%, as with affine frames. The scene as it
// is (affine frames) with shearIntegration = "reduced" is refused at
// initialisation (TestReducedShearAffineNullMode says why).
func TestElastonBendRigidReducedShear(t *testing.T) {
	const want = 6.0e-4
	factor := 1 + 0.5*(1/0.1)*(1/0.1)
	for _, shear := range []string{"full", "reduced"} {
		s := loadFramesScene(t, "../scenes/frames_elaston_bend.toml", func(src string) string {
			src = framesReplaceOnce(t, src, `template = "Affine3"`, `template = "Rigid3"`)
			src = framesReplaceOnce(t, src, `position = [[0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
              [1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]]`, `position = [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1]]`)
			return framesReplaceOnce(t, src, "poissonRatio = 0\n", fmt.Sprintf("poissonRatio = 0\n    shearIntegration = %q\n", shear))
		})
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		v := graphtest.Find[graph.State](t, s, "bar/frames").Vec(graph.Position)[7+1]
		expect := want
		if shear == "full" {
			expect = want / factor
		}
		t.Logf("rigid frames, shearIntegration = %s: y displacement %.6e m, expected %.6e m (%.4f%% off)", shear, v, expect, 100*(v/expect-1))
		if math.Abs(v/expect-1) > 0.01 {
			t.Errorf("rigid frames, shearIntegration = %s: end displacement %.6e m, expected %.6e m (limit 1%%)", shear, v, expect)
		}
	}
	src := framesReplaceOnce(t, mustRead(t, "../scenes/frames_elaston_bend.toml"), "poissonRatio = 0\n", "poissonRatio = 0\n    shearIntegration = \"reduced\"\n")
	s, err := graph.Load("../scenes/frames_elaston_bend.toml", []byte(src))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "keep shearIntegration = full") {
		t.Errorf("affine frames with shearIntegration = reduced: error %v, want it refused", err)
	} else {
		t.Logf("affine frames, reduced: %v", err)
	}
}

// TestReducedShearAffineNullMode shows why shearIntegration = "reduced" is
// refused for affine frames: on the Fig. 8 bar (5 affine frames, linear
// weights, one sample at the centre of each segment), turning the first
// column of a frame's A toward y or z (A_yx, A_zx: the frame bends the
// centre line by itself) changes the F332 samples only in ∂F_yx/∂x or
// ∂F_zx/∂x — by 2δ/ℓ at the two neighbouring samples, F_0 unchanged
// (1e-15) since the change of F_0, δ(2X − X_i − X_j)/ℓ, vanishes at a
// segment's centre — whose strains ∂ε_xy/∂x, ∂ε_xz/∂x reduced integration
// drops (TestF332ReducedShearBending): a mode without stiffness per frame
// and direction. With full integration that mode is what lets affine
// frames bend without locking.
func TestReducedShearAffineNullMode(t *testing.T) {
	const n, delta = 5, 1e-3
	s := graphtest.MustLoad(t, "bar.toml", elastonBar(fig8Beam, n, "Affine3", "CorotationalLinear", 2, "full"))
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	node := s.Root.Child("bar").Child("samples")
	m := node.Mapping()
	x0 := append([]float64(nil), frames.Vec(graph.Position)...)
	F0 := make([]float64, len(node.State().Vec(graph.Position)))
	m.Apply(F0, x0)
	l := fig8Beam.L / float64(n-1)
	for _, c := range []struct {
		name       string
		slot, grad int // entry of A in the Affine3 coordinates; entry of the F332 sample that changes
	}{{"A_yx", 3 + 3, 9 + 3}, {"A_zx", 3 + 6, 9 + 6}} {
		x := append([]float64(nil), x0...)
		x[12*2+c.slot] += delta // frame 2, between samples 1 and 2
		F := make([]float64, len(F0))
		m.Apply(F, x)
		for smp := 0; smp < len(F)/36; smp++ {
			for i := 0; i < 36; i++ {
				d := F[36*smp+i] - F0[36*smp+i]
				want := 0.0
				if i == c.grad && (smp == 1 || smp == 2) {
					want = 2 * delta / l
					if smp == 2 {
						want = -want
					}
				}
				if math.Abs(d-want) > 1e-12 {
					t.Errorf("%s += %g on frame 2: sample %d, entry %d of its F332 changed by %.3g, want %.3g", c.name, delta, smp, i, d, want)
				}
			}
		}
	}
}
