package polyfem

import (
	"testing"

	"github.com/sofago/sofago/geom"
)

// Fitting and integrating the shape functions of the cells of a Voronoi
// mesh (jittered body-centred cubic seeds, 4×4×4 lattice cells, 128
// cells), per cell.
func BenchmarkVoronoiFitIntegrate(b *testing.B) {
	lo, hi := geom.Vec3{0, 0, 0}, geom.Vec3{1, 1, 1}
	m, err := Voronoi(JitteredBCC(lo, hi, [3]int{4, 4, 4}, 0.15, 1), lo, hi)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := m.FitElement(i%len(m.Cells), Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	basis, _ := m.FitElement(40, Options{})
	b.Run("integrate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := m.Integrate(40, basis, 2); err != nil {
				b.Fatal(err)
			}
		}
	})
}
