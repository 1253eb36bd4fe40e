package forcefield_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// benchShell returns a shell of 10,082 triangles (a 72 × 72-point
// cylindrical patch, 5,184 bending stencils) at a randomly deformed,
// rotated configuration.
func benchShell(b *testing.B) (*forcefield.TriangularShellForceField, []float64) {
	s := graphtest.MustLoad(b, "shell.toml", shellRoofScene(72, 72, "  youngModulus = 1e6\n  poissonRatio = 0.3\n  thickness = 0.01"))
	ff := graphtest.Find[*forcefield.TriangularShellForceField](b, s, "sheet/shell")
	rest := ff.Base().Node.State().Vec(graph.RestPosition)
	rng := rand.New(rand.NewPCG(1, 1))
	return ff, shellTransform(rest, shellRandom(rng, len(rest), 0.002), shellRotation(rng), geom.Vec3{})
}

// BenchmarkShellForce10k: one force evaluation (AddForce, keeping each
// triangle's and stencil's tangent for AddDForce) of a 10k-triangle
// shell; ns/triangle = ns/op ÷ 10,082. Run with -cpu 1,2.
func BenchmarkShellForce10k(b *testing.B) {
	ff, x := benchShell(b)
	f := make([]float64, len(x))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ff.AddForce(f, x, nil)
	}
}

// BenchmarkShellDForce10k: one tangent product K·dx (AddDForce) of the
// same shell.
func BenchmarkShellDForce10k(b *testing.B) {
	ff, x := benchShell(b)
	f := make([]float64, len(x))
	ff.AddForce(f, x, nil)
	dx := graphtest.RandomDeriv(rand.New(rand.NewPCG(2, 2)), len(x), 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ff.AddDForce(f, dx, 1, 0)
	}
}
