package modal_test

import (
	"fmt"
	"testing"

	"github.com/sofago/sofago/graph/graphtest"
	"github.com/sofago/sofago/modal"
	"github.com/sofago/sofago/sparse"
)

// benchMeshes are the meshes of the benchmarks: a 1×1×1.1 m block of
// 21×21×23 vertices (10,143 vertices, 52,800 tetrahedra: "10k vertices"),
// a 0.8×0.8×2.6 m bar of 9×9×27 vertices in 0.1 m cubes (2,187 vertices,
// 9,984 tetrahedra: "10k tetrahedra", VegaFEM's largest timing bar),
// clamped at z = 0, StVK E = 1e6 Pa, ν = 0.45, consistent mass.
var benchMeshes = []struct {
	name     string
	max      string
	n        string
	vertices int
}{
	{"10k_tets", "[0.8, 0.8, 2.6]", "[9, 9, 27]", 2187},
	{"10k_vertices", "[1, 1, 1.1]", "[21, 21, 23]", 10143},
}

func benchSystem(b *testing.B, max, n string) *modal.System {
	b.Helper()
	s := graphtest.MustLoad(b, "bench.toml", fmt.Sprintf(`
[[node]]
name = "block"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = %s
  n = %s
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e6
  poissonRatio = 0.45
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, -1, -0.001, 2, 2, 0.001]
`, max, n))
	sys, err := modal.AssembleFromScene(s.Root)
	if err != nil {
		b.Fatal(err)
	}
	return sys
}

// BenchmarkAssembleFromScene: K and M of the mesh on the free DOFs.
func BenchmarkAssembleFromScene(b *testing.B) {
	for _, m := range benchMeshes {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				benchSystem(b, m.max, m.n)
			}
		})
	}
}

// BenchmarkCholeskyK: numeric factorisation of K (nested-dissection
// ordering, symbolic analysis done once), and one solve.
func BenchmarkCholeskyK(b *testing.B) {
	for _, m := range benchMeshes {
		sys := benchSystem(b, m.max, m.n)
		coords := make([]float64, 3*len(sys.Free))
		rest := sys.State.Vec(1) // graph.RestPosition
		for k, i := range sys.Free {
			copy(coords[3*k:3*k+3], rest[3*(i/3):3*(i/3)+3])
		}
		perm, err := sparse.NestedDissection(sys.K, coords)
		if err != nil {
			b.Fatal(err)
		}
		sym, err := sparse.Analyze(sys.K, perm)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(m.name+"/factor", func(b *testing.B) {
			for b.Loop() {
				if _, err := sym.Factor(sys.K); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(sym.Flops()/1e9, "Gflop")
			b.ReportMetric(float64(sym.NnzL())/1e6, "M-nnz(L)")
		})
		c, err := sym.Factor(sys.K)
		if err != nil {
			b.Fatal(err)
		}
		x := make([]float64, sys.K.Rows)
		rhs := make([]float64, sys.K.Rows)
		for i := range rhs {
			rhs[i] = 1
		}
		b.Run(m.name+"/solve", func(b *testing.B) {
			for b.Loop() {
				c.Solve(x, rhs)
			}
		})
	}
}

// BenchmarkLinearModes20: the 20 lowest modes, factorisation included.
func BenchmarkLinearModes20(b *testing.B) {
	for _, m := range benchMeshes {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				sys := benchSystem(b, m.max, m.n)
				b.StartTimer()
				if _, err := modal.LinearModes(sys, 20, modal.DefaultEigenOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkModalDerivatives6: the 21 derivatives of 6 modes (right-hand
// sides and solves; K's factor is the one the modes left in the cache).
func BenchmarkModalDerivatives6(b *testing.B) {
	for _, m := range benchMeshes {
		sys := benchSystem(b, m.max, m.n)
		modes, err := modal.LinearModes(sys, 6, modal.DefaultEigenOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := modal.ModalDerivatives(sys, modes, modal.DerivativeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkModalDerivativeBasis: the whole pipeline of the target
// ("modes and derivatives for 10,000 tetrahedra under 60 s"): assembly, 6
// modes, 21 derivatives, eq. 16 scaling, mass-PCA to r = 15.
func BenchmarkModalDerivativeBasis(b *testing.B) {
	for _, m := range benchMeshes {
		b.Run(m.name, func(b *testing.B) {
			s := graphtest.MustLoad(b, "bench.toml", fmt.Sprintf(`
[[node]]
name = "block"
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = %s
  n = %s
  [[node.object]]
  type = "MechanicalObject"
  [[node.object]]
  type = "MeshMatrixMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronHyperelasticityFEMForceField"
  materialName = "StVenantKirchhoff"
  youngModulus = 1e6
  poissonRatio = 0.45
  [[node.object]]
  type = "FixedConstraint"
  box = [-1, -1, -0.001, 2, 2, 0.001]
`, m.max, m.n))
			for b.Loop() {
				if _, _, err := modal.BuildModalDerivativeBasis(s.Root, modal.BasisOptions{Modes: 6, Size: 15}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
