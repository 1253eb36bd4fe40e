package reduced_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	creduced "github.com/sofago/sofago/components/reduced"
	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/reduced"
)

// BenchmarkReducedStep is one implicit Newmark step (one Newton iteration,
// DenseDirectSolver, reduced gravity) of a reduced StVK model with r = 30
// on clamped boxes of 960, 9,600 and 50,400 tetrahedra: the ODE solve alone
// (excluding the u = U q output, which a non-mechanical SubspaceMapping
// does after the step). The cost must not depend on the mesh (Barbič &
// James 2005, Sec. 6: "subspace integration costs independent of geometric
// complexity"). The basis is random (the cost does not depend on its
// values); the precomputation of the 50k mesh takes a few seconds.
func BenchmarkReducedStep(b *testing.B) {
	for _, m := range []struct{ n [3]int }{{[3]int{11, 5, 5}}, {[3]int{21, 11, 9}}, {[3]int{41, 16, 15}}} {
		tets := 6 * (m.n[0] - 1) * (m.n[1] - 1) * (m.n[2] - 1)
		text := fmt.Sprintf(`
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "bar"
  [[node.object]]
  type = "NewmarkImplicitSolver"
  rayleighMass = 0.5
  rayleighStiffness = 0.001
  [[node.object]]
  type = "DenseDirectSolver"
  [[node.object]]
  type = "MechanicalObject"
  name = "q"
  template = "Vec1"
  [[node.object]]
  type = "ReducedStVKForceField"
  name = "stvk"
  topology = "@mesh/grid"
  youngModulus = 1e7
  cache = false
  [[node.object]]
  type = "ReducedMass"
  [[node.node]]
  name = "mesh"
    [[node.node.object]]
    type = "RegularGridTopology"
    name = "grid"
    min = [0, 0, 0]
    max = [2, 0.5, 0.5]
    n = [%d, %d, %d]
    [[node.node.object]]
    type = "MechanicalObject"
    [[node.node.object]]
    type = "SubspaceMapping"
    basis = "@../stvk"
    isMechanical = false
`, m.n[0], m.n[1], m.n[2])
		s, err := graph.Load("bench.toml", []byte(text))
		if err != nil {
			b.Fatal(err)
		}
		ff, _ := graph.FindAs[*creduced.ReducedStVKForceField](s, "bar/stvk")
		np := m.n[0] * m.n[1] * m.n[2]
		rng := rand.New(rand.NewPCG(1, 2))
		U := &reduced.Basis{R: 30, U: make([]float64, 3*np*30)}
		for i := range U.U {
			U.U[i] = 0.01 * (2*rng.Float64() - 1)
		}
		ff.SetBasis(U)
		if err := s.Init(); err != nil {
			b.Fatal(err)
		}
		nd := s.Root.Child("bar")
		ops, err := graph.NewOps(nd)
		if err != nil {
			b.Fatal(err)
		}
		nm, _ := graph.FindAs[*solver.NewmarkImplicitSolver](s, "bar/NewmarkImplicitSolver")
		b.Run(fmt.Sprintf("tets=%d", tets), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := nm.Solve(ops, 0.01); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
