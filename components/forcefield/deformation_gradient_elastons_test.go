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

// testRegionSampler stands in for the samplers of package shapefunction:
// count samples, each the region of a random box of nx×ny×nz voxels of
// random sizes, offset from the sample's point (so the first moments are
// not zero), with random per-voxel stiffness; moments up to order, exact
// per voxel box, and the voxel quadrature.
type testRegionSampler struct {
	graph.ObjectBase
	Seed  int `toml:"seed" doc:"random seed"`
	Count int `toml:"count" doc:"samples"`
	Order int `toml:"order" doc:"moment order"`
	// A single box region instead: its size (then count must be 1 and the
	// voxels uniform).
	Box   [3]float64 `toml:"box" doc:"size of a single box region"`
	Cells [3]int     `toml:"cells" doc:"voxels of the single box region"`

	built                       bool
	vol, young, mom             []float64
	offsets, volumes, stiffness []float64
	first                       []int
}

func (s *testRegionSampler) build() {
	if s.built {
		return
	}
	s.built = true
	rng := rand.New(rand.NewPCG(uint64(s.Seed), 77))
	s.first = []int{0}
	for i := 0; i < s.Count; i++ {
		var n [3]int
		var h, c geom.Vec3
		uniform := s.Box != [3]float64{}
		for a := 0; a < 3; a++ {
			if uniform {
				n[a] = s.Cells[a]
				h[a] = s.Box[a] / float64(n[a])
				c[a] = -s.Box[a] / 2
			} else {
				n[a] = 1 + rng.IntN(3)
				h[a] = 0.05 + 0.1*rng.Float64()
				c[a] = -float64(n[a])*h[a]/2 + 0.3*h[a]*rng.NormFloat64()
			}
		}
		var E []float64
		var centres []geom.Vec3
		for k := 0; k < n[2]; k++ {
			for j := 0; j < n[1]; j++ {
				for ii := 0; ii < n[0]; ii++ {
					centres = append(centres, geom.Vec3{c[0] + (float64(ii)+0.5)*h[0], c[1] + (float64(j)+0.5)*h[1], c[2] + (float64(k)+0.5)*h[2]})
					e := 1.0
					if !uniform {
						e = 0.5 + rng.Float64()
					}
					E = append(E, e)
				}
			}
		}
		Es := 0.0
		for _, e := range E {
			Es += e
		}
		Es /= float64(len(E))
		m := make([]float64, geom.NumMoments)
		dv := h[0] * h[1] * h[2]
		for v, X := range centres {
			geom.AddBoxMoments(m[:geom.NumMonomials(s.Order)], X, h.Scale(0.5), geom.Vec3{}, E[v]/Es)
			s.offsets = append(s.offsets, X[0], X[1], X[2])
			s.volumes = append(s.volumes, dv)
			s.stiffness = append(s.stiffness, E[v]/Es)
		}
		s.first = append(s.first, len(s.volumes))
		s.vol = append(s.vol, dv*float64(len(centres)))
		s.young = append(s.young, 1e6*Es)
		s.mom = append(s.mom, m...)
	}
}

func (s *testRegionSampler) SampleVolumes() ([]float64, error)     { s.build(); return s.vol, nil }
func (s *testRegionSampler) SampleYoungModuli() ([]float64, error) { s.build(); return s.young, nil }
func (s *testRegionSampler) SampleMoments() (int, []float64, error) {
	s.build()
	return s.Order, s.mom, nil
}
func (s *testRegionSampler) SampleQuadrature() (o, v, e []float64, f []int, err error) {
	s.build()
	return s.offsets, s.volumes, s.stiffness, s.first, nil
}

// SampleThinAxes: sample i is a solid, a shell or a rod by i mod 3, with
// random orthonormal axes (thinLaw = reduced).
func (s *testRegionSampler) SampleThinAxes() ([]int8, []geom.Mat3, error) {
	s.build()
	rng := rand.New(rand.NewPCG(uint64(s.Seed), 91))
	kinds := make([]int8, s.Count)
	axes := make([]geom.Mat3, s.Count)
	for i := range kinds {
		kinds[i] = int8(i % 3)
		axes[i] = geom.Mat3(randomGradients(rng, 1, 0)[:9])
	}
	return kinds, axes, nil
}

// SampleNodeSpacings: 0.3 (a few region sizes, thinShearStabilization).
func (s *testRegionSampler) SampleNodeSpacings() ([]float64, error) {
	s.build()
	out := make([]float64, s.Count)
	for i := range out {
		out[i] = 0.3
	}
	return out, nil
}

var (
	_ SampleNodeSpacingProvider = (*testRegionSampler)(nil)
	_ SampleMomentProvider      = (*testRegionSampler)(nil)
	_ SampleQuadratureProvider  = (*testRegionSampler)(nil)
	_ SampleThinAxesProvider    = (*testRegionSampler)(nil)
)

func init() {
	graph.Register(graph.TypeInfo{Name: "TestRegionSampler", Kind: graph.KindTopology, Summary: "test stand-in",
		New: func() graph.Object { return &testRegionSampler{} }})
}

// loadF332 loads F332 samples at x with the test sampler and a
// DeformationGradientForceField "ff" with the given fields.
func loadF332(t testing.TB, x []float64, sampler, fields string) (*DeformationGradientForceField, *graph.MechanicalObject) {
	t.Helper()
	s := graphtest.MustLoad(t, "elastons.toml", fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "TestRegionSampler"
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "F"
  template = "F332"
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  name = "ff"
  %s
`, sampler, tomlRows(x, 36), fields))
	return graphtest.Find[*DeformationGradientForceField](t, s, "samples/ff"), graphtest.Find[*graph.MechanicalObject](t, s, "samples/F")
}

// randomF332 returns n samples: F = R (I + a N) (inverted, det F < 0, for
// every third sample when inverted: one stretch negated) and gradients of
// size g per unit length (≈ g·0.15 over a region).
func randomF332(rng *rand.Rand, n int, a, g float64, inverted bool) []float64 {
	F := randomGradients(rng, n, a)
	x := make([]float64, 0, 36*n)
	for i := 0; i < n; i++ {
		Fi := geom.Mat3(F[9*i : 9*i+9])
		if inverted && i%3 == 0 {
			Fi = Fi.Mul(geom.Diag(geom.Vec3{1, 1, -0.4}))
		}
		x = append(x, Fi[:]...)
		for k := 0; k < 27; k++ {
			x = append(x, g*rng.NormFloat64())
		}
	}
	return x
}

// TestF332ForceFieldFixture: every law and integration (moments of order
// 2 and 4, voxels with and without the volume term) passes the force
// field fixture (force = −∇energy, AddDForce = the differences of
// AddForce) on 12 samples of random heterogeneous regions with random
// rotations, strains of ~20%, strain gradients of ~1/m, a third of them
// inverted. Tolerance as for F331 samples (fdTolerance with a step of
// 1e-7 on O(1) entries).
func TestF332ForceFieldFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	x := randomF332(rng, 12, 0.2, 1, true)
	for _, law := range material.Names() {
		for _, c := range []struct {
			quad  string
			order int
			bulk  float64
		}{{"auto", 2, 0}, {"auto", 4, 0}, {"voxels", 2, 0}, {"voxels", 2, 3e6}} {
			if c.quad == "auto" && !hasClosedForm(law) && c.order == 4 {
				continue // auto is voxels: done below
			}
			t.Run(fmt.Sprintf("%s/%s/order=%d/bulk=%g", law, c.quad, c.order, c.bulk), func(t *testing.T) {
				ff, st := loadF332(t, x, fmt.Sprintf("seed = 3\n  count = 12\n  order = %d", c.order), fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.35
  bulkModulus = %g
  quadrature = %q`, law, c.bulk, c.quad))
				t.Logf("integration: %s", ff.Mode())
				graphtest.CheckForceField(t, ff, graph.F332, st.Vec(graph.Position), nil, graphtest.Options{Seed: 7, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
			})
		}
	}
}

// elastonEnergy is the closed form of Martin et al.'s elaston (the
// lecture notes' "Elastons": W = V/2 (α:C:α + Σ_k h_k²/12 β_k:C:β_k)) for
// a box region h₀×h₁×h₂ centred on the sample and a strain affine in the
// offset, ε(d) = α + Σ_k d_k β_k, Hookean (λ, μ).
func elastonEnergy(h geom.Vec3, alpha geom.Mat3, beta [3]geom.Mat3, lambda, mu float64) float64 {
	q := func(e geom.Mat3) float64 { return mu*e.DDot(e) + lambda/2*e.Trace()*e.Trace() }
	V := h[0] * h[1] * h[2]
	W := q(alpha)
	for k := 0; k < 3; k++ {
		W += h[k] * h[k] / 12 * q(beta[k])
	}
	return V * W
}

// TestF332ClosedForms: on one box region (0.4 × 0.1 × 0.2 m, 8×2×4
// voxels), the moments integrate the energy exactly:
//   - Linear, and CorotationalLinear at a rotated configuration
//     F(d) = R (I + α + Σ d_k β_k) (α, β_k symmetric: R is F_0's polar
//     rotation), equal the elaston formula with (α, β);
//   - StVenantKirchhoff in pure bending F(d) = R (I + κ d_y e_x e_xᵀ),
//     ν = 0: E_xx = κy + κ²y²/2, W = (E/2) V (κ² h²/12 + κ⁴ h⁴/320) with
//     order 4, and the κ² term alone with order 2 (truncated);
//   - the rigid motion F(d) = R has no energy and no force.
//
// Relative 1e-12: sums of a few dozen products.
func TestF332ClosedForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	h := geom.Vec3{0.4, 0.1, 0.2}
	box := "box = [0.4, 0.1, 0.2]\n  cells = [8, 2, 4]\n  count = 1"
	const E, nu = 1e6, 0.3 // the test sampler's modulus: E_s/E = 1
	lambda, mu := material.Lame(E, nu)
	R := geom.QuatFromAxisAngle(geom.Vec3{1, 2, -0.5}.Normalized(), 2.1).Mat()
	sym := func(a float64) geom.Mat3 {
		var m geom.Mat3
		for i := range m {
			m[i] = a * rng.NormFloat64()
		}
		return m.Sym()
	}
	alpha := sym(0.05)
	beta := [3]geom.Mat3{sym(0.3), sym(0.3), sym(0.3)}
	pack := func(Q geom.Mat3, F0 geom.Mat3, G [3]geom.Mat3) []float64 {
		x := append([]float64(nil), sliceOf(Q.Mul(F0))...)
		for k := 0; k < 3; k++ {
			x = append(x, sliceOf(Q.Mul(G[k]))...)
		}
		return x
	}
	x := pack(R, geom.Identity3().Add(alpha), beta)
	xLin := pack(geom.Identity3(), geom.Identity3().Add(alpha), beta)
	want := elastonEnergy(h, alpha, beta, lambda, mu)
	for _, c := range []struct {
		law string
		x   []float64
	}{{material.NameLinear, xLin}, {material.NameCorotationalLinear, x}} {
		ff, _ := loadF332(t, c.x, box+"\n  order = 2", fmt.Sprintf("materialName = %q\n  youngModulus = %g\n  poissonRatio = %g", c.law, E, nu))
		if W := ff.PotentialEnergy(c.x); math.Abs(W-want) > 1e-12*want {
			t.Errorf("%s: energy %.15g, elaston closed form %.15g", c.law, W, want)
		}
	}
	// Green–Lagrange pure bending, ν = 0.
	const kappa = 0.8
	var G [3]geom.Mat3
	G[1][0] = kappa // ∂F/∂y = κ e_x e_xᵀ
	xb := pack(R, geom.Identity3(), G)
	for _, order := range []int{2, 4} {
		ff, _ := loadF332(t, xb, fmt.Sprintf("%s\n  order = %d", box, order), fmt.Sprintf("materialName = \"StVenantKirchhoff\"\n  youngModulus = %g\n  poissonRatio = 0", E))
		V, hy := h[0]*h[1]*h[2], h[1]
		want := E / 2 * V * kappa * kappa * hy * hy / 12
		if order == 4 {
			want += E / 2 * V * math.Pow(kappa, 4) * math.Pow(hy, 4) / 320
		}
		if W := ff.PotentialEnergy(xb); math.Abs(W-want) > 1e-12*want {
			t.Errorf("StVK bending, order %d: energy %.15g, closed form %.15g", order, W, want)
		}
	}
	// Rigid motion.
	xr := pack(R, geom.Identity3(), [3]geom.Mat3{})
	for _, law := range []string{material.NameCorotationalLinear, material.NameStVenantKirchhoff, material.NameNeoHookean} {
		ff, _ := loadF332(t, xr, box+"\n  order = 4", fmt.Sprintf("materialName = %q\n  youngModulus = %g\n  poissonRatio = %g", law, E, nu))
		f := make([]float64, 36)
		ff.AddForce(f, xr, nil)
		// Strains of a rotation are O(1e-16): energy O(E V 1e-16) (NeoHookean's
		// log J and tr C − 3 cancel to that), forces O(E V 1e-16 / h).
		EV := E * h[0] * h[1] * h[2]
		if W, m := ff.PotentialEnergy(xr), maxAbs(f); math.Abs(W) > 1e-14*EV || m > 1e-13*EV {
			t.Errorf("%s: rigid motion has energy %g, force %g", law, W, m)
		}
	}
}

// TestF332OrderZeroRefused: a sampler of order 0 (or 1) is refused for
// F332 samples, naming the order to set; so are the volume term with
// closed-form integration and quadrature = moments for laws without one.
func TestF332OrderZeroRefused(t *testing.T) {
	x := randomF332(rand.New(rand.NewPCG(1, 1)), 2, 0.1, 0.1, false)
	for _, c := range []struct{ sampler, fields, want string }{
		{"count = 2\n  order = 0", "materialName = \"CorotationalLinear\"", "order = 0 integrates F332 samples by the midpoint rule"},
		{"count = 2\n  order = 1", "materialName = \"StVenantKirchhoff\"", "set order = 2"},
		{"count = 2\n  order = 2", "materialName = \"StVenantKirchhoff\"\n  bulkModulus = 1e6", "needs quadrature = voxels"},
		{"count = 2\n  order = 2", "materialName = \"NeoHookean\"\n  quadrature = \"moments\"", "no closed-form integral"},
	} {
		s, err := graph.Load("e.toml", []byte(fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "TestRegionSampler"
  %s
  [[node.object]]
  type = "MechanicalObject"
  template = "F332"
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  %s
`, c.sampler, tomlRows(x, 36), c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q / %q: error %v, want it to contain %q", c.sampler, c.fields, err, c.want)
		}
	}
}

func sliceOf(m geom.Mat3) []float64 { return m[:] }

// TestF332ReducedShearFixture: with shearIntegration = reduced, the closed
// forms (CorotationalLinear and Linear with moments of order 2,
// StVenantKirchhoff with order 2 and 4) pass the force field fixture
// (force = −∇energy, AddDForce = the differences of AddForce) on the
// samples of TestF332ForceFieldFixture: random heterogeneous off-centre
// regions, random rotations, strains of ~20%, gradients of ~1/m, a third
// inverted. Same tolerance as there.
func TestF332ReducedShearFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	x := randomF332(rng, 12, 0.2, 1, true)
	for _, c := range []struct {
		law   string
		order int
	}{{material.NameCorotationalLinear, 2}, {material.NameLinear, 2}, {material.NameStVenantKirchhoff, 2}, {material.NameStVenantKirchhoff, 4}} {
		t.Run(fmt.Sprintf("%s/order=%d", c.law, c.order), func(t *testing.T) {
			ff, st := loadF332(t, x, fmt.Sprintf("seed = 3\n  count = 12\n  order = %d", c.order), fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.35
  shearIntegration = "reduced"`, c.law))
			graphtest.CheckForceField(t, ff, graph.F332, st.Vec(graph.Position), nil, graphtest.Options{Seed: 7, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
		})
	}
}

// TestF332ReducedShearDefinition checks the reduced energy against its
// definition, computed independently: on a box region (0.4 × 0.1 × 0.2 m,
// 8×2×4 voxels, centred on the sample), W̃ = ∫ Ψ(ε̃(d)) dV with
// ε̃_ii(d) = ε_ii(d) and ε̃_ij(d) = ε_ij(d with d_i = d_j = 0) (i ≠ j),
// Ψ = μ ε̃:ε̃ + λ/2 (tr ε̃)², integrated by 3×3×3-point Gauss–Legendre
// (exact to degree 5: Ψ is of degree 2 in d for the corotational strain
// sym(RᵀF(d)) − I, R the polar rotation of F_0, and of degree 4 for the
// Green–Lagrange strain ½(F(d)ᵀF(d) − I)), at a random rotated and
// strained configuration with large gradients. Also: the energy is
// unchanged when the deformed configuration is rotated (Q F_a for every
// a), and differs from the full integration's (the reduction acts).
// Relative 1e-12: sums of a few hundred products.
func TestF332ReducedShearDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	h := geom.Vec3{0.4, 0.1, 0.2}
	box := "box = [0.4, 0.1, 0.2]\n  cells = [8, 2, 4]\n  count = 1"
	const E, nu = 1e6, 0.3
	lambda, mu := material.Lame(E, nu)
	var F [4]geom.Mat3
	R := geom.QuatFromAxisAngle(geom.Vec3{0.3, -1, 2}.Normalized(), 1.3).Mat()
	for a := 0; a < 4; a++ {
		for i := range F[a] {
			F[a][i] = 0.8 * rng.NormFloat64()
		}
		if a == 0 {
			F[0] = R.Mul(geom.Identity3().Add(F[0].Sym().Scale(0.15)))
		} else {
			F[a] = R.Mul(F[a])
		}
	}
	pack := func(Q geom.Mat3) []float64 {
		var x []float64
		for a := 0; a < 4; a++ {
			x = append(x, sliceOf(Q.Mul(F[a]))...)
		}
		return x
	}
	Fd := func(d geom.Vec3) geom.Mat3 {
		return F[0].Add(F[1].Scale(d[0])).Add(F[2].Scale(d[1])).Add(F[3].Scale(d[2]))
	}
	Rc, _ := geom.Polar(F[0])
	strains := map[string]func(d geom.Vec3) geom.Mat3{
		material.NameCorotationalLinear: func(d geom.Vec3) geom.Mat3 { return Rc.TMul(Fd(d)).Sym().Sub(geom.Identity3()) },
		material.NameStVenantKirchhoff: func(d geom.Vec3) geom.Mat3 {
			f := Fd(d)
			return f.TMul(f).Sub(geom.Identity3()).Scale(0.5)
		},
	}
	gp := [3]float64{-math.Sqrt(0.6), 0, math.Sqrt(0.6)}
	gw := [3]float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
	for law, strain := range strains {
		want := 0.0
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				for k := 0; k < 3; k++ {
					d := geom.Vec3{gp[i] * h[0] / 2, gp[j] * h[1] / 2, gp[k] * h[2] / 2}
					e := strain(d)
					for p := 0; p < 3; p++ {
						for q := 0; q < 3; q++ {
							if p == q {
								continue
							}
							dp := d
							dp[p], dp[q] = 0, 0
							e[3*p+q] = strain(dp)[3*p+q]
						}
					}
					w := gw[i] * gw[j] * gw[k] * h[0] * h[1] * h[2] / 8
					want += w * (mu*e.DDot(e) + lambda/2*e.Trace()*e.Trace())
				}
			}
		}
		order := map[string]int{material.NameCorotationalLinear: 2, material.NameStVenantKirchhoff: 4}[law]
		fields := fmt.Sprintf("materialName = %q\n  youngModulus = %g\n  poissonRatio = %g", law, E, nu)
		ff, _ := loadF332(t, pack(geom.Identity3()), fmt.Sprintf("%s\n  order = %d", box, order), fields+"\n  shearIntegration = \"reduced\"")
		full, _ := loadF332(t, pack(geom.Identity3()), fmt.Sprintf("%s\n  order = %d", box, order), fields)
		W := ff.PotentialEnergy(pack(geom.Identity3()))
		Wfull := full.PotentialEnergy(pack(geom.Identity3()))
		Q := geom.QuatFromAxisAngle(geom.Vec3{1, 1, 0.2}.Normalized(), 2.7).Mat()
		WQ := ff.PotentialEnergy(pack(Q))
		t.Logf("%s: reduced %.15g, definition by Gauss quadrature %.15g; rotated %.15g; full integration %.6g", law, W, want, WQ, Wfull)
		if math.Abs(W-want) > 1e-12*want {
			t.Errorf("%s: reduced energy %.15g, its definition %.15g", law, W, want)
		}
		if math.Abs(WQ-W) > 1e-12*W {
			t.Errorf("%s: rotating the deformed configuration changed the reduced energy from %.15g to %.15g", law, W, WQ)
		}
		if !(math.Abs(Wfull-W) > 1e-3*W) {
			t.Errorf("%s: reduced %.15g and full %.15g energies do not differ", law, W, Wfull)
		}
	}
}

// TestF332ReducedShearBending: the locking mode itself. A region of
// length ℓ = 0.4 m along x (a 0.4 × 0.1 × 0.2 m box, centred) strained as
// two rigid frames blended linearly and bent by κ about z make it (small
// strains, Linear law, ν = 0): ε_xx = −κ y exactly, and the spurious shear
// ε_xy = ½ κ x about the centre, i.e. β_y = −κ e_x e_xᵀ and
// β_x = ½κ (e_x e_yᵀ + e_y e_xᵀ). Full integration adds 2G (κ/2)² ℓ²/12 V
// to the bending energy E κ² h_y²/24 V, the ratio 1 + (G/E)(ℓ/h_y)² (= 9
// here); reduced integration leaves the bending energy alone. The
// z-variation of ε_xy (half of torsion's strain, β_z = ½φ (e_x e_yᵀ +
// e_y e_xᵀ)) is kept: 2G (φ/2)² h_z²/12 V either way. The hand formulas
// are checked against the elaston closed form first. Relative 1e-12.
func TestF332ReducedShearBending(t *testing.T) {
	h := geom.Vec3{0.4, 0.1, 0.2}
	box := "box = [0.4, 0.1, 0.2]\n  cells = [8, 2, 4]\n  count = 1"
	const E, kappa, phi = 1e6, 0.3, 0.7
	lambda, mu := material.Lame(E, 0)
	V := h[0] * h[1] * h[2]
	var exy geom.Mat3
	exy[1], exy[3] = 0.5, 0.5
	var bend [3]geom.Mat3
	bend[1][0] = -kappa        // ∂ε/∂y: ε_xx = −κy
	bend[0] = exy.Scale(kappa) // ∂ε/∂x: ε_xy = ½κx
	var twist [3]geom.Mat3
	twist[2] = exy.Scale(phi) // ∂ε/∂z: ε_xy = ½φz (torsion)
	pack := func(beta [3]geom.Mat3) []float64 {
		x := sliceOf(geom.Identity3())
		for k := 0; k < 3; k++ {
			x = append(x, sliceOf(beta[k])...)
		}
		return x
	}
	for _, c := range []struct {
		name         string
		beta         [3]geom.Mat3
		full, reduce float64
	}{
		{"bending", bend, E * kappa * kappa * h[1] * h[1] / 24 * V * (1 + mu/E*(h[0]/h[1])*(h[0]/h[1])), E * kappa * kappa * h[1] * h[1] / 24 * V},
		{"torsion", twist, 2 * mu * phi * phi / 4 * h[2] * h[2] / 12 * V, 2 * mu * phi * phi / 4 * h[2] * h[2] / 12 * V},
	} {
		if w := elastonEnergy(h, geom.Mat3{}, c.beta, lambda, mu); math.Abs(w-c.full) > 1e-12*c.full {
			t.Fatalf("%s: the elaston closed form %.15g differs from the hand formula %.15g", c.name, w, c.full)
		}
		for _, shear := range []string{"full", "reduced"} {
			ff, _ := loadF332(t, pack(c.beta), box+"\n  order = 2", fmt.Sprintf("materialName = \"Linear\"\n  youngModulus = %g\n  poissonRatio = 0\n  shearIntegration = %q", E, shear))
			want := c.full
			if shear == "reduced" {
				want = c.reduce
			}
			W := ff.PotentialEnergy(pack(c.beta))
			t.Logf("%s, %s: energy %.12g J, expected %.12g J", c.name, shear, W, want)
			if math.Abs(W-want) > 1e-12*want {
				t.Errorf("%s, shearIntegration = %s: energy %.15g, expected %.15g", c.name, shear, W, want)
			}
		}
	}
}

// TestF332ReducedShearRefused: shearIntegration = reduced is refused where
// it is not defined — F331 samples, the voxel quadrature, laws without a
// closed form — and an unknown value is refused.
func TestF332ReducedShearRefused(t *testing.T) {
	x := randomF332(rand.New(rand.NewPCG(1, 1)), 2, 0.1, 0.1, false)
	for _, c := range []struct{ tmpl, fields, want string }{
		{"F332", "materialName = \"NeoHookean\"\n  shearIntegration = \"reduced\"", "not for NeoHookean"},
		{"F332", "materialName = \"StVenantKirchhoff\"\n  quadrature = \"voxels\"\n  shearIntegration = \"reduced\"", "quadrature = voxels"},
		{"F332", "shearIntegration = \"half\"", "not one of full, reduced"},
		{"F331", "materialName = \"CorotationalLinear\"\n  shearIntegration = \"reduced\"", "needs F332 samples"},
	} {
		pos, size := tomlRows(x, 36), "order = 2"
		if c.tmpl == "F331" {
			pos, size = tomlRows(x[:18], 9), "order = 0"
		}
		s, err := graph.Load("e.toml", []byte(fmt.Sprintf(`
[[node]]
name = "samples"
  [[node.object]]
  type = "TestRegionSampler"
  count = 2
  %s
  [[node.object]]
  type = "MechanicalObject"
  template = %q
  position = %s
  [[node.object]]
  type = "DeformationGradientForceField"
  %s
`, size, c.tmpl, pos, c.fields)))
		if err == nil {
			err = s.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s / %q: error %v, want it to contain %q", c.tmpl, c.fields, err, c.want)
		}
	}
}

// TestF332ThinLawFixture: thinLaw = reduced (the law condensed across the
// thin directions on the strain-gradient terms of shell and rod samples)
// passes the force field fixture for CorotationalLinear and Linear on 12
// samples of random regions, a third each solid, shell and rod with random
// axes; its energy differs from the full law's exactly on the thin
// samples and never exceeds it (the condensed law is the minimum of the
// full one over the condensed strains); and it is refused for laws
// without a quadratic closed form.
func TestF332ThinLawFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	x := randomF332(rng, 12, 0.2, 1, true)
	for _, law := range []string{material.NameCorotationalLinear, material.NameLinear} {
		t.Run(law, func(t *testing.T) {
			fields := fmt.Sprintf("materialName = %q\n  youngModulus = 1e6\n  poissonRatio = 0.35", law)
			ff, st := loadF332(t, x, "seed = 3\n  count = 12\n  order = 2", fields+"\n  thinLaw = \"reduced\"")
			graphtest.CheckForceField(t, ff, graph.F332, st.Vec(graph.Position), nil, graphtest.Options{Seed: 7, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
			full, _ := loadF332(t, x, "seed = 3\n  count = 12\n  order = 2", fields)
			for i := 0; i < 12; i++ {
				xi := append([]float64(nil), x...)
				// Only sample i deformed: the others at rest (F = I, ∇F = 0).
				for j := 0; j < 12; j++ {
					if j != i {
						clear(xi[36*j : 36*j+36])
						xi[36*j], xi[36*j+4], xi[36*j+8] = 1, 1, 1
					}
				}
				wr, wf := ff.PotentialEnergy(xi), full.PotentialEnergy(xi)
				if i%3 == 0 && math.Abs(wr-wf) > 1e-12*wf {
					t.Errorf("solid sample %d: energy %.15g, full law %.15g", i, wr, wf)
				}
				if i%3 != 0 && !(wr < wf*(1-1e-6)) {
					t.Errorf("thin sample %d: energy %.15g, not below the full law's %.15g", i, wr, wf)
				}
			}
		})
	}
	_, err := graph.Load("x.toml", []byte(`
[[node]]
name = "n"
  [[node.object]]
  type = "DeformationGradientForceField"
  materialName = "StVenantKirchhoff"
  thinLaw = "reduced"
`))
	if err == nil || !strings.Contains(err.Error(), "thinLaw = reduced") {
		t.Errorf("StVenantKirchhoff with thinLaw = reduced: error %v", err)
	}
}

// TestF332ThinShearStabilizationFixture: with thinShearStabilization the
// force field passes the fixture (force = −∇energy, AddDForce = the
// differences of AddForce) on random samples (a third each solid, shell,
// rod with random axes; rotated, strained ~20%, inverted ones among them),
// alone and with thinLaw = reduced; a solid sample's energy is the full
// law's (1e-12), a thin one's strictly below it, and α → 0 gives the full
// law back (α = 1e-12: 1e-9).
func TestF332ThinShearStabilizationFixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	x := randomF332(rng, 12, 0.2, 1, true)
	for _, law := range []string{material.NameCorotationalLinear, material.NameLinear} {
		for _, extra := range []string{"", "\n  thinLaw = \"reduced\""} {
			t.Run(law+extra, func(t *testing.T) {
				fields := fmt.Sprintf("materialName = %q\n  youngModulus = 1e6\n  poissonRatio = 0.35", law) + extra
				ff, st := loadF332(t, x, "seed = 3\n  count = 12\n  order = 2", fields+"\n  thinShearStabilization = 2")
				graphtest.CheckForceField(t, ff, graph.F332, st.Vec(graph.Position), nil, graphtest.Options{Seed: 7, Trials: 4, Tolerance: fdTolerance, Step: 1e-7})
				full, _ := loadF332(t, x, "seed = 3\n  count = 12\n  order = 2", fields)
				tiny, _ := loadF332(t, x, "seed = 3\n  count = 12\n  order = 2", fields+"\n  thinShearStabilization = 1e-12")
				for i := 0; i < 12; i++ {
					xi := append([]float64(nil), x...)
					for j := 0; j < 12; j++ {
						if j != i {
							clear(xi[36*j : 36*j+36])
							xi[36*j], xi[36*j+4], xi[36*j+8] = 1, 1, 1
						}
					}
					ws, wf, wt := ff.PotentialEnergy(xi), full.PotentialEnergy(xi), tiny.PotentialEnergy(xi)
					if math.Abs(wt-wf) > 1e-9*wf {
						t.Errorf("sample %d: energy with α = 1e-12 %.15g, full law %.15g", i, wt, wf)
					}
					if i%3 == 0 && math.Abs(ws-wf) > 1e-12*wf {
						t.Errorf("solid sample %d: energy %.15g, full law %.15g", i, ws, wf)
					}
					if i%3 != 0 && !(ws < wf*(1-1e-6)) {
						t.Errorf("thin sample %d: energy %.15g, not below the full law's %.15g", i, ws, wf)
					}
				}
			})
		}
	}
}
