package forcefield_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// benchBeam returns a 10,000-element rod at a random bent configuration.
func benchBeam(b *testing.B) (*forcefield.BeamFEMForceField, []float64) {
	s := graphtest.MustLoad(b, "beam.toml", beamScene(rodFrames(10000, 10, geom.QuatIdentity()), "radius = 0.01", ""))
	ff := graphtest.Find[*forcefield.BeamFEMForceField](b, s, "rod/beam")
	rest := ff.Base().Node.State().Vec(graph.RestPosition)
	return ff, randomRigid(rand.New(rand.NewPCG(1, 1)), rest, 0.3, 1e-4)
}

// BenchmarkBeamFEMAddForce10kElements: one force evaluation (with the
// element tangents kept for AddDForce) of a 10k-element rod; ns/element =
// ns/op ÷ 10,000. Run with -cpu 1,2.
func BenchmarkBeamFEMAddForce10kElements(b *testing.B) {
	ff, x := benchBeam(b)
	f := make([]float64, 6*(len(x)/7))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ff.AddForce(f, x, nil)
	}
}

// BenchmarkBeamFEMAddDForce10kElements: one tangent product K·dx.
func BenchmarkBeamFEMAddDForce10kElements(b *testing.B) {
	ff, x := benchBeam(b)
	n := len(x) / 7
	f := make([]float64, 6*n)
	ff.AddForce(f, x, nil)
	dx := graphtest.RandomDeriv(rand.New(rand.NewPCG(2, 2)), 6*n, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ff.AddDForce(f, dx, 1, 0)
	}
}
