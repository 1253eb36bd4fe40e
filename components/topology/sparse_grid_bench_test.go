package topology

import (
	"testing"

	"github.com/sofago/sofago/meshio"
)

// BenchmarkSparseGridSphere voxelizes and tetrahedralises the 5040-triangle
// sphere on a 40×40×40-cell grid (n = 41), as a user turning an STL into a
// simulation mesh does: the closedness check, the triangle–cell tests, the
// flood fill and winding numbers, the Kuhn split and the boundary. centre
// also evaluates the winding number at every crossing cell's centre
// (≈ 7,000 sums over the 5040 triangles), on all cores.
func BenchmarkSparseGridSphere(b *testing.B) {
	sphere, err := meshio.SphereSurface(1, 72, 36)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"intersecting", "inside", "centre"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				s := &SparseGridTopology{N: [3]int{41, 41, 41}, FillMode: mode}
				if err := s.Build(sphere); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWindingNumber is one generalized winding-number evaluation
// against the 5040-triangle sphere.
func BenchmarkWindingNumber(b *testing.B) {
	sphere, err := meshio.SphereSurface(1, 72, 36)
	if err != nil {
		b.Fatal(err)
	}
	w := meshio.NewWinding(sphere)
	q := [3]float64{0.1, 0.2, 0.3}
	sum := 0.0
	for b.Loop() {
		sum += w.At(q)
	}
	_ = sum
}

// BenchmarkWindingFast is one hierarchical (Barill et al.) evaluation
// against the same sphere, at a point 0.1 inside the surface.
func BenchmarkWindingFast(b *testing.B) {
	sphere, err := meshio.SphereSurface(1, 72, 36)
	if err != nil {
		b.Fatal(err)
	}
	w := meshio.NewWinding(sphere)
	q := [3]float64{0.9, 0, 0}
	sum := 0.0
	for b.Loop() {
		sum += w.Fast(q)
	}
	_ = sum
}
