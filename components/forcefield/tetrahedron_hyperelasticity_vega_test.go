package forcefield_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestHyperelasticityAgreesWithVegaFEM compares the StVK and neo-Hookean
// TetrahedronHyperelasticityFEMForceField with VegaFEM 4.0 on its
// reference bar (testdata/vega; RegularGridTopology n = [3, 3, 11]
// reproduces the mesh exactly) at both reference poses: energy, force and
// the stiffness products K·probe0, K·probe1. Vega's StVK is
// StVKInternalForces/StVKStiffnessMatrix (the ABCD-integral formulation,
// an independent route to the same energy), its neo-Hookean
// IsotropicHyperelasticFEM on principal stretches without clamping (no
// element comes near J₀ = 0.2: min det F = 0.839). Vega's internal force
// and stiffness are minus ours. Tolerance 1e-9 relative to the largest
// entry, as for the corotational comparison (the reference README expects
// ~1e-10 from summation order; measured ≤ 1.9e-14, logged).
func TestHyperelasticityAgreesWithVegaFEM(t *testing.T) {
	ref := loadVega(t)
	const tol = 1e-9
	for _, c := range []struct {
		material string
		ref      func(p int) *vegaHyperelastic
	}{
		{"StVenantKirchhoff", func(p int) *vegaHyperelastic { return &ref.Poses[p].StVK }},
		{"NeoHookean", func(p int) *vegaHyperelastic { return &ref.Poses[p].NeoHookean }},
	} {
		for p := range ref.Poses {
			t.Run(fmt.Sprintf("%s/%s", c.material, ref.Poses[p].Name), func(t *testing.T) {
				r := c.ref(p)
				if len(r.Force) == 0 || len(r.KP0) == 0 || len(r.KP1) == 0 {
					t.Fatal("reference data missing")
				}
				s := graphtest.MustLoad(t, "vega.toml", fmt.Sprintf(`
[[node]]
name = "bar"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [0.2, 0.2, 1]
  n = [3, 3, 11]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  name = "fem"
  materialName = %q
  youngModulus = 1e6
  poissonRatio = 0.45
`, c.material))
				ff := graphtest.Find[graph.ForceField](t, s, "bar/fem")
				st := graphtest.Find[graph.State](t, s, "bar/dofs")
				x := append([]float64(nil), st.Vec(graph.RestPosition)...)
				for i := range x {
					x[i] += ref.Poses[p].U[i]
				}
				f := make([]float64, len(x))
				ff.AddForce(f, x, nil)
				ef := relMax(f, negate(r.Force))
				w := ff.PotentialEnergy(x)
				ew := math.Abs(w-r.Energy) / math.Abs(r.Energy)
				var ek [2]float64
				for k, probe := range [][]float64{ref.Probes.Probe0, ref.Probes.Probe1} {
					kp := make([]float64, len(x))
					ff.AddDForce(kp, probe, 1, 0)
					want := r.KP0
					if k == 1 {
						want = r.KP1
					}
					ek[k] = relMax(kp, negate(want))
				}
				t.Logf("relative differences from Vega: energy %.2g, force %.2g, K·probe0 %.2g, K·probe1 %.2g", ew, ef, ek[0], ek[1])
				if ef > tol || ew > tol || ek[0] > tol || ek[1] > tol {
					t.Errorf("beyond tolerance %g: energy %.15g vs Vega %.15g", tol, w, r.Energy)
				}
			})
		}
	}
}
