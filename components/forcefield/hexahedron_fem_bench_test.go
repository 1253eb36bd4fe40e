package forcefield

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sofago/sofago/geom"
)

// The hexahedral benchmark mesh: 20 × 20 × 25 cells of 0.1 m, 10,000
// hexahedra (80,000 Gauss points) and 11,466 vertices, at the rest shape
// with random displacements of ±2% of a cell, rotated as a whole. Run
// with -cpu 1,2 to see one core and two (the element loop uses all of
// GOMAXPROCS; results are bitwise the same):
//
//	go test -run '^$' -bench 'Hexahedron' -cpu 1,2 ./components/forcefield/
func newHexBench(b *testing.B, typ, fields string) (hexSetup, []float64, []float64) {
	b.Helper()
	s := loadHex(b, [3]int{21, 21, 26}, [3]float64{2, 2, 2.5}, typ, fields+"\n  youngModulus = 1e6\n  poissonRatio = 0.45")
	rng := rand.New(rand.NewPCG(1, 2))
	x := transform(s.rest, randomDisplacement(rng, len(s.rest), 0.002), randomRotation(rng), geom.Vec3{})
	s.force(x)
	return s, x, randomDisplacement(rng, len(x), 1e-3)
}

func benchHex(b *testing.B, typ, fields string, dforce bool) {
	s, x, dx := newHexBench(b, typ, fields)
	f := make([]float64, len(x))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if dforce {
			s.ff.AddDForce(f, dx, 1, 0)
		} else {
			s.ff.AddForce(f, x, nil)
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/float64(s.ff.NumElements())*1e-3, "µs/hex")
}

// AddForce and AddDForce (one K·dx product of the exact tangent) of 10,000
// hexahedra, for each corotational method and the neo-Hookean law.
func BenchmarkHexahedronFEM10k(b *testing.B) {
	for _, c := range [][2]string{
		{"HexahedronFEMForceField", `method = "small"`},
		{"HexahedronFEMForceField", `method = "large"`},
		{"HexahedronFEMForceField", `method = "polar"`},
		{"HexahedronHyperelasticityFEMForceField", `materialName = "NeoHookean"`},
	} {
		name := c[1][len(`method = "`) : len(c[1])-1]
		if c[0] != "HexahedronFEMForceField" {
			name = "NeoHookean"
		}
		b.Run(fmt.Sprintf("%s/AddForce", name), func(b *testing.B) { benchHex(b, c[0], c[1], false) })
		b.Run(fmt.Sprintf("%s/AddDForce", name), func(b *testing.B) { benchHex(b, c[0], c[1], true) })
	}
}
