package validation

import (
	"testing"

	"github.com/sofago/sofago/graph/graphtest"
)

// beam10k is a corotational beam of 104 × 4 × 4 cells = 9,984 tetrahedra
// (2,625 vertices), 1 m × 0.04 m × 0.04 m, clamped at x = 0, under gravity.
const beam10k = `
dt = 0.01
gravity = [0, -9.81, 0]
[[node]]
name = "beam"
  [[node.object]]
  type = "EulerImplicitSolver"
  rayleighStiffness = 0.1
  rayleighMass = 0.1
  [[node.object]]
  type = "CGLinearSolver"
  iterations = 100
  tolerance = 1e-9
  [[node.object]]
  type = "RegularGridTopology"
  min = [0, 0, 0]
  max = [1, 0.04, 0.04]
  n = [105, 5, 5]
  [[node.object]]
  type = "MechanicalObject"
  name = "dofs"
  [[node.object]]
  type = "DiagonalMass"
  massDensity = 1000
  [[node.object]]
  type = "TetrahedronFEMForceField"
  method = "large"
  youngModulus = 1e8
  poissonRatio = 0.3
  [[node.object]]
  type = "FixedConstraint"
  box = [-1e-9, -1, -1, 1e-9, 1, 1]
`

// BenchmarkImplicitEulerStepBeam10k measures one implicit Euler step (one
// linearised solve by matrix-free CG, at most 100 iterations) of the
// 9,984-tetrahedron beam, the way a user advances a scene.
func BenchmarkImplicitEulerStepBeam10k(b *testing.B) {
	s := graphtest.MustLoad(b, "beam10k.toml", beam10k)
	for i := 0; i < 3; i++ { // leave the rest state
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
