package solver_test

import (
	"fmt"
	"testing"

	"github.com/sofago/sofago/components/solver"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// TestSparseCholeskyOrderingSlenderVsCube: with ordering =
// "nestedDissection" the solver keeps whichever of nested dissection and
// the band ordering along the longest axis costs fewer operations. On a
// slender bar (40 × 2 × 2 cells) the band ordering wins: the pivots come
// in increasing x (the permutation is sorted by the rest x of each row);
// on a cube (8 × 8 × 8 cells) nested dissection wins by far and the
// permutation is not sorted by any axis. One static Newton solve each, so
// the solver has analysed its matrix.
func TestSparseCholeskyOrderingSlenderVsCube(t *testing.T) {
	for _, c := range []struct {
		name   string
		max    string
		n      string
		sorted bool
	}{{"slender bar", "[1, 0.05, 0.05]", "[41, 3, 3]", true}, {"cube", "[1, 1, 1]", "[9, 9, 9]", false}} {
		s := graphtest.MustLoad(t, "ordering.toml", fmt.Sprintf(`
gravity = [0, -9.81, 0]
[[node]]
name = "body"
  [[node.object]]
  type = "StaticSolver"
  [[node.object]]
  type = "SparseCholeskySolver"
  name = "lin"
  ordering = "nestedDissection"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = %s
  n = %s
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  youngModulus = 1e7
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-0.001, -1, -1, 0.001, 2, 2]
`, c.max, c.n))
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
		lin := graphtest.Find[*solver.SparseCholeskySolver](t, s, "body/lin")
		rest := graphtest.Find[graph.State](t, s, "body/dofs").Vec(graph.RestPosition)
		perm := lin.Symbolic().Perm()
		sorted := true
		for k := 1; k < len(perm); k++ {
			if rest[3*(perm[k]/3)] < rest[3*(perm[k-1]/3)] {
				sorted = false
				break
			}
		}
		t.Logf("%s: %.3g flops, pivots sorted by x: %v", c.name, lin.Symbolic().Flops(), sorted)
		if sorted != c.sorted {
			t.Errorf("%s: pivots sorted by x = %v, want %v", c.name, sorted, c.sorted)
		}
	}
}
