package forcefield_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/sofago/sofago/components/all"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// plasticSolid is what the plasticity tests need of both force fields.
type plasticSolid interface {
	graph.ForceField
	graph.StepEnder
	PlasticStrain() []float64
	SetPlasticStrain([]float64) error
	NumElements() int
}

// plasticVariants are the force fields and laws under test: every
// corotational method and two hyperelastic laws, on tetrahedra and on
// hexahedra.
var plasticVariants = []struct{ typ, fields string }{
	{"TetrahedronFEMForceField", `method = "small"`},
	{"TetrahedronFEMForceField", `method = "large"`},
	{"TetrahedronFEMForceField", `method = "polar"`},
	{"TetrahedronFEMForceField", `method = "svd"`},
	{"TetrahedronHyperelasticityFEMForceField", `materialName = "StVenantKirchhoff"`},
	{"TetrahedronHyperelasticityFEMForceField", `materialName = "NeoHookean"`},
	{"HexahedronFEMForceField", `method = "small"`},
	{"HexahedronFEMForceField", `method = "large"`},
	{"HexahedronFEMForceField", `method = "polar"`},
	{"HexahedronFEMForceField", `method = "svd"`},
	{"HexahedronHyperelasticityFEMForceField", `materialName = "StVenantKirchhoff"`},
	{"HexahedronHyperelasticityFEMForceField", `materialName = "NeoHookean"`},
}

// gridElements is the RegularGridTopology field for the element type of
// force field typ: hexahedra for the hexahedral ones (else the grid's
// default tetrahedra).
func gridElements(typ string) string {
	if strings.HasPrefix(typ, "Hexahedron") {
		return `elements = "hexahedra"`
	}
	return ""
}

// TestPlasticFixtures: with a non-zero plastic state (random plastic
// strains up to 5 %), the force is still −∇W and AddDForce the
// derivative of the force (graphtest.CheckForceField, the tolerance of
// the elastic fixtures, fdTolerance = 1e-8 in tetrahedron_fem_test.go).
func TestPlasticFixtures(t *testing.T) {
	for _, v := range plasticVariants {
		text := fmt.Sprintf(`
[[node]]
name = "b"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.3, 0.2, 0.2]
  n = [4, 3, 3]
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "ff"
  youngModulus = 1e6
  poissonRatio = 0.3
  plasticMaxThreshold = 0.1
  %s
`, gridElements(v.typ), v.typ, v.fields)
		s := graphtest.MustLoad(t, "fixture.toml", text)
		ff := graphtest.Find[plasticSolid](t, s, "b/ff")
		dofs := graphtest.Find[*graph.MechanicalObject](t, s, "b/dofs")
		rng := rand.New(rand.NewPCG(5, 9))
		eps := make([]float64, 6*ff.NumElements())
		for i := range eps {
			eps[i] = 0.05 * (2*rng.Float64() - 1) / 3 // |entries| ≤ 0.05/3, so ‖εₚ‖ ≤ 0.05 < max
		}
		if err := ff.SetPlasticStrain(eps); err != nil {
			t.Fatal(err)
		}
		rest := dofs.Vec(graph.RestPosition)
		x := make([]float64, len(rest))
		for i := range x {
			x[i] = rest[i] + 0.008*(2*rng.Float64()-1)
		}
		tmpl, _ := graph.LookupTemplate("Vec3")
		if !graphtest.CheckForceField(t, ff, tmpl, x, nil, graphtest.Options{Seed: 3, Trials: 4, Tolerance: 1e-8}) {
			t.Errorf("%s %s: fixture failed with a plastic state", v.typ, v.fields)
		}
		// The plastic state changes the forces: at the rest positions the
		// force is no longer zero.
		f := make([]float64, len(x))
		ff.AddForce(f, rest, nil)
		if maxAbsT(f) == 0 {
			t.Errorf("%s %s: the plastic state has no effect on the force", v.typ, v.fields)
		}
	}
}

func maxAbsT(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// barScene is a bar [0, L]×[0, H]×[0, H] on three symmetry planes
// (x = 0, y = 0, z = 0 each fixed in its normal direction only, so a
// homogeneous deformation diag(a, b, b) about the origin is free), pulled
// by a uniform nominal traction p on its end x = L, solved statically.
const barL, barH = 0.4, 0.1

func barScene(typ, fields string, E, nu, p float64) string {
	return fmt.Sprintf(`
dt = 1
gravity = [0, 0, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "StaticSolver"
  iterations = 50
  tolerance = 1e-12
  absoluteTolerance = 1e-10
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [%g, %g, %g]
  n = [5, 2, 2]
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = %q
  name = "ff"
  youngModulus = %g
  poissonRatio = %g
  %s
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
  fixedDirections = [true, false, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1, -1e-9, -1, 1, 1e-9, 1]
  fixedDirections = [false, true, false]
  [[node.object]]
  type = "PartialFixedConstraint"
  box = [-1, -1, -1e-9, 1, 1, 1e-9]
  fixedDirections = [false, false, true]
  [[node.object]]
  %s
  keyTimes = [1, 2]
  keyFactors = [1, 0]
`, barL, barH, barH, gridElements(typ), typ, E, nu, fields, pull(typ, p))
}

// pull is the load of barScene on the end x = L: for tetrahedra a
// SurfaceTractionForceField p (its triangle loads are consistent for
// linear elements); for hexahedra the consistent load of a uniform
// traction on the bilinear end face, p H²/4 on each of its 4 nodes
// (ConstantForceField's totalForce spread evenly: the triangles of the
// traction field would load the quad's diagonal nodes twice as much as
// the others, which is not uniform stress for trilinear elements).
func pull(typ string, p float64) string {
	box := fmt.Sprintf("box = [%g, -1, -1, %g, 1, 1]", barL-1e-9, barL+1e-9)
	if strings.HasPrefix(typ, "Hexahedron") {
		return fmt.Sprintf("type = \"ConstantForceField\"\n  name = \"pull\"\n  %s\n  totalForce = [%g, 0, 0]", box, p*barH*barH)
	}
	return fmt.Sprintf("type = \"SurfaceTractionForceField\"\n  name = \"pull\"\n  %s\n  traction = [%g, 0, 0]", box, p)
}

// stretches returns the axial and lateral stretches a, b of the bar from
// its far corner (L, H, H) ↦ (aL, bH, bH), checking that the deformation
// is homogeneous, x = diag(a, b, b) X at every point, to tol.
func stretches(t *testing.T, rest, x []float64, tol float64) (a, b float64) {
	t.Helper()
	for i := 0; i < len(rest); i += 3 {
		if rest[i] == barL && rest[i+1] == barH && rest[i+2] == barH {
			a, b = x[i]/barL, x[i+1]/barH
		}
	}
	for i := 0; i < len(rest); i += 3 {
		want := [3]float64{a * rest[i], b * rest[i+1], b * rest[i+2]}
		for c := 0; c < 3; c++ {
			if d := math.Abs(x[i+c] - want[c]); d > tol*barL {
				t.Fatalf("deformation not homogeneous at point %d: x = %v, want %v", i/3, x[i:i+3], want)
			}
		}
	}
	return a, b
}

// TestPlasticUniaxialBar stretches a bar beyond yield (one static step
// under the traction p), releases it (a second static step without the
// traction) and checks the flow rule's closed form: the step-end update
// turns εₚ = c·εₑ with εₑ = diag(a − 1, b − 1, b − 1) the elastic strain
// of the stretched bar (corotated or Biot: F is diagonal, so R = I), and
// the released bar is the stress-free shape x = (I + εₚ) X. For the
// corotational methods a − 1 = p/E and b − 1 = −ν p/E exactly (linear
// stress in the corotated strain). Hexahedra: every Gauss point has the
// same strain, so the element's volume-averaged strain is the same εₑ. With plasticMaxThreshold below
// ‖c·εₑ‖ the strain is clamped to max·εₑ/‖εₑ‖. Below yield nothing is
// kept: the bar returns to its rest shape.
//
// Tolerance 1e-8 on the strains (the brief's): Newton is run to a
// residual of 1e-10 N on forces of ~2e2 N and a stiffness ~1e5 N/m, so
// positions are exact to ~1e-15 m; the measured agreement (-v) is a few
// 1e-16.
func TestPlasticUniaxialBar(t *testing.T) {
	const E, nu, c = 1e6, 0.3, 0.7
	const p = 2e4 // εₑ ≈ 2 %
	for _, v := range plasticVariants {
		for _, tc := range []struct {
			name        string
			yield, maxp float64
		}{
			{"flow", 0.01, 0.5},
			{"clamped", 0.01, 0.005},
			{"below yield", 0.05, 0.5},
		} {
			fields := fmt.Sprintf("%s\n  plasticYieldThreshold = %g\n  plasticMaxThreshold = %g\n  plasticCreep = %g", v.fields, tc.yield, tc.maxp, c)
			s := graphtest.MustLoad(t, "bar.toml", barScene(v.typ, fields, E, nu, p))
			ff := graphtest.Find[plasticSolid](t, s, "bar/ff")
			dofs := graphtest.Find[*graph.MechanicalObject](t, s, "bar/dofs")
			rest := append([]float64(nil), dofs.Vec(graph.RestPosition)...)
			what := fmt.Sprintf("%s %s, %s", v.typ, v.fields, tc.name)

			if err := s.Step(); err != nil {
				t.Fatalf("%s: stretch: %v", what, err)
			}
			a, b := stretches(t, rest, dofs.Vec(graph.Position), 1e-11)
			if v.typ == "TetrahedronFEMForceField" || v.typ == "HexahedronFEMForceField" {
				if math.Abs(a-1-p/E) > 1e-11 || math.Abs(b-1+nu*p/E) > 1e-11 {
					t.Errorf("%s: stretches a = %.15g, b = %.15g, want 1 + p/E = %.15g, 1 − νp/E = %.15g", what, a, b, 1+p/E, 1-nu*p/E)
				}
			}
			ee := [3]float64{a - 1, b - 1, b - 1}
			norm := math.Sqrt(ee[0]*ee[0] + ee[1]*ee[1] + ee[2]*ee[2])
			var want [3]float64
			if norm > tc.yield {
				scale := c
				if c*norm > tc.maxp {
					scale = tc.maxp / norm
				}
				for i := range want {
					want[i] = scale * ee[i]
				}
			}
			eps := ff.PlasticStrain()
			for e := 0; e < ff.NumElements(); e++ {
				got := eps[6*e : 6*e+6]
				for i, w := range [6]float64{want[0], want[1], want[2], 0, 0, 0} {
					if math.Abs(got[i]-w) > 1e-8 {
						t.Fatalf("%s: element %d plastic strain %v, want %v", what, e, got, want)
					}
				}
			}

			if err := s.Step(); err != nil {
				t.Fatalf("%s: release: %v", what, err)
			}
			ra, rb := stretches(t, rest, dofs.Vec(graph.Position), 1e-11)
			if math.Abs(ra-1-want[0]) > 1e-8 || math.Abs(rb-1-want[1]) > 1e-8 {
				t.Errorf("%s: released strains %.3e, %.3e; want the plastic strains %.3e, %.3e", what, ra-1, rb-1, want[0], want[1])
			}
			t.Logf("%s: released strain errors %.1e, %.1e", what, ra-1-want[0], rb-1-want[1])
			// The release is elastic (εₑ ≈ 0 < yield): εₚ is unchanged.
			if got := ff.PlasticStrain()[0]; math.Abs(got-want[0]) > 1e-8 {
				t.Errorf("%s: plastic strain changed on release: %g, want %g", what, got, want[0])
			}
		}
	}
}

// TestPlasticEnergyNeverIncreases: a free-floating block (no gravity, no
// constraint, no load: no external work) starts stretched by 8 % along
// x, beyond yield, and vibrates under implicit Euler while it flows.
// The total energy T + W, with W at the step's end plastic state, must
// never increase from one step to the next (relative tolerance 1e-12,
// rounding of the energy sums), and the block must keep a plastic strain
// (a component of at least 0.005, or half the maximum when lower). Run with the maximum
// out of reach (0.05) and binding (0.003: the clamp rescales εₚ).
// Plastic flow removes elastic energy: each update moves εₚ towards the
// strain, shrinking the elastic strain εₑ by the factor 1 − c to first
// order.
func TestPlasticEnergyNeverIncreases(t *testing.T) {
	for _, c := range plasticVariants {
		for _, maxp := range []float64{0.05, 0.003} { // free, and clamped by the maximum
			v := c
			text := fmt.Sprintf(`
dt = 0.002
gravity = [0, 0, 0]
[[node]]
name = "block"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighStiffness = 0
  rayleighMass = 0
  [[node.object]]
  type = "SparseCholeskySolver"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.1, 0.1]
  n = [5, 3, 3]
  %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = %q
  name = "ff"
  youngModulus = 1e5
  poissonRatio = 0.3
  plasticYieldThreshold = 0.01
  plasticMaxThreshold = %g
  plasticCreep = 0.3
  %s
`, gridElements(v.typ), v.typ, maxp, v.fields)
			s := graphtest.MustLoad(t, "block.toml", text)
			ff := graphtest.Find[plasticSolid](t, s, "block/ff")
			dofs := graphtest.Find[*graph.MechanicalObject](t, s, "block/dofs")
			x := dofs.Vec(graph.Position)
			for i := 0; i < len(x); i += 3 {
				x[i] *= 1.08
			}
			ke, pe := s.Energies()
			prev := ke + pe
			for step := 1; step <= 100; step++ {
				if err := s.Step(); err != nil {
					t.Fatalf("%s %s: step %d: %v", v.typ, v.fields, step, err)
				}
				ke, pe := s.Energies()
				if e := ke + pe; e > prev*(1+1e-12) {
					t.Fatalf("%s %s: energy rose at step %d: %.15g → %.15g", v.typ, v.fields, step, prev, e)
				} else {
					prev = e
				}
			}
			if maxAbsT(ff.PlasticStrain()) < math.Min(0.005, 0.5*maxp) {
				t.Errorf("%s %s, max %g: no plastic flow (max plastic strain %g): the test proves nothing", v.typ, v.fields, maxp, maxAbsT(ff.PlasticStrain()))
			}
		}
	}
}
