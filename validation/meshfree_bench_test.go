package validation

import (
	"fmt"
	"testing"

	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// meshfreeSolid1000 is a 2 × 0.5 × 0.5 m meshfree solid (40 × 10 × 10
// voxels as material points) with 1,000 GMLS nodes (Affine3; the nine of
// the clamped face x = 0 fixed) and 2,000 F332 elastons placed by
// MeshfreeSampler, corotational elastons of order 2, a lumped UniformMass
// on the nodes, gravity, implicit Euler with sparse Cholesky.
const meshfreeSolid1000 = `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "solid"
  [[node.object]]
  type = "EulerImplicitSolver"
%s  [[node.object]]
  type = "MaterialGrid"
  box = [0, 0, 0, 2, 0.5, 0.5]
  resolution = [40, 10, 10]
  youngModulus = 1e6
  massDensity = 1000
  [[node.object]]
  type = "MeshfreeSampler"
  frames = "@nodes"
  nodeCount = 1000
  fixedNodes = [[0, 0.1, 0.1], [0, 0.25, 0.1], [0, 0.4, 0.1], [0, 0.1, 0.25], [0, 0.25, 0.25], [0, 0.4, 0.25], [0, 0.1, 0.4], [0, 0.25, 0.4], [0, 0.4, 0.4]]
  elastonCount = 2000
  order = 2
  [[node.object]]
  type = "MechanicalObject"
  name = "nodes"
  template = "Affine3"
  [[node.object]]
  type = "UniformMass"
  totalMass = 500
  [[node.object]]
  type = "FixedConstraint"
  indices = [0, 1, 2, 3, 4, 5, 6, 7, 8]
  [[node.node]]
  name = "elastons"
    [[node.node.object]]
    type = "MechanicalObject"
    name = "samples"
    template = "F332"
    [[node.node.object]]
    type = "GMLSMapping"
    [[node.node.object]]
    type = "DeformationGradientForceField"
    materialName = "CorotationalLinear"
    youngModulus = 1e6
    poissonRatio = 0.3
`

// BenchmarkMeshfreeImplicitStep1000 measures one implicit Euler step (one
// linearised solve by sparse Cholesky, the tangent assembled through the
// GMLS mapping) of a 1,000-node meshfree solid with 2,000 elastons; it
// reports the time per node and per elaston. The sampling (Lloyd) and the
// GMLS shape functions are computed at Init, outside the timing.
//
// Two linear solvers: matrix-free CG (at most 100 iterations, as
// BenchmarkImplicitEulerStepBeam10k) and SparseCholeskySolver, whose
// assembly of Jᵀ K J through the mapping (one dense 36 × 12n block
// product per elaston, n ≈ 30 nodes in a support) dominates its step.
func BenchmarkMeshfreeImplicitStep1000(b *testing.B) {
	for _, c := range []struct{ name, solver string }{
		{"CG", "  [[node.object]]\n  type = \"CGLinearSolver\"\n  iterations = 100\n  tolerance = 1e-8\n"},
		{"SparseCholesky", "  [[node.object]]\n  type = \"SparseCholeskySolver\"\n"},
		// The first step's factor kept (W = I: GMLS nodes give no point
		// rotations), converged to 1e-8.
		{"PCG-warp", "  [[node.object]]\n  type = \"PCGLinearSolver\"\n  preconditioner = \"warp\"\n  tolerance = 1e-8\n  iterations = 1000\n"},
	} {
		b.Run(c.name, func(b *testing.B) { benchMeshfreeStep(b, fmt.Sprintf(meshfreeSolid1000, c.solver)) })
	}
}

func benchMeshfreeStep(b *testing.B, text string) {
	s := graphtest.MustLoad(b, "meshfree_solid1000.toml", text)
	if err := s.Step(); err != nil { // leave the rest state
		b.Fatal(err)
	}
	nodes := graphtest.Find[graph.State](b, s, "solid/nodes").Size()
	elastons := graphtest.Find[graph.State](b, s, "solid/elastons/samples").Size()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNanos()
	for i := 0; i < b.N; i++ {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNanos()-cpu0)/1e9/float64(b.N), "cpu-s/step")
	if ls, ok := graphtest.Find[graph.Object](b, s, "solid/EulerImplicitSolver").Base().Node.LinearSolver().(interface{ LastStats() graph.LinearStats }); ok {
		b.ReportMetric(float64(ls.LastStats().Iterations), "iters/last-step")
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/float64(nodes), "ns/node")
	b.ReportMetric(ns/float64(elastons), "ns/elaston")
}
