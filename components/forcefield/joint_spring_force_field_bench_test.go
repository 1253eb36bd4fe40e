package forcefield_test

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/components/forcefield"
	"github.com/sofago/sofago/graph"
	"github.com/sofago/sofago/graph/graphtest"
)

// BenchmarkJointSpringAddForce: forces, exact tangent and damping matrix
// of the three springs of jointScene (one with active angle limits), at a
// deformed configuration; per call, so per spring divide by 3.
func BenchmarkJointSpringAddForce(b *testing.B) {
	s := graphtest.MustLoad(b, "joints.toml", jointScene(jointSprings))
	jf := graphtest.Find[*forcefield.JointSpringForceField](b, s, "bodies/joints")
	w := wrapInteraction(jf)
	rng := rand.New(rand.NewPCG(1, 2))
	x := randomRigid(rng, w.concat(graph.RestPosition), 0.75, 0.2)
	v := graphtest.RandomDeriv(rng, 6*len(x)/7, 1)
	fs, xs, vs := w.split(make([]float64, len(v)), 6), w.split(x, 7), w.split(v, 6)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		jf.AddForce(fs, xs, vs)
	}
}

// BenchmarkJointSpringAddDForce: one product with k·K + b·B (what each
// conjugate-gradient iteration asks), three springs.
func BenchmarkJointSpringAddDForce(b *testing.B) {
	s := graphtest.MustLoad(b, "joints.toml", jointScene(jointSprings))
	jf := graphtest.Find[*forcefield.JointSpringForceField](b, s, "bodies/joints")
	w := wrapInteraction(jf)
	rng := rand.New(rand.NewPCG(1, 2))
	x := randomRigid(rng, w.concat(graph.RestPosition), 0.75, 0.2)
	v := graphtest.RandomDeriv(rng, 6*len(x)/7, 1)
	f := make([]float64, len(v))
	w.AddForce(f, x, v)
	dfs, dxs := w.split(make([]float64, len(v)), 6), w.split(graphtest.RandomDeriv(rng, len(v), 1), 6)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		jf.AddDForce(dfs, dxs, -0.01, -0.1)
	}
}
