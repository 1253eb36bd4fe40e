package forcefield_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"

	_ "github.com/sofago/sofago/components/topology"
)

// vegaForces is the part of testdata/vega/forces.json these tests read.
type vegaForces struct {
	Poses []struct {
		Name         string    `json:"name"`
		U            []float64 `json:"u"`
		Corotational struct {
			Energy float64     `json:"energy"`
			Force  []float64   `json:"force"`
			Warp1  vegaTangent `json:"warp1_stiffness_warping"`
			Warp2  vegaTangent `json:"warp2_exact_tangent"`
		} `json:"corotational_linear"`
		Linear struct {
			Energy float64   `json:"energy"`
			Force  []float64 `json:"force"`
		} `json:"linear_fem_warp0"`
		StVK       vegaHyperelastic `json:"stvk"`
		NeoHookean vegaHyperelastic `json:"neohookean"`
	} `json:"poses"`
	Probes struct {
		Probe0 []float64 `json:"probe0"`
		Probe1 []float64 `json:"probe1"`
	} `json:"probes"`
}

// vegaHyperelastic is one law's reference at one pose: energy, internal
// force and stiffness products.
type vegaHyperelastic struct {
	Energy float64   `json:"energy"`
	Force  []float64 `json:"force"`
	vegaTangent
}

type vegaTangent struct {
	KDiag []float64 `json:"K_diag"`
	KP0   []float64 `json:"K_times_probe0"`
	KP1   []float64 `json:"K_times_probe1"`
}

func loadVega(t *testing.T) vegaForces {
	t.Helper()
	data, err := os.ReadFile("../../testdata/vega/forces.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vegaForces
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// vegaBar builds the reference bar of testdata/vega (RegularGridTopology
// reproduces its mesh exactly: see the topology tests) with the given
// TetrahedronFEMForceField method and tangent.
func vegaBar(t *testing.T, method, tangent string) (graph.ForceField, graph.State) {
	t.Helper()
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
  type = "TetrahedronFEMForceField"
  name = "fem"
  method = %q
  tangent = %q
  youngModulus = 1e6
  poissonRatio = 0.45
`, method, tangent))
	return graphtest.Find[graph.ForceField](t, s, "bar/fem"), graphtest.Find[graph.State](t, s, "bar/dofs")
}

// relMax returns max|a − b| / max|b|.
func relMax(a, b []float64) float64 {
	d, m := 0.0, 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		m = math.Max(m, math.Abs(b[i]))
	}
	return d / m
}

func negate(v []float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = -v[i]
	}
	return out
}

// TestTetrahedronFEMAgreesWithVegaFEM compares energies, forces and
// stiffness-times-probe products with VegaFEM 4.0 at both reference poses:
// "polar" against CorotationalLinearFEM (warp 2 = exact tangent, warp 1 =
// stiffness warping R K0 Rᵀ), "small" against linear FEM (warp 0). Vega's
// internal force and stiffness are minus ours. The reference README expects
// a correct float64 implementation to agree to ~1e-10 relative to the
// largest entry (Vega's polar decomposition is a Higham iteration accurate
// to ~1e-12, and summation orders differ); 1e-9 leaves a margin for that
// and nothing more.
func TestTetrahedronFEMAgreesWithVegaFEM(t *testing.T) {
	ref := loadVega(t)
	const tol = 1e-9
	cases := []struct {
		method, tangent string
		energy          func(p int) float64
		force           func(p int) []float64
		tangentRef      func(p int) *vegaTangent
	}{
		{"polar", "exact",
			func(p int) float64 { return ref.Poses[p].Corotational.Energy },
			func(p int) []float64 { return ref.Poses[p].Corotational.Force },
			func(p int) *vegaTangent { return &ref.Poses[p].Corotational.Warp2 }},
		{"svd", "exact",
			func(p int) float64 { return ref.Poses[p].Corotational.Energy },
			func(p int) []float64 { return ref.Poses[p].Corotational.Force },
			func(p int) *vegaTangent { return &ref.Poses[p].Corotational.Warp2 }},
		{"polar", "warped",
			func(p int) float64 { return ref.Poses[p].Corotational.Energy },
			func(p int) []float64 { return ref.Poses[p].Corotational.Force },
			func(p int) *vegaTangent { return &ref.Poses[p].Corotational.Warp1 }},
		{"small", "exact",
			func(p int) float64 { return ref.Poses[p].Linear.Energy },
			func(p int) []float64 { return ref.Poses[p].Linear.Force },
			nil},
	}
	for _, c := range cases {
		for p := range ref.Poses {
			t.Run(fmt.Sprintf("%s-%s/%s", c.method, c.tangent, ref.Poses[p].Name), func(t *testing.T) {
				ff, st := vegaBar(t, c.method, c.tangent)
				x := append([]float64(nil), st.Vec(graph.RestPosition)...)
				for i := range x {
					x[i] += ref.Poses[p].U[i]
				}
				f := make([]float64, len(x))
				ff.AddForce(f, x, nil)
				if e := relMax(f, negate(c.force(p))); e > tol {
					t.Errorf("force: relative difference %.3g from Vega", e)
				}
				if w, wr := ff.PotentialEnergy(x), c.energy(p); math.Abs(w-wr) > tol*math.Abs(wr) {
					t.Errorf("energy %.15g, Vega %.15g (relative %.3g)", w, wr, math.Abs(w-wr)/wr)
				}
				if c.tangentRef == nil {
					return
				}
				tr := c.tangentRef(p)
				for k, probe := range [][]float64{ref.Probes.Probe0, ref.Probes.Probe1} {
					kp := make([]float64, len(x))
					ff.AddDForce(kp, probe, 1, 0)
					want := tr.KP0
					if k == 1 {
						want = tr.KP1
					}
					if e := relMax(kp, negate(want)); e > tol {
						t.Errorf("K·probe%d: relative difference %.3g from Vega", k, e)
					}
				}
			})
		}
	}
}
