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
)

// polyScene is a node "beam" with a PolyhedralTopology of the given
// fields, a state and a PolyhedronFEMForceField "fem".
func polyScene(topoFields, ffFields string) string {
	return fmt.Sprintf(`
[[node]]
name = "beam"
  [[node.object]]
  type = "PolyhedralTopology"
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "PolyhedronFEMForceField"
  name = "fem"
  youngModulus = 1e6
  poissonRatio = 0.3
  %s
`, topoFields, ffFields)
}

const (
	hexDominant2 = `generator = "hexDominant"
  min = [0, 0, 0]
  max = [0.4, 0.2, 0.2]
  n = [2, 1, 1]`
	voronoiSmall = `generator = "voronoi"
  min = [0, 0, 0]
  max = [0.4, 0.2, 0.2]
  n = [2, 1, 1]
  jitter = 0.15`
)

var polyLaws = []string{"Linear", "CorotationalLinear", "StVenantKirchhoff", "NeoHookean", "StableNeoHookean"}

// polySetups loads one scene with a force field per law (named after it)
// on one topology, whose shape functions are fitted once and shared.
func polySetups(t *testing.T, topo string) map[string]hexSetup {
	t.Helper()
	text := polyScene(topo, `materialName = "Linear"`)
	for _, law := range polyLaws[1:] {
		text += fmt.Sprintf(`  [[node.object]]
  type = "PolyhedronFEMForceField"
  name = %q
  youngModulus = 1e6
  poissonRatio = 0.3
  materialName = %q
`, law, law)
	}
	sc := graphtest.MustLoad(t, "poly.toml", text)
	out := map[string]hexSetup{}
	for _, law := range polyLaws {
		name := law
		if law == "Linear" {
			name = "fem"
		}
		ff := graphtest.Find[*PolyhedronFEMForceField](t, sc, "beam/"+name)
		dofs := graphtest.Find[*graph.MechanicalObject](t, sc, "beam/dofs")
		tmpl, _ := graph.LookupTemplate("Vec3")
		out[law] = hexSetup{ff: ff, cs: &ff.cellSolid, dofs: dofs, rest: append([]float64(nil), dofs.Vec(graph.RestPosition)...), tmpl: tmpl}
	}
	return out
}

// TestPolyFixture: force = −∇W and AddDForce = the derivative of AddForce
// for every law, on a hex-dominant mesh (hexahedra and pyramids) and a
// Voronoi mesh, deformed, rotated and translated.
func TestPolyFixture(t *testing.T) {
	for _, topo := range []string{hexDominant2, voronoiSmall} {
		setups := polySetups(t, topo)
		for _, law := range polyLaws {
			s := setups[law]
			rng := rand.New(rand.NewPCG(4, 9))
			x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.008), randomRotation(rng), geom.Vec3{0.3, -0.1, 0.2})
			if !graphtest.CheckForceField(t, s.ff, s.tmpl, x, nil, graphtest.Options{Seed: 2, Trials: 3, Tolerance: fdTolerance}) {
				t.Errorf("%s, %s: fixture failed", strings.SplitN(topo, "\n", 2)[0], law)
			}
		}
	}
}

// interiorVertices returns the vertices of the rest shape not on the
// boundary of the box [lo, hi].
func interiorVertices(rest []float64, lo, hi geom.Vec3) []int {
	var out []int
	for i := 0; i < len(rest)/3; i++ {
		p := geom.At(rest, i)
		in := true
		for a := 0; a < 3; a++ {
			in = in && p[a] > lo[a]+1e-9 && p[a] < hi[a]-1e-9
		}
		if in {
			out = append(out, i)
		}
	}
	return out
}

// TestPolyPatchAffine is the patch test on polyhedra: under x = A X + b
// (and, for the rotation-invariant laws, x = Q A X + b) every quadrature
// point has F = A exactly (the shape functions reproduce linear fields),
// so the energy is V·Ψ(A); and the corrected gradients integrate to the
// boundary data, so every vertex inside the box has zero force (faces
// shared by two cells contribute opposite boundary integrals) — to
// rounding, whatever the fit error of the shape functions. On a
// hex-dominant mesh of 4×2×2 cells (centres of split cells inside) and a
// Voronoi mesh of 50 cells. Tolerances: interior force 1e-12 of the
// largest (sums of a few hundred terms), energy 1e-14/ε² relative as for
// the hexahedra.
func TestPolyPatchAffine(t *testing.T) {
	A := geom.Mat3{1.05, 0.02, -0.03, 0.01, 0.97, 0.04, -0.02, 0.03, 1.02}
	rng := rand.New(rand.NewPCG(6, 6))
	lo, hi := geom.Vec3{0, 0, 0}, geom.Vec3{0.8, 0.4, 0.4}
	for _, topo := range []string{
		`generator = "hexDominant"
  min = [0, 0, 0]
  max = [0.8, 0.4, 0.4]
  n = [4, 2, 2]`,
		`generator = "voronoi"
  min = [0, 0, 0]
  max = [0.8, 0.4, 0.4]
  n = [4, 2, 2]
  jitter = 0.15`,
	} {
		setups := polySetups(t, topo)
		for _, law := range polyLaws {
			s := setups[law]
			inner := interiorVertices(s.rest, lo, hi)
			if len(inner) == 0 {
				t.Fatal("test setup: no interior vertex")
			}
			for _, rot := range []bool{false, true} {
				if rot && law == "Linear" {
					continue
				}
				M := A
				if rot {
					M = randomRotation(rng).Mul(A)
				}
				x := transform(s.rest, nil, M, geom.Vec3{0.1, 0.2, -0.3})
				f := s.force(x)
				fi := 0.0
				for _, v := range inner {
					fi = math.Max(fi, maxAbs(f[3*v:3*v+3]))
				}
				if fi > 1e-12*maxAbs(f) {
					t.Errorf("%s %s rotated %v: interior force %.3g (largest %.3g)", strings.SplitN(topo, "\n", 2)[0], law, rot, fi, maxAbs(f))
				}
				ff := s.ff.(*PolyhedronFEMForceField)
				want := ff.law.Energy(M) * 0.8 * 0.4 * 0.4
				if W := s.ff.PotentialEnergy(x); math.Abs(W-want) > 1e-14/(0.05*0.05)*want {
					t.Errorf("%s %s rotated %v: energy %.15g, V·Ψ(A) = %.15g", strings.SplitN(topo, "\n", 2)[0], law, rot, W, want)
				}
			}
		}
	}
}

// TestPolyRigidMotionNoForce: rigid motions give zero force and energy
// for every law but Linear (forces against a 1% stretch's, 1e-12; energy
// 1e-15·E·V as for the hexahedra).
func TestPolyRigidMotionNoForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 4))
	setups := polySetups(t, voronoiSmall)
	for _, law := range polyLaws[1:] {
		s := setups[law]
		ref := maxAbs(s.force(transform(s.rest, nil, geom.Diag(geom.Vec3{1.01, 1, 1}), geom.Vec3{})))
		x := transform(s.rest, nil, randomRotation(rng), geom.Vec3{1, -2, 0.5})
		if f := maxAbs(s.force(x)); f > 1e-12*ref {
			t.Errorf("%s: rigid motion gives force %.3g (1%% stretch: %.3g)", law, f, ref)
		}
		if W := s.ff.PotentialEnergy(x); math.Abs(W) > 1e-15*1e6*0.016 {
			t.Errorf("%s: rigid motion gives energy %.3g", law, W)
		}
	}
}

// stiffness returns −K (dense) of a force field on n points by columns of
// AddDForce.
func stiffness(ff graph.ForceField, n int) []float64 {
	K := make([]float64, 9*n*n)
	d := make([]float64, 3*n)
	for j := 0; j < 3*n; j++ {
		clear(d)
		d[j] = 1
		df := make([]float64, 3*n)
		ff.AddDForce(df, d, 1, 0)
		for i := range df {
			K[i*3*n+j] = -df[i]
		}
	}
	return K
}

// TestPolyCubeStiffnessEqualsHexahedron: one cube as a polyhedron (its
// harmonic shape functions are trilinear to the fit accuracy, 6.8e-8)
// integrated with the degree-5 rule (exact for the trilinear stiffness's
// degree-4 integrand on the 24 tetrahedra of its subdivision) has the
// stiffness of the trilinear hexahedron with 2×2×2 Gauss points (exact
// on a box): linear law, every entry to 1e-6 of the largest (measured
// below; the difference comes from the fit). With the default degree 2
// the difference is the quadrature error of a degree-4 integrand,
// logged.
func TestPolyCubeStiffnessEqualsHexahedron(t *testing.T) {
	cube := `generator = "hexDominant"
  split = "none"
  min = [0, 0, 0]
  max = [1, 1, 1]
  n = [1, 1, 1]`
	hex := loadHex(t, [3]int{2, 2, 2}, [3]float64{1, 1, 1}, "HexahedronFEMForceField", `method = "small"
  youngModulus = 1e6
  poissonRatio = 0.3`)
	Kh := stiffness(hex.ff, 8)
	// Grid vertex order = the polyhedral generator's: i + 2(j + 2k).
	for _, deg := range []int{5, 2} {
		s := hexFrom(t, graphtest.MustLoad(t, "poly.toml", polyScene(cube, fmt.Sprintf("materialName = \"Linear\"\n  quadratureDegree = %d", deg))))
		if !slicesEqual(s.rest, hex.rest) {
			t.Fatal("test setup: the two cubes' points differ")
		}
		Kp := stiffness(s.ff, 8)
		diff, big := 0.0, 0.0
		for i := range Kh {
			diff = math.Max(diff, math.Abs(Kp[i]-Kh[i]))
			big = math.Max(big, math.Abs(Kh[i]))
		}
		t.Logf("quadrature degree %d: max |K_poly − K_hex| / max |K_hex| = %.2g", deg, diff/big)
		if deg == 5 && diff > 1e-6*big {
			t.Errorf("degree 5: stiffness differs from the hexahedron's by %.3g of its largest entry (limit 1e-6)", diff/big)
		}
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPolyPerElementModulus: a region of another Young's modulus scales
// the energy of the cells whose vertex mean it contains (E = 1e6 → 3e6 on
// x > 0.2): the energy of a uniform stretch is Σ V_e Ψ_e with Ψ ∝ E, so
// it equals (V_left + 3 V_right)·Ψ(A) with the cells' volumes (1e-12).
func TestPolyPerElementModulus(t *testing.T) {
	topo := `generator = "hexDominant"
  min = [0, 0, 0]
  max = [0.4, 0.2, 0.2]
  n = [2, 1, 1]`
	s := hexFrom(t, graphtest.MustLoad(t, "poly.toml", polyScene(topo, `materialName = "StVenantKirchhoff"
  regions = [{box = [0.2, -1, -1, 1, 1, 1], youngModulus = 3e6}]`)))
	ff := s.ff.(*PolyhedronFEMForceField)
	A := geom.Diag(geom.Vec3{1.02, 0.99, 1})
	x := transform(s.rest, nil, A, geom.Vec3{})
	want := 0.0
	for e := 0; e < ff.NumElements(); e++ {
		k := 1.0
		if ff.mesh.centre[3*e] >= 0.2 {
			k = 3
		}
		want += k * ff.mesh.vol[e] * ff.law.Energy(A)
	}
	if W := ff.PotentialEnergy(x); math.Abs(W-want) > 1e-12*want {
		t.Errorf("energy %.15g, Σ (Eₑ/E) Vₑ Ψ(A) = %.15g", W, want)
	}
	// The split cell (pyramids, x < 0.2) and the hexahedron (x > 0.2):
	// the stiff half holds three quarters of the energy.
	if W := ff.PotentialEnergy(x); math.Abs(W/(4*0.2*0.2*0.2*ff.law.Energy(A))-1) > 1e-12 {
		t.Errorf("energy %.15g, (1 + 3)·V_half·Ψ(A) = %.15g", W, 4*0.008*ff.law.Energy(A))
	}
}
