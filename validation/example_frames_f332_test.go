package validation

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// ExampleBasedForceField on F332 samples (issue 18): the bar of
// example_frames_test.go (three rigid frames, Shepard weights, the twist
// example) with its 40 samples as F332 samples of order 4 (DenseSampler
// blocks of 2×2×2 voxels), the example term integrated over each block.

// framesSceneF332 is framesScene with F332 samples of order 4.
func framesSceneF332(t testing.TB, material bool, k float64) string {
	s := framesScene(material, k)
	s = framesReplaceOnce(t, s, `template = "F331"`, `template = "F332"`)
	return framesReplaceOnce(t, s, "resolution = [10, 2, 2]\n", "resolution = [10, 2, 2]\n    order = 4\n")
}

// TestExampleFramesF332Fixture: on the F332 samples, force = −∇W and
// AddDForce = ∂f/∂(F, ∇F) (graphtest.CheckForceField on the 36-number
// samples, central differences, h = 1e-7, the default tolerance as for the
// F331 samples) at random samples and near the example's, for the global
// and per-sample manifolds, with and without the rest pose.
func TestExampleFramesF332Fixture(t *testing.T) {
	for _, fields := range []string{"", "includeRest = true", "manifold = \"elements\"\n    includeRest = true", "includeRest = true\n    nonNegativeWeights = true"} {
		s := graphtest.MustLoad(t, "frames.toml", framesSceneF332(t, false, 1e5)+"    "+fields+"\n")
		ff := graphtest.Find[*forcefield.ExampleBasedForceField](t, s, "bar/samples/example")
		F := graphtest.Find[graph.State](t, s, "bar/samples/F")
		frames := graphtest.Find[graph.State](t, s, "bar/frames")
		rng := rand.New(rand.NewPCG(31, 33))
		rest := append([]float64(nil), F.Vec(graph.Position)...)
		copy(frames.Vec(graph.Position), flatten(framesTwist()))
		s.ComputeForces()
		exF := append([]float64(nil), F.Vec(graph.Position)...)
		for _, c := range []struct {
			name string
			base []float64
			amp  float64
		}{{"random", rest, 0.1}, {"near the example", exF, 1e-3}} {
			x := append([]float64(nil), c.base...)
			for i := range x {
				x[i] += c.amp * (2*rng.Float64() - 1)
			}
			if !graphtest.CheckForceField(t, ff, graph.F332, x, nil, graphtest.Options{Seed: 7, Trials: 3, Step: 1e-7}) {
				t.Errorf("%q, %s: fixture failed", fields, c.name)
			}
		}
	}
}

// TestExampleFramesF332RegionIntegral: with one example and no rest pose
// the manifold is a point, and the term is k/2 Σ_s ∫_region ‖E(d) −
// E_ex(d)‖²_F dV with E(d) = ½(F(d)ᵀF(d) − I), F(d) = F + Σ_k d_k ∂F/∂X_k
// over each sample's 0.1 m cube (a block of 2×2×2 voxels centred on the
// sample). Computed here directly by 3×3×3 Gauss–Legendre points per cube
// (exact: the integrand is of degree 4 in d) at random samples, it equals
// PotentialEnergy to 1e-12 relative; the midpoint rule (the centre's
// strain alone, what an F331 sample sees) misses the bending and twist
// inside each region (logged).
func TestExampleFramesF332RegionIntegral(t *testing.T) {
	const k, h = 1e5, 0.1
	s := graphtest.MustLoad(t, "frames.toml", framesSceneF332(t, false, k))
	ff := graphtest.Find[*forcefield.ExampleBasedForceField](t, s, "bar/samples/example")
	F := graphtest.Find[graph.State](t, s, "bar/samples/F")
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	copy(frames.Vec(graph.Position), flatten(framesTwist()))
	s.ComputeForces()
	ex := append([]float64(nil), F.Vec(graph.Position)...)
	rng := rand.New(rand.NewPCG(5, 6))
	x := append([]float64(nil), ex...)
	for i := range x {
		x[i] += 0.05 * (2*rng.Float64() - 1)
	}
	green := func(v []float64, d geom.Vec3) geom.Mat3 {
		var f geom.Mat3
		for i := range f {
			f[i] = v[i] + d[0]*v[9+i] + d[1]*v[18+i] + d[2]*v[27+i]
		}
		return f.TMul(f).Sub(geom.Identity3()).Scale(0.5)
	}
	gp := [3]float64{-math.Sqrt(0.6), 0, math.Sqrt(0.6)}
	gw := [3]float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
	want, mid := 0.0, 0.0
	for smp := 0; smp < F.Size(); smp++ {
		xs, es := x[36*smp:36*smp+36], ex[36*smp:36*smp+36]
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for l := 0; l < 3; l++ {
					d := geom.Vec3{gp[i] * h / 2, gp[j] * h / 2, gp[l] * h / 2}
					r := green(xs, d).Sub(green(es, d))
					want += k / 2 * gw[i] * gw[j] * gw[l] * h * h * h / 8 * r.DDot(r)
				}
			}
		}
		r := green(xs, geom.Vec3{}).Sub(green(es, geom.Vec3{}))
		mid += k / 2 * h * h * h * r.DDot(r)
	}
	W := ff.PotentialEnergy(x)
	t.Logf("example term over the regions %.15g J, by Gauss points %.15g J; centres only (midpoint) %.6g J", W, want, mid)
	if math.Abs(W-want) > 1e-12*want {
		t.Errorf("region-integrated example term %.15g, direct quadrature %.15g", W, want)
	}
}

// TestExampleFramesF332Equilibrium: at the example frames the term's force
// is zero on every F332 sample and on the frames (1e-10 of its force at
// rest); with the StVK material on the same samples (order-4 elastons)
// the static equilibrium under no load turns monotonically from rest
// toward the example as k grows, and the example term alone brings the
// frames onto the example.
func TestExampleFramesF332Equilibrium(t *testing.T) {
	s := graphtest.MustLoad(t, "frames.toml", framesSceneF332(t, false, 1e5))
	ff := graphtest.Find[*forcefield.ExampleBasedForceField](t, s, "bar/samples/example")
	F := graphtest.Find[graph.State](t, s, "bar/samples/F")
	frames := graphtest.Find[graph.State](t, s, "bar/frames")
	f := make([]float64, 36*F.Size())
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
	t.Logf("| k/E | last frame's turn (F332, order 4) | largest distance to the example's coordinates |")
	prev := -1.0
	for _, k := range []float64{0, 3e4, 1e5, 3e5, 1e6} {
		text := strings.Replace(framesSceneF332(t, true, k), `materialName = "StVenantKirchhoff"`, `materialName = "StVenantKirchhoff"`, 1)
		s := graphtest.MustLoad(t, "frames.toml", text)
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
	s = graphtest.MustLoad(t, "frames.toml", framesSceneF332(t, false, 1e5))
	if err := s.Step(); err != nil {
		t.Fatal(err)
	}
	a, d := framesAngle(graphtest.Find[graph.State](t, s, "bar/frames"))
	t.Logf("| ∞ (no material) | %.6f° | %.2g |", a, d)
	if math.Abs(a-60) > 1e-6 || d > 1e-8 {
		t.Errorf("example term alone: %.9g°, distance %.3g: not the example", a, d)
	}
}

// TestExampleFramesF332Errors: F332 samples need region moments of order 4.
func TestExampleFramesF332Errors(t *testing.T) {
	for _, c := range []struct{ name, edit, want string }{
		{"order 2", "order = 4\n", "order = 2\n"},
	} {
		text := strings.Replace(framesSceneF332(t, false, 1e5), c.edit, c.want, 1)
		s, err := graph.Load("bad.toml", []byte(text))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), "set order = 4 on the sampler") {
			t.Errorf("%s: error %v, want the order refused", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}
