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

// massAssemblyCases are the masses the assembly tests compare with
// AddMDx: the Vec3 masses on a heterogeneous tetrahedral grid, and the
// triangle masses on a flat grid (n = 1 along y) with a region.
var massAssemblyCases = func() []struct{ name, typ, grid, extra string } {
	const volume = "max = [1, 0.3, 0.2]\n  n = [5, 3, 2]"
	const surface = "max = [1, 0, 0.2]\n  n = [5, 1, 3]"
	const het = "massDensity = 800\n  regions = [{box = [0, -1, 0, 0.5, 1, 1], massDensity = 3000}]"
	return []struct{ name, typ, grid, extra string }{
		{"DiagonalMass", "DiagonalMass", volume, het},
		{"MeshMatrixMass", "MeshMatrixMass", volume, het},
		{"UniformMass", "UniformMass", volume, "totalMass = 12"},
		{"DiagonalMass/triangles", "DiagonalMass", surface, het + "\n  thickness = 0.003"},
		{"MeshMatrixMass/triangles", "MeshMatrixMass", surface, het + "\n  thickness = 0.003"},
	}
}()

// TestAssembledMassMatchesAddMDx checks that AddMToMatrix and AddMDx give
// the same M·v for the lumped, consistent and uniform masses on a small
// heterogeneous mesh (and the triangle masses on a flat one) (exactly the same products, summed in different
// orders: 1e-14 relative), and that the assembled consistent mass sums to
// 3× the physical mass (each of x, y, z carries it).
func TestAssembledMassMatchesAddMDx(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range massAssemblyCases {
		typ := c.typ
		t.Run(c.name, func(t *testing.T) {
			s := graphtest.MustLoad(t, "m.toml", `
[[node]]
name = "b"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  `+c.grid+`
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "`+typ+`"
  name = "mass"
  `+c.extra+`
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

// TestMassBlocksMatchAddMDxColumns assembles each Vec3 mass from its 3×3
// blocks (MassBlocks/MBlocks through sparse.BSR3Assembly, the solvers'
// path) and compares every column M·e_j with AddMDx(e_j): the same
// products (the same stored values times one), so 1e-12 relative to the
// column's largest entry is generous (measured exact).
func TestMassBlocksMatchAddMDxColumns(t *testing.T) {
	for _, c := range massAssemblyCases {
		typ := c.typ
		t.Run(c.name, func(t *testing.T) {
			s := graphtest.MustLoad(t, "m.toml", `
[[node]]
name = "b"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  `+c.grid+`
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "`+typ+`"
  name = "mass"
  `+c.extra+`
`)
			m := graphtest.Find[graph.Mass](t, s, "b/mass")
			st := graphtest.Find[graph.State](t, s, "b/dofs")
			n := 3 * st.Size()
			mb := m.(graph.MassBlockAssembler)
			as, err := sparse.NewBSR3Assembly(st.Size(), [][]int32{mb.MassBlocks()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			const f = 1.9
			mb.MBlocks(as.Source(0), f)
			as.Gather(nil)
			e := make([]float64, n)
			got := make([]float64, n)
			worst := 0.0
			for j := 0; j < n; j++ {
				e[j] = 1
				want := make([]float64, n)
				m.AddMDx(want, e, f)
				as.A.MulVec(got, e)
				e[j] = 0
				d, mx := 0.0, 0.0
				for i := range got {
					d = math.Max(d, math.Abs(got[i]-want[i]))
					mx = math.Max(mx, math.Abs(want[i]))
				}
				worst = math.Max(worst, d/mx)
			}
			t.Logf("max over columns |M e_j − AddMDx(e_j)| / max = %.2g", worst)
			if worst > 1e-12 {
				t.Errorf("block-assembled M differs from AddMDx by %.3g relative", worst)
			}
		})
	}
}
