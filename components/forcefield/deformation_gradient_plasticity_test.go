package forcefield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/material"
)

// Plasticity of DeformationGradientForceField (elastons and F331
// samples): fixtures with a plastic state, the elaston energy with
// plastic strains against the lecture notes' closed form, and the flow
// rule against its closed form on one sample. The bar and bend tests of
// whole scenes are in validation/elaston_plasticity_test.go.

// randomPlastic returns n samples' plastic strains: membrane 6 per sample
// with entries up to a/3 (so ‖αₚ‖ ≤ a), bending 18 per sample up to b.
func randomPlastic(rng *rand.Rand, n int, a, b float64) (membrane, bending []float64) {
	membrane = make([]float64, 6*n)
	bending = make([]float64, 18*n)
	for i := range membrane {
		membrane[i] = a / 3 * (2*rng.Float64() - 1)
	}
	for i := range bending {
		bending[i] = b * (2*rng.Float64() - 1)
	}
	return membrane, bending
}

// TestElastonPlasticFixture: with a non-zero plastic state (membrane
// strains up to 5 %, bending strains up to 0.3/m) the force is still
// −∇W and AddDForce its derivative, for every closed-form integration
// (CorotationalLinear and Linear at order 2, StVenantKirchhoff at orders
// 2 and 4) on 12 random heterogeneous off-centre regions, and for F331
// samples with every law (multiplicative εₚ up to 5 %); the F332 cases
// with full and with reduced shear integration, and every law with the
// voxel quadrature (multiplicative at each voxel). Tolerance
// fdTolerance with a step of 1e-7, as the elastic fixtures. The plastic
// state must change the forces (else the test proves nothing).
func TestElastonPlasticFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	x := randomF332(rng, 12, 0.2, 1, true)
	membrane, bending := randomPlastic(rng, 12, 0.05, 0.3)
	for _, law := range []string{material.NameCorotationalLinear, material.NameLinear, material.NameStVenantKirchhoff} {
		for _, order := range []int{2, 4} {
			for _, shear := range []string{"full", "reduced"} {
				t.Run(fmt.Sprintf("F332/%s/order=%d/%s", law, order, shear), func(t *testing.T) {
					ff, st := loadF332(t, x, fmt.Sprintf("seed = 3\n  count = 12\n  order = %d", order), fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.35
  shearIntegration = %q
  plasticMaxThreshold = 0.1`, law, shear))
					xs := st.Vec(graph.Position)
					f0 := make([]float64, len(xs))
					ff.AddForce(f0, xs, nil)
					if err := ff.SetPlasticStrain(membrane, bending); err != nil {
						t.Fatal(err)
					}
					graphtest.CheckForceField(t, ff, graph.F332, xs, nil, graphtest.Options{Seed: 7, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
					f1 := make([]float64, len(xs))
					ff.AddForce(f1, xs, nil)
					if d := maxDiff(f0, f1); d < 1e-3*maxAbs(f0) {
						t.Errorf("the plastic state changes the force by only %g", d)
					}
				})
			}
		}
	}
	// The voxel quadrature: multiplicative plastic strains at the voxels.
	for _, law := range material.Names() {
		t.Run("F332/voxels/"+law, func(t *testing.T) {
			ff, st := loadF332(t, x, "seed = 3\n  count = 12\n  order = 2", fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.35
  quadrature = "voxels"
  plasticMaxThreshold = 0.1`, law))
			xs := st.Vec(graph.Position)
			f0 := make([]float64, len(xs))
			ff.AddForce(f0, xs, nil)
			if err := ff.SetPlasticStrain(membrane, bending); err != nil {
				t.Fatal(err)
			}
			graphtest.CheckForceField(t, ff, graph.F332, xs, nil, graphtest.Options{Seed: 7, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
			f1 := make([]float64, len(xs))
			ff.AddForce(f1, xs, nil)
			if d := maxDiff(f0, f1); d < 1e-3*maxAbs(f0) {
				t.Errorf("the plastic state changes the force by only %g", d)
			}
		})
	}
	F := randomGradients(rng, 20, 0.2)
	eps, _ := randomPlastic(rng, 20, 0.05, 0)
	for _, law := range material.Names() {
		t.Run("F331/"+law, func(t *testing.T) {
			ff, st := loadSamples(t, F, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.35
  plasticMaxThreshold = 0.1
  volumes = %s`, law, tomlList(make20(1e-3))))
			xs := st.Vec(graph.Position)
			f0 := make([]float64, len(xs))
			ff.AddForce(f0, xs, nil)
			if err := ff.SetPlasticStrain(eps, nil); err != nil {
				t.Fatal(err)
			}
			graphtest.CheckForceField(t, ff, graph.F331, xs, nil, graphtest.Options{Seed: 5, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
			f1 := make([]float64, len(xs))
			ff.AddForce(f1, xs, nil)
			if d := maxDiff(f0, f1); d < 1e-3*maxAbs(f0) {
				t.Errorf("the plastic state changes the force by only %g", d)
			}
		})
	}
}

func maxDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// sym6Of returns the 6 numbers (VTK order) of a symmetric matrix.
func sym6Of(m geom.Mat3) []float64 { return []float64{m[0], m[4], m[8], m[1], m[5], m[2]} }

// TestElastonPlasticEnergyClosedForm: on the box region of
// TestF332ClosedForms (0.4 × 0.1 × 0.2 m centred on the sample), the
// energy with plastic strains αₚ, βₚᵏ is the lecture notes' plastic
// elaston W = V/2 (αₑ:C:αₑ + Σ_k h_k²/12 βₑᵏ:C:βₑᵏ) with αₑ = α − αₚ,
// βₑᵏ = βᵏ − βₚᵏ, for Linear and for CorotationalLinear at a rotated
// configuration F(d) = R (I + α + d_k βᵏ). Relative 1e-12 (sums of a few
// dozen products).
func TestElastonPlasticEnergyClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	h := geom.Vec3{0.4, 0.1, 0.2}
	box := "box = [0.4, 0.1, 0.2]\n  cells = [8, 2, 4]\n  count = 1\n  order = 2"
	const E, nu = 1e6, 0.3
	lambda, mu := material.Lame(E, nu)
	R := geom.QuatFromAxisAngle(geom.Vec3{1, 2, -0.5}.Normalized(), 2.1).Mat()
	sym := func(a float64) geom.Mat3 {
		var m geom.Mat3
		for i := range m {
			m[i] = a * rng.NormFloat64()
		}
		return m.Sym()
	}
	alpha, ap := sym(0.05), sym(0.02)
	beta := [3]geom.Mat3{sym(0.3), sym(0.3), sym(0.3)}
	bp := [3]geom.Mat3{sym(0.2), sym(0.2), sym(0.2)}
	pack := func(Q geom.Mat3) []float64 {
		x := append([]float64(nil), sliceOf(Q.Mul(geom.Identity3().Add(alpha)))...)
		for k := 0; k < 3; k++ {
			x = append(x, sliceOf(Q.Mul(beta[k]))...)
		}
		return x
	}
	membrane := sym6Of(ap)
	var bending []float64
	var be [3]geom.Mat3
	for k := 0; k < 3; k++ {
		bending = append(bending, sym6Of(bp[k])...)
		be[k] = beta[k].Sub(bp[k])
	}
	want := elastonEnergy(h, alpha.Sub(ap), be, lambda, mu)
	for _, c := range []struct {
		law string
		x   []float64
	}{{material.NameLinear, pack(geom.Identity3())}, {material.NameCorotationalLinear, pack(R)}} {
		ff, _ := loadF332(t, c.x, box, fmt.Sprintf("materialName = %q\n  youngModulus = %g\n  poissonRatio = %g\n  plasticMaxThreshold = 0.5", c.law, E, nu))
		if err := ff.SetPlasticStrain(membrane, bending); err != nil {
			t.Fatal(err)
		}
		if W := ff.PotentialEnergy(c.x); math.Abs(W-want) > 1e-12*want {
			t.Errorf("%s: energy %.15g, plastic elaston closed form %.15g", c.law, W, want)
		}
	}
}

// TestElastonFlowRule checks the flow rule of one F332 sample against
// its closed form.
//
// Box region h = (0.4, 0.1, 0.2) m centred on the sample, Linear law, a
// strain field ε(d) = α + d_k βᵏ: after EndStep, αₚ = c α when ‖α‖ >
// yield, and βₚᵏ = c βᵏ for all k when the bending norm
// √(Σ_k (h_k/2)² ‖βᵏ‖²) > yield, each part clamped to the maximum
// (scaled by max/‖·‖ when c times its norm exceeds it); compared entry
// by entry at 1e-15 absolute (entries ≤ 1, a few roundings). The bending
// strains are scaled so that they are clamped, flow freely, or stay below
// yield while the membrane strain flows.
//
// Then on 12 random heterogeneous off-centre regions (the moments couple
// α and βᵏ, and the βᵏ with each other: the rule works on the uncoupled
// centroid value and on the three gradients at once), with both parts
// flowing and no clamp, the elastic energy after EndStep is exactly
// (1 − c)² times the energy before (relative 1e-12), for Linear and
// CorotationalLinear (also with reduced shear integration); and with a yield that only some parts exceed, and
// a binding maximum, it never rises.
func TestElastonFlowRule(t *testing.T) {
	const E, nu, c, yield, maxp = 1e6, 0.3, 0.6, 0.01, 0.05
	h := geom.Vec3{0.4, 0.1, 0.2}
	alpha := geom.Mat3{0.02, 0.003, 0, 0.003, -0.006, 0.001, 0, 0.001, -0.006} // ‖α‖ ≈ 0.022 > yield
	beta0 := [3]geom.Mat3{
		{0.1, 0, 0.02, 0, -0.03, 0, 0.02, 0, -0.03},
		{0.1, 0, 0, 0, -0.03, 0, 0, 0, -0.03},
		{1.0, 0.2, 0, 0.2, -0.3, 0, 0, 0, -0.3},
	} // bending norm ≈ 0.115
	norm := func(m geom.Mat3) float64 { return math.Sqrt(m.DDot(m)) }
	for _, tc := range []struct {
		name  string
		scale float64
	}{{"clamped", 1}, {"flow", 0.3}, {"below yield", 0.05}} {
		var beta [3]geom.Mat3
		x := append([]float64(nil), sliceOf(geom.Identity3().Add(alpha))...)
		bn := 0.0
		for k := 0; k < 3; k++ {
			beta[k] = beta0[k].Scale(tc.scale)
			x = append(x, sliceOf(beta[k])...)
			bn += h[k] * h[k] / 4 * beta[k].DDot(beta[k])
		}
		bn = math.Sqrt(bn)
		ff, _ := loadF332(t, x, "box = [0.4, 0.1, 0.2]\n  cells = [8, 2, 4]\n  count = 1\n  order = 2",
			fmt.Sprintf("materialName = \"Linear\"\n  youngModulus = %g\n  poissonRatio = %g\n  plasticYieldThreshold = %g\n  plasticMaxThreshold = %g\n  plasticCreep = %g", E, nu, yield, maxp, c))
		if err := ff.EndStep(1, 1); err != nil {
			t.Fatal(err)
		}
		factor := func(n float64) float64 { // the rule's closed form: p = factor·e
			switch {
			case n <= yield:
				return 0
			case c*n > maxp:
				return maxp / n
			}
			return c
		}
		check := func(what string, got []float64, want geom.Mat3) {
			for i, w := range sym6Of(want) {
				if math.Abs(got[i]-w) > 1e-15 {
					t.Errorf("%s, %s: plastic strain %v, want %v", tc.name, what, got, sym6Of(want))
					return
				}
			}
		}
		check("membrane", ff.PlasticStrain(), alpha.Scale(factor(norm(alpha))))
		fb := factor(bn)
		for k := 0; k < 3; k++ {
			check(fmt.Sprintf("bending %d", k), ff.PlasticBendingStrain()[6*k:6*k+6], beta[k].Scale(fb))
		}
		t.Logf("%s: bending norm %.4g, factor %.4g", tc.name, bn, fb)
	}

	// Random coupled regions.
	rng := rand.New(rand.NewPCG(8, 8))
	for _, law := range []string{material.NameLinear, material.NameCorotationalLinear, material.NameCorotationalLinear + "/reduced"} {
		law, shear, _ := strings.Cut(law, "/")
		if shear == "" {
			shear = "full"
		}
		for _, tc := range []struct {
			name        string
			yield, maxp float64
			exactFactor bool
		}{{"all flow", 0, 0.9, true}, {"partial, clamped", 0.02, 0.03, false}} {
			// Near the identity (the Linear strain does not remove rotations).
			xr := make([]float64, 36*12)
			for i := range xr {
				xr[i] = 0.2 * rng.NormFloat64()
				if i%36 < 9 {
					xr[i] = 0.05 * rng.NormFloat64()
					if i%36%4 == 0 {
						xr[i]++
					}
				}
			}
			ff, st := loadF332(t, xr, "seed = 4\n  count = 12\n  order = 2", fmt.Sprintf(`materialName = %q
  shearIntegration = %q
  youngModulus = 1e6
  poissonRatio = 0.3
  plasticYieldThreshold = %g
  plasticMaxThreshold = %g
  plasticCreep = %g`, law, shear, tc.yield, tc.maxp, c))
			xs := st.Vec(graph.Position)
			for step := 0; step < 4; step++ {
				before := ff.PotentialEnergy(xs)
				if err := ff.EndStep(1, 1); err != nil {
					t.Fatal(err)
				}
				after := ff.PotentialEnergy(xs)
				what := fmt.Sprintf("%s (%s shear), %s, update %d", law, shear, tc.name, step)
				if tc.exactFactor {
					if want := (1 - c) * (1 - c) * before; math.Abs(after-want) > 1e-12*before {
						t.Errorf("%s: energy %.15g after the flow, want (1 − c)² × %.15g = %.15g", what, after, before, want)
					}
				} else if after > before*(1+1e-12) {
					t.Errorf("%s: the flow raised the energy %.15g → %.15g", what, before, after)
				}
			}
			if maxAbs(ff.PlasticBendingStrain()) == 0 || maxAbs(ff.PlasticStrain()) == 0 {
				t.Errorf("%s %s: no flow", law, tc.name)
			}
		}
	}
}

// TestElastonPlasticRefused: plasticity with the volume term, or a
// maximum of 1, is refused at Init, naming what to change.
func TestElastonPlasticRefused(t *testing.T) {
	x := randomF332(rand.New(rand.NewPCG(1, 1)), 2, 0.1, 0.1, false)
	for _, c := range []struct{ fields, want string }{
		{"materialName = \"CorotationalLinear\"\n  plasticMaxThreshold = 1", "plasticMaxThreshold"},
	} {
		s, err := graph.Load("e.toml", []byte(fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "TestRegionSampler"
  count = 2
  order = 2
  [[node.object]]
  type = "MechanicalObject"
  template = "F332"
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  %s
`, tomlRows(x, 36), c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.fields, err, c.want)
		}
	}
	F := randomGradients(rand.New(rand.NewPCG(2, 2)), 1, 0.1)
	s, err := graph.Load("s.toml", []byte(fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "MechanicalObject"
  template = "F331"
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  volumes = [1]
  bulkModulus = 1e6
  plasticMaxThreshold = 0.1
`, tomlRows(F, 9))))
	if err == nil {
		err = s.Init()
	}
	if err == nil || !strings.Contains(err.Error(), "bulkModulus") {
		t.Errorf("plasticity with the volume term: error %v, want it refused", err)
	}
}
