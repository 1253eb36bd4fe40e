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

var hyperMaterials = []string{"StVenantKirchhoff", "NeoHookean", "StableNeoHookean"}

type hyperSetup struct {
	ff   *TetrahedronHyperelasticityFEMForceField
	dofs *graph.MechanicalObject
	rest []float64
	tmpl graph.Template
}

// loadHyper builds femScene's grid with a
// TetrahedronHyperelasticityFEMForceField "fem" with the given fields.
func loadHyper(t testing.TB, n [3]int, size [3]float64, fields string) hyperSetup {
	t.Helper()
	text := strings.Replace(femScene(n, size, fields), `type = "TetrahedronFEMForceField"`, `type = "TetrahedronHyperelasticityFEMForceField"`, 1)
	s := graphtest.MustLoad(t, "hyper.toml", text)
	ff := graphtest.Find[*TetrahedronHyperelasticityFEMForceField](t, s, "beam/fem")
	dofs := graphtest.Find[*graph.MechanicalObject](t, s, "beam/dofs")
	tmpl, _ := graph.LookupTemplate("Vec3")
	return hyperSetup{ff: ff, dofs: dofs, rest: append([]float64(nil), dofs.Vec(graph.RestPosition)...), tmpl: tmpl}
}

func (s hyperSetup) force(x []float64) []float64 {
	f := make([]float64, len(x))
	s.ff.AddForce(f, x, nil)
	return f
}

func (s hyperSetup) dforce(d []float64, k float64) []float64 {
	df := make([]float64, len(d))
	s.ff.AddDForce(df, d, k, 0)
	return df
}

func countInvertedSolid(m *tetElements, x []float64) int {
	n := 0
	for e := 0; e < m.numElements(); e++ {
		if m.gradient(e, x).Det() < 0 {
			n++
		}
	}
	return n
}

// hyperFixtureOptions returns the fixture options for configuration x:
// tolerance fdTolerance (1e-8) and a step of 1e-7·max|x|, ten times
// smaller than the fixture's default. The energy check compares f·d with
// the central difference of W along a random direction d that moves every
// vertex by up to one unit; its h² truncation error, relative to f·d, was
// measured at 5.7e-8 with h = 1e-6 (NeoHookean, ν = 0.45: the volumetric
// term (ln J)² has large third derivatives, and f·d can be small by
// cancellation: −628 there against entries of 2e4), and falls as h²
// (5.7e-6 at h = 1e-5, 6e-11 at 1e-7), so the default step measures the
// truncation, not the force. At 1e-7 the worst measured disagreements are
// 1.8e-9 for the tangent and 1.4e-8 of f·d for the energy, the latter the
// rounding of the energy difference (W ≈ 245 J summed over 216 elements,
// ≈ 1e-15·W/h ≈ 3e-6 absolute), which the fixture allows for.
func hyperFixtureOptions(x []float64, seed uint64) graphtest.Options {
	return graphtest.Options{Seed: seed, Trials: 4, Tolerance: fdTolerance, Step: 1e-7 * maxAbs(x)}
}

// TestHyperelasticFixture runs graphtest.CheckForceField (force = −∇W,
// AddDForce = central differences of AddForce) for every law on a
// rotated, translated grid with random displacements of 8 % and 30 % of
// the element size (stretches of up to ±60 %), ν = 0.45.
func TestHyperelasticFixture(t *testing.T) {
	h := 0.1
	for _, name := range hyperMaterials {
		for _, amp := range []float64{0.08, 0.3} {
			for seed := uint64(1); seed <= 2; seed++ {
				s := loadHyper(t, [3]int{4, 3, 3}, [3]float64{0.3, 0.2, 0.2}, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.45`, name))
				rng := rand.New(rand.NewPCG(seed, 42))
				u := randomDisplacement(rng, len(s.rest), amp*h)
				x := transform(s.rest, u, randomRotation(rng), geom.Vec3{0.3, -0.2, 0.5})
				if inv := countInvertedSolid(s.ff.mesh, x); inv != 0 {
					t.Fatalf("test setup: %d inverted elements", inv)
				}
				if !graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, hyperFixtureOptions(x, seed)) {
					t.Errorf("%s, amplitude %g, seed %d: fixture failed", name, amp, seed)
				}
			}
		}
	}
}

// TestHyperelasticInvertedElements: with displacements of 45 % of the
// element size many elements invert; the neo-Hookean laws give finite
// forces and pass the fixture there (NeoHookean through its Taylor
// extension below J₀ = 0.2, StableNeoHookean as is). StVK is checked too:
// it is a polynomial, defined for inverted elements (though not restoring).
func TestHyperelasticInvertedElements(t *testing.T) {
	h := 0.1
	for _, name := range hyperMaterials {
		s := loadHyper(t, [3]int{4, 4, 4}, [3]float64{0.3, 0.3, 0.3}, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.45`, name))
		rng := rand.New(rand.NewPCG(5, 5))
		u := randomDisplacement(rng, len(s.rest), 0.45*h)
		x := transform(s.rest, u, randomRotation(rng), geom.Vec3{})
		inv := countInvertedSolid(s.ff.mesh, x)
		if inv < 5 {
			t.Fatalf("test setup: only %d inverted elements", inv)
		}
		f := s.force(x)
		for i, v := range f {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s: force %d is %g", name, i, v)
			}
		}
		t.Logf("%s: %d of %d elements inverted", name, inv, s.ff.NumElements())
		if !graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, hyperFixtureOptions(x, 5)) {
			t.Errorf("%s: fixture failed with inverted elements", name)
		}
	}
}

// TestHyperelasticInvertedTetRestores pushes the apex of one tetrahedron
// through its base (J = −0.5, and J = 0 exactly): the neo-Hookean laws pull
// it back up (+z), with finite force and tangent.
func TestHyperelasticInvertedTetRestores(t *testing.T) {
	for _, name := range []string{"NeoHookean", "StableNeoHookean"} {
		for _, z := range []float64{-0.5, 0} {
			topo := &listTopology{ObjectBase: graph.ObjectBase{Name: "tet"},
				points: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1}, tets: [][4]int{{0, 1, 2, 3}}}
			ff := NewTetrahedronHyperelasticityFEMForceField()
			ff.MaterialName = name
			if _, err := buildDirectFF(topo, ff); err != nil {
				t.Fatal(err)
			}
			x := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, z}
			f := make([]float64, 12)
			ff.AddForce(f, x, nil)
			df := make([]float64, 12)
			ff.AddDForce(df, []float64{0.1, 0.2, 0.3, -0.1, 0.4, 0.2, 0.3, -0.2, 0.1, 0.5, 0.1, -0.3}, 1, 0)
			for i := range f {
				if math.IsNaN(f[i]) || math.IsInf(f[i], 0) || math.IsNaN(df[i]) || math.IsInf(df[i], 0) {
					t.Fatalf("%s, apex z = %g: non-finite force %v or df %v", name, z, f, df)
				}
			}
			if !(f[11] > 0) {
				t.Errorf("%s, apex z = %g: force on the apex %v, want it pointing up (+z)", name, z, f[9:12])
			}
		}
	}
}

// buildDirectFF builds a scene in code: a node with topo, a Vec3
// MechanicalObject with the topology's points, and the force field.
func buildDirectFF(topo graph.Topology, ff graph.Object) (*graph.Scene, error) {
	s := graph.NewScene("direct")
	n := s.Root.AddChild("body")
	tmpl, _ := graph.LookupTemplate("Vec3")
	if topo != nil {
		n.Add(topo)
	}
	n.Add(graph.NewMechanicalObject("dofs", tmpl, 0))
	n.Add(ff)
	return s, s.Init()
}

// TestHyperelasticRigidMotion: a rigid motion gives zero force for every
// law (1e-10 of the force of a 1 % stretch, the rounding of F amplified
// by E·V/h).
func TestHyperelasticRigidMotion(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, name := range hyperMaterials {
		s := loadHyper(t, [3]int{5, 3, 3}, [3]float64{0.4, 0.2, 0.2}, fmt.Sprintf(`materialName = %q
  youngModulus = 1e6`, name))
		fRef := maxAbs(s.force(transform(s.rest, nil, geom.Diag(geom.Vec3{1.01, 1, 1}), geom.Vec3{})))
		for trial := 0; trial < 5; trial++ {
			Q := randomRotation(rng)
			b := geom.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			x := transform(s.rest, nil, Q, b)
			if f := maxAbs(s.force(x)); f > 1e-10*fRef {
				t.Errorf("%s: rigid motion gives max force %.3g (1 %% stretch: %.3g)", name, f, fRef)
			}
			if w := s.ff.PotentialEnergy(x); math.Abs(w) > 1e-10*fRef*0.01 {
				t.Errorf("%s: rigid motion stores energy %.3g", name, w)
			}
		}
	}
}

// TestHyperelasticPatchAffine: under an affine map x = A X + b (a large
// one: stretches of ±30 %, rotated) every element has F = A, so the stress
// is uniform and interior vertices carry zero net force.
func TestHyperelasticPatchAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	n := [3]int{4, 4, 4}
	for _, name := range hyperMaterials {
		s := loadHyper(t, n, [3]float64{0.3, 0.3, 0.3}, fmt.Sprintf(`materialName = %q`, name))
		A := randomRotation(rng).Mul(geom.Diag(geom.Vec3{1.3, 0.8, 1.1}).Add(randomMat3(rng, 0.1)))
		x := transform(s.rest, nil, A, geom.Vec3{0.1, 0.2, 0.3})
		f := s.force(x)
		scale := maxAbs(f)
		for k := 1; k < n[2]-1; k++ {
			for j := 1; j < n[1]-1; j++ {
				for i := 1; i < n[0]-1; i++ {
					v := i + n[0]*(j+n[1]*k)
					if fv := geom.At(f, v).Norm(); fv > 1e-12*scale {
						t.Errorf("%s: interior vertex %d has net force %.3g (max boundary force %.3g)", name, v, fv, scale)
					}
				}
			}
		}
	}
}

func randomMat3(rng *rand.Rand, a float64) geom.Mat3 {
	var m geom.Mat3
	for i := range m {
		m[i] = a * (2*rng.Float64() - 1)
	}
	return m
}

// TestHyperelasticMatchesLawPerElement: energy and forces equal the sum
// over elements of V Ψ(F) and −V P(F)∇N computed directly with the
// material package and the shape gradients (an independent assembly).
func TestHyperelasticMatchesLawPerElement(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	for _, name := range hyperMaterials {
		s := loadHyper(t, [3]int{3, 3, 3}, [3]float64{0.2, 0.2, 0.2}, fmt.Sprintf(`materialName = %q
  youngModulus = 3e5
  poissonRatio = 0.3`, name))
		law, _ := material.New(name, 3e5, 0.3)
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.02), randomRotation(rng), geom.Vec3{})
		want := make([]float64, len(x))
		wantW := 0.0
		m := s.ff.mesh
		for e := 0; e < m.numElements(); e++ {
			vs := m.vertices(e)
			x0 := geom.At(x, vs[0])
			Ds := geom.Cols(geom.At(x, vs[1]).Sub(x0), geom.At(x, vs[2]).Sub(x0), geom.At(x, vs[3]).Sub(x0))
			F := Ds.Mul(m.restInverse(e))
			wantW += m.volume(e) * law.Energy(F)
			P := law.Stress(F)
			for a, g := range m.shapeGradients(e) {
				geom.AddAt(want, vs[a], P.MulVec(g).Scale(-m.volume(e)))
			}
		}
		if e := relDiff(s.force(x), want); e > 1e-13 {
			t.Errorf("%s: forces differ from the direct assembly by %.3g", name, e)
		}
		if w := s.ff.PotentialEnergy(x); math.Abs(w-wantW) > 1e-13*wantW {
			t.Errorf("%s: energy %.17g, direct %.17g", name, w, wantW)
		}
	}
}

// TestHyperelasticTangentSymmetric: the exact tangent is a Hessian.
func TestHyperelasticTangentSymmetric(t *testing.T) {
	for _, name := range hyperMaterials {
		s := loadHyper(t, [3]int{4, 3, 3}, [3]float64{0.3, 0.2, 0.2}, fmt.Sprintf(`materialName = %q`, name))
		rng := rand.New(rand.NewPCG(19, 19))
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.03), randomRotation(rng), geom.Vec3{})
		s.force(x)
		for trial := 0; trial < 3; trial++ {
			d := randomDisplacement(rng, len(x), 1)
			e := randomDisplacement(rng, len(x), 1)
			kd, ke := s.dforce(d, 1), s.dforce(e, 1)
			a, b := dot(e, kd), dot(d, ke)
			if scale := math.Sqrt(dot(e, e) * dot(kd, kd)); math.Abs(a-b) > 1e-10*scale {
				t.Errorf("%s: tangent not symmetric: %.15g vs %.15g", name, a, b)
			}
		}
	}
}

// TestHyperelasticDeterministicAcrossWorkers: bitwise identical results
// with 1, 2 and 3 workers.
func TestHyperelasticDeterministicAcrossWorkers(t *testing.T) {
	for _, name := range hyperMaterials {
		s := loadHyper(t, [3]int{21, 7, 7}, [3]float64{2, 0.6, 0.6}, fmt.Sprintf(`materialName = %q`, name))
		rng := rand.New(rand.NewPCG(23, 23))
		x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.02), randomRotation(rng), geom.Vec3{})
		d := randomDisplacement(rng, len(x), 1)
		var f0, df0 []float64
		var w0 float64
		for _, workers := range []int{1, 2, 3} {
			s.ff.asm.setWorkers(workers)
			f, df, w := s.force(x), s.dforce(d, 0.7), s.ff.PotentialEnergy(x)
			if workers == 1 {
				f0, df0, w0 = f, df, w
				continue
			}
			for i := range f {
				if f[i] != f0[i] || df[i] != df0[i] {
					t.Fatalf("%s: %d workers differ from 1 at entry %d", name, workers, i)
				}
			}
			if w != w0 {
				t.Fatalf("%s: energy with %d workers differs", name, workers)
			}
		}
	}
}

// TestHyperelasticDForceBeforeForce: AddDForce before any AddForce
// linearises at the state's position.
func TestHyperelasticDForceBeforeForce(t *testing.T) {
	s := loadHyper(t, [3]int{3, 3, 3}, [3]float64{0.2, 0.2, 0.2}, `materialName = "NeoHookean"`)
	rng := rand.New(rand.NewPCG(29, 29))
	x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.01), randomRotation(rng), geom.Vec3{})
	copy(s.dofs.Vec(graph.Position), x)
	d := randomDisplacement(rng, len(x), 1)
	before := s.dforce(d, 1)
	s.force(x)
	after := s.dforce(d, 1)
	for i := range before {
		if before[i] != after[i] {
			t.Fatalf("AddDForce before AddForce differs at %d: %v vs %v", i, before[i], after[i])
		}
	}
}

// TestHeterogeneousStiffness: per-element Young's moduli (a list, or a
// region) give the energy and forces of the law built with each
// element's own E (an independent route: material.New per element
// against the force field's scaling by Eₑ/E), for both tetrahedral force
// fields.
func TestHeterogeneousStiffness(t *testing.T) {
	n, size := [3]int{4, 3, 3}, [3]float64{0.3, 0.2, 0.2}
	ne := 3 * 2 * 2 * 6
	rng := rand.New(rand.NewPCG(31, 31))
	list := make([]string, ne)
	Es := make([]float64, ne)
	for e := range list {
		Es[e] = 1e5 * (1 + 9*rng.Float64())
		list[e] = fmt.Sprintf("%.17g", Es[e])
	}
	perElement := "youngModulusPerElement = [" + strings.Join(list, ", ") + "]"
	// The region: the half x > 0.15 of the bar at 8e5 Pa.
	region := `regions = [{box = [0.15, -1, -1, 1, 1, 1], youngModulus = 8e5}]`
	type ffCase struct {
		typ, fields, lawName string
	}
	cases := []ffCase{
		{"TetrahedronHyperelasticityFEMForceField", `materialName = "NeoHookean"`, material.NameNeoHookean},
		{"TetrahedronHyperelasticityFEMForceField", `materialName = "StVenantKirchhoff"`, material.NameStVenantKirchhoff},
		{"TetrahedronFEMForceField", `method = "polar"`, material.NameCorotationalLinear},
		{"TetrahedronFEMForceField", `method = "small"`, material.NameLinear},
	}
	for _, c := range cases {
		for _, het := range []string{perElement, region} {
			text := strings.Replace(femScene(n, size, c.fields+"\n  youngModulus = 2e5\n  poissonRatio = 0.35\n  "+het),
				`type = "TetrahedronFEMForceField"`, `type = "`+c.typ+`"`, 1)
			s := graphtest.MustLoad(t, "het.toml", text)
			ff := graphtest.Find[graph.ForceField](t, s, "beam/fem")
			dofs := graphtest.Find[graph.State](t, s, "beam/dofs")
			var m *tetElements
			switch f := ff.(type) {
			case *TetrahedronFEMForceField:
				m = f.mesh
			case *TetrahedronHyperelasticityFEMForceField:
				m = f.mesh
			}
			rest := dofs.Vec(graph.RestPosition)
			x := transform(rest, randomDisplacement(rng, len(rest), 0.01), randomRotation(rng), geom.Vec3{})
			want := make([]float64, len(x))
			wantW := 0.0
			for e := 0; e < m.numElements(); e++ {
				E := Es[e]
				if het == region {
					E = 2e5
					c := geom.Vec3{}
					for _, v := range m.vertices(e) {
						c = c.Add(geom.At(rest, v))
					}
					if c.Scale(0.25)[0] >= 0.15 {
						E = 8e5
					}
				}
				law, _ := material.New(c.lawName, E, 0.35)
				F := m.gradient(e, x)
				wantW += m.volume(e) * law.Energy(F)
				P := law.Stress(F)
				var out [12]float64
				m.nodalForces(e, &P, -m.volume(e), out[:])
				for a, v := range m.vertices(e) {
					geom.AddAt(want, v, geom.Vec3{out[3*a], out[3*a+1], out[3*a+2]})
				}
			}
			f := make([]float64, len(x))
			ff.AddForce(f, x, nil)
			// Scaling the law of E by Eₑ/E rounds differently from the
			// law of Eₑ: 1e-15 per element.
			if e := relDiff(f, want); e > 1e-12 {
				t.Errorf("%s %s, %.20s…: forces differ from per-element laws by %.3g", c.typ, c.fields, het, e)
			}
			if w := ff.PotentialEnergy(x); math.Abs(w-wantW) > 1e-12*wantW {
				t.Errorf("%s %s, %.20s…: energy %.15g, per-element laws %.15g", c.typ, c.fields, het, w, wantW)
			}
		}
	}
}

// TestHyperelasticErrors: bad fields are errors naming what is wrong.
func TestHyperelasticErrors(t *testing.T) {
	n, size := [3]int{2, 2, 2}, [3]float64{1, 1, 1}
	for _, c := range []struct{ typ, fields, want string }{
		{"TetrahedronHyperelasticityFEMForceField", `materialName = "MooneyRivlin"`, "is not one of"},
		{"TetrahedronHyperelasticityFEMForceField", `poissonRatio = 0.5`, "out of range"},
		{"TetrahedronHyperelasticityFEMForceField", `youngModulusPerElement = [1, 2]`, "youngModulusPerElement has 2 values, the mesh has 6"},
		{"TetrahedronHyperelasticityFEMForceField", `massDensityPerElement = [1, 2, 3, 4, 5, 6]`, `unknown field "massDensityPerElement"`},
		{"TetrahedronHyperelasticityFEMForceField", `regions = [{box = [0, 0, 0, 1, 1, 1], massDensity = 3}]`, `unknown field "massDensity"`},
		{"TetrahedronFEMForceField", `regions = [{sphere = [0, 0, 0, -1], youngModulus = 3}]`, "radius > 0"},
		{"TetrahedronFEMForceField", `youngModulusPerElement = [1, 2, 3, 4, 5, 6, 7]`, "has 7 values"},
	} {
		text := strings.Replace(femScene(n, size, c.fields), `type = "TetrahedronFEMForceField"`, `type = "`+c.typ+`"`, 1)
		sc, err := graph.Load("bad.toml", []byte(text))
		if err == nil {
			err = sc.Init()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got error %v, want one containing %q", c.typ, c.fields, err, c.want)
		} else {
			t.Logf("%s", err)
		}
	}
	// Missing topology, built in code.
	if _, err := buildDirectFF(nil, NewTetrahedronHyperelasticityFEMForceField()); err == nil || !strings.Contains(err.Error(), "no topology") {
		t.Errorf("no topology: got %v", err)
	}
}
