package forcefield

import (
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
	"github.com/sofago/sofago/graph/graphtest"
)

// AddForce and AddDForce per polyhedron on a Voronoi mesh (jittered
// body-centred cubic seeds, 8 × 4 × 4 lattice cells over 0.8 × 0.4 ×
// 0.4 m: 256 cells of about 13 faces and 21 vertices, with, at the
// default quadrature degree 2, about 240 quadrature points each), corotational and
// neo-Hookean laws. The mesh and its shape functions are built once.
// Run with -cpu 1,2:
//
//	go test -run '^$' -bench PolyhedronFEM -cpu 1,2 ./components/forcefield/
func BenchmarkPolyhedronFEM(b *testing.B) {
	topo := `generator = "voronoi"
  min = [0, 0, 0]
  max = [0.8, 0.4, 0.4]
  n = [8, 4, 4]
  jitter = 0.15`
	text := polyScene(topo, `materialName = "CorotationalLinear"`) + `  [[node.object]]
  type = "PolyhedronFEMForceField"
  name = "neo"
  youngModulus = 1e6
  poissonRatio = 0.3
  materialName = "NeoHookean"
`
	sc := graphtest.MustLoad(b, "poly.toml", text)
	for _, name := range []string{"fem", "neo"} {
		ff := graphtest.Find[*PolyhedronFEMForceField](b, sc, "beam/"+name)
		rest := sc.States()[0].Vec(1)
		rng := rand.New(rand.NewPCG(1, 2))
		x := transform(rest, randomDisplacement(rng, len(rest), 0.002), randomRotation(rng), geom.Vec3{})
		dx := randomDisplacement(rng, len(x), 1e-3)
		f := make([]float64, len(x))
		ff.AddForce(f, x, nil)
		label := map[string]string{"fem": "CorotationalLinear", "neo": "NeoHookean"}[name]
		report := func(b *testing.B) {
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns/float64(ff.NumElements())*1e-3, "µs/polyhedron")
		}
		b.Run(label+"/AddForce", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ff.AddForce(f, x, nil)
			}
			report(b)
		})
		b.Run(label+"/AddDForce", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ff.AddDForce(f, dx, 1, 0)
			}
			report(b)
		})
	}
	b.Logf("%d polyhedra", graphtest.Find[*PolyhedronFEMForceField](b, sc, "beam/fem").NumElements())
}
