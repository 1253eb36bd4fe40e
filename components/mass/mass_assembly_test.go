package mass_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/sparse"

	_ "github.com/sofago/sofago/components/topology"
)

// TestAssembledMassMatchesAddMDx checks that AddMToMatrix and AddMDx give
// the same M·v for the lumped, consistent and uniform masses on a small
// heterogeneous mesh (exactly the same products, summed in different
// orders: 1e-14 relative), and that the assembled consistent mass sums to
// 3× the physical mass (each of x, y, z carries it).
func TestAssembledMassMatchesAddMDx(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, typ := range []string{"DiagonalMass", "MeshMatrixMass", "UniformMass"} {
		t.Run(typ, func(t *testing.T) {
			extra := "massDensity = 800\n  regions = [{box = [0, 0, 0, 0.5, 1, 1], massDensity = 3000}]"
			if typ == "UniformMass" {
				extra = "totalMass = 12"
			}
			s := graphtest.MustLoad(t, "m.toml", `
[[node]]
name = "b"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.3, 0.2]
  n = [5, 3, 2]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "`+typ+`"
  name = "mass"
  `+extra+`
`)
			m := graphtest.Find[graph.Mass](t, s, "b/mass")
			st := graphtest.Find[graph.State](t, s, "b/dofs")
			n := 3 * st.Size()
			b := sparse.NewBuilder(n, n)
			m.(graph.MassAssembler).AddMToMatrix(b, 2)
			M, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			if !M.Symmetric(0) {
				t.Error("assembled mass not symmetric")
			}
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.Float64()*2 - 1
			}
			want := make([]float64, n)
			m.AddMDx(want, v, 2)
			got := make([]float64, n)
			M.MulVec(got, v)
			d, mx := 0.0, 0.0
			for i := range got {
				d = math.Max(d, math.Abs(got[i]-want[i]))
				mx = math.Max(mx, math.Abs(want[i]))
			}
			if d > 1e-14*mx {
				t.Errorf("M·v differs from AddMDx by %.3g relative", d/mx)
			}
			total := 0.0
			for _, x := range M.Val {
				total += x
			}
			ones := make([]float64, n)
			for i := range ones {
				ones[i] = 1
			}
			ref := make([]float64, n)
			m.AddMDx(ref, ones, 2)
			sum := 0.0
			for _, x := range ref {
				sum += x
			}
			if math.Abs(total-sum) > 1e-12*sum {
				t.Errorf("sum of entries %.17g, 1ᵀM1 from AddMDx %.17g", total, sum)
			}
		})
	}
}
